"""``filterproof new-adapter``: a small package for a user's own store, ready for the conformance suite.

    >>> from filterproof.scaffold import Names
    >>> names = Names.of("my-store")
    >>> names.module, names.adapter, names.entry_point
    ('filterproof_my_store', 'MyStoreAdapter', 'filterproof_my_store.adapter:MyStoreAdapter')

``render(names)`` gives every file of the package (relative path -> text), from the
templates in ``templates/`` (``{{placeholder}}`` for each field of ``Names``);
``create`` writes them into a directory, refusing one that is not empty unless told
to overwrite, and never writing through a symbolic link (nothing outside the directory
is ever written). The generated package holds:

* ``pyproject.toml``: the ``filterproof.adapters`` entry point naming the adapter class;
* ``src/<module>/adapter.py``: an ``AdapterBase`` subclass whose six methods raise
  ``NotImplementedError`` naming themselves and what the contract requires;
* ``tests/test_conformance.py``: a first test listing the methods still to write, then
  ``AdapterConformanceTests`` subclassed with one ``adapter`` fixture;
* ``src/<module>/fuzz_target.py``: a ``filterproof.fuzz`` target for the store's own filter language, its four
  methods raising ``NotImplementedError`` the same way (``filterproof fuzz -b <module>.fuzz_target:<Camel>FuzzTarget``);
* ``README.md``: six steps (write, run, read a failure, compare, gate CI, fuzz the filter language).

Only the standard library, ``filterproof.__version__`` and ``filterproof.errors`` are imported here.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from collections.abc import Collection
from dataclasses import asdict, dataclass
from importlib.resources import files
from pathlib import Path, PurePosixPath

from filterproof import __version__
from filterproof.errors import UsageError

NAME_PATTERN = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
"""A backend name: lowercase letters and digits, words joined by single hyphens, starting with a letter."""
MAX_NAME = 40
METHODS = ("reset", "upsert", "delete", "update_metadata", "search", "close")
"""The six methods of the contract (``filterproof.adapters.base``), in its order."""

TEMPLATES: dict[str, str] = {
    # generated path (with {{placeholders}}) -> template file in filterproof/scaffold/templates
    "pyproject.toml": "pyproject.toml.tmpl",
    "README.md": "README.md.tmpl",
    ".gitignore": "gitignore.tmpl",
    "src/{{module}}/__init__.py": "package_init.py.tmpl",
    "src/{{module}}/adapter.py": "adapter.py.tmpl",
    "tests/test_conformance.py": "test_conformance.py.tmpl",
    "src/{{module}}/fuzz_target.py": "fuzz_target.py.tmpl",
}
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


@dataclass(frozen=True)
class Names:
    """Every name the package derives from the backend name."""

    backend: str
    """The backend name: ``filterproof compare --backend NAME``, the entry point's key."""
    module: str
    """The import package: ``filterproof_`` + NAME with ``_`` for ``-``."""
    distribution: str
    """The name pip knows: ``filterproof-NAME``."""
    camel: str
    """NAME in CamelCase: the stem of ``<camel>Adapter``, ``<camel>Options`` and ``Test<camel>``."""
    adapter: str
    options: str
    test_class: str
    entry_point: str
    """``module.adapter:Class``: what the registry imports and calls with the options."""
    version: str
    """The filterproof version the package was generated with (its lower bound in ``dependencies``)."""

    @classmethod
    def of(cls, backend: str) -> Names:
        check_name(backend)
        camel = "".join(part[:1].upper() + part[1:] for part in backend.split("-"))
        module = "filterproof_" + backend.replace("-", "_")
        release = re.match(r"\d+(?:\.\d+)*", __version__)  # 0.2.0.dev1 -> 0.2.0; a source tree's 0.0.0+source
        version = release.group() if release else "0"
        return cls(backend=backend, module=module, distribution=f"filterproof-{backend}", camel=camel,
                   adapter=f"{camel}Adapter", options=f"{camel}Options", test_class=f"Test{camel}",
                   entry_point=f"{module}.adapter:{camel}Adapter", version=version)


def check_name(backend: str, reserved: Collection[str] = ()) -> None:
    """A ``UsageError`` naming what is wrong with ``backend`` as a backend name; None when it is fine."""
    if not NAME_PATTERN.fullmatch(backend):
        raise UsageError(f"backend name {backend!r}: use lowercase letters, digits and single hyphens, "
                         f"starting with a letter (for example mystore or my-store)")
    if len(backend) > MAX_NAME:
        raise UsageError(f"backend name {backend!r}: at most {MAX_NAME} characters")
    if backend in reserved:
        raise UsageError(f"backend name {backend!r} is built into filterproof; an installed backend of the same "
                         f"name would never be used: choose another name")


def fill(template: str, names: Names) -> str:
    """``{{field}}`` replaced by that field of ``names``; an unknown placeholder is a bug in the template."""
    values = asdict(names)

    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            raise KeyError(f"template placeholder {{{{{key}}}}} is not a field of Names")
        return str(values[key])

    return _PLACEHOLDER.sub(value, template)


def template(name: str) -> str:
    return files("filterproof.scaffold").joinpath("templates", name).read_text(encoding="utf-8")


def render(names: Names) -> dict[str, str]:
    """Every file of the package: relative path (``/``-separated) -> text."""
    return {fill(path, names): fill(template(source), names) for path, source in TEMPLATES.items()}


def occupied(directory: Path) -> bool:
    """Whether ``directory`` exists and holds anything (a file in its place counts)."""
    return directory.exists() and (not directory.is_dir() or any(directory.iterdir()))


def in_the_way(directory: Path, relative: str) -> str | None:
    """What stops the scaffold writing ``relative`` inside ``directory``: a symbolic link on the way (a file or a
    directory: the scaffold never writes through one, which could lead outside ``directory``), a directory where
    its file goes, or a file where one of its directories goes; None when nothing does."""
    target = directory / relative
    path = directory
    parts = PurePosixPath(relative).parts
    for n, part in enumerate(parts):
        path = path / part
        if path.is_symlink():
            return (f"{path} is a symbolic link (to {os.readlink(path)}): the scaffold writes nothing through a "
                    "link; remove it, or give another directory")
        if not path.exists():
            return None  # nothing below it exists either
        if n < len(parts) - 1 and not path.is_dir():
            return f"{path} is in the way of {target}"
    return f"{target} is a directory: it is in the way of the package's file" if target.is_dir() else None


def create(backend: str, directory: Path, force: bool = False, reserved: Collection[str] = ()) -> list[str]:
    """Write the package for ``backend`` into ``directory``; the relative paths written, in order.

    ``UsageError`` for a bad name, a file where the directory should be, a dangling
    symbolic link given as the directory, a symbolic link inside it on the way of a file, or a directory
    that is not empty (unless ``force``: then the package's files are replaced, never written
    through, and anything else in the directory is left as it is).
    """
    check_name(backend, reserved)
    names = Names.of(backend)
    if directory.is_symlink() and not directory.exists():
        raise UsageError(f"{directory} is a symbolic link to {os.readlink(directory)}, which does not exist: give "
                         "a new or empty directory")
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory} is a file, not a directory")
    if occupied(directory) and not force:
        raise UsageError(f"{directory} is not empty: give a new or empty directory, or pass --force to write the "
                         f"package's files into it (a file of the same name is overwritten, others are kept)")
    package = render(names)
    for relative in package:  # every check before the first write: a refusal leaves the directory as it was
        clash = in_the_way(directory, relative)
        if clash is not None:
            raise UsageError(clash)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"{directory}: cannot create it: {error.strerror or error}") from None
    for relative, text in package.items():
        try:
            write_inside(directory, relative, text)
        except OSError as error:  # a link made meanwhile (O_NOFOLLOW), a directory that takes no file
            raise UsageError(f"{directory / relative}: cannot write it: {error.strerror or error}") from None
    return list(package)


def write_inside(directory: Path, relative: str, text: str) -> None:
    """``relative``'s text in ``directory``, never through a symbolic link: each directory is opened with
    ``O_NOFOLLOW`` from its parent's descriptor, and the file is written new beside its place and renamed over it
    (``os.replace`` swaps the name: a file hard-linked from outside keeps its own content)."""
    *folders, name = PurePosixPath(relative).parts
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for folder in folders:
            with contextlib.suppress(FileExistsError):
                os.mkdir(folder, dir_fd=fd)
            inner = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
        temporary = f".{name}.{secrets.token_hex(4)}.tmp"
        out = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666, dir_fd=fd)
        try:
            with os.fdopen(out, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temporary, name, src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=fd)
            raise
    finally:
        os.close(fd)

__all__ = ["METHODS", "NAME_PATTERN", "Names", "check_name", "create", "render"]
