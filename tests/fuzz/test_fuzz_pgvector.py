"""The pgvector fuzz targets (typed columns and JSONB): their SQL renderings, the null/list/mixed rules on a real
server (the throwaway one, or ``$PGVECTOR_DSN``), a seeded run where every oracle judges (the differential
between the two included), and a reproducer that runs with psycopg alone."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

pytest.importorskip("psycopg")

from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or, Unsupported
from filterproof.adapters.pgvector.jsonb import render_jsonb
from filterproof.fuzz.finding import Judge
from filterproof.fuzz.oracles import ORACLES, Ask, Relation, differential, partition
from filterproof.fuzz.repro import write
from filterproof.fuzz.run import Finding, fuzz
from filterproof.fuzz.targets.pgvector import PgvectorJsonb, PgvectorTyped
from filterproof.fuzz.targets.pgvector_sql import render_typed
from support.reproducers import run_scripts

KNOWN: set[str] = set()
"""Signatures of findings on the current release that are recorded engine behaviour (none so far)."""
TEXT = "(CASE WHEN jsonb_typeof(payload->'{0}') = 'string' THEN payload->>'{0}' END)"
NUMBER = "(CASE WHEN jsonb_typeof(payload->'{0}') = 'number' THEN (payload->'{0}')::numeric END)"
LIST = "(CASE WHEN jsonb_typeof(payload->'{0}') = 'array' THEN payload->'{0}' END)"


@pytest.mark.parametrize(("expr", "where", "params"), [
    (Cond("eq", "s", "' OR TRUE OR s = '"), "s = %s", ["' OR TRUE OR s = '"]),  # a value is bound, never SQL
    (Cond("ne", "t", "%s"), "t <> %s", ["%s"]),
    (Not(Cond("gt", "n", 7)), "NOT (n > %s)", [7]),
    (Cond("gte", "x", 1e300), "x >= %s", [1e300]),
    (Cond("eq", "n", 1.5), "n = %s", [1.5]),  # PostgreSQL compares as doubles
    (Cond("lt", "x", 2**53), "x < %s", [2**53]),  # an integer that is a double
    (Cond("eq", "d", "2000-02-29"), "d = %s::date", ["2000-02-29"]),
    (Cond("lt", "d", date(1970, 1, 1)), "d < %s::date", ["1970-01-01"]),
    (Cond("eq", "b", False), "b = %s", [False]),
    (Cond("in", "s", ()), "s = ANY(%s::text[])", [[]]),  # FALSE on every row, a NULL one too
    (Cond("nin", "n", ()), "n <> ALL(%s::bigint[])", [[]]),
    (Cond("in", "n", (1, 2**63 - 1)), "n = ANY(%s::bigint[])", [[1, 2**63 - 1]]),
    (Cond("in", "n", (1, 1.5)), "n = ANY(%s::double precision[])", [[1.0, 1.5]]),
    (Cond("contains", "tags", "a'b"), "tags @> %s::text[]", [["a'b"]]),
    (Cond("contains_any", "nums", ()), "nums && %s::bigint[]", [[]]),
    (Cond("is_null", "s"), "s IS NULL", []),
    (Cond("exists", "tags"), "tags IS NOT NULL", []),
    (Cond("is_empty", "s"), "s IS NULL", []),
    (Cond("is_empty", "nums"), "(nums IS NULL OR cardinality(nums) = 0)", []),
    (And(()), "TRUE", []),
    (Or(()), "FALSE", []),
    (Or((Cond("eq", "s", "a"), Not(And((Cond("is_null", "b"), Cond("eq", "n", 1)))))),
     "(s = %s OR NOT ((b IS NULL AND n = %s)))", ["a", 1]),
])
def test_typed_renderings(expr: Expr, where: str, params: list[object]) -> None:
    assert render_typed(expr) == repr((where, params))
    assert PgvectorTyped().render(expr) == repr((where, params))


@pytest.mark.parametrize(("expr", "where", "params"), [
    (Cond("eq", "s", "a'b"), TEXT.format("s") + " = %s", ["a'b"]),
    (Not(Cond("ne", "n", 7)), "NOT (" + NUMBER.format("n") + " <> %s)", [7]),
    (Cond("gt", "x", 1.5), NUMBER.format("x") + " > %s", [1.5]),
    (Cond("eq", "b", True), "(CASE WHEN jsonb_typeof(payload->'b') = 'boolean' THEN (payload->'b')::boolean END) = %s",
     [True]),
    (Cond("gte", "d", date(2026, 9, 8)), "(CASE WHEN jsonb_typeof(payload->'d') = 'string' AND payload->>'d' ~ "
     "'^[0-9]{4}-[0-9]{2}-[0-9]{2}$' AND pg_input_is_valid(payload->>'d', 'date') THEN (payload->>'d')::date END)"
     " >= %s::date", ["2026-09-08"]),
    (Cond("in", "s", ()), TEXT.format("s") + " = ANY(%s::text[])", [[]]),
    (Cond("in", "s", ("a", 7)), "(" + TEXT.format("s") + " = ANY(%s::text[]) OR " + NUMBER.format("s")
     + " = ANY(%s::numeric[]))", [["a"], [7]]),
    (Cond("nin", "n", (7, 1.5)), NUMBER.format("n") + " <> ALL(%s::double precision[])", [[7.0, 1.5]]),
    (Cond("contains", "tags", 'a"b\\'), LIST.format("tags") + " @> %s::jsonb", ['["a\\"b\\\\"]']),
    (Cond("contains_any", "nums", (1, 2)), "(" + LIST.format("nums") + " @> %s::jsonb OR " + LIST.format("nums")
     + " @> %s::jsonb)", ["[1]", "[2]"]),
    (Cond("contains_any", "tags", ()), "(CASE WHEN jsonb_typeof(payload->'tags') = 'array' THEN FALSE END)", []),
    (Cond("is_null", "s"), "payload @> %s::jsonb", ['{"s": null}']),
    (Cond("exists", "s"), "(payload ? 's' AND payload->'s' <> 'null'::jsonb)", []),
    (Cond("is_empty", "tags"), "COALESCE(payload->'tags', 'null'::jsonb) IN ('null'::jsonb, '[]'::jsonb)", []),
])
def test_jsonb_renderings(expr: Expr, where: str, params: list[object]) -> None:
    assert render_jsonb(expr) == repr((where, params))


@pytest.mark.parametrize("expr", [
    Cond("eq", "s", 1),  # text = integer: a type error
    Cond("eq", "n", True),  # a bool is no integer
    Cond("gt", "n", "7"),  # no range on text
    Cond("gt", "d", "2026-09-08"),  # a range on a date takes a date
    Cond("eq", "d", "2026-02-30"),  # no date
    Cond("gte", "x", 2**53 + 1),  # the bound would be rounded to a double
    Cond("in", "t", ("a", 1)),
    Cond("eq", "tags", "a"),  # SQL would compare the whole array
    Cond("contains", "s", "a"),
    Cond("contains", "nums", "a"),
    Cond("contains", "nums", 1.5),
])
def test_typed_type_errors_are_unsupported(expr: Expr) -> None:
    with pytest.raises(Unsupported, match=r"^(typed )?SQL: "):
        render_typed(expr)


@pytest.mark.parametrize("expr", [Cond("gt", "n", "7"), Cond("contains", "tags", date(2026, 9, 8)),
                                  Cond("in", "n", (1.5, 2**53 + 1))])
def test_jsonb_without_faithful_form_is_unsupported(expr: Expr) -> None:
    with pytest.raises(Unsupported, match=r"^(pgvector(-jsonb)?|SQL): "):
        render_jsonb(expr)


def test_unknown_input_raises_type_error() -> None:
    with pytest.raises(TypeError):
        render_typed("s = 'a'")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        render_typed(Cond("eq", "nope", "a"))
    with pytest.raises(TypeError):
        render_jsonb(Cond("eq", "s", object()))
    with pytest.raises(TypeError):
        render_jsonb(Cond("eq", "s\x00", "a"))


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[PgvectorTyped, PgvectorJsonb]]:
    typed, jsonb = PgvectorTyped(), PgvectorJsonb()
    yield typed, jsonb
    typed.close()
    jsonb.close()


def _selects(target: PgvectorTyped | PgvectorJsonb, expr: Expr) -> set[str]:
    source = target.render(expr)
    found = {frozenset(target.ask(source, via, indexed)) for via in ("search", "select") for indexed in (False, True)}
    assert len(found) == 1, found
    assert len(target.ask(source, "count")) == len(next(iter(found)))
    return set(next(iter(found)))


def test_jsonb_reads_missing_null_lists_and_other_types_as_unknown(pair: tuple[PgvectorTyped, PgvectorJsonb]) -> None:
    _, jsonb = pair
    jsonb.world({"str": {"s": "7", "tags": ["a", None]}, "num": {"s": 7, "tags": "a"},
                 "null": {"s": None, "tags": None}, "list": {"s": ["7"], "tags": []}, "missing": {}})
    assert _selects(jsonb, Cond("eq", "s", "7")) == {"str"}
    assert _selects(jsonb, Cond("ne", "s", "7")) == set()  # every other row is unknown
    assert _selects(jsonb, Not(Cond("eq", "s", 7))) == set()
    assert _selects(jsonb, Cond("eq", "s", 7)) == {"num"}
    assert _selects(jsonb, Cond("contains", "tags", "a")) == {"str"}
    assert _selects(jsonb, Not(Cond("contains", "tags", "b"))) == {"str", "list"}  # null elements hold nothing
    assert _selects(jsonb, Not(Cond("contains_any", "tags", ()))) == {"str", "list"}
    assert _selects(jsonb, Cond("is_null", "s")) == {"null"}
    assert _selects(jsonb, Cond("exists", "s")) == {"str", "num", "list"}
    assert _selects(jsonb, Cond("is_empty", "tags")) == {"null", "list", "missing"}
    assert _selects(jsonb, Cond("nin", "s", ())) == {"str", "num", "null", "list", "missing"}


def test_typed_and_jsonb_agree_on_nulls_and_corners(pair: tuple[PgvectorTyped, PgvectorJsonb]) -> None:
    docs = {"big": {"s": "a'b", "n": 2**53 + 1, "x": 2.0**53, "d": "0001-01-01", "b": True, "tags": ["a", None],
                    "nums": [-(2**63)]},
            "null": {"s": None, "n": None, "x": None, "d": None, "b": None, "tags": None, "nums": None},
            "empty": {"s": "", "n": -(2**63), "x": -0.0, "d": "9999-12-31", "b": False, "tags": [], "nums": [None]}}
    docs = {i: {f: d.get(f) for f in ("s", "t", "n", "x", "d", "b", "tags", "nums")} for i, d in docs.items()}
    for target in pair:
        target.world(docs)
    for expr, want in [
        (Not(Cond("eq", "s", "a'b")), {"empty"}), (Cond("eq", "n", 2.0**53), {"big"}),  # as doubles, both
        (Cond("gte", "x", 2**53), {"big"}), (Cond("lte", "x", 0), {"empty"}), (Cond("lt", "d", date(2, 1, 1)), {"big"}),
        (Not(Cond("contains_any", "nums", (1, 2))), {"big", "empty"}), (Cond("is_empty", "tags"), {"null", "empty"}),
        (Not(Cond("in", "s", ())), {"big", "null", "empty"}), (Or((Cond("eq", "b", True), Cond("is_null", "n"))),
                                                               {"big", "null"}),
    ]:
        assert [_selects(t, expr) for t in pair] == [want, want], expr


def test_p_not_p_and_p_unknown_partition_the_rows(pair: tuple[PgvectorTyped, PgvectorJsonb]) -> None:
    """SQLancer's ternary logic partitioning with SQL's own ``(P) IS NULL``: a null (and, in JSONB, a missing key or
    a value of another type) is neither P nor NOT P, and it is what P-unknown selects."""
    typed, jsonb = pair
    docs = {"one": {"n": 1, "s": "a"}, "five": {"n": 5, "s": "b"}, "null": {"n": None, "s": None}}
    p = Or((Cond("gt", "n", 2), Cond("eq", "s", "a")))
    for target in pair:
        target.world({i: {k: d.get(k) for k in ("s", "t", "n", "x", "d", "b", "tags", "nums")} for i, d in
                      docs.items()})
        relation = partition(p, docs, target)
        assert [a.label for a in relation.asks] == ["P", "NOT P", "P unknown"]
        assert Judge([target]).answers(relation) == {"P": {"one", "five"}, "NOT P": set(), "P unknown": {"null"}}
    jsonb.world({"text": {"n": "5"}, "list": {"n": [5]}, "missing": {}, "five": {"n": 5}})
    assert Judge([jsonb]).answers(partition(Cond("gt", "n", 2), {}, jsonb)) == {
        "P": {"five"}, "NOT P": set(), "P unknown": {"text", "list", "missing"}}
    assert typed.render_unknown(Cond("eq", "s", "a")) == repr(("(s = %s) IS NULL", ["a"]))


def test_a_seeded_run_judges_every_oracle(pair: tuple[PgvectorTyped, PgvectorJsonb]) -> None:
    outcome = fuzz(list(pair), seed=7, budget_s=60, max_cases=250, pairs=[(0, 1)])
    for name in ("pgvector-typed", "pgvector-jsonb"):
        judged = {key.split(" ", 1)[1] for key in outcome.checked if key.split(" ", 1)[0] == name}
        # one spelling each; no optimize step (PostgreSQL's other plans are the index oracle's: the indexed copy
        # is read with sequential scans off)
        assert judged == set(ORACLES) - {"differential", "spelling", "optimize"}, outcome.checked
    assert outcome.checked["pgvector-typed+pgvector-jsonb differential"] > 100, outcome.checked
    unexpected = [f"{f.signature}: {f.describe()}" for f in outcome.findings if f.signature not in KNOWN]
    assert not unexpected, unexpected


def _dsn() -> str:
    if os.environ.get("PGVECTOR_DSN"):
        return os.environ["PGVECTOR_DSN"]
    from filterproof.servers.postgres import shared_server

    return shared_server().dsn


@pytest.mark.slow  # a standalone reproducer in a child interpreter (its in-process replay stays quick)
def test_a_reproducer_runs_alone(pair: tuple[PgvectorTyped, PgvectorJsonb], tmp_path: Path) -> None:
    """No engine finding to reproduce: the differential of both targets, which holds (exit 0), and a deliberately
    broken relation (exit 1), through every via, on the plain and the indexed table, with corner values."""
    docs = {"d0": {"s": "it's", "t": None, "n": -(2**63), "x": -0.0, "d": "0001-01-01", "b": True,
                   "tags": ["a", None], "nums": []},
            "d1": {"s": "%s\\", "t": None, "n": None, "x": 1e300, "d": None, "b": None, "tags": None,
                   "nums": [None, 7]},
            "d2": {"s": None, "t": "a", "n": 7, "x": None, "d": "9999-12-31", "b": False, "tags": [], "nums": None}}
    p = Or((Cond("contains", "tags", "a"), Cond("lte", "n", 7), Cond("eq", "s", "%s\\")))
    targets = list(pair)
    for target in targets:
        target.world(docs)
    holds = differential(p, docs, targets[0])
    asks = tuple(Ask(f"P via {via}{' indexed' * indexed}{' (jsonb)' * side}", p, via, indexed, target=side)
                 for via in targets[0].vias for indexed in (False, True) for side in (0, 1))
    broken = Relation("paths", (*asks, Ask("NOT P", Not(p))), "answers['P via search'] == answers['NOT P']")
    scripts = {}
    for number, relation in enumerate((holds, broken), 1):
        answers = Judge(targets).answers(relation)
        finding = Finding(("pgvector-typed", "pgvector-jsonb"), relation.oracle, "test", docs, p, relation,
                          {k: sorted(v) for k, v in answers.items()})
        scripts[number] = write(finding, targets, tmp_path, number)
    # Both in one interpreter (support.reproducers): each script makes (and at its end drops) a schema of its own.
    for number, script in run_scripts(scripts, env={"PGVECTOR_DSN": _dsn()}).items():
        assert script.returncode == number - 1 and script.filterproof is False, script.output
        assert number == 1 or "P via search: ['d0', 'd1', 'd2']" in script.stdout, script.stdout
    text = (tmp_path / "finding-1.py").read_text()
    assert "filterproof" not in text.split('"""', 2)[2]
    assert "postgresql 18" in text or os.environ.get("PGVECTOR_DSN"), text[:600]
