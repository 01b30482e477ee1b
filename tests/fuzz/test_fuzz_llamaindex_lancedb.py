"""The ``llamaindex-lancedb`` fuzz target: the neutral language as one level of LlamaIndex ``MetadataFilters``, turned
into a LanceDB ``WHERE`` by llama-index-vector-stores-lancedb; a seeded run in which every finding is a recorded one,
each replayed as a strict xfail; the reproducers run with LlamaIndex and LanceDB alone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from support.fuzz_known import LI_FILTER, Known, known_cases, li_filters, recorded_only, still_fails
from support.paths import ROOT
from support.reproducers import Result, run_scripts, selected

pytest.importorskip("llama_index.vector_stores.lancedb")

from filterproof.adapters import filterlang
from filterproof.adapters.filterlang import And, Cond, Not, Or, Unsupported
from filterproof.fuzz.oracles import conditions
from filterproof.fuzz.run import Finding
from filterproof.fuzz.targets.llamaindex_lancedb import LlamaIndexLanceDB, lance_metadata_filters


@pytest.fixture(scope="module")
def target() -> Iterator[LlamaIndexLanceDB]:
    opened = LlamaIndexLanceDB()
    yield opened
    opened.close()


@pytest.mark.parametrize(("expr", "native"), [
    (Cond("eq", "s", "a"), li_filters([LI_FILTER.format("s", "EQ", "a")])),
    (Not(And((Cond("lt", "n", 3), Cond("eq", "t", "a")))),
     li_filters([LI_FILTER.format("n", "GTE", 3), LI_FILTER.format("t", "NE", "a")], "OR")),
    (Or((Cond("in", "n", (1, 2)),)), li_filters([LI_FILTER.format("n", "IN", [1, 2])], "OR")),
])
def test_renderings(expr: filterlang.Expr, native: str) -> None:
    assert lance_metadata_filters(expr) == native


@pytest.mark.parametrize("expr", [
    Cond("nin", "n", (1,)), Not(Cond("in", "n", (1,))), Cond("is_null", "s"), Cond("eq", "b", True),
    Or((Cond("eq", "s", "a"), And((Cond("eq", "t", "a"), Cond("eq", "n", 1))))), And(()),
])
def test_what_the_integration_cannot_say_is_unsupported(expr: filterlang.Expr) -> None:
    with pytest.raises(Unsupported, match=r"^llamaindex-lancedb: "):
        lance_metadata_filters(expr)


def test_the_translation_keeps_the_meaning_on_a_plain_world(target: LlamaIndexLanceDB) -> None:
    """Every key in the first document, plain values: what the integration gets right (NE aside)."""
    docs = {"d0": {"s": "a", "n": 1, "x": 0.5}, "d1": {"s": "b", "n": 2, "x": 1.5}}
    target.world(docs)
    cases = {Cond("eq", "s", "a"): {"d0"}, Cond("in", "n", (2, 3)): {"d1"}, Cond("gte", "x", 1.5): {"d1"},
             Not(Cond("gte", "x", 1.5)): {"d0"}, Cond("lt", "n", 2): {"d0"},
             Or((Cond("eq", "n", 1), Cond("eq", "s", "b"))): {"d0", "d1"}, Cond("ne", "s", "a"): {"d1"}}
    for expr, expected in cases.items():
        assert target.ask(target.render(expr)) == expected, filterlang.show(expr)


def _unknown_key(f: Finding) -> bool:
    return "No field named" in f.error


def _pasted(f: Finding) -> bool:
    return "Unterminated string literal" in f.error or "invalid SQL predicate" in f.error


def _ne_as_like(f: Finding) -> bool:
    compared = any(c.op in ("eq", "ne") for c in conditions(f.expr))
    return "in LIKE expression" in f.error or (not f.error and compared)


def _literal_type(f: Finding) -> bool:
    """Refused when planned (``s == 1.5`` on an integer key) or when an IN list is cast to the column's type as it
    runs (``s in [3.0]`` on a text key: "Cast error: Cannot cast string ... to value of Float64")."""
    return "and could not convert to literal of type" in f.error or "Cast error: Cannot cast" in f.error


REPRO = "bench/repro/fuzz_llamaindex_lancedb_{}.py"
KNOWN = [
    Known("llamaindex_lancedb_unknown_key", frozenset({"llamaindex-lancedb"}),
          "finding: llama-index-vector-stores-lancedb 0.6.0 prefixes a key with metadata. only when the first node "
          "added had it, and a key no node has is no field: either way the query fails (No field named k) instead of "
          f"selecting nothing ({REPRO.format('unknown_key')})", _unknown_key),
    Known("llamaindex_lancedb_pasted_text", frozenset({"llamaindex-lancedb"}),
          "finding: llama-index-vector-stores-lancedb 0.6.0 writes the text of EQ, NE and the ranges as 'v' "
          f"unescaped: a quote breaks the query ({REPRO.format('pasted_text')})", _pasted),
    Known("llamaindex_lancedb_ne_as_like", frozenset({"llamaindex-lancedb"}),
          "finding: llama-index-vector-stores-lancedb 0.6.0 writes NE as NOT LIKE '%v%': s != '' selects nothing, "
          f"s != 'a' drops 'ab', and on a number or a bool it fails the query ({REPRO.format('ne_as_like')})",
          _ne_as_like),
    Known("llamaindex_lancedb_literal_type", frozenset({"llamaindex-lancedb"}),
          "finding: LanceDB 0.40 refuses a literal of another type than the column's (a float against an integer key, "
          "text against a bool, anything against a key null on every node of a batch: a column of type null), which "
          "llama-index-vector-stores-lancedb 0.6.0 passes on unchanged: the query fails "
          f"({REPRO.format('null_column')})", _literal_type),
]
WITH_WORLDS = KNOWN[:3]
"""The findings with a minimal world written by the fuzzer (a column of type null shrinks into the unknown key;
its test below is written by hand)."""


@pytest.mark.slow  # a seeded fuzz run through a framework or across engines: the slow set
def test_seeded_runs_find_only_recorded_findings(target: LlamaIndexLanceDB) -> None:
    """Measured, the generator asking only the operators the integration maps (``Allows.ops``): seeds 1 to 8 at 800
    cases (1,160-1,290 relations judged, 11-15 s each; seed 1's first 200 judge 300, against 116 asking every
    operator) meet no finding outside the four; seed 2 at 400 meets all four (6 s)."""
    assert {k.name for k in WITH_WORLDS} <= recorded_only(target, 2, 400, KNOWN)


@pytest.mark.parametrize("path", known_cases(WITH_WORLDS))
def test_a_known_finding_still_holds_on_the_installed_release(path: Path) -> None:
    """Each recorded finding's minimal world: fails now (the xfail); a fixed release makes it pass (XPASS, red)."""
    still_fails(path)


@pytest.mark.xfail(strict=True, raises=Warning, reason="finding: llama-index-vector-stores-lancedb 0.6.0 raises "
                   "Warning('query results are empty..') when a filter selects nothing, instead of returning no node "
                   f"({REPRO.format('empty_raises')})")
def test_a_filter_that_selects_nothing_returns_no_node(target: LlamaIndexLanceDB) -> None:
    from llama_index.core.vector_stores.types import VectorStoreQuery

    target.world({"acme": {"s": "acme"}})
    query = VectorStoreQuery(query_embedding=[1.0, 0.0], similarity_top_k=1,
                             filters=target.native(target.render(Cond("eq", "s", "globex"))))
    assert target.store.query(query).ids == []


@pytest.mark.xfail(strict=True, raises=ValueError, reason=KNOWN[3].reason)
def test_a_key_null_on_every_node_can_be_compared(target: LlamaIndexLanceDB) -> None:
    """An open-ended window: ``d`` null on every node; ``d == x`` must select nothing, not fail."""
    target.world({"d0": {"s": "a", "d": None}, "d1": {"s": "b", "d": None}})
    assert target.ask(target.render(Cond("eq", "d", "2026-09-08"))) == set()


@pytest.mark.xfail(strict=True, raises=ValueError, reason=KNOWN[0].reason)
def test_a_key_the_first_node_lacks_is_still_a_metadata_key(target: LlamaIndexLanceDB) -> None:
    """The second form of the unknown key: a later node has it, the filter names a column that does not exist."""
    target.world({"d0": {"t": "a"}, "d1": {"s": "a", "t": "b"}})
    assert target.ask(target.render(Cond("eq", "s", "a"))) == {"d1"}


@pytest.fixture(scope="module")
def reproduced(request: pytest.FixtureRequest) -> dict[str, Result]:
    """The selected reproducers below, in one interpreter (``support.reproducers``): each alone, 6 to 14 s."""
    names = selected(request, "test_the_reproducer_runs_alone", "name")
    return run_scripts({name: ROOT / REPRO.format(name) for name in names})


@pytest.mark.slow  # a standalone reproducer in a child interpreter (its in-process replay stays quick)
@pytest.mark.parametrize("name", ["unknown_key", "pasted_text", "ne_as_like", "empty_raises", "null_column"])
def test_the_reproducer_runs_alone(name: str, reproduced: dict[str, Result]) -> None:
    done = reproduced[name]
    assert done.returncode == 1 and ("VIOLATED" in done.stdout or "Error" in done.stderr
                                     or "Warning" in done.stderr), done.output
    assert done.filterproof is False, done.output
    assert "filterproof" not in (ROOT / REPRO.format(name)).read_text().split('"""', 2)[2]
