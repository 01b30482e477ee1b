"""The Qdrant renderer: one neutral filter in both model families and every spelling, each of them valid models."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

pytest.importorskip("qdrant_client")
pytest.importorskip("qdrant_edge")

from filterproof.adapters.filterlang import And, Cond, Not, Or, Unsupported
from filterproof.fuzz.finding import Judge
from filterproof.fuzz.oracles import Ask, Relation, optimize
from filterproof.fuzz.repro import write
from filterproof.fuzz.run import Finding
from filterproof.fuzz.targets.qdrant import QdrantEdge, QdrantLocal
from support.reproducers import run_scripts


def test_the_plain_spelling_in_both_families() -> None:
    expr = And((Cond("eq", "s", "o'b\"r"), Not(Cond("in", "n", (1, 2))), Cond("gt", "d", date(2026, 9, 8))))
    assert QdrantLocal().render(expr) == (
        "models.Filter(must=[models.FieldCondition(key='s', match=models.MatchValue(value='o\\'b\"r')), "
        "models.Filter(must_not=[models.FieldCondition(key='n', match=models.MatchAny(any=[1, 2]))]), "
        "models.FieldCondition(key='d', range=models.DatetimeRange(gt='2026-09-08T00:00:00Z'))])")
    assert QdrantEdge().render(expr) == (
        "qe.Filter(must=[qe.FieldCondition('s', match=qe.MatchValue('o\\'b\"r')), "
        "qe.Filter(must_not=[qe.FieldCondition('n', match=qe.MatchAny([1, 2]))]), "
        "qe.FieldCondition('d', range=qe.RangeDateTime(gt='2026-09-08T00:00:00Z'))])")


def test_the_equivalent_and_the_except_spellings() -> None:
    local, edge = QdrantLocal(), QdrantEdge()
    assert edge.render(Cond("is_empty", "tags"), 0) == "qe.Filter(must=[qe.IsEmptyCondition('tags')])"
    assert edge.render(Cond("is_empty", "tags"), 1) == "qe.Filter(must=[qe.FieldCondition('tags', is_empty=True)])"
    assert edge.render(Or((Cond("eq", "t", "a"), Cond("eq", "t", "b"))), 1) == (
        "qe.Filter(min_should=qe.MinShould([qe.FieldCondition('t', match=qe.MatchAny(['a'])), "
        "qe.FieldCondition('t', match=qe.MatchAny(['b']))], 1))")
    assert local.render(Cond("nin", "n", (1,)), 2) == (
        "models.Filter(must=[models.FieldCondition(key='n', match=models.MatchExcept(**{'except': [1]}))])")


def test_the_except_spelling_changes_ne_and_nin_alone() -> None:
    """Spelling 2 differs from spelling 0 in ``ne``/``nin`` only: its OR, ``eq`` and ``is_empty`` are spelling 0's."""
    expr = Or((Cond("eq", "t", "a"), Cond("is_empty", "tags"), Cond("lt", "n", 3)))
    for target in (QdrantLocal(), QdrantEdge()):
        assert target.render(expr, 2) == target.render(expr, 0)


def test_make_builds_the_models_of_values_of_every_kind() -> None:
    """``Family.make`` (the adapters' path; the fuzz target evaluates source) with an integer, a boolean and text."""
    from qdrant_client import models

    from filterproof.adapters.qdrant.language import MODELS, Qdrant

    expr = And((Cond("eq", "n", 7), Cond("eq", "b", True), Cond("in", "s", ("x", "y"))))
    assert Qdrant(MODELS).native(expr) == models.Filter(must=[
        models.FieldCondition(key="n", match=models.MatchValue(value=7)),
        models.FieldCondition(key="b", match=models.MatchValue(value=True)),
        models.FieldCondition(key="s", match=models.MatchAny(any=["x", "y"]))])


@pytest.mark.parametrize("spelling", [0, 1, 2])
def test_every_spelling_builds_valid_models_in_both_families(spelling: int) -> None:
    expr = Or((And((Cond("is_null", "b"), Cond("exists", "s"), Cond("lte", "x", -2.25))),
               Not(Cond("contains_any", "tags", ("a", "b"))), Cond("ne", "t", "c")))
    for target in (QdrantLocal(), QdrantEdge()):
        assert target.native(target.render(expr, spelling)) is not None


@pytest.mark.parametrize(("expr", "why"), [
    (Or(()), "empty should is no constraint"),
    (Cond("eq", "x", 0.5), "no match on a float"),
    (Cond("in", "b", (True,)), "MatchAny takes a list of text or of integers"),
    (Cond("in", "n", ("a", 1)), "MatchAny takes a list of text or of integers"),
    (Cond("exists", "tags"), "no test for 'present' on a list field"),
    (Cond("gt", "s", "a"), "a range takes a number or a datetime"),
])
def test_what_qdrant_cannot_say_is_unsupported_with_the_reason(expr: object, why: str) -> None:
    with pytest.raises(Unsupported, match=why):
        QdrantEdge().render(expr)  # type: ignore[arg-type]


def test_the_optimized_shard_holds_the_world_in_a_built_segment() -> None:
    """The optimize oracle's "after": ``optimize()`` has built the world into a segment of its own (HNSW over every
    vector, the payload indexes in a built segment's form), and it selects what the appendable, indexed shard
    (its "before") selects."""
    target = QdrantEdge()
    docs = {"d0": {"n": 1, "s": "a", "tags": ["a"]}, "d1": {"n": None, "s": "b"}, "d2": {"n": 7, "tags": []}}
    try:
        target.world(docs)
        p = Or((Cond("gt", "n", 2), Cond("is_null", "n")))
        assert Judge([target]).answers(optimize(p, docs, target)) == {"P before optimize()": {"d1", "d2"},
                                                                      "P after optimize()": {"d1", "d2"}}
        info = target.shards["optimized"].info()
        assert info.indexed_vectors_count == 3 and info.points_count == 3, info
        assert set(info.payload_schema) == {"s", "t", "n", "x", "d", "b", "tags", "nums"}
        assert target.shards["indexed"].info().indexed_vectors_count == 0  # before: an appendable segment
    finally:
        target.close()


@pytest.mark.slow  # a standalone reproducer in a child interpreter (its in-process replay stays quick)
def test_an_optimize_reproducer_runs_alone(tmp_path: Path) -> None:
    """No engine finding to reproduce: the optimize relation, which holds (exit 0), and a deliberately broken one
    (exit 1), written as scripts that build the three shards with qdrant-edge alone."""
    target = QdrantEdge()
    docs = {"d0": {"n": 1, "b": None}, "d1": {"n": None, "tags": [None, "a"]}, "d2": {"n": 2**53 + 1, "tags": []}}
    p = Or((Cond("lte", "n", 1), Cond("is_null", "b"), Cond("is_empty", "tags")))
    try:
        target.world(docs)
        holds = optimize(p, docs, target)
        assert holds is not None
        broken = Relation("optimize", (*holds.asks, Ask("NOT P", Not(p))),
                          "answers['P after optimize()'] == answers['NOT P']")
        scripts, shown = {}, {}
        for number, relation in enumerate((holds, broken), 1):
            answers = Judge([target]).answers(relation)
            finding = Finding(("qdrant-edge",), "optimize", "test", docs, p, relation,
                              {k: sorted(v) for k, v in answers.items()})
            scripts[number] = write(finding, [target], tmp_path, number)
            shown[number] = f"P after optimize(): {sorted(answers['P after optimize()'])}"
        # Both in one interpreter (support.reproducers): each builds its shards in a temporary folder of its own.
        for number, done in run_scripts(scripts).items():
            assert done.returncode == number - 1 and done.filterproof is False, done.output
            assert shown[number] in done.stdout, done.stdout
    finally:
        target.close()
    assert "filterproof" not in (tmp_path / "finding-1.py").read_text().split('"""', 2)[2]
