"""The ``milvus`` fuzz target: its rendering of the neutral filter language into Milvus expressions, every string
kept whole by Milvus Lite, a seeded run in which every oracle judges and every finding is a recorded Lite defect,
and a finding's reproducer that runs alone."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from support.fuzz_known import Known, explained, known_cases, still_fails, unexplained
from support.paths import ROOT

pytest.importorskip("pymilvus")
pytest.importorskip("milvus_lite")

from filterproof.adapters import filterlang
from filterproof.adapters.filterlang import And, Cond, Not, Or, Unsupported
from filterproof.adapters.milvus.language import Milvus, quoted
from filterproof.fuzz import repro
from filterproof.fuzz.generate import FIELDS, STRINGS
from filterproof.fuzz.oracles import index, spelling
from filterproof.fuzz.run import Finding, Judge, fuzz
from filterproof.fuzz.targets.milvus import MilvusTarget
from filterproof.fuzz.targets.milvus_expr import expression

REPRO = ROOT / "bench" / "repro"
ORACLES = {"partition", "double_negation", "de_morgan", "reorder", "conjunct", "paths", "index", "reference",
           "spelling"}
NULL_ROW = {f.name: None for f in FIELDS}


@pytest.fixture(scope="module")
def target() -> Iterator[MilvusTarget]:
    opened = MilvusTarget()
    yield opened
    opened.close()


@pytest.mark.parametrize(("expr", "spelled", "native"), [
    (Cond("eq", "s", 'a"b\\c'), 0, 's == "a\\"b\\\\c"'),
    (Cond("eq", "s", '") or (id != "'), 0, 's == "\\") or (id != \\""'),
    (Cond("eq", "s", "x\ny\rz\tw\x00"), 0, 's == "x\\ny\\rz\tw\x00"'),  # newline and CR escaped; tab, NUL raw
    (Cond("ne", "n", -1), 0, "n != -1"),
    (Cond("ne", "n", -1), 1, "n not in [-1]"),
    (Cond("ne", "n", -1), 2, "not (n == -1)"),
    (Cond("in", "t", ()), 0, "t in []"),
    (Cond("in", "t", ()), 1, "t in []"),
    (Cond("nin", "t", ()), 0, "t not in []"),
    (Cond("in", "t", ("a", "b")), 1, '(t == "a") OR (t == "b")'),
    (Cond("nin", "t", ("a", "b")), 1, '(t != "a") AND (t != "b")'),
    (Cond("gte", "d", date(2026, 9, 8)), 0, 'd >= "2026-09-08"'),
    (Cond("lt", "x", 1e300), 0, "x < 1e+300"),
    (Cond("eq", "b", False), 0, "b == false"),
    (Cond("contains", "nums", -7), 0, "ARRAY_CONTAINS(nums, -7)"),
    (Cond("contains", "nums", -7), 2, "ARRAY_CONTAINS(nums, (-7))"),
    (Cond("contains", "tags", "a"), 1, 'ARRAY_CONTAINS_ANY(tags, ["a"])'),
    (Cond("contains_any", "tags", ()), 0, "ARRAY_CONTAINS_ANY(tags, [])"),
    (Cond("is_null", "s"), 0, "s is null"),
    (Cond("is_null", "s"), 1, "s IS NULL"),
    (Cond("exists", "tags"), 0, "tags is not null"),
    (Cond("exists", "tags"), 1, "NOT (tags IS NULL)"),
    (Cond("is_empty", "s"), 0, "s is null"),
    (Cond("is_empty", "tags"), 0, "tags is null or array_length(tags) == 0"),
    (Not(And((Cond("eq", "n", 1), Cond("is_empty", "nums")))), 0,
     "not ((n == 1) and (nums is null or array_length(nums) == 0))"),
    (Or((Cond("eq", "t", "a"), Not(Cond("eq", "t", "b")))), 1, '(t in ["a"]) OR (NOT (t in ["b"]))'),
    (Or((Not(Cond("is_null", "s")), Cond("eq", "n", 1))), 2, "(not (s is null)) or (n == 1)"),  # keywords: lowercase
    (Cond("in", "t", ("a", "b")), 0, 't in ["a", "b"]'),
    (Cond("in", "t", ("a", "b")), 2, 't in ["a", "b"]'),
    (Cond("nin", "t", ("a", "b")), 0, 't not in ["a", "b"]'),
    (Cond("nin", "t", ("a", "b")), 2, 'not (t in ["a", "b"])'),
    (Cond("nin", "t", ()), 1, "t not in []"),
    (Cond("contains_any", "tags", ("a", "b")), 0, 'ARRAY_CONTAINS_ANY(tags, ["a", "b"])'),
    (Cond("contains_any", "tags", ("a", "b")), 1, '(ARRAY_CONTAINS(tags, "a")) OR (ARRAY_CONTAINS(tags, "b"))'),
    (Cond("contains_any", "tags", ("a", "b")), 2, 'ARRAY_CONTAINS_ANY(tags, ["a", "b"])'),
    (And(()), 0, "true"),
    (Or(()), 0, "false"),
])
def test_renderings(expr: filterlang.Expr, spelled: int, native: str) -> None:
    assert expression(expr, spelled) == native


@pytest.mark.parametrize("expr", [
    Cond("eq", "n", "7"), Cond("eq", "s", 7), Cond("eq", "n", True), Cond("in", "b", (True, 1)),
    Cond("gt", "x", "a"), Cond("gt", "n", date(2026, 1, 1)), Cond("eq", "d", date(2026, 1, 1)),
    Cond("gt", "b", True), Cond("contains", "tags", 1), Cond("contains", "s", "a"), Cond("eq", "tags", "a"),
    Cond("gt", "x", float("inf")),
])
def test_what_milvus_refuses_as_a_type_error_is_unsupported(expr: filterlang.Expr) -> None:
    with pytest.raises(Unsupported, match=r"^milvus: "):
        expression(expr)


def test_without_fields_a_key_is_a_plain_name_and_a_value_its_own_kind() -> None:
    """The matrix's renderer (an application's keys, no schema: ``matrix.languages.MILVUS``): ranges, lists and
    emptiness written from the value alone; a dynamic key, and a range of a boolean or a date, refused."""
    untyped = Milvus()
    assert untyped.render(Cond("gt", "n", 1)) == "n > 1"
    assert untyped.render(Cond("lte", "x", 2.5)) == "x <= 2.5"
    assert untyped.render(Cond("eq", "s", "a")) == 's == "a"'
    assert untyped.render(Cond("is_empty", "s")) == "s is null"
    assert untyped.render(Cond("contains", "tags", "a")) == 'ARRAY_CONTAINS(tags, "a")'
    for refused in (Cond("gt", "b", True), Cond("gt", "d", date(2026, 1, 1)), Cond("eq", "a.b", 1),
                    Cond("eq", "$meta", 1)):
        with pytest.raises(Unsupported, match=r"^milvus: |is no Milvus field name"):
            untyped.render(refused)


def test_unknown_input_raises_type_error() -> None:
    with pytest.raises(TypeError):
        expression(Cond("eq", "nosuch", 1))
    with pytest.raises(TypeError):
        quoted(1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        expression("s == 1")  # type: ignore[arg-type]


def test_every_string_is_stored_and_matched_whole(target: MilvusTarget) -> None:
    """Each string of the pools (NUL, controls, quotes, backslashes, Unicode twins) matches exactly its own row."""
    hostile = ['"', "\\", '\\"', '" or id != "', "\\n", "a\\", "\r\n", "\x01\x7f\u2028", "x'y"]
    values = list(dict.fromkeys([*STRINGS, *hostile]))
    docs = {f"d{i}": {**NULL_ROW, "s": v, "tags": [v]} for i, v in enumerate(values)}
    target.world(docs)
    for i, value in enumerate(values):
        for cond in (Cond("eq", "s", value), Cond("contains", "tags", value), Cond("in", "s", (value,))):
            assert target.ask(target.render(cond), "query") == {f"d{i}"}, (value, expression(cond))


def _conds(f: Finding) -> list[Cond]:
    return [c for c in filterlang.nodes(f.expr) if isinstance(c, Cond)]


def _null_rows_differ(f: Finding) -> bool:
    """The answers differ only on rows holding a null in a field the filter names (the two evaluators' rules); or
    such rows, unknown by the documented null rule, are selected by P or by NOT P (the three-way partition)."""
    keys = {c.key for c in _conds(f)}

    def null_there(rows: set[str]) -> bool:
        return bool(rows) and all(any(f.docs[i].get(k) is None for k in keys) for i in rows)

    if f.error:
        return False
    if f.oracle == "partition":
        return null_there(set(f.answers["P unknown"]) & (set(f.answers["P"]) | set(f.answers["NOT P"])))
    if f.oracle not in ("spelling", "conjunct"):
        return False
    answers = [set(v) for v in f.answers.values()]
    return null_there(set.union(*answers) - set.intersection(*answers))


def _float_on_indexed_int(f: Finding) -> bool:
    return not f.error and f.oracle == "index" and any(
        c.key == "n" and any(isinstance(v, float) for v in (c.value if isinstance(c.value, tuple) else (c.value,)))
        for c in _conds(f))


KNOWN = [
    Known("milvus_null_backends", frozenset({"milvus"}),
          "finding: milvus-lite 3.2.2 has two filter evaluators with two null rules: `n not in [1]`, "
          "`not (n in [1])`, `not ARRAY_CONTAINS(...)` and `array_length(...) == 0` select a null row that "
          "`n != 1` and `not (n == 1)` do not (Milvus documents a null as never selected); unreported, "
          "milvus-io/milvus#49891 is related (bench/repro/fuzz_milvus_null_backends.py)", _null_rows_differ),
    Known("milvus_negative_contains", frozenset({"milvus"}),
          "finding: milvus-lite 3.2.2 does not parse a negative value in ARRAY_CONTAINS(nums, -1) (it parses "
          "ARRAY_CONTAINS(nums, (-1))); unreported (bench/repro/fuzz_milvus_negative_contains.py)",
          lambda f: "unexpected token '-'" in f.error and "ARRAY_CONTAINS" in f.error),
    Known("milvus_index_float", frozenset({"milvus"}),
          "finding: milvus-lite 3.2.2's INVERTED index on an INT64 field truncates a float literal, so n >= 1.5 "
          "selects n = 1 once indexed; unreported (bench/repro/fuzz_milvus_index_float.py)", _float_on_indexed_int),
    Known("milvus_int_float", frozenset({"milvus"}),
          "finding: milvus-lite 3.2.2 fails a query comparing an INT64 field with a float once any row holds a "
          "value past 2^53 (\"Integer value ... not in range\"); unreported (bench/repro/milvus_int_float.py)",
          lambda f: "Integer value" in f.error and "not in range" in f.error),
]


@pytest.mark.slow  # about 11 s on Milvus Lite: the slow set (its known findings replay in the quick set)
def test_a_seeded_run_judges_every_oracle_and_finds_only_recorded_defects(target: MilvusTarget) -> None:
    outcome = fuzz([target], seed=5, budget_s=60, max_cases=120, shrink_s=0.5)
    assert {key.split(" ", 1)[1] for key in outcome.checked} == ORACLES, outcome.checked
    unknown = unexplained(outcome.findings, KNOWN)
    assert not unknown, "\n".join(unknown)
    names = [explained(f, KNOWN).name for f in outcome.findings]  # type: ignore[union-attr]
    assert names.count("milvus_negative_contains") == 1, names  # one engine error under six oracles: one finding
    assert "milvus_null_backends" in names


def test_lite_and_a_server_agree_or_the_difference_is_recorded(target: MilvusTarget) -> None:
    """Lite against a Milvus server (``MILVUS_URI``, else a container), diffed: skips with the reason where neither
    is (this machine). Nothing the server finds is recorded yet (none ran where these were written): a finding
    fails here until it is, in ``KNOWN`` with the server's version and a reproducer."""
    from filterproof.fuzz.targets import open_target

    try:
        server = open_target("milvus-server")
    except ImportError as error:
        pytest.skip(str(error))
    try:
        outcome = fuzz([target, server], seed=1, budget_s=90, max_cases=120, pairs=[(0, 1)], shrink_s=0.5)
    finally:
        server.close()
    assert outcome.cases == 120
    unknown = unexplained(outcome.findings, KNOWN)
    assert not unknown, "\n".join(unknown)


@pytest.mark.parametrize("path", known_cases(KNOWN))
def test_a_known_finding_still_holds_on_the_installed_release(path: Path) -> None:
    """Each recorded finding's minimal world: fails now (the xfail); a fixed release makes it pass (XPASS, red)."""
    still_fails(path)


def test_every_known_finding_names_a_reproducer_that_exists() -> None:
    for known in KNOWN:
        named = known.reason.rsplit("(", 1)[1].rstrip(")")
        assert (REPRO.parent.parent / named).is_file(), named


@pytest.mark.slow  # a standalone reproducer in a child interpreter (its in-process replay stays quick)
def test_a_finding_reproduces_standalone(target: MilvusTarget, tmp_path: Path) -> None:
    """``n != 1`` and ``n not in [1]`` (IN as membership) on a null ``n``: Lite's pyarrow ``not in`` selects it."""
    docs = {"d0": dict(NULL_ROW), "d1": {**NULL_ROW, "n": 1}}
    expr = Cond("ne", "n", 1)
    target.world(docs)
    relation = spelling(expr, docs, target)
    assert relation is not None
    bad = Judge([target]).violation(relation, docs)
    assert bad is not None and bad[0]["P spelled 1"] == {"d0"}, bad
    finding = Finding(("milvus",), "spelling", "milvus spelling ne", docs, expr, relation,
                      {k: sorted(v) for k, v in bad[0].items()})
    assert explained(finding, KNOWN) is KNOWN[0]
    path = repro.write(finding, [target], tmp_path, 1)
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "VIOLATED: spelling" in done.stdout, done.stdout + done.stderr


def test_the_index_oracle_sees_the_inverted_index_truncate_a_float(target: MilvusTarget) -> None:
    """Lite's INVERTED index on INT64 reads ``n >= 1.5`` as ``n >= 1`` (``fuzz_milvus_index_float.py``)."""
    docs = {"d0": {**NULL_ROW, "n": 1}, "d1": {**NULL_ROW, "n": 2}}
    target.world(docs)
    relation = index(Cond("gte", "n", 1.5), docs, target)
    assert relation is not None
    assert Judge([target]).violation(relation, docs) == ({"P": {"d1"}, "P indexed": {"d0", "d1"}}, "")
