"""The fuzzer itself: its language and evaluator, no finding on a correct engine, each seeded defect found by the
oracle it is for, shrunk to a world of one or two documents, written as a reproducer that runs alone, replayed."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filterproof.adapters import filterlang
from filterproof.adapters.filterlang import And, Cond, Not, Or
from filterproof.cli import app
from filterproof.fuzz import semantics
from filterproof.fuzz.finding import Judge
from filterproof.fuzz.generate import Allows, Generator
from filterproof.fuzz.oracles import conditions, partition
from filterproof.fuzz.run import fuzz, signature
from filterproof.fuzz.targets import open_target
from filterproof.fuzz.targets.reference import DEFECT_NAMES

FOUND_BY = {"IsEmptyIgnored": {"reference"}, "NinSelectsAll": {"reference"}, "EmptyInSelectsAll": {"reference"},
            "IndexDropsNegatives": {"index"}, "ScrollSkipsLast": {"paths"},
            "AndReadsTwo": {"reorder", "conjunct", "de_morgan"}, "NotOfOrDistributes": {"de_morgan", "partition",
                                                                                        "double_negation"},
            "NotOfNullIsTrue": {"partition", "de_morgan"}, "OptimizeLosesNulls": {"optimize"}}
"""The oracles that may catch each seeded defect (the first finding must come from one of them)."""


def test_every_generated_filter_and_value_goes_to_json_and_back() -> None:
    generator = Generator(7, Allows())
    generator.world(8)
    for _ in range(300):
        expr = generator.filter()
        assert filterlang.from_json(json.loads(json.dumps(filterlang.to_json(expr)))) == expr


def test_a_target_that_says_fewer_operators_is_asked_only_those() -> None:
    """``Allows.ops``: the generator asks no other operator (and no field with none of them); all operators allowed,
    a seed asks exactly what it asks without the restriction (the committed seeded runs stay as they are)."""
    said = ("eq", "ne", "gt", "lt")
    narrow, full = Generator(3, Allows(ops=said)), Generator(3, Allows())
    plain = Generator(3, Allows(ops=filterlang.OPS))
    for generator in (narrow, full, plain):
        generator.world(8)
    asked = [c.op for _ in range(300) for c in conditions(narrow.filter())]
    assert set(asked) == set(said)
    assert [full.filter() for _ in range(100)] == [plain.filter() for _ in range(100)]
    with pytest.raises(ValueError, match="no field has an operator"):
        Generator(1, Allows(ops=("contains",), fields=("s", "n")))


def test_unknown_operators_and_misshapen_values_raise() -> None:
    with pytest.raises(ValueError, match="unknown operator"):
        Cond("like", "s", "a%")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="takes a tuple"):
        Cond("in", "s", ["a"])
    with pytest.raises(TypeError, match="takes no value"):
        Cond("is_null", "s", 1)


@pytest.mark.parametrize(("expr", "doc", "truth"), [
    (Cond("eq", "s", "a"), {"s": "a"}, True),
    (Cond("eq", "s", "a"), {}, None),  # missing: unknown
    (Cond("ne", "s", "a"), {"s": None}, None),  # null: unknown, not "not equal"
    (Cond("eq", "n", 1), {"n": True}, None),  # a bool is no integer
    (Cond("eq", "tags", "a"), {"tags": ["a"]}, None),  # a scalar test of a list: engines differ
    (Cond("contains", "tags", "a"), {"tags": ["a", None]}, True),
    (Cond("contains_any", "tags", ()), {"tags": ["a"]}, False),
    (Cond("in", "s", ()), {"s": "a"}, False),
    (Cond("gt", "d", date(2026, 1, 1)), {"d": "2026-09-08"}, True),
    (Cond("lte", "n", 2**53), {"n": 2**53 + 1}, None),  # past 2^53: engines compare doubles
    (Cond("is_empty", "tags", None), {"tags": []}, True),
    (Cond("is_null", "tags", None), {"tags": [None]}, None),  # Qdrant reads [null] as null
    (Cond("exists", "s", None), {"s": None}, False),
    (Not(Cond("eq", "s", "a")), {}, None),
    (And((Cond("eq", "s", "a"), Cond("eq", "t", "b"))), {"s": "b"}, False),  # false AND unknown is false
    (Or((Cond("eq", "s", "a"), Cond("eq", "t", "b"))), {"s": "a"}, True),  # true OR unknown is true
    (And(()), {}, True),
    (Or(()), {}, False),
])
def test_the_neutral_evaluator_in_three_valued_logic(expr: filterlang.Expr, doc: dict[str, object],
                                                      truth: bool | None) -> None:
    assert semantics.truth(expr, doc) is truth


def test_a_correct_engine_makes_no_finding() -> None:
    outcome = fuzz([open_target("reference")], seed=3, budget_s=60, max_cases=500)
    assert outcome.cases == 500 and not outcome.findings, [f.describe() for f in outcome.findings]
    judged = {key.split(" ", 1)[1] for key in outcome.checked}
    assert judged == {"partition", "double_negation", "de_morgan", "reorder", "conjunct", "paths", "index",
                      "optimize", "reference"}


@pytest.mark.parametrize("defect", DEFECT_NAMES)
def test_each_seeded_defect_is_found_shrunk_and_reproduced(defect: str, tmp_path: Path) -> None:
    name = f"reference:defect={defect}"
    result = CliRunner().invoke(app, ["fuzz", "-b", name, "--cases", "1500", "--budget", "60s", "--seed", "1",
                                      "--out", str(tmp_path)])
    assert result.exit_code == 1, result.output
    first = json.loads((tmp_path / "finding-1.json").read_text())
    assert first["oracle"] in FOUND_BY[defect], first
    assert len(first["docs"]) <= 2, first["docs"]
    script = subprocess.run([sys.executable, str(tmp_path / "finding-1.py")], capture_output=True, text=True,
                            timeout=60)
    assert script.returncode == 1 and "VIOLATED" in script.stdout, script.stdout + script.stderr
    again = CliRunner().invoke(app, ["fuzz", "--replay", str(tmp_path / "finding-1.json")])
    assert again.exit_code == 1 and "FAILS" in again.output, again.output


def test_p_not_p_and_p_unknown_partition_where_the_language_says_unknown() -> None:
    """Ternary logic partitioning: NOT of a condition on a null selecting the row (Milvus Lite's ``not in``) keeps
    P and NOT P apart, so the two-way relation holds; the third part, P-unknown, shares the row with NOT P."""
    docs, p = {"d0": {"s": None}, "d1": {"s": "a"}}, Cond("eq", "s", "a")
    defective, correct = open_target("reference:defect=NotOfNullIsTrue"), open_target("reference")
    for target in (defective, correct):
        target.world(docs)
    three_way = partition(p, docs, defective)
    assert [a.label for a in three_way.asks] == ["P", "NOT P", "P unknown"]
    assert Judge([defective]).violation(three_way, docs) == ({"P": {"d1"}, "NOT P": {"d0"}, "P unknown": {"d0"}}, "")
    assert Judge([correct]).violation(partition(p, docs, correct), docs) is None
    two_way = replace(three_way, asks=three_way.asks[:2], python="not (answers['P'] & answers['NOT P'])")
    assert Judge([defective]).violation(two_way, docs) is None


def test_unknown_under_the_null_rule_is_exactly_where_a_null_makes_the_filter_unknown() -> None:
    """``semantics.unknown_under_null_rule`` (Milvus's P-unknown, in its own words): on every generated typed world
    (nulls, no missing keys, no other kinds) where a null is the only thing that can leave a condition unknown, it is
    true exactly where the neutral evaluator says unknown, and never unknown itself."""
    generator = Generator(5, Allows(absent=False, mixed=False, null_in_lists=False))
    judged = 0
    for _ in range(40):
        docs = generator.world(8)
        for _ in range(50):
            p = generator.filter()
            for doc in docs.values():
                if any(doc.get(c.key) is not None and semantics.condition(c, doc) is None for c in conditions(p)):
                    continue  # unknown for another reason than a null (a list under eq, past 2^53)
                judged += 1
                unknown = semantics.truth(semantics.unknown_under_null_rule(p), doc)
                assert unknown is (semantics.truth(p, doc) is None), (filterlang.show(p), doc)
    assert judged > 5000, judged


def test_the_fixed_engine_holds_on_a_replayed_finding(tmp_path: Path) -> None:
    CliRunner().invoke(app, ["fuzz", "-b", "reference:defect=NinSelectsAll", "--cases", "300", "--out",
                             str(tmp_path)])
    finding = json.loads((tmp_path / "finding-1.json").read_text())
    finding["targets"] = ["reference"]  # the same world and filter on the engine without the defect
    (tmp_path / "fixed.json").write_text(json.dumps(finding))
    result = CliRunner().invoke(app, ["fuzz", "--replay", str(tmp_path / "fixed.json")])
    assert result.exit_code == 0 and "does not reproduce" in result.output, result.output


def test_an_unknown_target_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["fuzz", "-b", "nosuch"])
    assert result.exit_code == 2 and "unknown fuzz target 'nosuch'" in result.output


@pytest.mark.parametrize(("name", "env", "service"), [
    ("qdrant-server", "QDRANT_URL", "filterproof.servers.qdrant:QdrantService"),
    ("milvus-server", "MILVUS_URI", "filterproof.servers.milvus_container:MilvusService")])
def test_a_server_target_without_a_server_says_why_and_is_left_out(name: str, env: str, service: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A server target fuzzes a server that already runs (its URL in the environment) or a container: without
    either, asked by name it is a usage error naming the variable; unnamed, a run leaves it out."""
    import importlib

    from filterproof.fuzz.targets import installed

    monkeypatch.delenv(env, raising=False)
    module, _, cls = service.partition(":")
    if getattr(importlib.import_module(module), cls)().unavailable_reason() is None:
        pytest.skip(f"a Docker engine answers here: {name} would start a container")
    result = CliRunner().invoke(app, ["fuzz", "-b", name, "--cases", "1"])
    assert result.exit_code == 2, result.output
    assert f"{name} needs a" in result.output and env in result.output
    assert name not in installed()


def test_an_engine_error_is_one_finding_per_message_whatever_the_oracle_or_values() -> None:
    """Milvus Lite refuses ``ARRAY_CONTAINS(nums, -1)`` under every oracle and at every negative value: one finding."""
    said = "MilvusException: (code=6, message=unexpected token '-' at column {} ARRAY_CONTAINS(nums, {}) ^)"
    one = signature(("milvus",), "partition", Cond("contains", "nums", -1), said.format(22, -1), {}, (0, 0))
    two = signature(("milvus",), "paths", Cond("contains", "nums", -(2**63)), said.format(22, -(2**63)),
                    {"d0": {"nums": None}}, (1, 0))
    assert one == two
    other = signature(("milvus",), "partition", Cond("contains", "nums", -1), "MilvusException: (code=1, "
                      "message=Integer value 9007199254740993 not in range)", {}, (0, 0))
    assert other != one
    assert signature(("chroma",), "partition", Cond("contains", "nums", -1), said.format(22, -1), {}, (0, 0)) != one
