"""The DuckDB fuzz target (typed columns): its SQL through the shared renderer in DuckDB's dialect, SQL's null rule
on the real engine, a seeded run where every oracle judges (and the differential with PostgreSQL's typed columns,
the same neutral filters on the same worlds), a seeded renderer defect it finds, and a reproducer with duckdb
alone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

pytest.importorskip("duckdb")

from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or
from filterproof.fuzz.finding import Judge
from filterproof.fuzz.oracles import ORACLES, Ask, Relation, partition
from filterproof.fuzz.repro import write
from filterproof.fuzz.run import Finding, fuzz
from filterproof.fuzz.targets.duckdb import DuckDBTyped
from support.reproducers import run_scripts

FIELDS = ("s", "t", "n", "x", "d", "b", "tags", "nums")


@pytest.mark.parametrize(("expr", "where", "params"), [
    (Cond("eq", "s", "' OR TRUE OR s = '"), "s = ?", ["' OR TRUE OR s = '"]),  # a value is bound, never SQL
    (Cond("ne", "t", "?"), "t <> ?", ["?"]),
    (Not(Cond("gt", "n", 7)), "NOT (n > ?)", [7]),
    (Cond("eq", "d", "2000-02-29"), "d = ?::date", ["2000-02-29"]),
    (Cond("lt", "d", date(1970, 1, 1)), "d < ?::date", ["1970-01-01"]),
    (Cond("in", "s", ()), "s = ANY(?::text[])", [[]]),
    (Cond("in", "n", (1, 1.5)), "n = ANY(?::double precision[])", [[1.0, 1.5]]),
    (Cond("contains", "tags", "a'b"), "tags @> ?::text[]", [["a'b"]]),
    (Cond("is_empty", "nums"), "(nums IS NULL OR len(nums) = 0)", []),
    (Or((Cond("eq", "s", "a"), Not(And((Cond("is_null", "b"), Cond("eq", "n", 1)))))),
     "(s = ? OR NOT ((b IS NULL AND n = ?)))", ["a", 1]),
])
def test_renderings(expr: Expr, where: str, params: list[object]) -> None:
    assert DuckDBTyped().render(expr) == repr((where, params))


@pytest.fixture(scope="module")
def target() -> Iterator[DuckDBTyped]:
    duck = DuckDBTyped()
    yield duck
    duck.close()


def world(docs: dict[str, dict[str, object]]) -> dict[str, dict[str, object]]:
    return {i: {f: d.get(f) for f in FIELDS} for i, d in docs.items()}


def test_sql_null_rules_on_the_engine(target: DuckDBTyped) -> None:
    """Three-valued: a null is neither P nor NOT P; a null element of a list holds nothing; an empty ``in`` is
    false on every row, an empty ``nin`` true on every row; the indexed table and every via agree."""
    target.world(world({"a": {"s": "a", "n": 1, "tags": ["x", None]}, "null": {}, "e": {"s": "", "n": 5, "tags": []}}))

    def selects(expr: Expr) -> set[str]:
        source = target.render(expr)
        found = {frozenset(target.ask(source, via, indexed)) for via in ("search", "select") for indexed in (0, 1)}
        assert len(found) == 1 and len(target.ask(source, "count")) == len(next(iter(found))), found
        return set(next(iter(found)))

    assert selects(Not(Cond("eq", "s", "a"))) == {"e"}
    assert selects(Not(Cond("contains", "tags", "y"))) == {"a", "e"}
    assert selects(Cond("in", "s", ())) == set()
    assert selects(Cond("nin", "n", ())) == {"a", "null", "e"}
    assert selects(Cond("is_empty", "tags")) == {"null", "e"}
    relation = partition(Cond("gt", "n", 2), {}, target)
    assert Judge([target]).answers(relation) == {"P": {"e"}, "NOT P": {"a"}, "P unknown": {"null"}}


def test_a_seeded_run_judges_every_oracle_beside_postgresql(target: DuckDBTyped) -> None:
    """Every oracle on DuckDB; the differential against pgvector-typed (PostgreSQL) when psycopg is installed: the
    same filter, the same world, two engines' SQL."""
    pytest.importorskip("psycopg")
    from filterproof.fuzz.targets.pgvector import PgvectorTyped

    postgres = PgvectorTyped()
    try:
        outcome = fuzz([target, postgres], seed=3, budget_s=60, max_cases=200, pairs=[(0, 1)])
    finally:
        postgres.close()
    judged = {key.split(" ", 1)[1] for key in outcome.checked if key.split(" ", 1)[0] == "duckdb-typed"}
    assert judged == set(ORACLES) - {"differential", "spelling", "optimize"}, outcome.checked
    assert outcome.checked["duckdb-typed+pgvector-typed differential"] > 100, outcome.checked
    assert not outcome.findings, [f"{f.signature}: {f.describe()}" for f in outcome.findings]


class NotAsIsNull(DuckDBTyped):
    """A seeded renderer defect: NOT P written as ``(P) IS NOT TRUE``, so that a null row is selected by NOT P
    (two-valued NOT over SQL's three values), as a translator that thinks NOT is the complement would write it."""

    name = "duckdb-typed-defect"

    def render(self, expr: Expr, spelling: int = 0) -> str:
        if isinstance(expr, Not):
            where, params = self.native(super().render(expr.part, spelling))
            return repr((f"(({where}) IS NOT TRUE)", params))
        return super().render(expr, spelling)


def test_a_seeded_renderer_defect_is_found() -> None:
    defect = NotAsIsNull()
    try:
        outcome = fuzz([defect], seed=1, budget_s=60, max_cases=200, shrink_s=5)
    finally:
        defect.close()
    assert {f.oracle for f in outcome.findings} & {"partition", "negation"}, [f.describe() for f in outcome.findings]


@pytest.mark.slow  # a standalone reproducer in a child interpreter
def test_a_reproducer_runs_alone(target: DuckDBTyped, tmp_path: Path) -> None:
    """A relation that holds (exit 0) and a deliberately broken one (exit 1), through every via, on the plain and
    the indexed table, with corner values: the script imports duckdb and nothing of filterproof."""
    docs = world({"d0": {"s": "it's", "n": -(2**63), "x": -0.0, "d": "0001-01-01", "b": True, "tags": ["a", None]},
                  "d1": {"s": "?\\", "x": 1e300, "nums": [None, 7]},
                  "d2": {"t": "a", "n": 7, "d": "9999-12-31", "b": False, "tags": []}})
    p = Or((Cond("contains", "tags", "a"), Cond("lte", "n", 7), Cond("eq", "s", "?\\")))
    target.world(docs)
    holds = partition(p, docs, target)
    asks = tuple(Ask(f"P via {via}{' indexed' * indexed}", p, via, indexed) for via in target.vias
                 for indexed in (False, True))
    broken = Relation("paths", (*asks, Ask("NOT P", Not(p))), "answers['P via search'] == answers['NOT P']")
    scripts = {}
    for number, relation in enumerate((holds, broken), 1):
        answers = Judge([target]).answers(relation)
        finding = Finding(("duckdb-typed",), relation.oracle, "test", docs, p, relation,
                          {k: sorted(v) for k, v in answers.items()})
        scripts[number] = write(finding, [target], tmp_path, number)
    for number, script in run_scripts(scripts).items():
        assert script.returncode == number - 1 and script.filterproof is False, script.output
        assert number == 1 or "P via search: ['d0', 'd1', 'd2']" in script.stdout, script.stdout
