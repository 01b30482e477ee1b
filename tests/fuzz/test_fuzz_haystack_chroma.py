"""The ``haystack-chroma`` fuzz target: Haystack's filter dicts as chroma-haystack accepts them (negation pushed to
the leaves where Haystack's semantics make that exact), translated by the integration into a Chroma ``where``; what
the integration refuses, which the renderer writes around; a seeded run alone and beside Haystack's in-memory store
that finds nothing unrecorded; Chroma's int/float bound shown through; a reproducer that runs with Haystack and
chromadb alone."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("haystack_integrations.document_stores.chroma")

from filterproof.adapters import filterlang
from filterproof.adapters.filterlang import And, Cond, Not, Or, Unsupported
from filterproof.fuzz.oracles import Ask, Relation, conditions, partition
from filterproof.fuzz.repro import write
from filterproof.fuzz.run import Finding, fuzz
from filterproof.fuzz.targets.haystack import HaystackMemory
from filterproof.fuzz.targets.haystack_chroma import HaystackChroma, chroma_filter
from filterproof.fuzz.targets.haystack_dicts import haystack_filter
from support.fuzz_known import CHROMA_INT_FLOAT_BOUND, Known, unexplained
from support.reproducers import run_scripts

CHROMA = "haystack-chroma"


def eq(key: str, op: str, value: Any) -> dict[str, Any]:
    return {"field": f"meta.{key}", "operator": op, "value": value}


@pytest.fixture(scope="module")
def target() -> Iterator[HaystackChroma]:
    opened = HaystackChroma()
    yield opened
    opened.close()


A, B = Cond("eq", "s", "a"), Cond("in", "n", (1, 2))


@pytest.mark.parametrize(("expr", "native"), [
    (A, eq("s", "==", "a")),
    (Not(A), eq("s", "!=", "a")),
    (Not(B), eq("n", "not in", [1, 2])),
    (Not(Not(Cond("gt", "x", 0.5))), eq("x", ">", 0.5)),
    (Not(And((A, B))), {"operator": "OR", "conditions": [eq("s", "!=", "a"), eq("n", "not in", [1, 2])]}),
    (Not(Or((A, Not(B)))), {"operator": "AND", "conditions": [eq("s", "!=", "a"), eq("n", "in", [1, 2])]}),
    (And((A,)), eq("s", "==", "a")),
    (Or((And((A,)), Cond("lte", "n", 3))), {"operator": "OR", "conditions": [eq("s", "==", "a"), eq("n", "<=", 3)]}),
])
def test_renderings_push_negation_to_the_leaves(expr: filterlang.Expr, native: dict[str, Any]) -> None:
    """chroma-haystack has no NOT: == and != swap, in and not in, AND and OR; one condition is written alone."""
    assert chroma_filter(expr) == native


@pytest.mark.parametrize("expr", [
    Not(Cond("gt", "x", 0.5)), Not(And((A, Cond("lt", "n", 3)))), Cond("in", "n", ()), Cond("nin", "s", ("a", 1)),
    Cond("gte", "d", date(2026, 9, 8)), And(()), Not(Or(())), Cond("contains", "tags", "a"), Cond("exists", "s"),
    Cond("gt", "s", "a"),
])
def test_what_the_integration_cannot_say_is_unsupported(expr: filterlang.Expr) -> None:
    with pytest.raises(Unsupported, match=r"^haystack-chroma: "):
        chroma_filter(expr)


def test_unknown_input_raises() -> None:
    with pytest.raises(TypeError):
        chroma_filter("s == 'a'")  # type: ignore[arg-type]


@pytest.mark.parametrize(("native", "error"), [
    (haystack_filter(Not(A)), "Unknown operator NOT"),
    (haystack_filter(And((A,))), "at least two"),
    (haystack_filter(Cond("in", "n", ())), "non-empty list"),
    (haystack_filter(Cond("gte", "d", date(2026, 9, 8))), "int or a float"),
    (haystack_filter(And(())), "list index out of range"),
])
def test_the_integration_refuses_what_the_renderer_writes_around(target: HaystackChroma, native: dict[str, Any],
                                                                 error: str) -> None:
    """Haystack filters its own in-memory store answers, which chroma-haystack 5.0.0 refuses (the matrix's
    haystack-chroma cells): if a release accepts one, the renderer may write it (and this fails, to say so)."""
    target.world({"d0": {"s": "a", "n": 1, "d": "2026-09-08"}})
    with pytest.raises(Exception, match=error):
        target.answer(repr(native), "filter")


def test_the_translation_keeps_the_meaning_on_a_plain_world(target: HaystackChroma) -> None:
    """Every operator, through every via, selects what Haystack's semantics do (a missing field is None: != and
    not in select it, as Chroma's $ne and $nin do)."""
    docs = {"d0": {"s": "a", "n": 1, "x": 0.5, "b": True}, "d1": {"s": "b", "n": 2, "x": 1.5}, "d2": {"s": None}}
    cases = {A: {"d0"}, Not(A): {"d1", "d2"}, Cond("in", "n", (2, 3)): {"d1"}, Not(B): {"d2"},
             Cond("gte", "x", 1.5): {"d1"}, Cond("lt", "n", 2): {"d0"}, Cond("eq", "b", True): {"d0"},
             Or((Cond("eq", "n", 1), Cond("eq", "n", 2))): {"d0", "d1"},
             Not(And((Cond("eq", "n", 1), Cond("eq", "s", "a")))): {"d1", "d2"}}
    target.world(docs)
    for expr, expected in cases.items():
        for via in target.vias:
            found = target.answer(target.render(expr), via)
            want = len(expected) if via == "count" else expected
            assert (len(found) if via == "count" else found) == want, f"{expr} via {via}"


def _bool_against_number(f: Finding) -> bool:
    """A condition comparing a bool with a number (either side), on a document that holds the field."""
    def numeric(v: Any) -> bool:
        return isinstance(v, int | float) and not isinstance(v, bool)

    return f.oracle == "differential" and any(
        (isinstance(v, bool) and numeric(d[c.key])) or (numeric(v) and isinstance(d[c.key], bool))
        for c in conditions(f.expr) for v in (c.value if isinstance(c.value, tuple) else (c.value,))
        for d in f.docs.values() if c.key in d)


BOOL_NUMBER = Known("haystack_chroma_bool_number", frozenset({CHROMA}),
                    "Haystack's filters compare with Python's == (True == 1, False == 0 == -0.0), Chroma keeps a bool "
                    "and a number apart: `b != 1` selects b = True through chroma-haystack, not in Haystack's "
                    "in-memory store (the neutral semantics leave it undefined; only the differential sees it)",
                    _bool_against_number)
KNOWN = [BOOL_NUMBER, replace(CHROMA_INT_FLOAT_BOUND, targets=frozenset({CHROMA}))]


def test_a_seeded_run_alone_finds_only_recorded_findings(target: HaystackChroma) -> None:
    """Measured: chroma-haystack 5.0.0 over chromadb 1.5.9 alone, no finding in 4,500 cases (seeds 1 to 3)."""
    outcome = fuzz([target], seed=1, budget_s=60, max_cases=300, shrink_s=1)
    assert outcome.cases == 300
    judged = {key.split(" ", 1)[1] for key in outcome.checked}
    assert judged == {"partition", "double_negation", "de_morgan", "reorder", "conjunct", "paths", "reference"}
    unknown = unexplained(outcome.findings, KNOWN)
    assert not unknown, "\n".join(unknown)


def test_a_seeded_run_beside_haystack_memory_finds_only_recorded_findings(target: HaystackChroma) -> None:
    """The differential with Haystack's own store (measured: only BOOL_NUMBER in 4,500 cases, seeds 1 to 3)."""
    memory = HaystackMemory()
    try:
        outcome = fuzz([target, memory], seed=1, budget_s=60, max_cases=300, pairs=[(0, 1)], shrink_s=1)
    finally:
        memory.close()
    assert outcome.checked[f"{CHROMA}+haystack-memory differential"] > 100, outcome.checked
    unknown = unexplained(outcome.findings, KNOWN)
    assert not unknown, "\n".join(unknown)


@pytest.mark.slow  # a standalone reproducer in a child interpreter (its in-process replay stays quick)
def test_a_reproducer_runs_alone(target: HaystackChroma, tmp_path: Path) -> None:
    """No finding to reproduce: one relation that holds (exit 0) and one deliberately broken (exit 1), through
    every via, with a null, a NUL and a value of another kind in the world."""
    docs = {"d0": {"s": "a\x00b", "n": 7, "x": -0.0}, "d1": {"s": None, "n": "7", "b": False}, "d2": {"x": 1e300}}
    p = Or((Cond("eq", "s", "a\x00b"), Cond("in", "n", (7,))))  # no range: its negation has no form here
    target.world(docs)
    holds = partition(p, docs, target)
    asks = tuple(Ask(f"P via {via}", p, via) for via in target.vias)
    broken = Relation("paths", (*asks, Ask("NOT P", Not(p))), "answers['P via search'] == answers['NOT P']")
    scripts = {}
    for number, relation in enumerate((holds, broken), 1):
        answers = {a.label: target.answer(target.render(a.expr), a.via, a.indexed) for a in relation.asks}
        finding = Finding((CHROMA,), relation.oracle, "test", docs, p, relation,
                          {k: sorted(v) for k, v in answers.items()})
        scripts[number] = write(finding, [target], tmp_path, number)
    done = run_scripts(scripts)
    assert done[1].returncode == 0 and done[2].returncode == 1, done[1].output + done[2].output
    assert "P via filter: ['d0']" in done[2].stdout, done[2].stdout
    assert all(result.filterproof is False for result in done.values())
