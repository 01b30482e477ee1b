"""Odd input to ``fuzz``, ``matrix``, ``new-adapter``, ``freshness``, ``generate``, ``sweep`` and ``compare``: each a
one-line error naming the file, field or option at fault (exit 2), before any work, never a traceback; a finding
file never imports code the command line did not name; outputs never overwrite what the user had."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from filterproof.cli import app
from filterproof.fixtures import shipped
from support.one_line import one_line_error

runner = CliRunner()
LAB = str(shipped("freshness-lab.json"))
FINDING: dict[str, Any] = {
    # A finding as `fuzz -b reference:defect=NinSelectsAll --out DIR` writes it (finding-1.json), by hand.
    "schema": "filterproof/fuzz-finding-1", "targets": ["reference:defect=NinSelectsAll"], "oracle": "reference",
    "signature": "reference:defect=NinSelectsAll reference nin<int> [int]",
    "filter": {"op": "nin", "key": "n", "value": [1]}, "shown": "n nin [1]", "docs": {"d6": {"n": 1}},
    "answers": {"P": ["d6"]}, "error": "", "seed": 1, "case": 104, "spellings": [0, 0], "shrunk_from": [8, 9],
    "versions": {}, "reproducer": "",
}
FINDING_FILTER = json.dumps(FINDING["filter"])
OWN_TARGETS = '''
import pathlib

from filterproof.fuzz.targets.reference import ReferenceTarget

pathlib.Path(__file__).with_name("imported").write_text("yes")  # the proof that the module was imported


class Mine(ReferenceTarget):
    name = "{module}:Mine"


class Unreachable(ReferenceTarget):
    def __init__(self):
        raise ConnectionError("no store at localhost:1")


class Broken(ReferenceTarget):
    def __init__(self):
        raise RuntimeError("the store said no")


class NotATarget:
    pass


class BuggyAsk(ReferenceTarget):
    name = "buggy-ask"

    def ask(self, source, via="search", indexed=False, optimized=None):
        return {{"d0": 1}}["tenant"]  # the target's own bug: a KeyError


class BuggyRender(ReferenceTarget):
    name = "buggy-render"

    def render(self, expr, spelling=0):
        raise IndexError("no such spelling")


class BuggyLoad(ReferenceTarget):
    name = "buggy-load"

    def load(self, docs):
        raise TypeError("load takes a list")


class Refuses(ReferenceTarget):
    """An engine whose own error is declared: its refusal of a filter is a finding, as for every built-in."""

    name = "refuses"
    engine_errors = (RuntimeError,)

    def ask(self, source, via="search", indexed=False, optimized=None):
        if "nin" in source:
            raise RuntimeError("the engine refuses nin")
        return super().ask(source, via, indexed, optimized)
'''


def invoke(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def ends_in_an_error(result: Result, *fragments: str) -> str:
    """Exit 2, the last line one error naming the fragments (a sweep prints what it embeds before it starts)."""
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines and lines[-1].startswith("error: "), result.output
    assert sum(line.startswith("error: ") for line in lines) == 1, result.output
    for fragment in fragments:
        assert fragment in lines[-1], lines[-1]
    return lines[-1]


@pytest.fixture
def own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> str:
    """A module of fuzz targets on ``sys.path``, named after the test (the CLI runs in this process)."""
    module = "fp_own_" + re.sub(r"\W", "_", request.node.name)
    (tmp_path / f"{module}.py").write_text(OWN_TARGETS.format(module=module))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, module, raising=False)
    return module


def finding(tmp_path: Path, name: str = "f.json", **changes: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(FINDING | changes))
    return path


# -- 1. fuzz --replay FILE ----------------------------------------------------------------------------------------


def test_a_good_finding_still_replays(tmp_path: Path) -> None:
    """The guard for the cases below: a good finding file replays (1: it still fails; 0: fixed)."""
    again = invoke("fuzz", "--replay", str(finding(tmp_path)))
    assert again.exit_code == 1 and "FAILS" in again.output, again.output
    fixed = invoke("fuzz", "--replay", str(finding(tmp_path, targets=["reference"])))
    assert fixed.exit_code == 0 and "does not reproduce" in fixed.output, fixed.output


@pytest.mark.parametrize(("content", "fragments"), [
    (None, ("missing.json", "cannot read")),
    ('{"schema": "filterproof/fuzz-fin', ("f.json", "invalid JSON")),
    ({"schema": "filterproof/2", "fixtures": [], "backends": []}, ("f.json", "not a fuzz finding", "filterproof/2")),
    ({"schema": "filterproof/fuzz-1", "findings": []}, ("f.json", "not a fuzz finding", "filterproof/fuzz-1")),
    ([1, 2], ("f.json", "not a fuzz finding")),
    (FINDING | {"targets": ["nosuch"]}, ("f.json", "unknown fuzz target 'nosuch'")),
    (FINDING | {"targets": "reference"}, ("f.json", "'targets'")),
    (FINDING | {"targets": ["reference", "reference"]}, ("f.json", "'targets'", "reference oracle")),
    (FINDING | {"oracle": "vibes"}, ("f.json", "'oracle'", "vibes")),
    (FINDING | {"filter": {"op": "near", "key": "n"}}, ("f.json", "'filter'", "near")),
    (FINDING | {"filter": {"op": "eq", "key": ["n"], "value": 1}}, ("f.json", "'filter'")),
    (FINDING | {"filter": {"and": {"op": "eq"}}}, ("f.json", "'filter'")),
    (FINDING | {"docs": ["d0"]}, ("f.json", "'docs'")),
    (FINDING | {"docs": {"d0": 3}}, ("f.json", "'docs'", "d0")),
    (FINDING | {"spellings": [0, 7]}, ("f.json", "'spellings'")),
    (FINDING | {"seed": "one"}, ("f.json", "'seed'")),
    (FINDING | {"error": None}, ("f.json", "'error'")),
    ({k: v for k, v in FINDING.items() if k != "docs"}, ("f.json", "'docs'", "missing")),
])
def test_a_bad_finding_file_is_one_line(tmp_path: Path, content: Any, fragments: tuple[str, ...]) -> None:
    if content is None:
        path = tmp_path / "missing.json"
    else:
        path = tmp_path / "f.json"
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    one_line_error(invoke("fuzz", "--replay", str(path)), "--replay", *fragments)


def test_a_replay_of_a_directory_or_of_a_filter_nested_100000_deep_is_one_line(tmp_path: Path) -> None:
    one_line_error(invoke("fuzz", "--replay", str(tmp_path)), str(tmp_path), "cannot read")
    deep = tmp_path / "deep.json"
    rest = json.dumps({k: v for k, v in FINDING.items() if k != "filter"})
    deep.write_text(rest[:-1] + ', "filter": ' + '{"not": ' * 100_000 + FINDING_FILTER + "}" * 100_000 + "}")
    one_line_error(invoke("fuzz", "--replay", str(deep)), "deep.json", "nested too deeply")
    shallow_but_deep = finding(tmp_path, "deep2.json", filter=json.loads('{"not": ' * 500 + FINDING_FILTER
                                                                         + "}" * 500))
    one_line_error(invoke("fuzz", "--replay", str(shallow_but_deep)), "deep2.json", "'filter'", "nested too deeply")


def test_a_finding_file_never_imports_a_target_the_command_line_did_not_name(tmp_path: Path, own: str) -> None:
    """``targets`` is data: a ``module:Class`` in it is opened only when given again with ``-b`` (security)."""
    for name in ("os:getpid", f"{own}:Mine", "os:system"):
        line = one_line_error(invoke("fuzz", "--replay", str(finding(tmp_path, targets=[name]))), "f.json",
                              repr(name), f"-b {name}")
        assert "not built in" in line, line
    assert not (tmp_path / "imported").exists()  # nothing imported before the check
    other = invoke("fuzz", "--replay", str(finding(tmp_path, targets=[f"{own}:Mine"])), "-b", f"{own}:Other")
    one_line_error(other, f"-b {own}:Mine")
    assert not (tmp_path / "imported").exists()
    allowed = invoke("fuzz", "--replay", str(finding(tmp_path, targets=[f"{own}:Mine"])), "-b", f"{own}:Mine")
    assert allowed.exit_code == 0 and "does not reproduce" in allowed.output, allowed.output
    assert (tmp_path / "imported").exists()


# -- 2. fuzz -b module:Class ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("spec", "fragments"), [
    ("os:path", ("-b os:path", "not a fuzz target")),
    ("os:getpid", ("-b os:getpid", "not a fuzz target")),
    ("json:JSONDecoder", ("-b json:JSONDecoder", "not a fuzz target", "Target")),
    (":", ("-b ':'", "module:Class")),
    ("os:", ("-b 'os:'", "module:Class")),
    ("fp_no_such_module_here:X", ("-b fp_no_such_module_here:X", "no module named 'fp_no_such_module_here'")),
    ("{own}:Nope", ("-b {own}:Nope", "no attribute 'Nope'")),
    ("{own}:Unreachable", ("-b {own}:Unreachable", "ConnectionError", "no store at localhost:1")),
    ("{own}:Broken", ("-b {own}:Broken", "RuntimeError", "the store said no")),
    ("{own}:NotATarget", ("-b {own}:NotATarget", "not a fuzz target")),
    ("reference:defect=Nope", ("-b reference:defect=Nope", "unknown defect 'Nope'")),
])
def test_a_target_that_cannot_be_opened_is_one_line_naming_it(own: str, spec: str, fragments: tuple[str, ...]
                                                                ) -> None:
    spec = spec.format(own=own)
    one_line_error(invoke("fuzz", "-b", spec, "--cases", "5", "--budget", "5s"),
                   *(f.format(own=own) for f in fragments))


def test_a_module_that_raises_on_import_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "fp_raises_on_import.py").write_text("raise ZeroDivisionError('import-time bug')\n")
    (tmp_path / "fp_exits_on_import.py").write_text("import sys\nsys.exit(3)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for module in ("fp_raises_on_import", "fp_exits_on_import"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    one_line_error(invoke("fuzz", "-b", "fp_raises_on_import:X", "--cases", "5"), "-b fp_raises_on_import:X",
                   "ZeroDivisionError", "import-time bug")
    one_line_error(invoke("fuzz", "-b", "fp_exits_on_import:X", "--cases", "5"), "-b fp_exits_on_import:X",
                   "SystemExit")


def test_odd_budget_is_one_line() -> None:
    one_line_error(invoke("fuzz", "-b", "reference", "--budget", "soon"), "--budget", "soon")


# -- 3. outputs checked before the run; findings never overwritten -----------------------------------------------


def test_fuzz_outputs_are_checked_before_the_run(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("mine")
    run = ["fuzz", "-b", "reference:defect=NinSelectsAll", "--cases", "300", "--shrink-seconds", "1"]
    one_line_error(invoke(*run, "--out", str(afile)), f"--out {afile}", "not a directory")
    one_line_error(invoke(*run, "--out", str(afile / "sub")), f"--out {afile / 'sub'}", "cannot create")
    one_line_error(invoke(*run, "--out", "/proc/fp-no-dir-here"), "--out /proc/fp-no-dir-here")
    one_line_error(invoke(*run, "--out", "/proc/self"), "--out /proc/self", "cannot write")
    out = str(tmp_path / "out")
    one_line_error(invoke(*run, "--out", out, "--json", str(tmp_path / "missing" / "run.json")), "--json",
                   "does not exist")
    one_line_error(invoke(*run, "--out", out, "--json", str(tmp_path)), "--json", "is a directory")
    assert afile.read_text() == "mine" and not (tmp_path / "out").exists()  # no work was done


def test_matrix_outputs_are_checked_before_the_run(tmp_path: Path) -> None:
    one_line = ["matrix", "--target", "llamaindex-qdrant", "--probe", "eq", "--path", "plain"]
    one_line_error(invoke(*one_line, "--json", str(tmp_path / "missing" / "m.json")), "--json", "does not exist")
    one_line_error(invoke(*one_line, "--json", str(tmp_path)), "--json", "is a directory")
    one_line_error(invoke(*one_line, "--markdown", str(tmp_path / "missing" / "m.md")), "--markdown",
                   "does not exist")
    one_line_error(invoke("matrix", "--probe", "nope"), "--probe", "unknown probe 'nope'")


def test_fuzz_never_overwrites_a_finding_already_in_out(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "finding-1.py").write_text("# mine\n")
    (out / "finding-2.json").write_text("{}\n")
    result = invoke("fuzz", "-b", "reference:defect=NinSelectsAll", "--cases", "300", "--shrink-seconds", "1",
                    "--out", str(out), "--json", str(tmp_path / "run.json"))
    assert result.exit_code == 1, result.output
    assert (out / "finding-1.py").read_text() == "# mine\n" and (out / "finding-2.json").read_text() == "{}\n"
    assert not (out / "finding-1.json").exists() and not (out / "finding-2.py").exists()
    assert (out / "finding-3.py").exists() and (out / "finding-3.json").exists()
    assert "already held" in result.output and "finding-3" in result.output, result.output
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["findings"][0]["reproducer"] == str(out / "finding-3.py")
    assert json.loads((out / "finding-3.json").read_text())["reproducer"] == str(out / "finding-3.py")


# -- 4. new-adapter never writes through a symlink --------------------------------------------------------------


def test_new_adapter_refuses_a_symlinked_file_inside_dir(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "README.md").symlink_to(outside)
    one_line_error(invoke("new-adapter", "mystore", str(package), "--force"), str(package / "README.md"),
                   "symbolic link")
    assert outside.read_text() == "precious"
    assert sorted(p.name for p in package.iterdir()) == ["README.md"]  # nothing written


def test_new_adapter_refuses_a_symlinked_directory_inside_dir(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "src").symlink_to(elsewhere, target_is_directory=True)
    one_line_error(invoke("new-adapter", "mystore", str(package), "--force"), str(package / "src"),
                   "symbolic link")
    assert list(elsewhere.iterdir()) == [] and sorted(p.name for p in package.iterdir()) == ["src"]


def test_new_adapter_does_not_write_into_a_file_hard_linked_from_outside(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    package = tmp_path / "pkg"
    package.mkdir()
    os.link(outside, package / "README.md")
    result = invoke("new-adapter", "mystore", str(package), "--force")
    assert result.exit_code == 0, result.output
    assert outside.read_text() == "precious" and "filterproof-mystore" in (package / "README.md").read_text()


def test_new_adapter_into_a_dangling_symlink_is_one_line(tmp_path: Path) -> None:
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    one_line_error(invoke("new-adapter", "mystore", str(dangling)), str(dangling), "symbolic link")
    assert not (tmp_path / "nowhere").exists()


# -- 5. numbers numpy or the generator would reject later; an embedder that mutates its input ------------------


@pytest.mark.parametrize(("command", "args", "fragments"), [
    ("freshness", ["-b", "reference", "--seed=-1"], ("--seed -1", "0 or more")),
    ("generate", ["{tmp}/g.json", "-n", "200", "--seed=-1"], ("--seed -1",)),
    ("generate", ["{tmp}/g.json", "-n", "200", "--tenants", "0"], ("--tenants 0",)),
    ("generate", ["{tmp}/g.json", "-n", "200", "--tenant-skew", "nan"], ("--tenant-skew nan",)),
    ("generate", ["{tmp}/g.json", "-n", "200", "--tenant-skew", "inf"], ("--tenant-skew inf",)),
    ("generate", ["{tmp}/g.json", "-n", "200", "--malformed", "nan"], ("--malformed nan",)),
    ("generate", ["{tmp}/g.json", "-n", "200", "--malformed", "2"], ("--malformed 2",)),
    ("generate", ["{tmp}/g.json", "-n", "200", "--cases-per-level", "0"], ("--cases-per-level 0",)),
    ("generate", ["{tmp}/g.json", "-n", "100000000000000"], ("--docs 100000000000000",)),
    ("sweep", ["-n", "200", "-b", "reference", "--seed=-1", "--out", "{tmp}/s"], ("--seed -1",)),
])
def test_a_number_that_would_fail_later_is_one_line_at_once(tmp_path: Path, command: str, args: list[str],
                                                            fragments: tuple[str, ...]) -> None:
    one_line_error(invoke(command, *(a.format(tmp=tmp_path) for a in args)), *fragments)
    assert not (tmp_path / "g.json").exists() and not (tmp_path / "s").exists()


MUTATING = '''
def appends(texts):
    texts.append("one more")
    return [[1.0, float(i % 3)] for i in range(len(texts))]


def clears(texts):
    texts.clear()
    return []


def keeps(texts):
    texts[:] = [t.upper() for t in texts]  # its own business: the list it was given is a copy
    return [[1.0, float(len(t) % 3)] for t in texts]
'''


@pytest.fixture
def mutating(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> str:
    module = "fp_mutating_" + re.sub(r"\W", "_", request.node.name)
    (tmp_path / f"{module}.py").write_text(MUTATING)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, module, raising=False)
    return module


@pytest.mark.parametrize("command", ["compare", "sweep"])
def test_an_embedder_that_mutates_its_texts_cannot_affect_the_run(tmp_path: Path, mutating: str,
                                                                   command: str) -> None:
    extra = ["--out", str(tmp_path / "s"), "--no-plots"] if command == "sweep" else []
    for function, shape in (("appends", "shape (6, 2) for 5 query texts"), ("clears", "shape (0,) for 5 query")):
        ends_in_an_error(invoke(command, LAB, "-b", "reference", "--embedding", f"{mutating}:{function}", *extra),
                         f"embedding function {mutating}:{function}", shape)
    kept = invoke(command, LAB, "-b", "reference", "--embedding", f"{mutating}:keeps", *extra)
    assert kept.exit_code in (0, 1), kept.output


# -- 6. a fuzz target's own bug is not an engine finding -----------------------------------------------------------


@pytest.mark.parametrize(("cls", "fragments"), [
    ("BuggyAsk", ("the fuzz target buggy-ask failed in ask: KeyError: 'tenant'",)),
    ("BuggyRender", ("the fuzz target buggy-render failed in render: IndexError: no such spelling",)),
    ("BuggyLoad", ("the fuzz target buggy-load failed in load: TypeError: load takes a list",)),
])
def test_a_targets_own_exception_ends_the_run_naming_it_and_where(tmp_path: Path, own: str, cls: str,
                                                                  fragments: tuple[str, ...]) -> None:
    out = tmp_path / "out"
    line = one_line_error(invoke("fuzz", "-b", f"{own}:{cls}", "--cases", "5", "--budget", "5s", "--out", str(out)),
                          *fragments, f"{own}.py:", "--debug")
    assert "FINDING" not in line and not out.exists()
    debug = runner.invoke(app, ["fuzz", "-b", f"{own}:{cls}", "--cases", "5", "--out", str(out), "--debug"])
    assert debug.exit_code == 2 and "Traceback" in debug.stderr and fragments[0] in debug.stderr, debug.output


def test_an_engine_error_the_target_declares_is_still_a_finding(tmp_path: Path, own: str) -> None:
    out = tmp_path / "out"
    result = invoke("fuzz", "-b", f"{own}:Refuses", "--cases", "300", "--shrink-seconds", "1", "--out", str(out))
    assert result.exit_code == 1 and "FINDING refuses error RuntimeError: the engine refuses nin" in result.output, \
        result.output


def test_a_target_whose_engine_errors_are_no_exceptions_is_one_line(tmp_path: Path, own: str) -> None:
    module = tmp_path / f"{own}.py"
    module.write_text(module.read_text() + "\n\nclass Odd(ReferenceTarget):\n    engine_errors = ('KeyError',)\n")
    one_line_error(invoke("fuzz", "-b", f"{own}:Odd", "--cases", "5"), f"-b {own}:Odd", "engine_errors")


# -- 7. warnings: one line, no path --------------------------------------------------------------------------------


WARNS = '''
import warnings


def embed(texts):
    warnings.warn("embed() is deprecated: use embed_v2()", DeprecationWarning, stacklevel=1)
    warnings.warn("a second line\\nof the same warning", UserWarning, stacklevel=1)
    return [[1.0, float(len(t) % 3)] for t in texts]
'''


def test_warnings_reach_the_console_as_one_line_without_a_path(tmp_path: Path) -> None:
    (tmp_path / "fp_warns.py").write_text(WARNS)
    env = {**os.environ, "PYTHONWARNINGS": "default", "COLUMNS": "200"}
    done = subprocess.run([sys.executable, "-m", "filterproof.cli", "compare", LAB, "-b", "reference", "--embedding",
                           "fp_warns:embed", "--no-fail"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    warned = [line for line in done.stderr.splitlines() if line.strip()]
    assert "warning: embed() is deprecated: use embed_v2() (DeprecationWarning)" in warned, done.stderr
    assert "warning: a second line of the same warning (UserWarning)" in warned, done.stderr
    assert not [line for line in warned if re.search(r"\.py:\d+|site-packages|fp_warns", line)], done.stderr
    assert all(line.startswith("warning: ") for line in warned), done.stderr


@pytest.mark.parametrize(("argv", "words"), [
    (["freshness", "--readers", "0"], "'--readers'"), (["sweep", "--dim", "1"], "'--dim'"),
    (["compare", LAB, "--bogus"], "--bogus"), (["nosuch"], "'nosuch'"),
])
def test_a_usage_error_the_parser_finds_is_one_line_too(argv: list[str], words: str) -> None:
    """Ranges and unknown options are checked by typer's parser, which drew a framed box of several lines under
    the usage line: now one line naming the command and the option, as every other usage error, exit 2."""
    result = runner.invoke(app, argv, prog_name="filterproof")
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: filterproof") and words in lines[0], result.output


def test_a_sweep_never_replaces_an_earlier_report_in_out_unless_forced(tmp_path: Path) -> None:
    """--out names a directory, not the files in it: a report an earlier sweep wrote there is kept (exit 2, before
    any work), unless --force."""
    earlier = tmp_path / "report.json"
    earlier.write_text('{"the earlier": "report"}')
    result = runner.invoke(app, ["sweep", "-n", "100", "-b", "reference", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "already holds report.json" in result.output and "--force" in result.output
    assert earlier.read_text() == '{"the earlier": "report"}'
