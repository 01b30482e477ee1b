"""The Qdrant renderer: one neutral filter in both model families and every spelling, each of them valid models."""

from __future__ import annotations

from datetime import date

import pytest

pytest.importorskip("qdrant_client")
pytest.importorskip("qdrant_edge")

from filterproof.fuzz.lang import And, Cond, Not, Or
from filterproof.fuzz.target import Unsupported
from filterproof.fuzz.targets.qdrant import QdrantEdge, QdrantLocal


def test_the_plain_spelling_in_both_families() -> None:
    expr = And((Cond("eq", "s", "o'b\"r"), Not(Cond("in", "n", (1, 2))), Cond("gt", "d", date(2026, 9, 8))))
    assert QdrantLocal().render(expr) == (
        "models.Filter(must=[models.FieldCondition(key='s', match=models.MatchValue(**{'value': 'o\\'b\"r'})), "
        "models.Filter(must_not=[models.FieldCondition(key='n', match=models.MatchAny(**{'any': [1, 2]}))]), "
        "models.FieldCondition(key='d', range=models.DatetimeRange(gt='2026-09-08'))])")
    assert QdrantEdge().render(expr) == (
        "qe.Filter(must=[qe.FieldCondition('s', match=qe.MatchValue('o\\'b\"r')), "
        "qe.Filter(must_not=[qe.FieldCondition('n', match=qe.MatchAny([1, 2]))]), "
        "qe.FieldCondition('d', range=qe.RangeDateTime(gt='2026-09-08'))])")


def test_the_equivalent_and_the_except_spellings() -> None:
    local, edge = QdrantLocal(), QdrantEdge()
    assert edge.render(Cond("is_empty", "tags"), 0) == "qe.Filter(must=[qe.IsEmptyCondition('tags')])"
    assert edge.render(Cond("is_empty", "tags"), 1) == "qe.Filter(must=[qe.FieldCondition('tags', is_empty=True)])"
    assert edge.render(Or((Cond("eq", "t", "a"), Cond("eq", "t", "b"))), 1) == (
        "qe.Filter(min_should=qe.MinShould([qe.FieldCondition('t', match=qe.MatchAny(['a'])), "
        "qe.FieldCondition('t', match=qe.MatchAny(['b']))], 1))")
    assert local.render(Cond("nin", "n", (1,)), 2) == (
        "models.Filter(must=[models.FieldCondition(key='n', match=models.MatchExcept(**{'except': [1]}))])")


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
    (Cond("exists", "tags"), "no test for 'present' on a list field"),
    (Cond("gt", "s", "a"), "a range takes a number or a datetime"),
])
def test_what_qdrant_cannot_say_is_unsupported_with_the_reason(expr: object, why: str) -> None:
    with pytest.raises(Unsupported, match=why):
        QdrantEdge().render(expr)  # type: ignore[arg-type]
