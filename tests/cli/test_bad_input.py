"""Bad input and odd data, end to end through the command line: a clean outcome every time.

A data problem is a one-line error naming the file, the record and the field (exit 2),
or a malformed document counted and never eligible; a usage problem is a one-line
error (exit 2); never a traceback, never a partial result presented as complete.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from filterproof.adapters import registry
from filterproof.adapters.descriptor import embedded
from filterproof.cli import app
from filterproof.fixtures import shipped
from support.one_line import one_line_error

EMBEDDED = [*embedded(), "pgvector"]
"""compare's default backends (adapters.descriptor), and pgvector on its throwaway server."""
EVERY = [arg for backend in EMBEDDED for arg in ("-b", backend)]
runner = CliRunner()


def lab() -> dict[str, Any]:
    return json.loads(shipped("freshness-lab.json").read_text())


def write(tmp: Path, doc: Any, name: str = "fx.json") -> Path:
    path = tmp / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def invoke(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    return result


ODD = {
    "nan": float("nan"), "inf": float("inf"), "-inf": float("-inf"), "huge": 2**70, "neg-huge": -(2**80),
    "surrogate": "\ud800", "nested": {"a": [{"b": [1, 2, {"c": None}]}]}, "brackets": "[bold]x[/]",
}


def odd_extras() -> str:
    """The lab with NaN, infinities, 2**70 and lone surrogates in a field the policy never reads."""
    doc = lab()
    for d in doc["documents"]:
        d["extra"] = dict(ODD)
    return json.dumps(doc)  # json writes NaN and Infinity, as many producers do


def odd_policy_values() -> str:
    """Each odd value in a policy field of retry-v2 (the superseded case's answer): the first in retry-v2 itself,
    each other in a copy of it (same text, so it would outrank the rest if a filter let it through)."""
    doc = lab()
    answer = doc["documents"][1]
    copies = [dict(answer) for _ in POLICY_ODDITIES[1:]]
    for n, (odd, (field, value, _)) in enumerate(zip([answer, *copies], POLICY_ODDITIES, strict=True)):
        odd[field] = value
        if odd is not answer:
            odd["id"] = f"{answer['id']}-odd-{n}"
    doc["documents"] += copies
    return json.dumps(doc)


def no_words() -> str:
    doc = lab()
    for d in doc["documents"]:
        d["text"] = "!!! ... ???"
    return json.dumps(doc)


POLICY_ODDITIES = [
    ("revision", 2**63, "signed 64-bit"), ("revision", float("nan"), "not an integer"),
    ("tenant", "acme\ud800", "lone surrogate"), ("groups", ["engineering\udfff"], "lone surrogate"),
    ("valid_from", float("inf"), "YYYY-MM-DD"),
]
ODD_FIXTURES = {"odd-extras": odd_extras, "odd-policy-values": odd_policy_values, "no-words": no_words}


@pytest.fixture(scope="module")
def every_backend(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Path], dict[str, str]]:
    """The odd fixtures through every embedded backend in one compare (each backend started once, not once per
    fixture: about 20 s of the slow set); each fixture's section of the output, by name."""
    tmp = tmp_path_factory.mktemp("odd")
    paths = {name: write(tmp, make(), f"{name}.json") for name, make in ODD_FIXTURES.items()}
    result = invoke("compare", *map(str, paths.values()), *EVERY)
    assert result.exit_code == 0, result.output
    sections = re.split(r"^─+ (\S+)  .*$", result.output, flags=re.MULTILINE)
    return paths, dict(zip(sections[1::2], sections[2::2], strict=True))


@pytest.mark.slow  # about 30 s for the three: every embedded backend
def test_odd_values_in_fields_the_policy_never_reads_are_stored_by_every_backend(
        every_backend: tuple[dict[str, Path], dict[str, str]]) -> None:
    """NaN, infinities, 2**70 and lone surrogates ride along in metadata: every store agrees with the reference."""
    output = every_backend[1]["odd-extras"]
    assert output.count("identical to reference") == len(EMBEDDED) - 1, output


@pytest.mark.slow  # with the test above
def test_odd_values_in_policy_fields_are_malformed_on_every_backend(
        every_backend: tuple[dict[str, Path], dict[str, str]]) -> None:
    """``check`` counts each odd policy value malformed with its reason, and every backend answers as the
    reference."""
    paths, outputs = every_backend
    result = invoke("check", str(paths["odd-policy-values"]))
    assert result.exit_code == 0 and f"{len(POLICY_ODDITIES)} malformed" in result.output, result.output
    assert all(why in result.output for _, _, why in POLICY_ODDITIES), result.output
    output = outputs["odd-policy-values"]
    assert output.count("identical to reference") == len(EMBEDDED) - 1, output


def test_ids_with_brackets_print_in_full(tmp_path: Path) -> None:
    doc = lab()
    doc["documents"][1]["id"] = "[/]"
    doc["documents"][0]["id"] = "t[acme]"
    doc["cases"][0]["expected"] = "[/]"
    doc["documents"][2]["tenant"] = 7
    path = write(tmp_path, doc)
    result = invoke("check", str(path))
    assert result.exit_code == 0 and "  [/]" not in result.output  # [/] is well formed: not listed
    assert "keys-private-v1: tenant is not a string" in result.output
    result = invoke("compare", str(path), "-b", "reference")
    assert result.exit_code == 0 and "[/] (0.700)" in result.output and "t[acme] (1.000)" in result.output
    bad = write(tmp_path, {**doc, "cases": [{**doc["cases"][0], "expected": "[red]nope"}]}, "bad.json")
    one_line_error(invoke("compare", str(bad)), "unknown document id '[red]nope'")


@pytest.mark.parametrize(("mutate", "fragments"), [
    (lambda d: d.update(documents=[]), ("documents", "empty")),
    (lambda d: d.update(cases=[]), ("cases", "empty")),
    (lambda d: d["active_revisions"].update({"acme/retry-policy": 2**63}), ("active_revisions", "64-bit")),
    (lambda d: d.update(min_score=float("nan")), ("min_score", "finite")),
    (lambda d: d["cases"][0].update(tenant="acme\ud800"), ("cases[0]", "tenant", "surrogate")),
    (lambda d: d["documents"][0].update(id="x\ud800"), ("documents[0]", "id", "surrogate")),
])
def test_structural_problems_are_one_line(tmp_path: Path, mutate: Any, fragments: tuple[str, ...]) -> None:
    doc = lab()
    mutate(doc)
    path = write(tmp_path, json.dumps(doc))
    for command in ("check", "compare"):
        one_line_error(invoke(command, str(path)), str(path), *fragments)


@pytest.mark.slow  # with the tests above
def test_texts_without_a_word_make_every_case_abstain(every_backend: tuple[dict[str, Path], dict[str, str]]) -> None:
    output = every_backend[1]["no-words"]
    assert output.count("identical to reference") == len(EMBEDDED) - 1, output


def test_deeply_nested_json_is_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, "[" * 100_000 + "]" * 100_000)
    one_line_error(invoke("check", str(path)), "nested too deeply")


def test_outputs_are_checked_before_the_run(tmp_path: Path) -> None:
    fixture = str(shipped("freshness-lab.json"))
    one_line_error(invoke("compare", fixture, "--json", str(tmp_path / "missing" / "out.json")), "does not exist")
    one_line_error(invoke("compare", fixture, "--json", str(tmp_path)), "is a directory")
    one_line_error(invoke("compare", fixture, "--html", str(tmp_path / "nope" / "x.html")), "does not exist")
    one_line_error(invoke("generate", str(tmp_path / "missing" / "g.json"), "-n", "100"), "existing directory")
    one_line_error(invoke("sweep", "--replot", str(write(tmp_path, "{}", "r.json"))), "filterproof/2")
    one_line_error(invoke("sweep", "--replot", str(write(tmp_path, "{", "r2.json"))), "cannot read a report")
    one_line_error(invoke("sweep", "-n", "200", "-b", "reference", "--out", str(tmp_path / "s")), "selectivity")
    one_line_error(invoke("compare", fixture, "--candidates", "99999999999999999999"), "candidate depth")
    one_line_error(invoke("compare", fixture, "--min-score", "nan"), "--min-score")
    for spec in ("chroma", "qdrant-local", "qdrant-edge"):
        one_line_error(invoke("compare", fixture, "-b", f"{spec}:path={fixture}"), "not a directory")


def test_generate_does_not_overwrite(tmp_path: Path) -> None:
    target = write(tmp_path, "keep me", "g.json")
    one_line_error(invoke("generate", str(target), "-n", "100"), "exists; pass --force")
    assert target.read_text() == "keep me"


def test_fixtures_with_the_same_stem_are_both_reported(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = write(tmp_path / "a", lab(), "x.json")
    second = write(tmp_path / "b", lab(), "x.json")
    out = tmp_path / "out.json"
    result = invoke("compare", str(first), str(second), "-b", "reference", "--json", str(out))
    assert result.exit_code == 0, result.output
    names = [f["name"] for f in json.loads(out.read_text())["fixtures"]]
    assert names == [str(first), str(second)]


def test_two_runs_on_one_persistent_path(tmp_path: Path) -> None:
    """The second run gets a clear 'in use' error while the first holds the path; afterwards it runs."""
    from filterproof.adapters.paths import PathLock

    store = tmp_path / "store"
    holder = PathLock(store, "another run")
    try:
        result = invoke("compare", str(shipped("freshness-lab.json")), "-b", f"qdrant-edge:path={store}")
        assert result.exit_code == 2 and "is in use by another run" in result.output, result.output
    finally:
        holder.release()
    result = invoke("compare", str(shipped("freshness-lab.json")), "-b", f"qdrant-edge:path={store}")
    assert result.exit_code == 0, result.output


def test_compare_fails_a_ci_gate_when_a_backend_leaks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.BUILTIN, "leaky", registry.Builtin(
        "filterproof.conformance.defects:DropsTenantClause", None, None, "drops the tenant clause"))
    out = tmp_path / "out.json"
    result = invoke("compare", str(shipped("adversarial.json")), "-b", "reference", "-b", "leaky", "--json", str(out))
    assert result.exit_code == 1, result.output
    assert "leaky on adversarial: leak: pre_filter returned documents the principal may not use" in result.output
    problems = json.loads(out.read_text())["problems"]
    assert {p["backend"] for p in problems} == {"leaky"} and {p["kind"] for p in problems} >= {"leak"}
    assert invoke("compare", str(shipped("adversarial.json")), "-b", "leaky", "--no-fail").exit_code == 0


def test_an_integer_too_long_to_read_is_one_line_naming_its_place(tmp_path: Path) -> None:
    """Python reads at most 4,300 digits of an integer literal; a longer one is a fixture error with its line
    and column (issue 26), not ``ValueError: Exceeds the limit`` from ``json``."""
    text = json.dumps(lab(), indent=1).replace('"revision": 1,', '"revision": ' + "7" * 5000 + ",", 1)
    path = write(tmp_path, text)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if "7" * 5000 in row)
    for command in ("check", "compare"):
        one_line_error(invoke(command, str(path)), str(path), f"line {line} column", "5000 digits", "4300")


def test_an_output_whose_directory_takes_no_new_file_is_a_usage_error(tmp_path: Path) -> None:
    """``--json /proc/version``: the file exists, its directory exists, but no temporary file can be made beside
    it; said before the run, naming the path (issue 26), not ``FileNotFoundError`` after it."""
    fixture = str(shipped("freshness-lab.json"))
    for option in ("--json", "--html"):
        one_line_error(invoke("compare", fixture, option, "/proc/version"), "/proc/version", "cannot write")


@pytest.mark.slow  # about 20 s: three Chroma paths and the reference, every case in 10,000 groups
def test_a_principal_in_ten_thousand_groups_answers_as_the_reference(tmp_path: Path) -> None:
    """Issue 26: Chroma 1.5.9 died with a segmentation fault (exit 139, every backend's results lost) on an
    ``$or`` of 10,000 ``$contains``; every case here asks with its own groups among 10,000 others."""
    doc = lab()
    for case in doc["cases"]:
        case["groups"] = [f"directory-{n:05d}" for n in range(10_000 - len(case["groups"]))] + case["groups"]
    path = write(tmp_path, doc)
    backends = ["reference", "chroma", "langchain-chroma", "llamaindex-chroma"]
    result = invoke("compare", str(path), *(arg for b in backends for arg in ("-b", b)), "--no-cases")
    assert result.exit_code == 0, result.output
    assert result.output.count("identical to reference") == len(backends) - 1, result.output


@pytest.mark.slow  # about 17 s: three Chroma paths, qdrant-edge and the reference
def test_a_document_in_ten_thousand_groups_is_refused_by_chroma_and_reported(tmp_path: Path) -> None:
    """Issue 26: one Chroma record with 10,000 list values broke the collection for every later call. The answer
    of a case is now such a document: the Chroma paths refuse it before the write and say so, answer as the
    reference without it, and stay usable; qdrant-edge holds it and answers as the reference."""
    doc = lab()
    big = next(d for d in doc["documents"] if d["id"] == "retry-v2")
    big["groups"] = [f"directory-{n:05d}" for n in range(10_000)] + big["groups"]
    path, out = write(tmp_path, doc), tmp_path / "out.json"
    backends = ["reference", "chroma", "langchain-chroma", "llamaindex-chroma", "qdrant-edge"]
    result = invoke("compare", str(path), *(arg for b in backends for arg in ("-b", b)), "--no-cases",
                    "--json", str(out))
    assert result.exit_code == 1, result.output
    for label in ("chroma", "langchain-chroma", "llamaindex-chroma"):
        assert f"{label}: 1 document the store cannot hold, refused before the write and never returned (first: " \
               f"retry-v2: " in result.output.replace("\n", " "), result.output
    assert result.output.count("otherwise identical to the reference without them") == 2 * 3, result.output
    assert "qdrant-edge: identical to reference" in result.output
    report = json.loads(out.read_text())
    refused = {b["label"]: b.get("not_indexable") for b in report["backends"]}
    assert refused["chroma"]["count"] == 1 and refused["chroma"]["differences_without_them"]["differences"] == 0
    assert refused["qdrant-edge"] is None and report["complete"] is True
    assert {p["kind"] for p in report["problems"]} == {"not_indexable"}
