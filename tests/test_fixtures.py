"""Fixture loading: clear errors for bad files, malformed metadata loaded and counted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filterproof.cli import app
from filterproof.fixtures import FixtureError, load_fixture

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def lab_json() -> dict:
    return json.loads((FIXTURES / "freshness-lab.json").read_text())


def write(tmp_path: Path, data: object, name: str = "fx.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def mutate(tmp_path: Path, change) -> Path:
    data = lab_json()
    change(data)
    return write(tmp_path, data)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["cases"][1].pop("expected"),
     "cases[1] (id 'restricted'): field 'expected': required field is missing"),
    (lambda d: d["cases"][2].update(expected="nope"),
     "cases[2] (id 'no-access'): field 'expected': unknown document id 'nope'"),
    (lambda d: d["cases"][0].update(relevant=["retry-v2", "ghost"]),
     "cases[0] (id 'superseded'): field 'relevant': unknown document id 'ghost'"),
    (lambda d: d["documents"][3].update(id="retry-v1"), "documents[3] (id 'retry-v1'): field 'id': duplicate id"),
    (lambda d: d["cases"].append(dict(d["cases"][0])), "cases[5] (id 'superseded'): field 'id': duplicate id"),
    (lambda d: d["documents"][0].pop("text"), "documents[0] (id 'retry-v1'): field 'text': required field is missing"),
    (lambda d: d["cases"][0].update(as_of="8 Sept"), "cases[0] (id 'superseded'): field 'as_of'"),
    (lambda d: d["cases"][0].update(groups="engineering"), "cases[0] (id 'superseded'): field 'groups'"),
    (lambda d: d["cases"][0].update(expcted="x"), "cases[0] (id 'superseded'): field 'expcted': unknown field"),
    (lambda d: d["active_revisions"].update({"no-slash": 1}),
     "active_revisions: field 'no-slash': key must be 'tenant/logical_id'"),
    (lambda d: d["active_revisions"].update({"acme/x": "2"}), "active_revisions['acme/x']"),
])
def test_bad_fixture_names_file_record_and_field(tmp_path: Path, change, message: str) -> None:
    path = mutate(tmp_path, change)
    with pytest.raises(FixtureError) as error:
        load_fixture(path)
    assert str(error.value).startswith(f"{path}: "), str(error.value)
    assert message in str(error.value)


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, '{"documents": [\n  {"id": "a",,}\n]}')
    with pytest.raises(FixtureError, match=r"fx.json: line 2 column 14: invalid JSON"):
        load_fixture(path)


def test_missing_file_and_incomplete_corpus_directory(tmp_path: Path) -> None:
    with pytest.raises(FixtureError, match="cannot read"):
        load_fixture(tmp_path / "absent.json")
    corpus = tmp_path / "corpus"
    shutil.copytree(FIXTURES / "authorized-recall", corpus)
    (corpus / "profiles.json").unlink()
    with pytest.raises(FixtureError, match=r"directory: missing profiles\.json"):
        load_fixture(corpus)


def test_corpus_errors_name_the_file(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(FIXTURES / "authorized-recall", corpus)
    queries = json.loads((corpus / "queries.json").read_text())
    queries["queries"][4]["relevant"].append("no-such-dataset")
    (corpus / "queries.json").write_text(json.dumps(queries))
    with pytest.raises(FixtureError) as error:
        load_fixture(corpus)
    assert str(error.value) == (f"{corpus / 'queries.json'}: queries[4]: field 'relevant': "
                                "unknown dataset id 'no-such-dataset'")


def test_malformed_metadata_loads_and_is_counted(tmp_path: Path) -> None:
    def spoil(d: dict) -> None:
        d["documents"][0]["groups"] = "engineering"
        d["documents"][2]["valid_from"] = "yesterday"
        d["documents"][3]["revision"] = "1"
        del d["documents"][4]["status"]
        d["documents"][5]["logical_id"] = "unmapped"
    fx = load_fixture(mutate(tmp_path, spoil))
    assert len(fx.documents) == 6
    assert fx.malformed() == {
        "retry-v1": "groups is not a list",
        "keys-private-v1": "valid_from is not a YYYY-MM-DD date",
        "keys-public-v1": "revision is not an integer",
        "refund-v2": "missing status",
        "other-tenant-v1": "tenant/logical_id absent from the active revisions",
    }


def test_adversarial_fixture_counts_every_malformed_class() -> None:
    fx = load_fixture(FIXTURES / "adversarial.json")
    malformed = fx.malformed()
    assert set(malformed) == {d.id for d in fx.documents if d.id.startswith("m-")}
    reasons = {why.split(" ")[0] for why in malformed.values()}
    assert {"missing", "groups", "valid_from", "valid_until", "revision", "tenant"} <= reasons


def test_cli_reports_a_bad_fixture_without_a_traceback(tmp_path: Path) -> None:
    path = mutate(tmp_path, lambda d: d["cases"][2].update(expected="nope"))
    result = CliRunner().invoke(app, ["compare", str(path)])
    assert result.exit_code == 2
    output = result.output + (result.stderr if hasattr(result, "stderr") else "")
    assert "unknown document id 'nope'" in output
    assert "Traceback" not in output
