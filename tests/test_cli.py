"""The command line, end to end on the shipped fixtures."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from filterproof import __version__
from filterproof.cli import app

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
runner = CliRunner()


def test_compare_prints_both_tables_and_writes_stable_json(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = runner.invoke(app, ["compare", str(FIXTURES / "freshness-lab.json"), str(FIXTURES / "authorized-recall"),
                                 "--backend", "reference", "--k", "1,3,5,10", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "Top-1 decisions" in result.output and "Restricted to the 30 cases" in result.output
    doc = json.loads(out.read_text())
    assert doc["schema"] == 1 and doc["filterproof"] == __version__
    assert set(doc["fixtures"]) == {"freshness-lab", "authorized-recall"}
    assert len(doc["fixtures"]["authorized-recall"]["sha256"]) == 64
    records = {(r["fixture"], r["backend"], r["strategy"]): r for r in doc["records"]}
    assert len(records) == 6
    lab_pre = records[("freshness-lab", "reference", "pre_filter")]
    assert lab_pre["decisions"] == {"cases": 5, "correct": 5, "wrong_document": 0, "false_abstention": 0,
                                    "correct_abstention": 3, "leaks": 0}
    assert lab_pre["cases"][0] == {"id": "superseded", "expected": "retry-v2", "selected": "retry-v2",
                                   "score": lab_pre["cases"][0]["score"], "decision": "correct", "leaks": []}
    k5 = records[("authorized-recall", "reference", "pre_filter")]["k"]["5"]
    assert set(k5) == {"recall", "arecall", "arecall_nonempty", "n_nonempty", "unusable", "precision", "ndcg",
                       "short"}
    assert round(k5["arecall"], 3) == 0.988 and k5["n_nonempty"] == 30


def test_candidates_option_changes_post_filter() -> None:
    lab = str(FIXTURES / "freshness-lab.json")
    result = runner.invoke(app, ["compare", lab, "-b", "reference", "--candidates", "3"])
    assert result.exit_code == 0, result.output
    post = next(line for line in result.output.splitlines() if "post_filter" in line and "reference" in line)
    assert post.split("│")[3].strip() == "5", post


def test_usage_errors_are_one_line() -> None:
    for args, message in [
        (["compare", str(FIXTURES / "freshness-lab.json"), "--k", "0,x"], "--k"),
        (["compare", str(FIXTURES / "freshness-lab.json"), "--backend", "nosuch"], "unknown backend 'nosuch'"),
        (["compare", str(FIXTURES / "freshness-lab.json"), "--candidates", "k"], "--candidates"),
    ]:
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_check_lists_malformed_documents() -> None:
    result = runner.invoke(app, ["check", str(FIXTURES / "adversarial.json")])
    assert result.exit_code == 0
    assert "33 malformed" in result.output and "m-string-groups: groups is not a list" in result.output
