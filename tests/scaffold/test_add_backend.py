"""``filterproof new-adapter NAME DIR --add``: a backend added to a package the command wrote, overwriting nothing.

It writes the new backend's own files and adds one line to each of the two blocks marked for it
(the entry points in ``pyproject.toml``, the table in ``README.md``); every other byte of the
package stays as it was. Whatever it refuses (a file already in the way, a name already taken, a
marked block edited beyond recognition), it refuses before the first write, naming the file.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from filterproof.cli import app
from filterproof.scaffold import Names
from filterproof.scaffold.blocks import BEGIN, END
from support.scaffolded import runner, scaffold

MYSTORE = Names.of("mystore")
OTHER = Names.inside("other-db", MYSTORE.module, MYSTORE.distribution, short=False)


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory``: relative path -> bytes."""
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def inserted(before: bytes, after: bytes) -> list[str]:
    """The lines ``after`` adds to ``before``; an assertion error if it changes or removes any."""
    diff = list(difflib.ndiff(before.decode().splitlines(keepends=True), after.decode().splitlines(keepends=True)))
    assert not [line for line in diff if line.startswith("- ")], "".join(diff)
    return [line[2:] for line in diff if line.startswith("+ ")]


def add(package: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["new-adapter", *args, str(package), "--add"])
    return result.exit_code, " ".join(result.output.split())


def test_add_writes_its_own_files_and_one_line_in_each_marked_block(tmp_path: Path) -> None:
    package = scaffold(tmp_path)
    before = snapshot(package)
    code, output = add(package, "other-db")
    assert code == 0, output
    after = snapshot(package)
    assert sorted(set(after) - set(before)) == sorted([OTHER.adapter_path, OTHER.fuzz_path, OTHER.test_path])
    changed = sorted(path for path in before if before[path] != after[path])
    assert changed == ["README.md", "pyproject.toml"]
    assert inserted(before["pyproject.toml"], after["pyproject.toml"]) == [f'other-db = "{OTHER.entry_point}"\n']
    assert inserted(before["README.md"], after["README.md"])[0].startswith(f"| `other-db` | `{OTHER.adapter_path}`")
    group = tomllib.loads(after["pyproject.toml"].decode())["project"]["entry-points"]["filterproof.adapters"]
    assert group == {"mystore": MYSTORE.entry_point, "other-db": OTHER.entry_point}
    assert f"from {OTHER.module}.other_db_adapter import OtherDbAdapter" in after[OTHER.test_path].decode()
    assert "pip install -e . again" in output and f"factory {OTHER.entry_point}" in output


def test_add_takes_several_names_and_the_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = scaffold(tmp_path)
    monkeypatch.chdir(package)
    result = runner.invoke(app, ["new-adapter", "one-db,two-db", "--add"])  # DIR: .
    assert result.exit_code == 0, result.output
    group = tomllib.loads((package / "pyproject.toml").read_text())["project"]["entry-points"]["filterproof.adapters"]
    assert list(group) == ["mystore", "one-db", "two-db"]
    assert (package / "tests" / "test_two_db_conformance.py").is_file()


def test_add_keeps_the_files_line_endings(tmp_path: Path) -> None:
    package = scaffold(tmp_path)
    pyproject = package / "pyproject.toml"
    pyproject.write_bytes(pyproject.read_bytes().replace(b"\n", b"\r\n"))
    before = pyproject.read_bytes()
    assert add(package, "other-db")[0] == 0
    after = pyproject.read_bytes()
    assert after.replace(f'other-db = "{OTHER.entry_point}"\r\n'.encode(), b"") == before


@pytest.mark.parametrize("taken", ["adapter_path", "fuzz_path", "test_path"])
def test_a_file_already_there_is_refused_by_name(tmp_path: Path, taken: str) -> None:
    package = scaffold(tmp_path)
    mine = package / getattr(OTHER, taken)
    mine.write_text("mine")
    before = snapshot(package)
    code, output = add(package, "other-db")
    assert code == 2
    assert f"error: {mine} already exists" in output and "never overwrites a file" in output
    assert snapshot(package) == before


def test_a_name_already_a_backend_is_refused(tmp_path: Path) -> None:
    package = scaffold(tmp_path)
    before = snapshot(package)
    code, output = add(package, "mystore")
    assert code == 2
    assert f"error: {package / 'pyproject.toml'}: 'mystore' is already a backend of this package" in output
    assert snapshot(package) == before


MOVED = (f"# {BEGIN}: one line per backend\n# {END}\n" + '[project.entry-points."filterproof.adapters"]\n'
         f'mystore = "{MYSTORE.entry_point}"\n')


@pytest.mark.parametrize("edit", [
    pytest.param(lambda text: text.replace(f"# {END}\n", ""), id="closing-marker-gone"),
    pytest.param(lambda text: text.replace(f"# {BEGIN}: one line per backend\n", "").replace(f"# {END}\n", ""),
                 id="no-markers-as-before-this-version"),
    pytest.param(lambda text: text.replace(f"# {END}\n", f"# {END}\n# {END}\n"), id="closing-marker-twice"),
    pytest.param(lambda text: text.replace(
        '[project.entry-points."filterproof.adapters"]\n' + f"# {BEGIN}: one line per backend\n"
        f'mystore = "{MYSTORE.entry_point}"\n# {END}\n', MOVED), id="markers-moved-out-of-the-table"),
])
def test_an_entry_point_block_edited_beyond_recognition_is_refused(tmp_path: Path, edit: Callable[[str], str]) -> None:
    package = scaffold(tmp_path)
    pyproject = package / "pyproject.toml"
    edited = edit(pyproject.read_text())
    assert edited != pyproject.read_text(), "the edit did not apply: the template changed"
    pyproject.write_text(edited)
    before = snapshot(package)
    code, output = add(package, "other-db")
    assert code == 2
    assert f"error: {pyproject}: the block filterproof new-adapter owns was edited beyond recognition" in output
    assert f'add the backend\'s entry point yourself: other-db = "{OTHER.entry_point}"' in output
    assert snapshot(package) == before


def test_a_readme_without_its_table_is_left_as_it_is(tmp_path: Path) -> None:
    package = scaffold(tmp_path)
    readme = package / "README.md"
    readme.write_text("# my own README\n")
    code, output = add(package, "other-db")
    assert code == 0, output
    assert readme.read_text() == "# my own README\n"
    assert f"note: {readme}: no table of backends marked for filterproof new-adapter; left as it is" in output


@pytest.mark.parametrize(("options", "message"), [
    (["--force"], "--add never overwrites a file"),
    (["--package", "other"], "--package is for a new package"),
])
def test_add_takes_neither_force_nor_a_package_name(tmp_path: Path, options: list[str], message: str) -> None:
    package = scaffold(tmp_path)
    code, output = add(package, "other-db", *options)
    assert code == 2 and message in output


def test_add_needs_a_generated_package(tmp_path: Path) -> None:
    code, output = add(tmp_path, "other-db")
    assert code == 2 and f"error: {tmp_path / 'pyproject.toml'} is not there" in output
    code, output = add(tmp_path / "nowhere", "other-db")
    assert code == 2 and "is not a directory" in output


def test_add_never_writes_through_a_symbolic_link(tmp_path: Path) -> None:
    package = scaffold(tmp_path)
    outside = tmp_path / "outside.toml"
    outside.write_bytes((package / "pyproject.toml").read_bytes())
    (package / "pyproject.toml").unlink()
    (package / "pyproject.toml").symlink_to(outside)
    before = outside.read_bytes()
    code, output = add(package, "other-db")
    assert code == 2 and f"error: {package / 'pyproject.toml'} is a symbolic link" in output
    assert outside.read_bytes() == before and not (package / OTHER.adapter_path).exists()


def test_a_non_empty_directory_points_to_add(tmp_path: Path) -> None:
    package = scaffold(tmp_path)
    result = runner.invoke(app, ["new-adapter", "other-db", str(package)])
    assert result.exit_code == 2 and "--add adds backends" in " ".join(result.output.split())


def test_a_package_moved_out_of_src_is_refused_by_name(tmp_path: Path) -> None:
    package = scaffold(tmp_path)
    (package / "src").rename(package / "lib")
    code, output = add(package, "other-db")
    assert code == 2 and f"error: {package / 'src' / MYSTORE.module} is not a directory" in output
    assert not (package / "src").exists()
