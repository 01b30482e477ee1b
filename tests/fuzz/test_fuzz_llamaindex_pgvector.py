"""The ``llamaindex-pgvector`` fuzz target: the neutral language as LlamaIndex ``MetadataFilters``, turned into SQL by
llama-index-vector-stores-postgres's ``PGVectorStore``; a seeded run in which every finding is one of five recorded
ones, each replayed as a strict xfail; the reproducers run with LlamaIndex and a PostgreSQL server alone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from support.fuzz_known import LI_FILTER, Known, known_cases, li_filters, recorded_only, still_fails
from support.paths import ROOT
from support.reproducers import Result, run_scripts, selected

pytest.importorskip("llama_index.vector_stores.postgres")

from filterproof.adapters import filterlang
from filterproof.adapters.filterlang import And, Cond, Not, Or, Unsupported
from filterproof.fuzz.oracles import conditions
from filterproof.fuzz.run import Finding
from filterproof.fuzz.targets.llamaindex_pgvector import LlamaIndexPgvector, pg_metadata_filters

COMPARED = ("eq", "ne", "gt", "gte", "lt", "lte")


@pytest.fixture(scope="module")
def target() -> Iterator[LlamaIndexPgvector]:
    opened = LlamaIndexPgvector()
    yield opened
    opened.close()


@pytest.mark.parametrize(("expr", "native"), [
    (Cond("eq", "s", "a"), li_filters([LI_FILTER.format("s", "EQ", "a")])),
    (Cond("eq", "d", date(2026, 9, 8)), li_filters([LI_FILTER.format("d", "EQ", "2026-09-08")])),
    (Not(Cond("gt", "x", 0.5)), li_filters([LI_FILTER.format("x", "LTE", 0.5)])),
    (Not(And((Cond("eq", "s", "a"), Cond("in", "n", (1, 2))))),
     li_filters([LI_FILTER.format("s", "NE", "a"), LI_FILTER.format("n", "NIN", [1, 2])], "OR")),
    (Cond("contains", "nums", 7), li_filters([LI_FILTER.format("nums", "CONTAINS", 7)])),
    (Cond("contains_any", "tags", ("a", "b")), li_filters([LI_FILTER.format("tags", "ANY", ["a", "b"])])),
    (Cond("contains_any", "nums", (1, 2)),
     li_filters([LI_FILTER.format("nums", "CONTAINS", 1), LI_FILTER.format("nums", "CONTAINS", 2)], "OR")),
    (Cond("is_empty", "tags"), li_filters([LI_FILTER.format("tags", "IS_EMPTY", None)])),
])
def test_renderings(expr: filterlang.Expr, native: str) -> None:
    assert pg_metadata_filters(expr) == native


@pytest.mark.parametrize("expr", [
    Cond("is_null", "s"), Cond("exists", "s"), Not(Cond("contains", "tags", "a")), Not(Cond("is_empty", "s")),
    Cond("eq", "b", True), Cond("in", "n", (1, "a")), Cond("in", "n", ()), Cond("gt", "s", "a"), Or(()),
])
def test_what_the_integration_cannot_say_is_unsupported(expr: filterlang.Expr) -> None:
    with pytest.raises(Unsupported, match=r"^llamaindex-pgvector: "):
        pg_metadata_filters(expr)


def test_the_translation_keeps_the_meaning_on_a_plain_world(target: LlamaIndexPgvector) -> None:
    """On text, small integers, floats and text lists (what the integration gets right), through both vias."""
    docs = {"d0": {"s": "a", "n": 1, "x": 0.5, "tags": ["a", "b"], "d": "2026-09-08"},
            "d1": {"s": "b", "n": 2, "x": 1.5, "tags": ["c"], "d": "2026-09-09"}, "d2": {"tags": None}}
    target.world(docs)
    cases = {Cond("eq", "s", "a"): {"d0"}, Cond("ne", "s", "a"): {"d1"}, Cond("in", "n", (2, 3)): {"d1"},
             Cond("nin", "n", (2, 3)): {"d0"}, Cond("gte", "x", 1.5): {"d1"}, Not(Cond("lt", "n", 2)): {"d1"},
             Cond("contains", "tags", "c"): {"d1"}, Cond("contains_any", "tags", ("b", "z")): {"d0"},
             Cond("is_empty", "tags"): {"d2"}, Cond("gt", "d", date(2026, 9, 8)): {"d1"},
             Or((Cond("eq", "n", 1), Cond("eq", "s", "b"))): {"d0", "d1"}}
    for expr, expected in cases.items():
        for via in target.vias:
            assert target.ask(target.render(expr), via) == expected, f"{filterlang.show(expr)} via {via}"


def _texts(f: Finding) -> list[tuple[str, str]]:
    return [(c.op, v) for c in conditions(f.expr) for v in (c.value if isinstance(c.value, tuple) else (c.value,))
            if isinstance(v, str)]


def _pasted(f: Finding) -> bool:
    return any(any(ch in v for ch in "'\\:") or ('"' in v and op.startswith("contains")) for op, v in _texts(f))


def _parses_as_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _float_cast(f: Finding) -> bool:
    bare_word = "UndefinedColumn" in f.error and ('"nan"' in f.error or '"inf"' in f.error)
    return "for type double precision" in f.error or bare_word or any(
        op in COMPARED and _parses_as_float(v) for op, v in _texts(f))


def _contains_number(f: Finding) -> bool:
    return any(c.op.startswith("contains") and any(isinstance(v, int) and not isinstance(v, bool) for v in (
        c.value if isinstance(c.value, tuple) else (c.value,))) for c in conditions(f.expr))


def _is_empty_list(f: Finding) -> bool:
    return any(c.op == "is_empty" and any(d.get(c.key) == [] for d in f.docs.values()) for c in conditions(f.expr))


def _past_2_53(f: Finding) -> bool:
    held = [v for d in f.docs.values() for v in d.values()] + [c.value for c in conditions(f.expr)]
    return any(c.op in COMPARED for c in conditions(f.expr)) and any(
        isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**53 for v in held)


REPRO = "bench/repro/fuzz_llamaindex_pgvector_{}.py"
KNOWN = [
    Known("llamaindex_pgvector_pasted_text", frozenset({"llamaindex-pgvector"}),
          "finding: llama-index-vector-stores-postgres 0.9.0 pastes filter values into the SQL text unescaped: a "
          "quote or backslash breaks the query, ' OR '1'='1 selects every row, :name is a bind parameter "
          f"(finding 7; {REPRO.format('pasted_text')})", _pasted),
    Known("llamaindex_pgvector_float_cast", frozenset({"llamaindex-pgvector"}),
          "finding: llama-index-vector-stores-postgres 0.9.0 casts the field's text to float for any value float() "
          "reads: one document whose field is not a number fails every such query; NaN/Infinity are pasted as "
          f"bare words; '007' equals '7' ({REPRO.format('float_cast')})", _float_cast),
    Known("llamaindex_pgvector_contains_number", frozenset({"llamaindex-pgvector"}),
          "finding: llama-index-vector-stores-postgres 0.9.0 writes CONTAINS's value as a JSON string (@> "
          "'[\"7\"]'): a number, which LlamaIndex documents, never matches "
          f"({REPRO.format('contains_number')})", _contains_number),
    Known("llamaindex_pgvector_is_empty_list", frozenset({"llamaindex-pgvector"}),
          "finding: llama-index-vector-stores-postgres 0.9.0 writes IS_EMPTY as ->> IS NULL: an empty list, which "
          f"LlamaIndex documents as empty, is not selected ({REPRO.format('is_empty_list')})", _is_empty_list),
    Known("llamaindex_pgvector_past_2_53", frozenset({"llamaindex-pgvector"}),
          "finding: llama-index-vector-stores-postgres 0.9.0 compares integers as doubles: n == 2^53 selects "
          f"n = 2^53 + 1 ({REPRO.format('past_2_53')})", _past_2_53),
]


@pytest.mark.slow  # about 16 s: a seeded run through the framework (the slow set)
def test_a_seeded_run_finds_only_recorded_findings(target: LlamaIndexPgvector) -> None:
    """Measured: seed 3 at 1,500 cases meets all five (8 s); seeds 1 and 2 the same classes and no other."""
    assert recorded_only(target, 3, 1500, KNOWN) == {k.name for k in KNOWN}


@pytest.mark.parametrize("path", known_cases(KNOWN))
def test_a_known_finding_still_holds_on_the_installed_release(path: Path) -> None:
    """Each recorded finding's minimal world: fails now (the xfail); a fixed release makes it pass (XPASS, red)."""
    still_fails(path)


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=KNOWN[0].reason)
def test_a_quoted_value_does_not_widen_the_filter(target: LlamaIndexPgvector) -> None:
    """The security case of the pasted text: a tenant value from a request, ``' OR '1'='1``, selects every tenant."""
    target.world({"acme": {"s": "acme"}, "globex": {"s": "globex"}})
    assert target.ask(target.render(Cond("eq", "s", "' OR '1'='1"))) == set()


@pytest.fixture(scope="module")
def reproduced(request: pytest.FixtureRequest) -> dict[str, Result]:
    """The selected reproducers below, in one interpreter (``support.reproducers``): each alone, 6 to 10 s."""
    from filterproof.adapters.bridges.pgvector import sqlalchemy_url
    from filterproof.servers.postgres import shared_server

    names = selected(request, "test_the_reproducer_runs_alone", "name")
    return run_scripts({name: ROOT / REPRO.format(name) for name in names},
                       env={"PGVECTOR_URL": sqlalchemy_url(shared_server().dsn, "psycopg2")})


@pytest.mark.slow  # a standalone reproducer in a child interpreter (its in-process replay stays quick)
@pytest.mark.parametrize("name", ["pasted_text", "float_cast", "contains_number", "is_empty_list", "past_2_53"])
def test_the_reproducer_runs_alone(name: str, reproduced: dict[str, Result]) -> None:
    done = reproduced[name]
    assert done.returncode == 1 and ("VIOLATED" in done.stdout or "Error" in done.stderr), done.output
    assert done.filterproof is False, done.output
    assert "filterproof" not in (ROOT / REPRO.format(name)).read_text().split('"""', 2)[2]
