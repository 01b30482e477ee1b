"""The probes: tiny corpora with hand-written answers, one per filter operator the policy needs.

Each probe is a neutral expression (``Cmp`` / ``All`` / ``AnyOf``) over raw metadata,
the documents, and the ids the expression must return when everything is asked
for. ``matches`` evaluates an expression in Python; a test checks that every
hand-written answer agrees with it, so a probe cannot carry a wrong answer key.

Semantics, stated once: ``eq`` is exact (case and spaces count); ``in`` is "the
scalar field is one of the values" (an empty list admits nothing); ``contains`` and
``contains_any`` look inside a list field; ``lte``/``gt`` compare numbers, or ISO
date strings by date; ``is_empty`` is "absent or null"; a missing field fails every
other comparison.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Op = Literal["eq", "in", "contains", "contains_any", "lte", "gt", "is_empty"]


@dataclass(frozen=True)
class Cmp:
    op: Op
    key: str
    value: Any = None


@dataclass(frozen=True)
class All:
    parts: tuple[Expr, ...]


@dataclass(frozen=True)
class AnyOf:
    parts: tuple[Expr, ...]


Expr = Cmp | All | AnyOf


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


def _compare(op: Op, have: Any, want: Any) -> bool:
    if op == "eq":
        return have == want and type(have) is type(want)
    if op == "in":
        return not isinstance(have, list) and have in want
    if op == "contains":
        return isinstance(have, list) and want in have
    if op == "contains_any":
        return isinstance(have, list) and any(w in have for w in want)
    if op in ("lte", "gt"):
        if isinstance(have, bool) or type(have) is not type(want):
            return False
        return have <= want if op == "lte" else have > want
    raise ValueError(f"unknown operator {op!r}")


def matches(expr: Expr, meta: Mapping[str, Any]) -> bool:
    """The probe semantics in Python (the answer key's check)."""
    match expr:
        case Cmp("is_empty", key):
            return meta.get(key) is None
        case Cmp(op, key, value):
            return key in meta and meta[key] is not None and _compare(op, meta[key], value)
        case All(parts):
            return all(matches(p, meta) for p in parts)
        case AnyOf(parts):
            return any(matches(p, meta) for p in parts)
    raise TypeError(f"unknown expression {expr!r}")


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
    _probe("eq", "color == 'red' (exact: not 'Red', not 'red ')", COLORS, Cmp("eq", "color", "red"), "red"),
    _probe("in", "color in ['red', 'blue']", COLORS, Cmp("in", "color", ["red", "blue"]), "red", "blue"),
    _probe("in_empty", "color in [] admits nothing (a principal with no groups)", COLORS, Cmp("in", "color", [])),
    _probe("contains", "the list tags contains 'x'", TAGS, Cmp("contains", "tags", "x"), "xy"),
    _probe("contains_any", "the list tags contains any of ['x', 'z']", TAGS,
           Cmp("contains_any", "tags", ["x", "z"]), "xy", "z"),
    _probe("range_number", "2 < n <= 5", NUMBERS, All((Cmp("gt", "n", 2), Cmp("lte", "n", 5))), "n3", "n5"),
    _probe("range_date", "'2026-01-01' < day <= '2026-09-08' (ISO date strings)", DAYS,
           All((Cmp("gt", "day", "2026-01-01"), Cmp("lte", "day", "2026-09-08"))), "d09-07", "d09-08"),
    _probe("is_empty", "owner missing or null", MISSING, Cmp("is_empty", "owner"), "absent", "null"),
    _probe("and_or", "(color == 'red' OR color == 'blue') AND n > 2", NESTED,
           All((AnyOf((Cmp("eq", "color", "red"), Cmp("eq", "color", "blue"))), Cmp("gt", "n", 2))),
           "red5", "blue7"),
    _probe("or_empty", "n > 0 AND (an OR of no clauses) admits nothing (a principal with no groups)", COLORS,
           All((Cmp("gt", "n", 0), AnyOf(())))),
    _probe("null_vs_empty", "owner == '' matches neither a null nor an absent owner", MISSING,
           Cmp("eq", "owner", "")),
    _probe("readd", "re-add 'doc' without its 'tier': tier == 'secret' then admits nothing (a revocation)",
           REVOKED, Cmp("eq", "tier", "secret"), readd={"doc": {"color": "red"}}),
    _probe("operator_value", "color == '$or' (a value that looks like an operator)", TRICKY,
           Cmp("eq", "color", "$or"), "dollar-or"),
    _probe("sql_value", "color == \"x' OR '1'='1\" (a value that looks like SQL)", TRICKY,
           Cmp("eq", "color", "x' OR '1'='1"), "sql"),
)
PROBE_NAMES = tuple(p.name for p in PROBES)
