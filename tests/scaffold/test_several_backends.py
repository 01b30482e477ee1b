"""Several backends in one package: written at once (``NAME,NAME --package``) or added later (``--add``).

Each backend has its own adapter, conformance tests, fuzz target and entry point; the package's
``__init__`` imports nothing, so a class renamed in its module breaks nothing. The slow tests run the
generated package as its user does (``support.scaffolded``): every backend's suite red on the skeleton,
naming its methods, and green once filled in; ``filterproof backends`` and ``compare`` find every backend
through its entry point. What ``--add`` may change, and what it refuses: ``test_add_backend.py``.
"""

from __future__ import annotations

import ast
import importlib
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from filterproof.cli import app
from filterproof.fixtures import SHIPPED
from filterproof.scaffold import METHODS, Names, render
from support.scaffolded import filled_in_adapter, first_line, installed, run_filterproof, run_pytest, runner, scaffold

ACME = ("acme-qdrant", "acme-chroma")
SKIPPED = 6
"""Per backend, with the guide's in-memory adapter and ``--conformance-scale 0``: the two across-clients checks, the
reader during a change and the two clients, or processes, writing at once (no second client), and the scale tier."""


def test_a_backend_not_named_like_its_package_has_files_named_after_it() -> None:
    names = Names.of("other-db", package="my-store")
    assert (names.module, names.distribution, names.adapter) == ("filterproof_my_store", "filterproof-my-store",
                                                                 "OtherDbAdapter")
    assert (names.adapter_path, names.fuzz_path, names.test_path) == (
        "src/filterproof_my_store/other_db_adapter.py", "src/filterproof_my_store/other_db_fuzz_target.py",
        "tests/test_other_db_conformance.py")
    assert names.entry_point == "filterproof_my_store.other_db_adapter:OtherDbAdapter"
    assert names.fuzz_target == "filterproof_my_store.other_db_fuzz_target:OtherDbFuzzTarget"
    assert Names.of("my-store", package="my-store") == Names.of("my-store")  # the namesake: the short names


def test_two_backends_render_their_own_files_and_entry_points() -> None:
    backends = [Names.of(name, package="acme") for name in ACME]
    files = render(*backends)
    assert sorted(files) == [".gitignore", "README.md", "pyproject.toml", "src/filterproof_acme/__init__.py",
                             "src/filterproof_acme/acme_chroma_adapter.py",
                             "src/filterproof_acme/acme_chroma_fuzz_target.py",
                             "src/filterproof_acme/acme_qdrant_adapter.py",
                             "src/filterproof_acme/acme_qdrant_fuzz_target.py",
                             "tests/test_acme_chroma_conformance.py", "tests/test_acme_qdrant_conformance.py"]
    assert not [path for path, text in files.items() if "{{" in text or "}}" in text]
    project = tomllib.loads(files["pyproject.toml"])
    assert project["project"]["name"] == "filterproof-acme"
    assert project["project"]["entry-points"]["filterproof.adapters"] == {n.backend: n.entry_point for n in backends}
    for names in backends:
        assert f'"{names.adapter}.reset is not written yet: ' in files[names.adapter_path]
        assert f"from filterproof_acme.{names.adapter_module} import {names.adapter}\n" in files[names.test_path]
        assert f"class {names.test_class}(AdapterConformanceTests)" in files[names.test_path]
        assert f"class {names.camel}FuzzTarget(Target)" in files[names.fuzz_path]
        assert f"| `{names.backend}` | `{names.adapter_path}`: `{names.adapter}` |" in files["README.md"]
    for path, text in files.items():
        if path.endswith(".py"):
            ast.parse(text, path)


@pytest.mark.parametrize(("backends", "package"), [(["mystore"], None), (list(ACME), "acme")])
def test_the_package_init_imports_nothing(backends: list[str], package: str | None) -> None:
    """The entry points name each class; an ``__init__`` importing one by name broke when it was renamed."""
    names = [Names.of(name, package) for name in backends]
    init = render(*names)[f"src/{names[0].module}/__init__.py"]
    assert [node for node in ast.walk(ast.parse(init)) if isinstance(node, ast.Import | ast.ImportFrom)] == []


def test_the_command_writes_several_backends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["new-adapter", ",".join(ACME), "--package", "acme"])  # DIR: ./PACKAGE
    assert result.exit_code == 0, result.output
    for name in ACME:
        names = Names.of(name, package="acme")
        assert f"backend {name!r}, factory {names.entry_point}" in result.output
        assert (tmp_path / "acme" / names.adapter_path).is_file() and (tmp_path / "acme" / names.test_path).is_file()
    assert "cd acme && pip install -e . && pytest -x" in result.output


@pytest.mark.parametrize(("names", "options", "message"), [
    ("acme-qdrant,acme-chroma", [], "name the package with --package"),
    ("acme-qdrant,acme-qdrant", ["--package", "acme"], "acme-qdrant given twice"),
    ("acme-qdrant,", ["--package", "acme"], "an empty name between commas"),
    ("acme-qdrant,Chroma", ["--package", "acme"], "backend name 'Chroma'"),
    ("acme-qdrant,qdrant-edge", ["--package", "acme"], "built into filterproof"),
    ("acme-qdrant", ["--package", "Acme"], "package name 'Acme'"),
])
def test_a_bad_list_of_backends_writes_nothing(tmp_path: Path, names: str, options: list[str], message: str) -> None:
    result = runner.invoke(app, ["new-adapter", names, str(tmp_path / "out"), *options])
    assert result.exit_code == 2
    assert message in " ".join(result.output.split()) and not (tmp_path / "out").exists()


def test_the_generated_package_with_two_backends_is_ruff_clean(tmp_path: Path) -> None:
    ruff = shutil.which("ruff") or shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff is None:
        pytest.skip("ruff is not installed")
    package = scaffold(tmp_path, ",".join(ACME), "--package", "acme", directory="acme")
    assert runner.invoke(app, ["new-adapter", "acme-lance", str(package), "--add"]).exit_code == 0
    done = subprocess.run([ruff, "check", "--no-cache", "--line-length", "120", "--select", "E,F,W,I,B,UP,SIM,RUF",
                           "."], cwd=package, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def renamed_options(tmp_path: Path, name: str) -> tuple[Path, Names]:
    """A package for ``name`` whose filled-in adapter calls its options class ``<Camel>Settings``."""
    package, names = scaffold(tmp_path, name), Names.of(name)
    adapter = filled_in_adapter().replace("MystoreOptions", f"{names.camel}Settings").replace("Mystore", names.camel)
    (package / names.adapter_path).write_text(adapter.replace('name = "mystore"', f'name = "{name}"'))
    return package, names


def test_a_renamed_options_class_leaves_the_package_importable(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    package, names = renamed_options(tmp_path, "renamed-options")
    monkeypatch.syspath_prepend(str(package / "src"))
    importlib.import_module(names.module)
    module = importlib.import_module(f"{names.module}.{names.adapter_module}")
    adapter = getattr(module, names.adapter)({})
    assert type(adapter.options).__name__ == "RenamedOptionsSettings"
    adapter.close()


# -- the generated package, run --------------------------------------------------


def method_failures(output: str, test_path: str) -> list[str]:
    return re.findall(rf"^FAILED {re.escape(test_path)}::test_method_is_written\[(\w+)\]", output, re.M)


def fill_in(package: Path, *backends: Names) -> None:
    for names in backends:
        (package / names.adapter_path).write_text(filled_in_adapter(names))


def assert_green(package: Path, backends: list[Names]) -> None:
    """Every backend's suite passes; each backend ran its method checks and its suite.

    The scale tier is left out (``test_scaffold.py`` runs it on the same adapter; it proves the filter at scale,
    not the package's shape): two thirds of the suite's time.
    """
    code, output = run_pytest(package, "--conformance-scale", "0")
    assert code == 0, output[-3000:]
    last = output.strip().splitlines()[-1]
    pattern = rf"=+ \d+ passed, {SKIPPED * len(backends)} skipped in [\d.]+s( \([\d:]+\))? =+"
    assert re.fullmatch(pattern, last), output[-3000:]  # the tail: a warning's summary names its source
    assert int(last.split()[1]) > len(backends) * (len(METHODS) + 50)


def assert_found_by_name(package: Path, tmp_path: Path, backends: list[Names]) -> None:
    """``filterproof backends`` lists every backend, with its options, and ``compare`` runs each by name."""
    path = installed(package, tmp_path / "site")
    listed = run_filterproof("backends", "--options", path=path)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    for names in backends:
        assert re.search(rf"^{names.backend}: (?!\(unavailable)", listed.stdout, re.M), listed.stdout
    spec = [arg for names in backends for arg in ("--backend", names.backend)]
    done = run_filterproof("compare", str(SHIPPED / "adversarial.json"), "--backend", "reference", *spec, path=path)
    assert done.returncode == 0, done.stdout + done.stderr
    for names in backends:
        assert f"{names.backend}: identical to reference" in done.stdout


@pytest.mark.slow
def test_a_two_backend_package_runs_both_suites_and_lists_both(tmp_path: Path) -> None:
    package = scaffold(tmp_path, ",".join(ACME), "--package", "acme", directory="acme")
    qdrant, chroma = (Names.of(name, package="acme") for name in ACME)
    code, output = run_pytest(package)
    assert code == 1, output
    assert first_line(output, "FAILED ").startswith(  # the files in name order: chroma first
        f"FAILED {chroma.test_path}::test_method_is_written[reset] - NotImplementedError: "
        "AcmeChromaAdapter.reset is not written yet: create the index")
    for names in (qdrant, chroma):
        assert method_failures(output, names.test_path) == list(METHODS), output[-3000:]
    assert "ERROR" not in output
    fill_in(package, qdrant, chroma)
    assert_green(package, [qdrant, chroma])
    assert_found_by_name(package, tmp_path, [qdrant, chroma])


@pytest.mark.slow
def test_a_backend_added_to_a_one_backend_package_runs_and_is_listed(tmp_path: Path) -> None:
    package = scaffold(tmp_path, "mystore")
    mystore = Names.of("mystore")
    fill_in(package, mystore)
    result = runner.invoke(app, ["new-adapter", "other-db", str(package), "--add"])
    assert result.exit_code == 0, result.output
    other = Names.inside("other-db", mystore.module, mystore.distribution, short=False)
    code, output = run_pytest(package, other.test_path)
    assert code == 1, output
    assert first_line(output, "FAILED ").startswith(
        f"FAILED {other.test_path}::test_method_is_written[reset] - NotImplementedError: "
        "OtherDbAdapter.reset is not written yet")
    assert method_failures(output, other.test_path) == list(METHODS) and "ERROR" not in output
    fill_in(package, other)
    assert_green(package, [mystore, other])
    assert_found_by_name(package, tmp_path, [mystore, other])


@pytest.mark.slow
def test_a_renamed_options_class_keeps_the_suite_green_and_the_entry_point_working(tmp_path: Path) -> None:
    package, names = renamed_options(tmp_path, "mystore")
    assert_green(package, [names])
    listed = run_filterproof("backends", "--options", path=installed(package, tmp_path / "site"))
    assert re.search(r"^mystore: (?!\(unavailable)", listed.stdout, re.M), listed.stdout + listed.stderr
