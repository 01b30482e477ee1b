"""The ``llamaindex-chroma`` fuzz target: the neutral language as LlamaIndex ``MetadataFilters``, translated into a
Chroma ``where`` by llama-index-vector-stores-chroma's own code; what its storage does to a null; a seeded run that
finds nothing unrecorded; a reproducer that runs with LlamaIndex and chromadb alone."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

pytest.importorskip("llama_index.vector_stores.chroma")

from filterproof.adapters import filterlang
from filterproof.adapters.filterlang import And, Cond, Not, Or, Unsupported
from filterproof.fuzz.oracles import ORACLES, Ask, Relation, partition
from filterproof.fuzz.repro import write
from filterproof.fuzz.run import Finding, fuzz
from filterproof.fuzz.targets.llamaindex_chroma import LlamaIndexChroma, chroma_metadata_filters
from support.fuzz_known import CHROMA_INT_FLOAT_BOUND, LI_FILTER, li_filters, unexplained


@pytest.fixture(scope="module")
def target() -> Iterator[LlamaIndexChroma]:
    opened = LlamaIndexChroma()
    yield opened
    opened.close()


@pytest.mark.parametrize(("expr", "native"), [
    (Cond("eq", "s", "it's"), li_filters([LI_FILTER.format("s", "EQ", "it's")])),
    (Cond("nin", "n", (1, 2)), li_filters([LI_FILTER.format("n", "NIN", [1, 2])])),
    (Not(Cond("gt", "x", 0.5)), li_filters([LI_FILTER.format("x", "LTE", 0.5)])),
    (Not(Or((Cond("eq", "s", "a"), Cond("in", "n", (1,))))),
     li_filters([LI_FILTER.format("s", "NE", "a"), LI_FILTER.format("n", "NIN", [1])])),
    (Not(Not(Cond("lt", "n", 3))), li_filters([LI_FILTER.format("n", "LT", 3)])),
    (Or((Cond("eq", "n", 1), And((Cond("lte", "n", 3),)))),
     li_filters([LI_FILTER.format("n", "EQ", 1), li_filters([LI_FILTER.format("n", "LTE", 3)])], "OR")),
])
def test_renderings_push_negation_to_the_leaves(expr: filterlang.Expr, native: str) -> None:
    """The integration raises on the condition NOT: each leaf is swapped for its opposite, De Morgan for AND/OR."""
    assert chroma_metadata_filters(expr) == native


@pytest.mark.parametrize("expr", [
    Cond("is_null", "s"), Cond("exists", "s"), Cond("is_empty", "s"), Cond("contains", "tags", "a"),
    Cond("contains_any", "nums", (1,)), Cond("eq", "b", True), Cond("in", "n", (1, "a")), Cond("in", "n", ()),
    Cond("gt", "d", date(2026, 1, 1)), Cond("gt", "s", "a"), And(()), Not(Or(())),
])
def test_what_the_integration_cannot_say_is_unsupported(expr: filterlang.Expr) -> None:
    with pytest.raises(Unsupported, match=r"^llamaindex-chroma: "):
        chroma_metadata_filters(expr)


def test_the_translation_keeps_the_meaning_and_a_null_is_stored_as_empty_text(target: LlamaIndexChroma) -> None:
    """Every operator, through every via, selects what the neutral evaluator does on defined values; a null was
    written as ``""`` by the integration's ``add``, so EQ "" selects it (Chroma itself refuses a null)."""
    docs = {"d0": {"s": "a", "n": 1, "x": 0.5, "b": True}, "d1": {"s": "b", "n": 2, "x": 1.5}, "d2": {"s": None},
            "d3": {}}
    target.world(docs)
    cases = {Cond("eq", "s", "a"): {"d0"}, Cond("ne", "s", "a"): {"d1", "d2", "d3"}, Cond("in", "n", (2, 3)): {"d1"},
             Cond("gte", "x", 1.5): {"d1"}, Not(Cond("gte", "x", 1.5)): {"d0"}, Cond("lt", "n", 2): {"d0"},
             Or((Cond("eq", "n", 1), Cond("eq", "n", 2))): {"d0", "d1"}, Cond("eq", "s", ""): {"d2"},
             Not(And((Cond("eq", "n", 1), Cond("eq", "s", "a")))): {"d1", "d2", "d3"}}
    for expr, expected in cases.items():
        for via in target.vias:
            assert target.ask(target.render(expr), via) == expected, f"{filterlang.show(expr)} via {via}"


@pytest.mark.slow  # a seeded fuzz run through a framework or across engines: the slow set
def test_a_seeded_run_finds_only_recorded_findings(target: LlamaIndexChroma) -> None:
    """Measured: llama-index-vector-stores-chroma 0.6.0 over chromadb 1.5.9 gave no finding in 10,000 cases
    (seeds 1 to 5, 2,000 each), asking every operator, and again asking only the eight it maps (``Allows.ops``:
    3,760-4,070 relations judged per 2,000, 14-19 s; seed 1's first 200 cases judge 401, against 154 before);
    the one engine bug it can reach is the ``chroma`` target's, recorded there."""
    outcome = fuzz([target], seed=5, budget_s=60, max_cases=600, shrink_s=1)
    assert outcome.cases == 600
    judged = {key.split(" ", 1)[1] for key in outcome.checked}
    assert judged == set(ORACLES) - {"differential", "index", "optimize", "spelling"}, outcome.checked
    unknown = unexplained(outcome.findings, [CHROMA_INT_FLOAT_BOUND])
    assert not unknown, "\n".join(unknown)


@pytest.mark.xfail(strict=True, reason=CHROMA_INT_FLOAT_BOUND.reason)
def test_the_engines_int_float_bound_reaches_llamaindex(target: LlamaIndexChroma) -> None:
    """The integration passes a float bound through unchanged, so Chroma's #7491 is what a LlamaIndex user gets."""
    target.world({"d0": {"x": 0}, "d1": {"x": 1.5}})
    assert target.ask(target.render(Cond("lt", "x", 0.5))) == {"d0"}


@pytest.mark.slow  # a standalone reproducer in a child interpreter (its in-process replay stays quick)
def test_a_reproducer_runs_alone(target: LlamaIndexChroma, tmp_path: Path) -> None:
    """No finding to reproduce: one relation that holds (exit 0) and one deliberately broken (exit 1), through
    every via, with a null, a NUL and a value of another kind in the world."""
    docs = {"d0": {"s": "a\x00b", "n": 7, "x": -0.0}, "d1": {"s": None, "n": "7", "b": False}, "d2": {"x": 1e300}}
    p = Or((Cond("eq", "s", "a\x00b"), Cond("lte", "n", 7)))
    target.world(docs)
    holds = partition(p, docs, target)
    asks = tuple(Ask(f"P via {via}", p, via) for via in target.vias)
    broken = Relation("paths", (*asks, Ask("NOT P", Not(p))), "answers['P via search'] == answers['NOT P']")
    for number, relation in enumerate((holds, broken), 1):
        answers = {a.label: target.answer(target.render(a.expr), a.via, a.indexed) for a in relation.asks}
        finding = Finding(("llamaindex-chroma",), relation.oracle, "test", docs, p, relation,
                          {k: sorted(v) for k, v in answers.items()})
        # An interpreter each, not one for both (support.reproducers): the script creates "fuzz" in
        # chromadb.EphemeralClient(), which is one per process, so the second would fail on "Collection [fuzz]
        # already exists".
        done = subprocess.run([sys.executable, str(write(finding, [target], tmp_path, number))],
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == number - 1, done.stdout + done.stderr
        assert number == 1 or "P via get: ['d0']" in done.stdout, done.stdout
    assert "filterproof" not in (tmp_path / "finding-1.py").read_text().split('"""', 2)[2]


class WritesLteAsLt(LlamaIndexChroma):
    """A seeded translation bug: LTE written as LT (so NOT x > v, which is x <= v, loses the x = v documents)."""

    name = "llamaindex-chroma-lte-as-lt"

    def render(self, expr: filterlang.Expr, spelling: int = 0) -> str:
        return super().render(expr, spelling).replace("FilterOperator.LTE", "FilterOperator.LT")


@pytest.mark.slow  # a seeded fuzz run through a framework or across engines: the slow set
def test_a_seeded_translation_bug_is_found() -> None:
    """The oracles reach this target's translation: the reference oracle names the seeded bug, shrunk."""
    defective = WritesLteAsLt()
    try:
        outcome = fuzz([defective], seed=5, budget_s=60, max_cases=600, shrink_s=2)
    finally:
        defective.close()
    shrunk = [(filterlang.show(f.expr), f.docs) for f in outcome.findings if f.oracle == "reference"]
    # measured: "n lte 0" on {"d1": {"n": 0}}, "NOT x gt -0.0" on {"d4": {"x": -0.0}} (NOT gt is written LTE)...
    assert shrunk and all(len(docs) == 1 and (" lte " in shown or (shown.startswith("NOT ") and " gt " in shown))
                          for shown, docs in shrunk), shrunk
