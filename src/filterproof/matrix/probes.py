"""The probes: tiny corpora with hand-written answers, one per filter operator the policy needs.

Each probe is a neutral filter (``adapters.filterlang``: ``Cond`` under ``And`` / ``Or``)
over raw metadata, the documents, and the ids the filter must return when everything is
asked for. A test evaluates every filter in Python (``tests/matrix/test_matrix.py``) and checks
it against the hand-written answer, so a probe cannot carry a wrong answer key.

Semantics, stated once: ``eq`` is exact (case and spaces count); ``in`` is "the
scalar field is one of the values" (an empty list admits nothing); ``contains`` and
``contains_any`` look inside a list field; ``lte``/``gt`` compare numbers, or ISO
date strings by date (the probes keep a date as the string the documents hold, as an
application writes it); ``is_empty`` is "absent or null" (no probe holds an empty
list); a missing field fails every other comparison; ``not_all`` negates a conjunction (every probe
document holds both fields, so two- and three-valued logic agree).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or


@dataclass(frozen=True)
class Probe:
    name: str
    description: str
    docs: Mapping[str, Mapping[str, Any]]
    expr: Expr
    expected: frozenset[str]
    readd: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Documents added again, same id, through the framework's add path after the first write
    (LangChain's ``add_documents`` is documented "add or update"); the answer is on the new metadata."""

    def final_docs(self) -> dict[str, Mapping[str, Any]]:
        return {**self.docs, **self.readd}


def _probe(name: str, description: str, docs: dict[str, dict[str, Any]], expr: Expr, *expected: str,
           readd: dict[str, dict[str, Any]] | None = None) -> Probe:
    return Probe(name, description, docs, expr, frozenset(expected), readd or {})


COLORS = {"red": {"color": "red", "n": 1}, "blue": {"color": "blue", "n": 5}, "green": {"color": "green", "n": 7},
          "Red": {"color": "Red", "n": 3}, "red-space": {"color": "red ", "n": 9}, "none": {"n": 2}}
TAGS = {"xy": {"tags": ["x", "y"]}, "y": {"tags": ["y"]}, "z": {"tags": ["z"]}, "joined": {"tags": ["xy"]},
        "untagged": {"other": "x"}}
NUMBERS = {f"n{n}": {"n": n} for n in (1, 2, 3, 5, 8)}
DAYS = {f"d{d[5:]}": {"day": d} for d in ("2026-01-01", "2026-09-07", "2026-09-08", "2026-09-09")}
MISSING = {"set": {"owner": "ana", "k": 1}, "absent": {"k": 1}, "null": {"owner": None, "k": 1}}
NESTED = {"red1": {"color": "red", "n": 1}, "red5": {"color": "red", "n": 5}, "blue7": {"color": "blue", "n": 7},
          "green9": {"color": "green", "n": 9}}
REVOKED = {"doc": {"color": "red", "tier": "secret"}, "other": {"color": "blue"}}
TRICKY = {"dollar-or": {"color": "$or"}, "sql": {"color": "x' OR '1'='1"}, "red": {"color": "red"},
          "dollar-ne": {"color": "$ne"}}

PROBES: tuple[Probe, ...] = (
    _probe("eq", "color == 'red' (exact: not 'Red', not 'red ')", COLORS, Cond("eq", "color", "red"), "red"),
    _probe("in", "color in ['red', 'blue']", COLORS, Cond("in", "color", ("red", "blue")), "red", "blue"),
    _probe("in_empty", "color in [] admits nothing (a principal with no groups)", COLORS, Cond("in", "color", ())),
    _probe("contains", "the list tags contains 'x'", TAGS, Cond("contains", "tags", "x"), "xy"),
    _probe("contains_any", "the list tags contains any of ['x', 'z']", TAGS,
           Cond("contains_any", "tags", ("x", "z")), "xy", "z"),
    _probe("range_number", "2 < n <= 5", NUMBERS, And((Cond("gt", "n", 2), Cond("lte", "n", 5))), "n3", "n5"),
    _probe("range_date", "'2026-01-01' < day <= '2026-09-08' (ISO date strings)", DAYS,
           And((Cond("gt", "day", "2026-01-01"), Cond("lte", "day", "2026-09-08"))), "d09-07", "d09-08"),
    _probe("is_empty", "owner missing or null", MISSING, Cond("is_empty", "owner"), "absent", "null"),
    _probe("and_or", "(color == 'red' OR color == 'blue') AND n > 2", NESTED,
           And((Or((Cond("eq", "color", "red"), Cond("eq", "color", "blue"))), Cond("gt", "n", 2))),
           "red5", "blue7"),
    _probe("not_all", "NOT (color == 'red' AND n > 2): every document but the red one above 2", NESTED,
           Not(And((Cond("eq", "color", "red"), Cond("gt", "n", 2)))), "red1", "blue7", "green9"),
    _probe("or_empty", "n > 0 AND (an OR of no clauses) admits nothing (a principal with no groups)", COLORS,
           And((Cond("gt", "n", 0), Or(())))),
    _probe("null_vs_empty", "owner == '' matches neither a null nor an absent owner", MISSING,
           Cond("eq", "owner", "")),
    _probe("readd", "re-add 'doc' without its 'tier': tier == 'secret' then admits nothing (a revocation)",
           REVOKED, Cond("eq", "tier", "secret"), readd={"doc": {"color": "red"}}),
    _probe("operator_value", "color == '$or' (a value that looks like an operator)", TRICKY,
           Cond("eq", "color", "$or"), "dollar-or"),
    _probe("sql_value", "color == \"x' OR '1'='1\" (a value that looks like SQL)", TRICKY,
           Cond("eq", "color", "x' OR '1'='1"), "sql"),
)
PROBE_NAMES = tuple(p.name for p in PROBES)
