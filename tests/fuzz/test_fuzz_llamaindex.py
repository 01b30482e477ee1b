"""The ``llamaindex-qdrant`` fuzz target: the neutral language as LlamaIndex ``MetadataFilters``, translated by
llama-index-vector-stores-qdrant's own code; a seeded run in which every finding is a recorded one, replayed as a
strict xfail; a reproducer that runs with LlamaIndex and qdrant-client alone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from support.fuzz_known import LI_FILTER, Known, known_cases, li_filters, still_fails, unexplained
from support.paths import ROOT
from support.reproducers import run_scripts

pytest.importorskip("llama_index.vector_stores.qdrant")

from filterproof.adapters import filterlang
from filterproof.adapters.filterlang import And, Cond, Not, Or, Unsupported
from filterproof.fuzz.run import Finding, fuzz
from filterproof.fuzz.targets.llamaindex import LlamaIndexQdrant, metadata_filters


@pytest.fixture(scope="module")
def target() -> Iterator[LlamaIndexQdrant]:
    opened = LlamaIndexQdrant()
    yield opened
    opened.close()


@pytest.mark.parametrize(("expr", "native"), [
    (Cond("eq", "s", "it's"), li_filters([LI_FILTER.format("s", "EQ", "it's")])),
    (Cond("nin", "n", (1, 2)), li_filters([LI_FILTER.format("n", "NIN", [1, 2])])),
    (Cond("contains", "tags", "a"), li_filters([LI_FILTER.format("tags", "EQ", "a")])),
    (Cond("contains_any", "nums", (3,)), li_filters([LI_FILTER.format("nums", "IN", [3])])),
    (Cond("is_empty", "tags"), li_filters([LI_FILTER.format("tags", "IS_EMPTY", None)])),
    (Not(Cond("gt", "x", 0.5)), li_filters([LI_FILTER.format("x", "GT", 0.5)], "NOT")),
    (Or((Cond("eq", "n", 1), And((Cond("lte", "n", 3),)))),
     li_filters([LI_FILTER.format("n", "EQ", 1), li_filters([LI_FILTER.format("n", "LTE", 3)])], "OR")),
])
def test_renderings(expr: filterlang.Expr, native: str) -> None:
    assert metadata_filters(expr) == native


@pytest.mark.parametrize("expr", [
    Cond("is_null", "s"), Cond("exists", "s"), Cond("eq", "b", True), Cond("in", "n", (1, "a")),
    Cond("gt", "d", date(2026, 1, 1)),
    Cond("gt", "s", "a"), Cond("contains", "s", "a"), And(()), Or(()),
])
def test_what_the_integration_cannot_say_is_unsupported(expr: filterlang.Expr) -> None:
    with pytest.raises(Unsupported, match=r"^llamaindex-qdrant: "):
        metadata_filters(expr)


def test_the_translation_keeps_the_meaning_on_a_plain_world(target: LlamaIndexQdrant) -> None:
    """Every operator the integration supports, on defined values, selects what the neutral evaluator does."""
    docs = {"d0": {"s": "a", "n": 1, "x": 0.5, "tags": ["a", "b"]}, "d1": {"s": "b", "n": 2, "x": 1.5, "tags": []}}
    target.world(docs)
    cases = {Cond("eq", "s", "a"): {"d0"}, Cond("ne", "s", "a"): {"d1"}, Cond("in", "n", (2, 3)): {"d1"},
             Cond("nin", "n", (2, 3)): {"d0"}, Cond("gte", "x", 1.5): {"d1"}, Cond("lt", "n", 2): {"d0"},
             Cond("contains", "tags", "b"): {"d0"}, Cond("is_empty", "tags"): {"d1"},
             Not(Cond("eq", "s", "a")): {"d1"}, Or((Cond("eq", "n", 1), Cond("eq", "n", 2))): {"d0", "d1"}}
    for expr, expected in cases.items():
        assert target.ask(target.render(expr)) == expected, filterlang.show(expr)


def _float_to_match(f: Finding) -> bool:
    return "validation error" in f.error and ("MatchExcept" in f.error or "MatchAny" in f.error) \
        and "input_type=float" in f.error


KNOWN = [
    Known("llamaindex_qdrant_float", frozenset({"llamaindex-qdrant"}),
          "finding: llama-index-vector-stores-qdrant 0.10.4 hands a float value of NE, IN or NIN to Qdrant's "
          "MatchExcept/MatchAny, which refuse it (a pydantic ValidationError), while EQ with a float is rendered "
          "as a Range (bench/repro/fuzz_llamaindex_qdrant_float.py)", _float_to_match),
]


@pytest.mark.slow  # a seeded fuzz run through a framework or across engines: the slow set
def test_a_seeded_run_finds_only_recorded_findings(target: LlamaIndexQdrant) -> None:
    outcome = fuzz([target], seed=4, budget_s=60, max_cases=1500, shrink_s=1)
    assert outcome.cases == 1500
    assert {key.split(" ", 1)[1] for key in outcome.checked} >= {"partition", "double_negation", "de_morgan",
                                                                  "reorder", "conjunct", "reference"}
    unknown = unexplained(outcome.findings, KNOWN)
    assert not unknown, "\n".join(unknown)


@pytest.mark.parametrize("path", known_cases(KNOWN))
def test_a_known_finding_still_holds_on_the_installed_release(path: Path) -> None:
    """Each recorded finding's minimal world: fails now (the xfail); a fixed release makes it pass (XPASS, red)."""
    still_fails(path)


@pytest.mark.slow  # a standalone reproducer in a child interpreter (its in-process replay stays quick)
def test_the_reproducer_runs_alone() -> None:
    done = run_scripts({"float": ROOT / "bench/repro/fuzz_llamaindex_qdrant_float.py"})["float"]
    assert done.returncode == 1 and "validation errors for MatchExcept" in done.stderr, done.output
    assert done.filterproof is False, done.output
