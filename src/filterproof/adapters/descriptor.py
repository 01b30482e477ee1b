"""One description per built-in store, kept in the store's own package; every list of stores is read from them.

A built-in store's package (``filterproof.adapters.<package>``) holds a module
``descriptor`` whose ``STORES`` describe its backends: the adapter class and its
options model (``module:attribute``, imported only when used), the extra that
installs it, a line for the tables, its docs page, whether it runs in
``compare``'s default set, what ``freshness`` measures of it by default, and the
fuzz targets of its filter language. The registry (``registry.BUILTIN``), the
fuzzer's targets and their families, the default backend lists of ``compare`` and
``freshness``, ``filterproof fuzz --help`` and the backend tables of the docs are
all derived from them, so a store added as a package is listed everywhere, and a
store is never described twice.

A descriptor module imports nothing but this module: reading every description
loads no store client.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from dataclasses import dataclass
from functools import cache
from typing import Literal

Kind = Literal["oracle", "engine", "bridge"]
"""``oracle``: the reference; ``engine``: a store driven through its own client; ``bridge``: an engine reached
through a framework's integration (LangChain, LlamaIndex)."""


@dataclass(frozen=True)
class FuzzTarget:
    """A fuzz target of a store's filter language (``filterproof fuzz -b NAME``)."""

    name: str
    target: str
    """``module:Class``, a ``filterproof.fuzz.target.Target``."""
    family: str | None = None
    """The filter language it shares with targets of other stores (``qdrant``: local mode, edge and a server),
    which the differential oracle pairs; None: its language is its own."""
    needs: str = ""
    """What it needs to open, for ``fuzz --help`` (``QDRANT_URL``)."""


@dataclass(frozen=True)
class Store:
    """A built-in backend, described once."""

    name: str
    factory: str
    """``module:Class`` of the adapter (imports the store's client)."""
    options: str | None
    """``module:Model`` of its ``AdapterOptions`` (imports nothing heavy); None: it takes none."""
    extra: str | None
    """The ``filterproof[extra]`` that installs its client; None: nothing to install."""
    summary: str
    """What it is, one line of Markdown, for the backend tables."""
    page: str
    """Its docs page, relative to ``docs/`` (an anchor allowed)."""
    kind: Kind = "engine"
    order: int = 100
    """Where it stands in every list (smaller first)."""
    embedded: bool = False
    """In process with nothing to start: ``compare`` runs it when no ``--backend`` is given."""
    freshness: tuple[str, ...] = ()
    """The specs ``filterproof freshness`` measures by default (none: not by default)."""
    sweep: bool = False
    """``filterproof sweep`` runs it by default (a sweep indexes 100,000 documents and more: the fast ones)."""
    fuzz: tuple[FuzzTarget, ...] = ()
    scale: int | None = None
    """The conformance suite's scale tier on this store when neither ``--conformance-scale`` nor the environment
    sets one (None: the suite's default, 5,000). Lower only for a store whose filtered search is exhaustive and
    a Python loop over every row and condition (no page, window or pool for the larger corpus to find), and say
    why in its descriptor."""
    scale_unless: tuple[str, ...] = ()
    """What points the store at a server, where ``scale`` does not apply (a server's index has windows to find):
    an environment variable (``MILVUS_URI``) that is set, or ``option=prefix``, a spec option that starts so
    (``uri=http``, ``server=docker``)."""


DESCRIPTOR = "descriptor"


@cache
def stores() -> tuple[Store, ...]:
    """Every built-in store: the ``STORES`` of each ``filterproof.adapters.<package>.descriptor``, in order."""
    import filterproof.adapters as adapters

    found: list[Store] = []
    for module in pkgutil.iter_modules(adapters.__path__):
        # Looked for on disk, not with find_spec: that would import the package (readers/ loads numpy), not a store.
        inside = [os.path.join(module.module_finder.path, module.name)]  # type: ignore[union-attr]
        if module.ispkg and any(sub.name == DESCRIPTOR for sub in pkgutil.iter_modules(inside)):
            found += importlib.import_module(f"{adapters.__name__}.{module.name}.{DESCRIPTOR}").STORES
    names = [store.name for store in found]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise RuntimeError(f"built-in stores described twice: {', '.join(twice)}")
    return tuple(sorted(found, key=lambda store: (store.order, store.name)))


def embedded() -> list[str]:
    """``compare``'s default backends: the embedded stores, the reference first."""
    return [s.name for s in stores() if s.embedded]


def freshness_defaults() -> list[str]:
    """``freshness``'s default specs, in the stores' order."""
    return [spec for s in stores() for spec in s.freshness]


def sweep_defaults() -> list[str]:
    """``sweep``'s default backends, in the stores' order."""
    return [s.name for s in stores() if s.sweep]


def fuzz_targets() -> tuple[FuzzTarget, ...]:
    """Every built-in fuzz target, in the stores' order."""
    return tuple(target for s in stores() for target in s.fuzz)
