"""The LanceDB fuzz target: its SQL renderings, a seeded run where every oracle judges, and a reproducer that runs
with LanceDB's client alone."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

pytest.importorskip("lancedb")

from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or, Unsupported
from filterproof.fuzz.finding import Judge
from filterproof.fuzz.generate import FIELDS
from filterproof.fuzz.oracles import ORACLES, Ask, Relation, optimize, partition
from filterproof.fuzz.repro import write
from filterproof.fuzz.run import Finding, fuzz
from filterproof.fuzz.targets.lancedb import LanceDBTarget
from filterproof.fuzz.targets.lancedb_sql import sql
from support.reproducers import run_scripts

KNOWN: set[str] = set()
"""Signatures of findings on the current release that are recorded engine behaviour (none so far)."""


@pytest.mark.parametrize(("expr", "spelling", "expected"), [
    (Cond("eq", "s", "it's"), 0, "s = 'it''s'"),
    (Cond("eq", "s", "' OR TRUE OR s = '"), 0, "s = ''' OR TRUE OR s = '''"),
    (Cond("eq", "s", "a\\'b\x00\n"), 0, "s = 'a\\''b\x00\n'"),  # a backslash is an ordinary character
    (Cond("ne", "t", "a"), 0, "t <> 'a'"),
    (Cond("ne", "t", "a"), 1, "NOT (t = 'a')"),
    (Not(Cond("gt", "n", 7)), 0, "NOT (n > 7)"),
    (Cond("gt", "n", 7), 1, "7 < n"),
    (Cond("eq", "n", -(2**63)), 0, "n = (-9223372036854775807 - 1)"),
    (Cond("eq", "n", 2**63 - 1), 0, "n = 9223372036854775807"),
    (Cond("eq", "s", "\ud7ff\ue000"), 0, "s = '\ud7ff\ue000'"),  # either side of the surrogates: kept
    (Cond("lte", "x", -0.0), 0, "x <= -0.0"),
    (Cond("gte", "x", 1e300), 0, "x >= 1e+300"),
    (Cond("eq", "d", "2000-02-29"), 0, "d = DATE '2000-02-29'"),
    (Cond("lt", "d", date(1970, 1, 1)), 0, "d < DATE '1970-01-01'"),
    (Cond("in", "d", ("2000-02-29",)), 0, "d IN (DATE '2000-02-29')"),  # a member, not a range: text is a date
    (Cond("eq", "b", False), 0, "b = FALSE"),
    (Cond("in", "s", ()), 0, "FALSE"),
    (Cond("nin", "s", ()), 0, "TRUE"),
    (Cond("in", "s", ("a", "b")), 0, "s IN ('a', 'b')"),
    (Cond("nin", "s", ("a", "b")), 0, "s NOT IN ('a', 'b')"),
    (Cond("in", "s", ("a", "b")), 1, "(s = 'a' OR s = 'b')"),
    (Cond("nin", "n", (1, 2)), 1, "(n <> 1 AND n <> 2)"),
    (And(()), 0, "TRUE"),
    (Or(()), 0, "FALSE"),
    (Or((Cond("is_null", "s"), Cond("exists", "n"))), 0, "(s IS NULL OR n IS NOT NULL)"),
    (Cond("is_null", "s"), 1, "NOT (s IS NOT NULL)"),
    (Cond("is_empty", "s"), 0, "s IS NULL"),
    (Cond("is_empty", "tags"), 0, "(tags IS NULL OR array_length(tags) = 0)"),
    (Cond("is_empty", "nums"), 1, "(nums IS NULL OR cardinality(nums) = 0)"),
    (Cond("contains", "tags", "a'b"), 0, "array_has(tags, 'a''b')"),
    (Cond("contains", "nums", 7), 1, "array_has_any(nums, [7])"),
    (Cond("contains_any", "tags", ("a", "b")), 0, "array_has_any(tags, ['a', 'b'])"),
    (Cond("contains_any", "nums", ()), 0, "array_has_any(nums, [])"),
    (Cond("contains_any", "nums", ()), 1, "FALSE"),
    (Cond("contains_any", "tags", ("a", "b")), 1, "(array_has(tags, 'a') OR array_has(tags, 'b'))"),
])
def test_renderings(expr: Expr, spelling: int, expected: str) -> None:
    assert sql(expr, spelling) == expected
    assert LanceDBTarget().render(expr, spelling) == repr(expected)


@pytest.mark.parametrize("expr", [
    Cond("eq", "n", 1.5),  # LanceDB refuses a float literal against an int64 column
    Cond("eq", "s", 1),
    Cond("eq", "n", True),  # a bool is no integer
    Cond("eq", "n", "7"),  # nor is text
    Cond("eq", "b", 1),  # nor an integer a bool
    Cond("eq", "s", date(2026, 1, 1)),  # a date is no text
    Cond("eq", "b", date(2026, 1, 1)),
    Cond("gt", "d", "2026-09-08"),  # a range on a date column takes a date
    Cond("in", "t", ("a", 1)),
    Cond("eq", "tags", "a"),  # SQL would compare the whole array
    Cond("contains", "s", "a"),
    Cond("contains", "nums", "a"),
    Cond("eq", "s", "\ud800"),
    Cond("eq", "s", "a\udfff"),
    Cond("eq", "n", 2**63),  # no int64 holds it: the edges are exact (the adapter's own integers are dates, far inside)
    Cond("eq", "n", -(2**63) - 1),
])
def test_no_faithful_form_is_unsupported(expr: Expr) -> None:
    with pytest.raises(Unsupported, match=r"^lancedb: "):
        sql(expr)


def test_unknown_input_raises_type_error() -> None:
    with pytest.raises(TypeError):
        sql("s = 'a'")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sql(Cond("eq", "nope", "a"))


def test_a_seeded_run_judges_every_oracle() -> None:
    target = LanceDBTarget()
    try:
        outcome = fuzz([target], seed=11, budget_s=60, max_cases=60)
    finally:
        target.close()
    judged = {key.split(" ", 1)[1] for key in outcome.checked}
    assert judged == set(ORACLES) - {"differential"}, outcome.checked
    unexpected = [f"{f.signature}: {f.describe()}" for f in outcome.findings if f.signature not in KNOWN]
    assert not unexpected, unexpected


def test_p_not_p_and_p_unknown_partition_the_rows() -> None:
    """SQLancer's ternary logic partitioning with DataFusion's own ``(P) IS NULL``."""
    target = LanceDBTarget()
    docs = {"one": {"n": 1, "tags": ["a"]}, "five": {"n": 5, "tags": []}, "null": {"n": None, "tags": None}}
    try:
        target.world({i: {f.name: d.get(f.name) for f in FIELDS} for i, d in docs.items()})
        p = Or((Cond("gt", "n", 2), Cond("contains", "tags", "a")))
        assert Judge([target]).answers(partition(p, docs, target)) == {
            "P": {"one", "five"}, "NOT P": set(), "P unknown": {"null"}}
    finally:
        target.close()
    assert target.render_unknown(Cond("eq", "s", "a")) == repr("(s = 'a') IS NULL")


def test_before_optimize_rows_no_index_covers_after_it_none() -> None:
    """The optimize oracle's two tables: half the rows under the scalar indexes and the rest appended (scanned
    beside the index), then the same after ``optimize()``; what they select is what the plain table selects."""
    target = LanceDBTarget()
    docs = {f"d{i}": {f.name: None for f in FIELDS} | {"n": i, "s": "a" if i % 2 else "b"} for i in range(6)}
    try:
        target.world(docs)
        p = And((Cond("gte", "n", 2), Not(Cond("eq", "s", "a"))))
        relation = Relation("optimize", (Ask("plain", p), *optimize(p, docs, target).asks), "True")
        assert set(map(frozenset, Judge([target]).answers(relation).values())) == {frozenset({"d2", "d4"})}
        before, after = target.tables["staged"], target.tables["optimized"]
        assert before.index_stats("n_idx").num_unindexed_rows == 3
        assert after.index_stats("n_idx").num_unindexed_rows == 0
        assert after.count_rows() == before.count_rows() == 6
    finally:
        target.close()


@pytest.mark.slow  # a standalone reproducer in a child interpreter (its in-process replay stays quick)
def test_a_reproducer_runs_alone(tmp_path: Path) -> None:
    """No engine finding to reproduce: one relation that holds (exit 0) and one deliberately broken (exit 1),
    through every via, on the plain and the indexed table, with the corner values the store must hold."""
    docs = {"d0": {"s": "it's", "n": -(2**63), "x": -0.0, "d": "0001-01-01", "b": True, "tags": ["a", None],
                   "nums": []},
            "d1": {"s": "a\x00b", "n": None, "x": 1e300, "d": None, "b": None, "tags": None, "nums": [None, 7]},
            "d2": {"s": None, "t": "a", "n": 7, "d": "9999-12-31", "tags": [], "nums": None}}
    p = Or((Cond("contains", "tags", "a"), Cond("lte", "n", 7), Cond("eq", "s", "a\x00b")))
    target = LanceDBTarget()
    try:
        target.world(docs)
        holds = partition(p, docs, target)
        asks = tuple(Ask(f"P via {via}{' indexed' * indexed}", p, via, indexed) for via in target.vias
                     for indexed in (False, True))
        staged = tuple(Ask(f"P via {via} optimized={after}", p, via, True, optimized=after) for via in target.vias
                       for after in (False, True))
        broken = Relation("paths", (*asks, *staged, Ask("NOT P", Not(p))),
                          "answers['P via search'] == answers['NOT P']")
        scripts = {}
        for number, relation in enumerate((holds, broken), 1):
            answers = Judge([target]).answers(relation)
            finding = Finding(("lancedb",), relation.oracle, "test", docs, p, relation,
                              {k: sorted(v) for k, v in answers.items()})
            scripts[number] = write(finding, [target], tmp_path, number)
        ran = run_scripts(scripts)  # both in one interpreter (support.reproducers): each its own temporary db
        for number, script in ran.items():
            assert script.returncode == number - 1 and script.filterproof is False, script.output
            assert "P via search: ['d0', 'd1', 'd2']" in script.stdout or number == 1, script.stdout
    finally:
        target.close()
    assert "filterproof" not in (tmp_path / "finding-1.py").read_text().split('"""', 2)[2]
