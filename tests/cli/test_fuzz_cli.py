"""Fuzzing the command line with generated fixture files: whatever the file holds, no traceback.

Hypothesis writes fixture files that are sometimes well shaped and sometimes not:
documents and cases with any metadata (NaN, infinities, integers past 64 bits, lone
surrogates, markup-like and operator-like strings, nesting), missing and extra
fields, wrong types, empty lists. ``check`` and ``compare -b reference`` must end
with exit code 0, 1 or 2 and print no traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from filterproof.cli import app

HOSTILE = ["[/]", "[bold red]x", "$or", "' OR 1=1 --", "acme\u0000evil", "\ud800", "é", "e\u0301", "", " ",
           "acme/x", "2026-02-30", "0000-01-01", "20260908", "2026-W37-2", "x" * 300]
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(HOSTILE), st.text(max_size=12),
)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["a", "tenant", "$in", "[x]"]), inner, max_size=3), max_leaves=8)

TENANTS, GROUPS = ["acme", "beta", "ACME", "[/]"], ["eng", "sec", "$or", "[red]"]
DATES = ["2026-01-01", "2026-09-08", "2026-02-30", "yesterday", "", 20260908]


def document(i: int) -> st.SearchStrategy[dict[str, Any]]:
    base = st.fixed_dictionaries({
        "id": st.sampled_from([f"d{i}"] * 6 + [f"[d{i}]", f"d{i}\ud800"]),
        "text": st.sampled_from(["retry timeout worker", "!!!", "", "signing key [x]", "é ü"]),
        "tenant": st.sampled_from(TENANTS) | values, "logical_id": st.sampled_from(["p", "q"]) | values,
        "revision": st.sampled_from([1, 2, 2**63, -1, "1", 1.0]) | values,
        "status": st.sampled_from(["active", "draft"]) | values,
        "groups": st.lists(st.sampled_from(GROUPS), max_size=2) | values,
        "valid_from": st.sampled_from(DATES) | values,
    }, optional={"valid_until": st.sampled_from(DATES) | values, "extra": values})
    return base


def case(i: int) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({
        "id": st.sampled_from([f"c{i}", f"[c{i}]"]), "query": st.sampled_from(["retry worker", "zzz", "[x]"]),
        "tenant": st.sampled_from(TENANTS), "groups": st.lists(st.sampled_from(GROUPS), max_size=2),
        "as_of": st.sampled_from(["2026-09-08"] * 8 + ["2026-13-01"]),
        "expected": st.sampled_from([None] * 8 + ["d0", "ghost"]),
    }, optional={"relevant": st.lists(st.sampled_from(["d0"] * 8 + ["ghost"]), max_size=2), "bogus": values})


@st.composite
def fixture_files(draw: st.DrawFn) -> Any:
    shape = draw(st.sampled_from(["lab"] * 9 + ["garbage"]))
    if shape == "garbage":
        return draw(values)
    docs = [draw(document(i)) for i in range(draw(st.integers(0 if draw(st.booleans()) else 1, 4)))]
    cases = [draw(case(i)) for i in range(draw(st.integers(0 if draw(st.booleans()) else 1, 3)))]
    keys = st.sampled_from(["acme/p", "beta/q", "[/]/p"] * 4 + ["bad"])
    revisions = st.sampled_from([1, 2] * 6 + [2**63]) if draw(st.integers(0, 9)) else values
    fixture: dict[str, Any] = {"active_revisions": draw(st.dictionaries(keys, revisions, max_size=3)),
                               "documents": docs, "cases": cases}
    if draw(st.booleans()):
        fixture["min_score"] = draw(st.sampled_from([0.25, 0.25, 0.25, float("nan"), -1, "x", None]))
    return fixture


@pytest.mark.slow  # about 25 s: 30 generated fixture files through check and compare
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(content=fixture_files())
def test_check_and_compare_never_trace_back(tmp_path: Path, content: Any) -> None:
    path = tmp_path / "fuzz.json"
    path.write_text(json.dumps(content))
    runner = CliRunner()
    for args in (["check", str(path)], ["compare", str(path), "-b", "reference"]):
        result = runner.invoke(app, args)
        assert result.exit_code in (0, 1, 2), (args, result.output)
        assert "Traceback" not in result.output, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            f"{args}: {type(result.exception).__name__}: {result.exception}")
        event(f"{args[0]} exit {result.exit_code}")
