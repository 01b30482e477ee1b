"""``filterproof new-adapter``: the package it writes is red with the skeleton, and green once filled in.

The generated package is run as a user runs it (``support.scaffolded``): ``pytest`` in its
directory, in a subprocess, with filterproof importable. The filled-in adapter is the one in
docs/guides/your-own-store.md, so the guide's example is proven to pass the whole suite. The
entry point is checked without installing anything into the environment. Several backends in
one package, and ``--add``: ``test_several_backends.py``.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from filterproof.cli import app
from filterproof.errors import UsageError
from filterproof.fixtures import SHIPPED
from filterproof.scaffold import METHODS, Names, check_name, create, render
from support.scaffolded import (
    FILLED_IN,
    GUIDE,
    blocks,
    filled_in_adapter,
    first_line,
    installed,
    run_filterproof,
    run_pytest,
    runner,
    scaffold,
)

# -- names and templates ------------------------------------------------------


def test_names_derive_from_the_backend_name() -> None:
    names = Names.of("my-store2")
    assert (names.backend, names.distribution, names.module) == ("my-store2", "filterproof-my-store2",
                                                                 "filterproof_my_store2")
    assert (names.adapter, names.options, names.test_class) == ("MyStore2Adapter", "MyStore2Options", "TestMyStore2")
    assert names.entry_point == "filterproof_my_store2.adapter:MyStore2Adapter"


@pytest.mark.parametrize("name", ["", "MyStore", "my_store", "1store", "my--store", "-store", "store-", "my store",
                                  "my.store", "s" * 41])
def test_a_bad_name_is_a_usage_error(tmp_path: Path, name: str) -> None:
    with pytest.raises(UsageError, match="backend name"):
        check_name(name)
    result = runner.invoke(app, ["new-adapter", "--", name, str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "error: backend name" in result.output and not (tmp_path / "out").exists()


def test_a_built_in_name_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["new-adapter", "qdrant-edge"])
    assert result.exit_code == 2
    assert "built into filterproof" in result.output and not list(tmp_path.iterdir())


def test_every_file_renders_and_parses() -> None:
    names = Names.of("my-store")
    files = render(names)
    assert sorted(files) == [".gitignore", "README.md", "pyproject.toml", "src/filterproof_my_store/__init__.py",
                             "src/filterproof_my_store/adapter.py", "src/filterproof_my_store/fuzz_target.py",
                             "tests/test_conformance.py"]
    assert not [path for path, text in files.items() if "{{" in text or "}}" in text]
    for path, text in files.items():
        if path.endswith(".py"):
            ast.parse(text, path)
    project = tomllib.loads(files["pyproject.toml"])
    assert project["project"]["entry-points"]["filterproof.adapters"] == {"my-store": names.entry_point}
    assert project["tool"]["pytest"]["ini_options"]["pythonpath"] == ["src"]
    readme = files["README.md"]
    assert re.findall(r"^## (\d)\.", readme, re.M) == ["1", "2", "3", "4", "5", "6"]
    assert "filterproof fuzz -b filterproof_my_store.fuzz_target:MyStoreFuzzTarget" in readme
    fuzz_target = files["src/filterproof_my_store/fuzz_target.py"]
    for method in ("load", "render", "ask", "script"):
        assert f'"MyStoreFuzzTarget.{method} is not written yet: ' in fuzz_target
    assert "--backend reference --backend my-store" in readme
    assert all((SHIPPED / name).exists() for name in ("freshness-lab.json", "adversarial.json", "authorized-recall"))
    adapter = files["src/filterproof_my_store/adapter.py"]
    for method in METHODS:  # each raises, naming itself
        assert f'"MyStoreAdapter.{method} is not written yet: ' in adapter
    for where in ("structural_problem", "filterproof.policy.problem", "matchable", "is_eligible", "capabilities",
                  "k = 0", "Options"):
        assert where in adapter


@pytest.mark.parametrize("name", ["mystore", "abcdefghij" * 4], ids=["short", "longest"])
def test_the_generated_code_is_ruff_clean(tmp_path: Path, name: str) -> None:
    """At 120 columns, for a short name and for the longest a backend may have (40 characters, most of them in the
    class names: every line that holds a name leaves room for one that long)."""
    ruff = shutil.which("ruff") or shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff is None:
        pytest.skip("ruff is not installed")
    package = scaffold(tmp_path, name)
    done = subprocess.run([ruff, "check", "--no-cache", "--line-length", "120", "--select", "E,F,W,I,B,UP,SIM,RUF",
                           "."], cwd=package, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


# -- the command --------------------------------------------------------------


def test_the_command_writes_the_package_and_says_what_next(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["new-adapter", "my-store"])  # DIR defaults to ./NAME
    assert result.exit_code == 0, result.output
    assert (tmp_path / "my-store" / "src" / "filterproof_my_store" / "adapter.py").is_file()
    assert "factory filterproof_my_store.adapter:MyStoreAdapter" in result.output
    assert "cd my-store && pip install -e . && pytest -x" in result.output


def test_a_non_empty_directory_is_refused_unless_forced(tmp_path: Path) -> None:
    target = tmp_path / "mystore"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    result = runner.invoke(app, ["new-adapter", "mystore", str(target)])
    assert result.exit_code == 2
    assert f"error: {target} is not empty" in " ".join(result.output.split())
    assert sorted(p.name for p in target.iterdir()) == ["notes.txt"]
    assert runner.invoke(app, ["new-adapter", "mystore", str(target), "--force"]).exit_code == 0
    adapter = target / "src" / "filterproof_mystore" / "adapter.py"
    adapter.write_text("edited")
    assert runner.invoke(app, ["new-adapter", "mystore", str(target), "--force"]).exit_code == 0
    assert "class MystoreAdapter(AdapterBase)" in adapter.read_text() and (target / "notes.txt").read_text() == "mine"


def test_something_in_the_way_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("")
    result = runner.invoke(app, ["new-adapter", "mystore", str(afile)])
    assert result.exit_code == 2 and "is a file, not a directory" in result.output
    target = tmp_path / "pkg"
    target.mkdir()
    (target / "tests").write_text("a file where a directory goes")
    with pytest.raises(UsageError, match="is in the way"):
        create("mystore", target, force=True)
    assert sorted(p.name for p in target.iterdir()) == ["tests"]


def test_help_shows_the_factory_signature() -> None:
    result = runner.invoke(app, ["new-adapter", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "MystoreAdapter(options: MystoreOptions | Mapping[str, Any] | None = None)" in text
    assert "mystore = filterproof_mystore.adapter:MystoreAdapter" in text


# -- the generated package, run --------------------------------------------------


@pytest.mark.slow
def test_the_skeleton_is_red_and_its_first_failure_names_the_method_to_write(tmp_path: Path) -> None:
    code, output = run_pytest(scaffold(tmp_path))
    assert code == 1, output
    assert first_line(output, "FAILED ").startswith(
        "FAILED tests/test_conformance.py::test_method_is_written[reset] - NotImplementedError: "
        "MystoreAdapter.reset is not written yet: create the index")
    assert first_line(output, "E   ").startswith("E       NotImplementedError: MystoreAdapter.reset is not written yet")
    todo = re.findall(r"^FAILED tests/test_conformance.py::test_method_is_written\[(\w+)\]", output, re.M)
    assert todo == list(METHODS), output[-3000:]
    assert "ERROR" not in output  # an unwritten close() is reported once, not at every teardown


@pytest.mark.slow
def test_a_partly_written_adapter_names_the_next_method(tmp_path: Path) -> None:
    package = scaffold(tmp_path)
    unwritten_search = ('\n\ndef _search(self, vector, k, where):\n    raise NotImplementedError('
                        '"MystoreAdapter.search is not written yet")\n\n\nMystoreAdapter.search = _search\n')
    (package / "src" / "filterproof_mystore" / "adapter.py").write_text(filled_in_adapter() + unwritten_search)
    code, output = run_pytest(package, "-x")
    assert code == 1, output
    assert first_line(output, "FAILED ").startswith(
        "FAILED tests/test_conformance.py::test_method_is_written[search] - NotImplementedError: "
        "MystoreAdapter.search is not written yet")


@pytest.mark.slow
def test_the_filled_in_example_passes_the_whole_suite(tmp_path: Path) -> None:
    package = scaffold(tmp_path)
    (package / "src" / "filterproof_mystore" / "adapter.py").write_text(filled_in_adapter())
    code, output = run_pytest(package)
    summary = output.strip().splitlines()[-1]
    assert code == 0, output[-3000:]
    # Skipped: the across-clients checks, the reader during a change and the two clients, or processes, writing at
    # once (an in-memory store has no second client: open_reader, open_writer, writer_spec).
    assert re.fullmatch(r"=+ \d+ passed, 5 skipped in [\d.]+s( \([\d:]+\))? =+", summary), output[-3000:]
    assert int(summary.split()[1]) > len(METHODS) + 50  # the six checks, then the suite


@pytest.mark.slow
def test_the_entry_point_makes_the_name_a_backend(tmp_path: Path) -> None:
    package = scaffold(tmp_path)
    (package / "src" / "filterproof_mystore" / "adapter.py").write_text(filled_in_adapter())
    done = run_filterproof("compare", str(SHIPPED / "freshness-lab.json"), str(SHIPPED / "adversarial.json"),
                           "--backend", "reference", "--backend", "mystore", path=installed(package, tmp_path / "site"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "mystore: identical to reference" in done.stdout


WRITTEN_BUT_SCRIPT = """
from filterproof_mystore.fuzz_target import MystoreFuzzTarget


class Written(MystoreFuzzTarget):  # load, render and ask written; `in` read as "always" (a seeded defect)
    allows = MystoreFuzzTarget.allows.__class__(ops=("eq", "in"))

    def load(self, docs):
        self.docs = dict(docs)

    def render(self, expr, spelling=0):
        op = getattr(expr, "op", None)  # And, Or and Not have none: Unsupported below (an AttributeError would be
        if op == "eq":                  # this target's own bug, which ends the run: not a finding)
            return repr(f"doc.get({expr.key!r}) == {expr.value!r}")
        if op == "in":
            return repr("True")
        from filterproof.adapters.filterlang import Unsupported
        raise Unsupported("only eq and in, no and/or/not")

    def ask(self, source, via="search", indexed=False):
        return {i for i, doc in self.docs.items() if eval(self.native(source), {"doc": doc})}
"""


def test_the_fuzz_target_skeleton_names_the_method_to_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``filterproof fuzz`` on the generated target exits 2 naming the first unwritten method (``load``, which the
    run calls first); with three written and a defect found, it names ``script``, asked to write the reproducer."""
    package = scaffold(tmp_path)
    monkeypatch.syspath_prepend(str(package / "src"))
    result = runner.invoke(app, ["fuzz", "-b", "filterproof_mystore.fuzz_target:MystoreFuzzTarget", "--cases", "5",
                                 "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert "error: the fuzz target is not written yet: MystoreFuzzTarget.load is not written yet" in result.output
    (package / "src" / "filterproof_mystore" / "fuzz_written.py").write_text(WRITTEN_BUT_SCRIPT)
    result = runner.invoke(app, ["fuzz", "-b", "filterproof_mystore.fuzz_written:Written", "--cases", "100",
                                 "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert "MystoreFuzzTarget.script is not written yet" in result.output


# -- the guide -------------------------------------------------------------------


def test_the_guide_python_blocks_run() -> None:
    found = blocks(GUIDE.read_text(encoding="utf-8"), "python")
    assert len(found) >= 2 and any(block.startswith(FILLED_IN) for block in found)
    for number, block in enumerate(found):
        exec(compile(block, f"{GUIDE.name}, python block {number + 1}", "exec"), {"__name__": f"guide_{number}"})


def test_the_guide_shell_commands_exist() -> None:
    commands = {c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands if c.callback}
    lines = [line for block in blocks(GUIDE.read_text(encoding="utf-8"), "bash") for line in block.splitlines()]
    used = {line.split()[1] for line in lines if line.startswith("filterproof ")}
    assert "new-adapter" in used and used <= commands
    assert any(line.startswith("pytest") for line in lines)
