"""Every name a generated package derives from its backend names and its own name.

    >>> from filterproof.scaffold.names import Names
    >>> names = Names.of("my-store")
    >>> names.module, names.adapter, names.entry_point
    ('filterproof_my_store', 'MyStoreAdapter', 'filterproof_my_store.adapter:MyStoreAdapter')
    >>> other = Names.of("other-db", package="my-store")
    >>> other.adapter_path, other.test_path, other.entry_point
    ('src/filterproof_my_store/other_db_adapter.py', 'tests/test_other_db_conformance.py', \
'filterproof_my_store.other_db_adapter:OtherDbAdapter')

The backend a package is named after keeps the short file names (``adapter.py``,
``fuzz_target.py``, ``tests/test_conformance.py``: a one-backend package looks as it always
did); every other backend's files carry its name, so that backends never share a file and
adding one never touches another's.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from filterproof import __version__
from filterproof.errors import UsageError

NAME_PATTERN = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
"""A backend name: lowercase letters and digits, words joined by single hyphens, starting with a letter."""
MAX_NAME = 40
METHODS = ("reset", "upsert", "delete", "update_metadata", "search", "close")
"""The six methods of the contract (``filterproof.adapters.base``), in its order."""


@dataclass(frozen=True)
class Names:
    """Every name one backend of a package derives: the package's, the backend's own, and its files'."""

    backend: str
    """The backend name: ``filterproof compare --backend NAME``, the entry point's key."""
    module: str
    """The import package: ``filterproof_`` + the package's name with ``_`` for ``-``."""
    distribution: str
    """The name pip knows: ``filterproof-`` + the package's name."""
    camel: str
    """NAME in CamelCase: the stem of ``<camel>Adapter``, ``<camel>Options``, ``<camel>FuzzTarget``, ``Test<camel>``."""
    adapter: str
    options: str
    test_class: str
    adapter_module: str
    """The adapter's module within ``module``: ``adapter``, or ``<name>_adapter`` (``-`` as ``_``)."""
    fuzz_module: str
    """The fuzz target's module within ``module``: ``fuzz_target``, or ``<name>_fuzz_target``."""
    adapter_path: str
    fuzz_path: str
    test_path: str
    """The backend's conformance tests: ``tests/test_conformance.py``, or ``tests/test_<name>_conformance.py``."""
    entry_point: str
    """``module.adapter_module:Class``: what the registry imports and calls with the options."""
    fuzz_target: str
    """``module.fuzz_module:Class``: what ``filterproof fuzz -b`` takes."""
    version: str
    """The filterproof version the package was generated with (its lower bound in ``dependencies``)."""

    @classmethod
    def of(cls, backend: str, package: str | None = None) -> Names:
        """``backend``'s names in the package ``filterproof-<package>`` (default: named after ``backend``)."""
        check_name(backend)
        package = backend if package is None else package
        check_name(package, what="package name")
        return cls.inside(backend, "filterproof_" + package.replace("-", "_"), f"filterproof-{package}",
                          short=package == backend)

    @classmethod
    def inside(cls, backend: str, module: str, distribution: str, short: bool) -> Names:
        """``backend``'s names in an existing package; ``short``: the file names that name no backend."""
        check_name(backend)
        camel = "".join(part[:1].upper() + part[1:] for part in backend.split("-"))
        stem = "" if short else backend.replace("-", "_") + "_"
        adapter_module, fuzz_module = f"{stem}adapter", f"{stem}fuzz_target"
        release = re.match(r"\d+(?:\.\d+)*", __version__)  # 0.2.0.dev1 -> 0.2.0; a source tree's 0.0.0+source
        return cls(backend=backend, module=module, distribution=distribution, camel=camel,
                   adapter=f"{camel}Adapter", options=f"{camel}Options", test_class=f"Test{camel}",
                   adapter_module=adapter_module, fuzz_module=fuzz_module,
                   adapter_path=f"src/{module}/{adapter_module}.py", fuzz_path=f"src/{module}/{fuzz_module}.py",
                   test_path=f"tests/test_{stem}conformance.py",
                   entry_point=f"{module}.{adapter_module}:{camel}Adapter",
                   fuzz_target=f"{module}.{fuzz_module}:{camel}FuzzTarget",
                   version=release.group() if release else "0")


def check_name(name: str, reserved: Collection[str] = (), what: str = "backend name") -> None:
    """A ``UsageError`` naming what is wrong with ``name`` as a backend (or package) name; None when it is fine."""
    if not NAME_PATTERN.fullmatch(name):
        raise UsageError(f"{what} {name!r}: use lowercase letters, digits and single hyphens, "
                         f"starting with a letter (for example mystore or my-store)")
    if len(name) > MAX_NAME:
        raise UsageError(f"{what} {name!r}: at most {MAX_NAME} characters")
    if name in reserved:
        raise UsageError(f"{what} {name!r} is built into filterproof; an installed backend of the same "
                         f"name would never be used: choose another name")


def backend_list(text: str, reserved: Collection[str] = ()) -> list[str]:
    """``NAME[,NAME...]`` as the names, each checked; a repeated or empty one is a ``UsageError``."""
    names = [part.strip() for part in text.split(",")]
    for name in names:
        if not name and len(names) > 1:
            raise UsageError(f"backend names {text!r}: an empty name between commas")
        check_name(name, reserved)
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise UsageError(f"backend names {text!r}: {', '.join(repeated)} given twice")
    return names
