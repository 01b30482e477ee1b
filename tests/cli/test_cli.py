"""The command line, end to end on the shipped fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filterproof import __version__
from filterproof.cli import app
from support.paths import FIXTURES

runner = CliRunner()


def test_compare_prints_both_tables_and_writes_stable_json(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = runner.invoke(app, ["compare", str(FIXTURES / "freshness-lab.json"), str(FIXTURES / "authorized-recall"),
                                 "--backend", "reference", "--k", "1,3,5,10", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "backends side by side" in result.output and "Restricted to the 30 cases" in result.output
    doc = json.loads(out.read_text())
    assert doc["schema"] == "filterproof/2" and doc["filterproof"] == __version__ and doc["complete"] is True
    assert [f["name"] for f in doc["fixtures"]] == ["freshness-lab", "authorized-recall"]
    assert len(doc["fixtures"][1]["sha256"]) == 64
    summary = {(r["fixture"], r["strategy"], r["k"]): r for r in doc["summary"]}
    assert len(summary) == 2 * 3 * 4 and all(r["backend"] == "reference" for r in doc["summary"])
    lab_pre = summary[("freshness-lab", "pre_filter", 1)]
    assert {k: lab_pre[k] for k in ("cases", "correct", "wrong_document", "false_abstention", "correct_abstention",
                                    "leaks")} == {"cases": 5, "correct": 5, "wrong_document": 0,
                                                  "false_abstention": 0, "correct_abstention": 3, "leaks": 0}
    first = next(r for r in doc["cases"] if r["fixture"] == "freshness-lab" and r["strategy"] == "pre_filter")
    assert (first["case"], first["acceptable"], first["selected"], first["decision"], first["leaks"]) == (
        "superseded", ["retry-v2"], "retry-v2", "correct", [])
    k5 = summary[("authorized-recall", "pre_filter", 5)]
    assert round(k5["arecall"], 3) == 0.988 and k5["n_nonempty"] == 30
    # One case row per line (json's C encoder writes it: an indented report of thousands of cases took most of a
    # stop's two seconds), the other keys indented; the document is still one JSON value.
    lines = out.read_text().splitlines()
    assert lines[0] == "{" and lines[-1] == "}" and lines[1].startswith(' "schema": ')
    rows = [json.loads(line.strip().rstrip(",")) for line in lines[lines.index(' "cases": [') + 1:][:len(doc["cases"])]]
    assert rows == doc["cases"]


@pytest.mark.slow  # about 6 s: two compares
def test_one_backend_twice_with_two_option_sets(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = runner.invoke(app, ["compare", str(FIXTURES / "freshness-lab.json"), "-b", "reference",
                                 "-b", "qdrant-local", "-b", "qdrant-local:path=" + str(tmp_path / "q"),
                                 "--json", str(out)])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert [b["label"] for b in doc["backends"]] == ["reference", "qdrant-local", f"qdrant-local:path={tmp_path}/q"]
    assert {r["backend"] for r in doc["cases"]} == {b["label"] for b in doc["backends"]}


def test_candidates_option_changes_post_filter() -> None:
    lab = str(FIXTURES / "freshness-lab.json")
    result = runner.invoke(app, ["compare", lab, "-b", "reference", "--candidates", "3"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    post = next(i for i, line in enumerate(lines) if "post_filter C=3" in line)
    assert lines[post].split("│")[3].strip() == "5/5", lines[post]


def test_usage_errors_are_one_line() -> None:
    for args, message in [
        (["compare", str(FIXTURES / "freshness-lab.json"), "--k", "0,x"], "--k"),
        (["compare", str(FIXTURES / "freshness-lab.json"), "--backend", "nosuch"], "unknown backend 'nosuch'"),
        (["compare", str(FIXTURES / "freshness-lab.json"), "--candidates", "k"], "candidate depth 'k'"),
        (["compare", str(FIXTURES / "freshness-lab.json"), "-b", "chroma:ef_serach=1"], "unknown option 'ef_serach'"),
        (["compare", str(FIXTURES / "freshness-lab.json"), "-b", "chroma:ef_search=abc"], "ef_search='abc'"),
        (["compare", str(FIXTURES / "freshness-lab.json"), "-b", "qdrant-edge:hnsw_ef=abc"], "hnsw_ef='abc'"),
        (["compare", str(FIXTURES / "freshness-lab.json"), "-b", "qdrant-local:exact=maybe"], "option 'exact'"),
        (["sweep", "-b", "reference:nonsense=1"], "unknown option 'nonsense'"),
    ]:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output and "Traceback" not in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1, result.output


def test_check_lists_malformed_documents() -> None:
    result = runner.invoke(app, ["check", str(FIXTURES / "adversarial.json")])
    assert result.exit_code == 0
    assert "33 malformed" in result.output and "m-string-groups: groups is not a list" in result.output
