"""The ``haystack-qdrant`` and ``haystack-memory`` fuzz targets: the neutral language as Haystack's filter dicts, what
it cannot say, each store's answer on a plain world through every via; a seeded run that finds qdrant-haystack's two
recorded findings (``in []`` selects everything; NOT over several conditions is "none of") and nothing unrecorded,
against the neutral semantics and against Haystack's own in-memory store; a seeded renderer defect caught by the
differential with the in-memory store; the reproducers run with Haystack and qdrant-client alone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("haystack_integrations.document_stores.qdrant")

from filterproof.adapters import filterlang
from filterproof.adapters.filterlang import And, Cond, Not, Or, Unsupported
from filterproof.fuzz.finding import Judge
from filterproof.fuzz.oracles import differential, reference
from filterproof.fuzz.repro import write
from filterproof.fuzz.run import Finding, fuzz
from filterproof.fuzz.targets.haystack import HaystackMemory, HaystackQdrant
from filterproof.fuzz.targets.haystack_dicts import haystack_filter
from support.fuzz_known import Known, known_cases, still_fails, unexplained
from support.reproducers import run_scripts

QDRANT = "haystack-qdrant"


def eq(key: str, op: str, value: Any) -> dict[str, Any]:
    return {"field": f"meta.{key}", "operator": op, "value": value}


@pytest.fixture(scope="module")
def qdrant() -> Iterator[HaystackQdrant]:
    opened = HaystackQdrant()
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def memory() -> Iterator[HaystackMemory]:
    opened = HaystackMemory()
    yield opened
    opened.close()


A, B = Cond("eq", "s", "a"), Cond("gt", "n", 1)


@pytest.mark.parametrize(("expr", "spelling", "native"), [
    (Cond("eq", "s", "it's"), 0, eq("s", "==", "it's")),
    (Cond("nin", "n", (1, 2)), 0, eq("n", "not in", [1, 2])),
    (Cond("in", "t", ()), 0, eq("t", "in", [])),
    (Cond("lte", "d", date(2026, 9, 8)), 0, eq("d", "<=", "2026-09-08")),
    (Cond("ne", "b", True), 0, eq("b", "!=", True)),
    (Or(()), 0, {"operator": "OR", "conditions": []}),
    (Not(A), 0, {"operator": "NOT", "conditions": [eq("s", "==", "a")]}),
    (Not(And((A, B))), 0, {"operator": "NOT", "conditions": [eq("s", "==", "a"), eq("n", ">", 1)]}),
    (Not(And((A, B))), 1, {"operator": "NOT", "conditions": [
        {"operator": "AND", "conditions": [eq("s", "==", "a"), eq("n", ">", 1)]}]}),
    (Not(Or((A, B))), 0, {"operator": "NOT", "conditions": [
        {"operator": "OR", "conditions": [eq("s", "==", "a"), eq("n", ">", 1)]}]}),
])
def test_renderings(expr: filterlang.Expr, spelling: int, native: dict[str, Any]) -> None:
    """NOT (A AND B) is written as Haystack reads NOT (not all of its conditions), or with the AND kept (spelling 1)."""
    assert haystack_filter(expr, spelling) == native


@pytest.mark.parametrize("expr", [
    Cond("contains", "tags", "a"), Cond("contains_any", "nums", (1,)), Cond("is_null", "s"), Cond("is_empty", "s"),
    Cond("exists", "s"), Cond("gt", "s", "a"), Cond("gt", "n", True), Cond("gt", "n", date(2026, 1, 1)),
    Cond("lt", "d", 3), Not(Cond("exists", "n")),
])
def test_what_haystack_cannot_say_is_unsupported(expr: filterlang.Expr) -> None:
    with pytest.raises(Unsupported, match=r"^haystack-qdrant: "):
        haystack_filter(expr, name=QDRANT)


@pytest.mark.parametrize(("expr", "spelling", "error"), [
    ("s == 'a'", 0, TypeError), (Cond("eq", "s", object()), 0, TypeError), (A, 2, ValueError), (A, -1, ValueError),
])
def test_unknown_input_raises(expr: Any, spelling: int, error: type[Exception]) -> None:
    with pytest.raises(error):
        haystack_filter(expr, spelling)


def test_both_stores_keep_the_meaning_on_a_plain_world(qdrant: HaystackQdrant, memory: HaystackMemory) -> None:
    """Every operator on defined values, through every via of both stores, selects what the neutral evaluator does;
    a missing field is None to Haystack, so != and NOT select it (both stores are two-valued)."""
    docs = {"d0": {"s": "a", "n": 1, "x": 0.5, "d": "2026-09-08"}, "d1": {"s": "b", "n": 2, "x": 1.5}, "d2": {}}
    cases = {Cond("eq", "s", "a"): {"d0"}, Cond("ne", "s", "a"): {"d1", "d2"}, Cond("in", "n", (2, 3)): {"d1"},
             Cond("nin", "n", (2, 3)): {"d0", "d2"}, Cond("gte", "x", 1.5): {"d1"}, Cond("lt", "n", 2): {"d0"},
             Cond("gte", "d", date(2026, 9, 8)): {"d0"}, Not(Cond("gt", "x", 0.5)): {"d0", "d2"},
             Or((Cond("eq", "n", 1), Cond("eq", "n", 2))): {"d0", "d1"}, And(()): {"d0", "d1", "d2"},
             Not(And((Cond("eq", "s", "a"), Cond("eq", "n", 1)))): {"d1", "d2"}}
    for target in (qdrant, memory):
        target.world(docs)
        for expr, expected in cases.items():
            if expr == And(()) and target is qdrant:
                continue  # qdrant-haystack refuses an empty AND (EMPTY_LOGIC)
            for via in target.vias:
                # spelling 1: NOT over the AND kept whole, which qdrant-haystack translates right (NOT_ALL)
                found = target.answer(target.render(expr, 1), via)
                want = len(expected) if via == "count" else expected
                assert (len(found) if via == "count" else found) == want, f"{target.name} {expr} via {via}"


def _sent_to_qdrant(f: Finding) -> Iterator[dict[str, Any]]:
    """Every dict of the native filters the finding's relation sent qdrant-haystack (as the target rendered them)."""
    def walk(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
        yield node
        for child in node.get("conditions", []):
            yield from walk(child)

    for ask in f.relation.asks:
        if f.targets[ask.target] == QDRANT:
            try:
                yield from walk(haystack_filter(ask.expr, ask.spelling or 0))
            except Unsupported:
                continue


def _empty_in(f: Finding) -> bool:
    return any(d.get("operator") == "in" and d.get("value") == [] for d in _sent_to_qdrant(f))


def _not_of_several(f: Finding) -> bool:
    return any(d.get("operator") == "NOT" and len(d["conditions"]) >= 2 for d in _sent_to_qdrant(f))


def _past_2_53(f: Finding) -> bool:
    held = [v for doc in f.docs.values() for v in doc.values()]
    asked = [c.value for c in filterlang.nodes(f.expr) if isinstance(c, Cond) and c.op in ("gt", "gte", "lt", "lte")]
    return f.oracle == "differential" and any(isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**53
                                              for v in held + asked)


EMPTY_IN = Known("haystack_qdrant_empty_in", frozenset({QDRANT}),
                 "finding: qdrant-haystack 13.1.0 translates `in []` into Filter(should=[]), which Qdrant reads as "
                 "no constraint: it selects every document, even inside an AND (integration finding 9, "
                 "bench/repro/haystack_qdrant_empty_in.py)", _empty_in)
NOT_ALL = Known("haystack_qdrant_not_all", frozenset({QDRANT}),
                "finding: qdrant-haystack 13.1.0 translates NOT over several conditions into must_not (none of "
                "them), where Haystack defines NOT as not all of them (integration finding 10, "
                "bench/repro/haystack_qdrant_not.py)", _not_of_several)
EMPTY_LOGIC = Known("haystack_qdrant_empty_logic", frozenset({QDRANT}),
                    "finding: qdrant-haystack 13.1.0 refuses an AND, OR or NOT of no conditions (FilterError "
                    "\"'conditions' not found\"), which Haystack's filters read as all() / any() (the matrix's "
                    "`or_empty` raises; bench/repro/fuzz_haystack_qdrant_empty_conditions.py)",
                    lambda f: "FilterError: 'conditions' not found" in f.error)
FLOAT_MATCH = Known("haystack_qdrant_float_match", frozenset({QDRANT}),
                    "finding: qdrant-haystack 13.1.0 hands a float of ==, !=, in or not in to Qdrant's MatchValue, "
                    "which refuses it (a pydantic ValidationError): `meta.price == 9.5` cannot be asked "
                    "(bench/repro/fuzz_haystack_qdrant_float.py)",
                    lambda f: "validation error" in f.error and "MatchValue" in f.error and "float" in f.error)
PAST_2_53 = Known("haystack_qdrant_range_past_2_53", frozenset({QDRANT}),
                  "qdrant-client makes a Range bound a float (pydantic: 2^53 + 1 becomes 2^53), so past 2^53 an "
                  "integer is compared rounded, where Haystack's filters compare Python integers exactly (the neutral "
                  "semantics leave it undefined; only the differential sees it)", _past_2_53)
KNOWN = [EMPTY_IN, NOT_ALL, EMPTY_LOGIC, FLOAT_MATCH, PAST_2_53]


def test_the_target_runs_alone_on_a_small_seed(qdrant: HaystackQdrant) -> None:
    """haystack-qdrant alone (mixed kinds in its worlds too): every single-target oracle it has is judged, no crash,
    and whatever it finds is recorded."""
    outcome = fuzz([qdrant], seed=2, budget_s=60, max_cases=150, shrink_s=1)
    assert outcome.cases == 150
    judged = {key.split(" ", 1)[1] for key in outcome.checked}
    assert judged >= {"partition", "double_negation", "de_morgan", "reorder", "conjunct", "paths", "reference",
                      "spelling"}, outcome.checked
    unknown = unexplained(outcome.findings, KNOWN)
    assert not unknown, "\n".join(unknown)


@pytest.fixture(scope="module")
def paired_run(qdrant: HaystackQdrant, memory: HaystackMemory) -> list[Finding]:
    """Seed 1, 300 filters, qdrant-haystack diffed with Haystack's in-memory store (measured: 39 findings in 4 s)."""
    outcome = fuzz([qdrant, memory], seed=1, budget_s=60, max_cases=300, pairs=[(0, 1)], shrink_s=1)
    assert outcome.cases == 300
    assert any(key.endswith(" differential") for key in outcome.checked), outcome.checked
    return outcome.findings


def test_a_seeded_run_finds_only_recorded_findings(paired_run: list[Finding]) -> None:
    unknown = unexplained(paired_run, KNOWN)
    assert not unknown, "\n".join(unknown)
    assert not [f for f in paired_run if "haystack-memory" in f.targets and QDRANT not in f.targets], \
        "Haystack's own store disagrees with the neutral semantics"


@pytest.mark.parametrize(("known", "native"), [
    (EMPTY_IN, "'operator': 'in', 'value': []"),
    (NOT_ALL, "{'operator': 'NOT', 'conditions': [{'field': "),
])
def test_the_fuzzer_finds_each_recorded_finding(paired_run: list[Finding], qdrant: HaystackQdrant,
                                                memory: HaystackMemory, known: Known, native: str,
                                                tmp_path: Path) -> None:
    """Each is found against the neutral semantics (reference) and against Haystack's in-memory store (the
    differential), shrunk to one document; its reproducer sends qdrant-haystack the filter that shows it."""
    found = [f for f in paired_run if known.explains(f)]
    assert {"reference", "differential"} <= {f.oracle for f in found}, [f.describe() for f in found]
    smallest = min((f for f in found if f.oracle == "reference"), key=lambda f: filterlang.size(f.expr))
    assert len(smallest.docs) == 1, smallest.describe()
    text = write(smallest, [qdrant, memory][:len(smallest.targets)], tmp_path).read_text()
    assert native in text.split("answers = {", 1)[1], text


def test_an_empty_in_selects_everything_inside_an_and(qdrant: HaystackQdrant, memory: HaystackMemory) -> None:
    """The policy's shape: tenant AND groups in [] (a principal without groups) admits the tenant's documents."""
    docs = {"d0": {"t": "a", "s": "eng"}, "d1": {"t": "b", "s": "eng"}}
    p = And((Cond("eq", "t", "a"), Cond("in", "s", ())))
    for target in (qdrant, memory):
        target.world(docs)
    judged = Judge([qdrant])
    assert judged.violation(reference(p, docs, qdrant), docs) == ({"P": {"d0"}}, "")
    assert Judge([qdrant, memory]).violation(differential(p, docs, qdrant), docs) == (
        {"P": {"d0"}, "P (other)": set()}, "")


@pytest.mark.parametrize("path", known_cases([EMPTY_IN, NOT_ALL, EMPTY_LOGIC, FLOAT_MATCH]))
def test_a_known_finding_still_holds_on_the_installed_release(path: Path) -> None:
    """Each recorded finding's minimal world: fails now (the xfail); a fixed release makes it pass (XPASS, red)."""
    still_fails(path)


class NeAsEq(HaystackMemory):
    """A seeded renderer defect: != written as ==."""

    name = "haystack-memory-ne-as-eq"

    def render(self, expr: filterlang.Expr, spelling: int = 0) -> str:
        return super().render(expr, spelling).replace("'operator': '!='", "'operator': '=='")


class DropsNot(HaystackMemory):
    """A seeded renderer defect: a NOT of one condition written as the condition alone."""

    name = "haystack-memory-drops-not"

    def render(self, expr: filterlang.Expr, spelling: int = 0) -> str:
        return repr(_drop_not(haystack_filter(expr, spelling, self.name)))


def _drop_not(node: dict[str, Any]) -> dict[str, Any]:
    if "conditions" not in node:
        return node
    if node["operator"] == "NOT" and len(node["conditions"]) == 1:
        return _drop_not(node["conditions"][0])
    return {**node, "conditions": [_drop_not(c) for c in node["conditions"]]}


@pytest.mark.parametrize(("defective", "shape"), [(NeAsEq, "ne<"), (DropsNot, "not(")])
def test_a_seeded_renderer_defect_is_caught_against_haystack_memory(defective: type[HaystackMemory],
                                                                    shape: str) -> None:
    """The differential with the in-memory store (and the neutral semantics) names the defect, shrunk."""
    bad, good = defective(), HaystackMemory()
    try:
        outcome = fuzz([bad, good], seed=3, budget_s=60, max_cases=200, pairs=[(0, 1)], shrink_s=1)
    finally:
        bad.close()
        good.close()
    diffed = [f for f in outcome.findings if f.oracle == "differential"]
    assert diffed, [f.describe() for f in outcome.findings]
    assert all(shape in filterlang.shape(f.expr, kinds=True) and len(f.docs) == 1 for f in diffed), \
        [f.describe() for f in diffed]
    assert all(bad.name in f.targets for f in outcome.findings)


@pytest.mark.slow  # standalone reproducers in a child interpreter (their in-process replay stays quick)
def test_the_reproducers_run_alone(paired_run: list[Finding], qdrant: HaystackQdrant, memory: HaystackMemory,
                                   tmp_path: Path) -> None:
    """Each recorded finding's reproducer, reference and differential, exits 1 with Haystack alone."""
    chosen = [next(f for f in paired_run if known.explains(f) and f.oracle == oracle)
              for known in (EMPTY_IN, NOT_ALL) for oracle in ("reference", "differential")]
    scripts = {n: write(f, [qdrant, memory][:len(f.targets)], tmp_path, n) for n, f in enumerate(chosen, 1)}
    done = run_scripts(scripts)
    for result in done.values():
        assert result.returncode == 1 and "VIOLATED" in result.stdout, result.stdout + result.stderr
        assert result.filterproof is False, result.stdout
