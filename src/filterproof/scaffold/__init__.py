"""``filterproof new-adapter``: a small package for a user's own stores, ready for the conformance suite.

    >>> from filterproof.scaffold import Names
    >>> names = Names.of("my-store")
    >>> names.module, names.adapter, names.entry_point
    ('filterproof_my_store', 'MyStoreAdapter', 'filterproof_my_store.adapter:MyStoreAdapter')

``create`` writes a new package holding one backend or several; ``add`` adds backends to a
package it wrote. The generated package holds:

* ``pyproject.toml``: one ``filterproof.adapters`` entry point per backend, naming its adapter
  class (``module:Class``), in a block marked for ``add``;
* ``README.md``: a table of the backends (marked for ``add``), then six steps (write, run,
  read a failure, compare, gate CI, fuzz the filter language);
* ``src/<module>/__init__.py``: a docstring, importing nothing, so that a class renamed in its
  module breaks nothing here (the entry point names it);
* for each backend (named after it, except the backend the package is named after: ``Names``):
  ``src/<module>/adapter.py``, an ``AdapterBase`` subclass and its options, whose six methods raise
  ``NotImplementedError`` naming themselves and what the contract requires;
  ``tests/test_conformance.py``, a first test listing the methods still to write, then
  ``AdapterConformanceTests`` subclassed with one ``adapter`` fixture; ``src/<module>/fuzz_target.py``,
  a ``filterproof.fuzz`` target for the store's own filter language, its four methods raising the same way.

The files come from the templates in ``templates/``, ``{{placeholder}}`` for each field of
``Names``: the package's own files once, with the first backend's names and the lines listing
every backend (``render``); each backend's files once per backend, with its own names.

Nothing is ever written through a symbolic link, and every check runs before the first write
(``filterproof.scaffold.files``). ``add`` overwrites no file: it writes each new backend's files
and adds its lines to the two marked blocks (``filterproof.scaffold.blocks``), nothing else.
Only the standard library, ``filterproof.__version__`` and ``filterproof.errors`` are imported here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from importlib.resources import files as resources
from pathlib import Path

from filterproof.errors import UsageError
from filterproof.scaffold.blocks import (
    BEGIN,
    END,
    entry_points,
    read_project,
    read_text,
    with_entry_points,
    within_block,
)
from filterproof.scaffold.files import occupied, refuse_existing, refuse_what_is_in_the_way, write_all
from filterproof.scaffold.names import METHODS, NAME_PATTERN, Names, backend_list, check_name

PACKAGE_TEMPLATES: dict[str, str] = {
    # generated path (with {{placeholders}}) -> template file in filterproof/scaffold/templates
    "pyproject.toml": "pyproject.toml.tmpl",
    "README.md": "README.md.tmpl",
    ".gitignore": "gitignore.tmpl",
    "src/{{module}}/__init__.py": "package_init.py.tmpl",
}
BACKEND_TEMPLATES: dict[str, str] = {
    "{{adapter_path}}": "adapter.py.tmpl",
    "{{test_path}}": "test_conformance.py.tmpl",
    "{{fuzz_path}}": "fuzz_target.py.tmpl",
}
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


def fill(template: str, values: Mapping[str, str]) -> str:
    """``{{key}}`` replaced by ``values[key]``; an unknown placeholder is a bug in the template."""

    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            raise KeyError(f"template placeholder {{{{{key}}}}} is neither a field of Names nor a package line")
        return str(values[key])

    return _PLACEHOLDER.sub(value, template)


def template(name: str) -> str:
    return resources("filterproof.scaffold").joinpath("templates", name).read_text(encoding="utf-8")


def entry_point_line(names: Names) -> str:
    """The backend's line in the entry-points block of ``pyproject.toml``."""
    return f'{names.backend} = "{names.entry_point}"'


def readme_row(names: Names) -> str:
    """The backend's row in the README's table of backends."""
    return (f"| `{names.backend}` | `{names.adapter_path}`: `{names.adapter}` | `{names.test_path}` "
            f"| `{names.fuzz_target}` |")


def backend_files(names: Names) -> dict[str, str]:
    """One backend's files: relative path (``/``-separated) -> text."""
    values = asdict(names)
    return {fill(path, values): fill(template(source), values) for path, source in BACKEND_TEMPLATES.items()}


def render(*backends: Names) -> dict[str, str]:
    """Every file of a package holding ``backends`` (one package: the same module), in the order written:
    relative path (``/``-separated) -> text."""
    if not backends or len({(names.module, names.distribution) for names in backends}) != 1:
        raise ValueError("render: one or more backends of one package")
    first = backends[0]
    values = {
        **asdict(first),
        "backend_names": ", ".join(names.backend for names in backends),
        "entry_points": "\n".join(entry_point_line(names) for names in backends),
        "readme_rows": "\n".join(readme_row(names) for names in backends),
        "begin": BEGIN,
        "end": END,
    }
    package = {fill(path, values): fill(template(source), values) for path, source in PACKAGE_TEMPLATES.items()}
    for names in backends:
        package.update(backend_files(names))
    return package


def create(backends: str | Sequence[str], directory: Path, force: bool = False, reserved: Collection[str] = (),
           package: str | None = None) -> list[str]:
    """Write a package holding ``backends`` (``"a,b"`` or a list) into ``directory``; the relative paths written.

    The package is named ``package``, by default after the one backend (several need a name). ``UsageError``
    for a bad name, a file where the directory should be, a dangling symbolic link given as the directory, a
    symbolic link inside it on the way of a file, or a directory that is not empty (unless ``force``: then the
    package's files are replaced, never written through, and anything else in the directory is left as it is).
    """
    names = backend_list(backends if isinstance(backends, str) else ",".join(backends), reserved)
    if package is None and len(names) > 1:
        raise UsageError(f"several backends ({', '.join(names)}) in one package: name the package with --package "
                         "NAME (the distribution filterproof-NAME, imported as filterproof_NAME)")
    all_names = [Names.of(name, package) for name in names]
    if directory.is_symlink() and not directory.exists():
        raise UsageError(f"{directory} is a symbolic link to {os.readlink(directory)}, which does not exist: give "
                         "a new or empty directory")
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory} is a file, not a directory")
    if occupied(directory) and not force:
        hint = (" (it holds a pyproject.toml: --add adds backends to a package filterproof new-adapter wrote)"
                if (directory / "pyproject.toml").is_file() else "")
        raise UsageError(f"{directory} is not empty{hint}: give a new or empty directory, or pass --force to write "
                         f"the package's files into it (a file of the same name is overwritten, others are kept)")
    files = render(*all_names)
    refuse_what_is_in_the_way(directory, files)
    write_all(directory, files)
    return list(files)


@dataclass(frozen=True)
class Added:
    """What ``add`` did: the backends added, the files it wrote, the files whose marked block it extended, and
    why a file it would have extended was left as it is."""

    backends: list[Names]
    written: list[str]
    extended: list[str]
    left: list[str]


def add(backends: str | Sequence[str], directory: Path, reserved: Collection[str] = ()) -> Added:
    """Add ``backends`` to the package ``filterproof new-adapter`` wrote in ``directory``; nothing overwritten.

    Each backend gets its own files, named after it; its entry point goes in the marked block of
    ``pyproject.toml`` (a ``UsageError`` naming the file when that block is no longer recognisable), its row in
    the README's marked table when the README still has it. A file already where a new one goes is a
    ``UsageError`` naming it, before anything is written.
    """
    names = backend_list(backends if isinstance(backends, str) else ",".join(backends), reserved)
    if not directory.is_dir():
        raise UsageError(f"{directory} is not a directory: --add adds backends to the package filterproof "
                         "new-adapter wrote there")
    refuse_what_is_in_the_way(directory, ["pyproject.toml", "README.md"])
    pyproject = directory / "pyproject.toml"
    if not pyproject.is_file():
        raise UsageError(f"{pyproject} is not there: --add adds backends to a package filterproof new-adapter "
                         "wrote; give its directory")
    text = read_text(pyproject)
    project = read_project(pyproject, text)
    declared = entry_points(project)
    for name in names:
        if name in declared:
            raise UsageError(f"{pyproject}: {name!r} is already a backend of this package "
                             f'({name} = "{declared[name]}")')
    module = package_module(directory, declared)
    distribution = str(project.get("project", {}).get("name", f"the package {module}"))
    new = [Names.inside(name, module, distribution, short=False) for name in names]
    rendered = {each.backend: backend_files(each) for each in new}
    files = {relative: text for texts in rendered.values() for relative, text in texts.items()}
    backend_of = {relative: backend for backend, texts in rendered.items() for relative in texts}
    refuse_what_is_in_the_way(directory, files)
    refuse_existing(directory, files, backend_of)
    extended = {"pyproject.toml": with_entry_points(pyproject, text, {n.backend: n.entry_point for n in new})}
    readme, left = directory / "README.md", []
    readme_text = with_readme_rows(readme, [readme_row(n) for n in new])
    if readme_text is not None:
        extended["README.md"] = readme_text
    else:
        left.append(f"{readme}: no table of backends marked for filterproof new-adapter; left as it is")
    write_all(directory, {**files, **extended})  # the new files first: the entry points name them
    return Added(new, list(files), list(extended), left)


def with_readme_rows(readme: Path, rows: list[str]) -> str | None:
    """The README with ``rows`` in its marked table; None when there is no README, or no such table in it (the
    README is documentation, the user's to rewrite: a missing table is no reason to refuse the backend)."""
    try:
        return within_block(read_text(readme), rows) if readme.is_file() else None
    except UsageError:  # not UTF-8, unreadable
        return None


def package_module(directory: Path, declared: dict[str, str]) -> str:
    """The import package the backends live in: the one the entry points name, else the only one under ``src``."""
    named = {value.partition(":")[0].split(".")[0] for value in declared.values()}
    found = sorted(path.parent.name for path in (directory / "src").glob("*/__init__.py"))
    candidates = sorted(named) if named else found
    if len(candidates) != 1:
        raise UsageError(f"{directory / 'pyproject.toml'}: cannot tell which package the new backend belongs to "
                         f"(the filterproof.adapters entry points name {candidates or 'none'}; under src: "
                         f"{found or 'none'}); --add adds backends to a package filterproof new-adapter wrote")
    module = candidates[0]
    if not (directory / "src" / module).is_dir():
        raise UsageError(f"{directory / 'src' / module} is not a directory: the entry points in "
                         f"{directory / 'pyproject.toml'} name the package {module}, which filterproof new-adapter "
                         "writes under src/")
    return module


__all__ = ["METHODS", "NAME_PATTERN", "Added", "Names", "add", "backend_list", "check_name", "create", "render"]
