"""The ``haystack-pgvector`` fuzz target: Haystack's filter dicts as pgvector-haystack accepts them (negation pushed to
the leaves where Haystack's semantics make that exact), turned into SQL over the ``meta`` JSONB column; what the
integration refuses, which the renderer writes around; a seeded run alone and beside Haystack's in-memory store in
which every finding is one of the three casts recorded, each replayed as a strict xfail; what the casts do to plain
metadata; a seeded renderer defect caught; the reproducers run with Haystack and a PostgreSQL server alone."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from support.fuzz_known import Known, known_cases, recorded_only, still_fails, unexplained
from support.paths import ROOT
from support.reproducers import Result, run_scripts, selected

pytest.importorskip("haystack_integrations.document_stores.pgvector")

from filterproof.adapters import filterlang
from filterproof.adapters.filterlang import And, Cond, Not, Or, Unsupported
from filterproof.fuzz.generate import Allows
from filterproof.fuzz.oracles import conditions
from filterproof.fuzz.run import Finding, fuzz
from filterproof.fuzz.targets.haystack import HaystackMemory
from filterproof.fuzz.targets.haystack_dicts import COMPARISONS, haystack_filter
from filterproof.fuzz.targets.haystack_pgvector import HaystackPgvector, pgvector_filter, pgvector_source

PGVECTOR = "haystack-pgvector"


def eq(key: str, op: str, value: Any) -> dict[str, Any]:
    return {"field": f"meta.{key}", "operator": op, "value": value}


@pytest.fixture(scope="module")
def target() -> Iterator[HaystackPgvector]:
    opened = HaystackPgvector()
    try:
        opened.namespace()
    except ImportError as error:  # no $PGVECTOR_DSN and no bundled PostgreSQL
        pytest.skip(str(error))
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
    (And((A,)), {"operator": "AND", "conditions": [eq("s", "==", "a")]}),
    (Cond("in", "t", ()), eq("t", "in", [])),
    (Cond("lte", "d", date(2026, 9, 8)), eq("d", "<=", "2026-09-08")),
])
def test_renderings_push_negation_to_the_leaves(expr: filterlang.Expr, native: dict[str, Any]) -> None:
    """pgvector-haystack has no NOT: == and != swap, in and not in, AND and OR (an empty in stays: it is exact)."""
    assert pgvector_filter(expr) == native


@pytest.mark.parametrize("expr", [
    Not(Cond("gt", "x", 0.5)), Not(And((A, Cond("lt", "n", 3)))), And(()), Not(Or(())), Cond("in", "n", (1, 0.5)),
    Cond("nin", "s", ("a", 1)), Cond("in", "n", (1, True)), Cond("contains", "tags", "a"), Cond("exists", "s"),
    Cond("gt", "s", "a"),
])
def test_what_the_integration_cannot_say_is_unsupported(expr: filterlang.Expr) -> None:
    with pytest.raises(Unsupported, match=r"^haystack-pgvector: "):
        pgvector_filter(expr)


def test_unknown_input_raises() -> None:
    with pytest.raises(TypeError):
        pgvector_filter("s == 'a'")  # type: ignore[arg-type]


@pytest.mark.parametrize(("native", "error"), [
    (haystack_filter(Not(A)), "Unknown logical operator 'NOT'"),
    (haystack_filter(And(())), "'conditions' must not be empty"),
    (haystack_filter(Or(())), "'conditions' must not be empty"),
    (haystack_filter(Cond("in", "n", (1, 0.5))), "cannot dump lists of mixed types"),
])
def test_the_integration_refuses_what_the_renderer_writes_around(target: HaystackPgvector, native: dict[str, Any],
                                                                 error: str) -> None:
    """Haystack filters its own in-memory store answers, which pgvector-haystack 8.1.2 refuses: if a release accepts
    one, the renderer may write it (and this fails, to say so)."""
    target.world({"d0": {"s": "a", "n": 1}})
    with pytest.raises(Exception, match=error):
        target.answer(repr(native), "filter")


def test_the_translation_keeps_the_meaning_on_a_plain_world(target: HaystackPgvector) -> None:
    """Every operator, through every via, selects what Haystack's semantics do where every value casts (a missing or
    null field is None: != and not in select it, as IS DISTINCT FROM and IS NULL OR != ALL do)."""
    docs = {"d0": {"s": "a", "n": 1, "x": 0.5, "b": True, "d": "2026-09-08"}, "d1": {"s": "b", "n": 2, "x": 1.5},
            "d2": {"s": None}}
    cases = {A: {"d0"}, Not(A): {"d1", "d2"}, Cond("in", "n", (2, 3)): {"d1"}, Not(B): {"d2"},
             Cond("gte", "x", 1.5): {"d1"}, Cond("lt", "n", 2): {"d0"}, Cond("eq", "b", True): {"d0"},
             Cond("in", "s", ()): set(), Cond("nin", "s", ()): {"d0", "d1", "d2"},
             Cond("gte", "d", date(2026, 9, 8)): {"d0"}, Or((Cond("eq", "n", 1), Cond("eq", "n", 2))): {"d0", "d1"},
             Not(And((Cond("eq", "n", 1), Cond("eq", "s", "a")))): {"d1", "d2"}}
    target.world(docs)
    for expr, expected in cases.items():
        for via in target.vias:
            found = target.answer(target.render(expr), via)
            want = len(expected) if via == "count" else expected
            assert (len(found) if via == "count" else found) == want, f"{filterlang.show(expr)} via {via}"


CAST_ERRORS = ("NumericValueOutOfRange", "InvalidTextRepresentation")
CASTS = {"integer": "int", "real": "float", "boolean": "bool"}
"""PostgreSQL's type of the cast -> the kind of value that makes the integration write it."""


def _casts(f: Finding) -> set[str]:
    """The casts the finding's filter makes the integration write (an ``in`` list's: its first value's)."""
    values = [c.value[0] if isinstance(c.value, tuple) and c.value else c.value for c in conditions(f.expr)]
    return {pg for pg, kind in CASTS.items() if any(filterlang.kind(v) == kind for v in values)}


def _cast_failed(pg_type: str) -> Callable[[Finding], bool]:
    """The query failed in a cast to ``pg_type``: the message says so, or (cut short) the filter makes only it."""
    def explains(f: Finding) -> bool:
        if not any(error in f.error for error in CAST_ERRORS):
            return False
        return f"for type {pg_type}" in f.error if "for type" in f.error else pg_type in _casts(f)
    return explains


REPRO = "bench/repro/fuzz_haystack_pgvector_{}.py"
INTEGER = Known("haystack_pgvector_integer_cast", frozenset({PGVECTOR}),
                "finding: pgvector-haystack 8.1.2 compares a field with an int as (meta->>'k')::integer (int4) on "
                "every row: one document holding an integer past 2^31, a float or a text fails the query for every "
                f"caller ({REPRO.format('integer_cast')})", _cast_failed("integer"))
REAL = Known("haystack_pgvector_real_cast", frozenset({PGVECTOR}),
             "finding: pgvector-haystack 8.1.2 compares a field with a float as (meta->>'k')::real (float4): a "
             "document beyond float4's range (1e300, -1e-300) or a text fails the query, and every value is "
             f"compared rounded (x > 0.1 selects x = 0.1) ({REPRO.format('real_cast')})", _cast_failed("real"))
BOOLEAN = Known("haystack_pgvector_boolean_cast", frozenset({PGVECTOR}),
                "finding: pgvector-haystack 8.1.2 compares a field with a bool as (meta->>'k')::boolean: one "
                f"document holding another text fails the query ({REPRO.format('boolean_cast')})",
                _cast_failed("boolean"))
KNOWN = [INTEGER, REAL, BOOLEAN]


def test_a_seeded_run_alone_finds_only_recorded_findings(target: HaystackPgvector) -> None:
    """Measured: seed 1 at 300 cases meets the three casts (4 s); seeds 2 to 4 at 1,500 the same and no other."""
    assert recorded_only(target, 1, 300, KNOWN) == {k.name for k in KNOWN}


def test_a_seeded_run_beside_haystack_memory_finds_only_recorded_findings(target: HaystackPgvector) -> None:
    """The differential with Haystack's own store judges most cases (measured: seeds 1 to 4, 4,800 cases, only the
    casts: no value that casts is answered otherwise than Haystack's filters answer it)."""
    memory = HaystackMemory()
    try:
        outcome = fuzz([target, memory], seed=1, budget_s=60, max_cases=300, pairs=[(0, 1)], shrink_s=1)
    finally:
        memory.close()
    assert outcome.checked[f"{PGVECTOR}+haystack-memory differential"] > 150, outcome.checked
    unknown = unexplained(outcome.findings, KNOWN)
    assert not unknown, "\n".join(unknown)


@pytest.mark.parametrize("path", known_cases(KNOWN))
def test_a_known_finding_still_holds_on_the_installed_release(path: Path) -> None:
    """Each recorded finding's minimal world: fails now (the xfail); a fixed release makes it pass (XPASS, red)."""
    still_fails(path)


@pytest.mark.parametrize(("docs", "expr", "expected"), [
    pytest.param({"cheap": {"price": 2}, "dear": {"price": 2.5}}, Cond("gt", "price", 2), {"dear"}, id="int-bound",
                 marks=pytest.mark.xfail(strict=True, reason=INTEGER.reason)),
    pytest.param({"old": {"ts": 1_700_000_000_000}, "new": {"ts": 1_800_000_000_000}},
                 Cond("gt", "ts", 1_750_000_000_000), {"new"}, id="epoch-milliseconds",
                 marks=pytest.mark.xfail(strict=True, reason=INTEGER.reason)),
    pytest.param({"tenth": {"x": 0.1}}, Cond("gt", "x", 0.1), set(), id="float4-rounding",
                 marks=pytest.mark.xfail(strict=True, reason=REAL.reason)),
    pytest.param({"tenth": {"x": 0.1}}, Cond("lte", "x", 0.1), {"tenth"}, id="float4-rounding-lte",
                 marks=pytest.mark.xfail(strict=True, reason=REAL.reason)),
])
def test_plain_metadata_is_compared_as_haystack_means(target: HaystackPgvector, docs: dict[str, Any],
                                                      expr: filterlang.Expr, expected: set[str]) -> None:
    """The casts on metadata an application holds: a price of 2 and 2.5 (the int bound fails the query), epoch
    milliseconds (past int4), a float (compared as float4)."""
    target.world(docs)
    assert target.answer(target.render(expr), "filter") == expected


def test_a_string_value_compares_the_fields_text(target: HaystackPgvector) -> None:
    """No cast for a string: ``n == "7"`` selects n = 7 (``'7' = '7'``), where Haystack's filters compare 7 with
    "7" (False). Measured on 8.1.2; a release that changes it turns this red."""
    docs = {"int": {"n": 7}, "text": {"n": "7"}, "float": {"n": 7.0}}
    target.world(docs)
    assert target.answer(target.render(Cond("eq", "n", "7")), "filter") == {"int", "text"}


class NeAsEq(HaystackPgvector):
    """A seeded renderer defect: != written as == (so a negated == keeps its meaning)."""

    name = "haystack-pgvector-ne-as-eq"
    # Text fields only: few values are cast, so the casts' own findings stay out of the defect's way.
    allows = Allows(nul=False, fields=("s", "t"), ops=tuple(COMPARISONS))

    def render(self, expr: filterlang.Expr, spelling: int = 0) -> str:
        return super().render(expr, spelling).replace("'operator': '!='", "'operator': '=='")


class NoDeMorgan(HaystackPgvector):
    """A seeded renderer defect: negation pushed through AND and OR without swapping them."""

    name = "haystack-pgvector-no-de-morgan"
    allows = NeAsEq.allows

    def render(self, expr: filterlang.Expr, spelling: int = 0) -> str:
        return super().render(_kept_connectives(expr), spelling)


def _kept_connectives(expr: filterlang.Expr) -> filterlang.Expr:
    """NOT (A AND B) as (NOT A) AND (NOT B), NOT (A OR B) as (NOT A) OR (NOT B): the defect, at every level."""
    match expr:
        case Not(And(parts)):
            return And(tuple(_kept_connectives(Not(p)) for p in parts))
        case Not(Or(parts)):
            return Or(tuple(_kept_connectives(Not(p)) for p in parts))
        case And(parts):
            return And(tuple(_kept_connectives(p) for p in parts))
        case Or(parts):
            return Or(tuple(_kept_connectives(p) for p in parts))
        case Not(part):
            return Not(_kept_connectives(part))
    return expr


def _writes_ne(expr: filterlang.Expr) -> bool:
    return "'!='" in pgvector_source(expr)  # an ne, or an eq under NOT


def _negates_a_connective(expr: filterlang.Expr) -> bool:
    return any(isinstance(n, Not) and isinstance(n.part, And | Or) for n in filterlang.nodes(expr))


@pytest.mark.parametrize(("defective", "shows"), [(NeAsEq, _writes_ne), (NoDeMorgan, _negates_a_connective)])
def test_a_seeded_renderer_defect_is_caught_against_haystack_memory(target: HaystackPgvector,
                                                                    defective: type[HaystackPgvector],
                                                                    shows: Callable[[filterlang.Expr], bool]
                                                                    ) -> None:
    """The differential with the in-memory store (and the neutral semantics) names the defect, shrunk to one
    document; the defective target shares the module's database server."""
    bad, memory = defective(), HaystackMemory()
    try:
        outcome = fuzz([bad, memory], seed=3, budget_s=60, max_cases=120, pairs=[(0, 1)], shrink_s=0.5)
    finally:
        bad.close()
        memory.close()
    # A value of another kind (5% of them: t == 7) still meets a cast: those are the recorded findings, not the defect.
    diffed = [f for f in outcome.findings if f.oracle == "differential" and not any(k.explains(f) for k in KNOWN)]
    assert diffed, [f.describe() for f in outcome.findings]
    assert all(shows(f.expr) and len(f.docs) == 1 for f in diffed), [f.describe() for f in diffed]
    assert all(bad.name in f.targets for f in outcome.findings)


@pytest.fixture(scope="module")
def reproduced(request: pytest.FixtureRequest, target: HaystackPgvector) -> dict[str, Result]:
    """The selected reproducers below, in one interpreter (``support.reproducers``), on the module's server."""
    from filterproof.adapters.bridges.pgvector import libpq_dsn

    names = selected(request, "test_the_reproducer_runs_alone", "name")
    return run_scripts({name: ROOT / REPRO.format(name) for name in names}, env={"PGVECTOR_DSN": libpq_dsn(None)})


@pytest.mark.slow  # standalone reproducers in a child interpreter (their in-process replay stays quick)
@pytest.mark.parametrize("name", ["integer_cast", "real_cast", "boolean_cast"])
def test_the_reproducer_runs_alone(name: str, reproduced: dict[str, Result]) -> None:
    done = reproduced[name]
    assert done.returncode == 1 and "DocumentStoreError" in done.stderr, done.output
    assert done.filterproof is False, done.output
    assert "filterproof" not in (ROOT / REPRO.format(name)).read_text().split('"""', 2)[2]
