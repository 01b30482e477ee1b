"""Backends by stable name: the built-in ones, and any installed through an entry point.

A package adds a backend by declaring, in its ``pyproject.toml``::

    [project.entry-points."filterproof.adapters"]
    mystore = "mypackage.adapter:MyStoreAdapter"

where ``MyStoreAdapter(options)`` returns an adapter. When the class declares
``Options`` (an ``AdapterOptions`` model) it receives the validated model; otherwise
the spec's options as a dict of strings. Built-in backends declare their options
in modules that import no store client, so that a spec is validated (``resolve``)
before anything heavy loads, and a missing extra is named with its install command.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from filterproof.adapters.base import Adapter
from filterproof.adapters.options import AdapterOptions, NoOptions
from filterproof.adapters.spec import BackendSpec
from filterproof.errors import BackendUnavailable, OptionError, UsageError

ENTRY_POINT_GROUP = "filterproof.adapters"


@dataclass(frozen=True)
class Builtin:
    factory: str
    """``module:attribute`` of the adapter class (imports the store's client)."""
    options: str | None
    """``module:attribute`` of its ``AdapterOptions`` model (imports nothing heavy); None: no options."""
    extra: str | None
    summary: str


_ADAPTERS = "filterproof.adapters"
_BRIDGES = f"{_ADAPTERS}.bridges"
BUILTIN: dict[str, Builtin] = {
    "reference": Builtin(f"{_ADAPTERS}.reference:ReferenceAdapter", f"{_ADAPTERS}.reference:ReferenceOptions",
                         None, "exact in-memory cosine search; the oracle"),
    "chroma": Builtin(f"{_ADAPTERS}.chroma:ChromaAdapter", f"{_ADAPTERS}.chroma.options:ChromaOptions", "chroma",
                      "Chroma in process"),
    "chroma-server": Builtin(f"{_ADAPTERS}.chroma:ChromaServerAdapter",
                             f"{_ADAPTERS}.chroma.options:ChromaServerOptions", "chroma",
                             "a Chroma server over HTTP (CHROMA_URL, else `chroma run`)"),
    "qdrant-edge": Builtin(f"{_ADAPTERS}.qdrant:QdrantEdgeAdapter", f"{_ADAPTERS}.qdrant.options:QdrantEdgeOptions",
                           "qdrant", "the Qdrant engine in process (HNSW, payload indexes)"),
    "qdrant-local": Builtin(f"{_ADAPTERS}.qdrant:QdrantLocalAdapter",
                            f"{_ADAPTERS}.qdrant.options:QdrantLocalOptions", "qdrant",
                            "qdrant-client local mode (exact, pure Python)"),
    "qdrant-server": Builtin(f"{_ADAPTERS}.qdrant:QdrantServerAdapter",
                             f"{_ADAPTERS}.qdrant.options:QdrantServerOptions", "qdrant",
                             "a Qdrant server at QDRANT_URL"),
    "pgvector": Builtin(f"{_ADAPTERS}.pgvector:PgvectorAdapter", f"{_ADAPTERS}.pgvector.options:PgvectorOptions",
                        "pgvector", "PostgreSQL + pgvector (PGVECTOR_DSN, else a throwaway server)"),
    "lancedb": Builtin(f"{_ADAPTERS}.lancedb:LanceDBAdapter", f"{_ADAPTERS}.lancedb.options:LanceDBOptions",
                       "lancedb", "LanceDB embedded, in a temporary directory"),
    "milvus": Builtin(f"{_ADAPTERS}.milvus:MilvusAdapter", f"{_ADAPTERS}.milvus.options:MilvusOptions", "milvus",
                      "Milvus Lite in process (a temporary directory), or a Milvus server at MILVUS_URI"),
    # Bridges: the same engines through the framework integrations applications call (adapters/bridges).
    "langchain-chroma": Builtin(f"{_BRIDGES}.langchain_stores:LangChainChromaBridge",
                                f"{_BRIDGES}.options:ChromaBridgeOptions", "langchain",
                                "LangChain's Chroma integration (langchain-chroma), in process"),
    "langchain-qdrant": Builtin(f"{_BRIDGES}.langchain_stores:LangChainQdrantBridge",
                                f"{_BRIDGES}.options:QdrantBridgeOptions", "langchain",
                                "LangChain's Qdrant integration (langchain-qdrant), local mode"),
    "llamaindex-chroma": Builtin(f"{_BRIDGES}.llamaindex_stores:LlamaIndexChromaBridge",
                                 f"{_BRIDGES}.options:ChromaBridgeOptions", "llamaindex",
                                 "LlamaIndex's ChromaVectorStore, in process"),
    "llamaindex-qdrant": Builtin(f"{_BRIDGES}.llamaindex_stores:LlamaIndexQdrantBridge",
                                 f"{_BRIDGES}.options:QdrantBridgeOptions", "llamaindex",
                                 "LlamaIndex's QdrantVectorStore, local mode"),
    "langchain-pgvector": Builtin(f"{_BRIDGES}.langchain_stores:LangChainPgvectorBridge",
                                  f"{_BRIDGES}.options:PgBridgeOptions", "langchain",
                                  "LangChain's PGVector (langchain-postgres); PGVECTOR_DSN or the "
                                  "pgvector backend's server"),
    "llamaindex-pgvector": Builtin(f"{_BRIDGES}.llamaindex_stores:LlamaIndexPgvectorBridge",
                                   f"{_BRIDGES}.options:PgBridgeOptions", "llamaindex",
                                   "LlamaIndex's PGVectorStore; PGVECTOR_DSN or the pgvector backend's server"),
    "langchain-milvus": Builtin(f"{_BRIDGES}.langchain_milvus:LangChainMilvusBridge",
                                f"{_BRIDGES}.options:MilvusBridgeOptions", "langchain",
                                "LangChain's Milvus integration (langchain-milvus), Milvus Lite in process"),
    "llamaindex-milvus": Builtin(f"{_BRIDGES}.llamaindex_milvus:LlamaIndexMilvusBridge",
                                 f"{_BRIDGES}.options:MilvusBridgeOptions", "llamaindex",
                                 "LlamaIndex's MilvusVectorStore, Milvus Lite in process"),
}


def _installed() -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def backend_names() -> list[str]:
    return list(BUILTIN) + sorted(set(_installed()) - set(BUILTIN))


def _import(target: str, backend: str, extra: str | None) -> Any:
    module_name, _, attribute = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        hint = f"pip install 'filterproof[{extra}]'" if extra else f"install the package providing {module_name}"
        raise BackendUnavailable(f"backend {backend!r} needs {error.name or module_name}: {hint}") from error
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise UsageError(f"backend {backend!r}: {module_name} has no attribute {attribute!r}") from None


@dataclass(frozen=True)
class Resolved:
    """A spec whose name is known and whose options are valid; ``open()`` builds the adapter."""

    spec: BackendSpec
    options: AdapterOptions | dict[str, Any]
    _factory: Callable[[], Callable[[Any], Adapter]]

    @property
    def label(self) -> str:
        return self.spec.label

    def open(self) -> Adapter:
        return self._factory()(self.options)

    def factory(self) -> Callable[[Any], Adapter]:
        """The adapter class (or factory), imported: its store's client loads."""
        return self._factory()


def resolve(spec: BackendSpec | str) -> Resolved:
    """Check a spec without building anything: ``UsageError`` for an unknown name, ``OptionError`` for options.

    For an installed (entry point) backend this imports the package, to read its ``Options``.
    """
    spec = BackendSpec.parse(spec) if isinstance(spec, str) else spec
    given = dict(spec.options)
    if spec.name in BUILTIN:
        entry = BUILTIN[spec.name]
        model = _import(entry.options, spec.name, None) if entry.options else NoOptions
        options: AdapterOptions | dict[str, Any] = model.coerce(given, spec.name)
        return Resolved(spec, options, lambda: _import(entry.factory, spec.name, entry.extra))
    installed = _installed()
    if spec.name not in installed:
        raise UsageError(f"unknown backend {spec.name!r}; known: {', '.join(backend_names())}")
    factory = _import(installed[spec.name], spec.name, None)
    model = getattr(factory, "Options", None)
    declared = isinstance(model, type) and issubclass(model, AdapterOptions)
    return Resolved(spec, model.coerce(given, spec.name) if declared else given, lambda: factory)


def options_of(name: str) -> type[AdapterOptions] | None:
    """The options model of a backend (None: it declares none), for ``filterproof backends``."""
    if name in BUILTIN:
        entry = BUILTIN[name]
        return _import(entry.options, name, None) if entry.options else NoOptions
    model = getattr(resolve(name)._factory(), "Options", None)
    return model if isinstance(model, type) and issubclass(model, AdapterOptions) else None


def open_backend(spec: BackendSpec | str, options: Mapping[str, Any] | None = None) -> Adapter:
    """A new adapter for ``spec`` (a name, ``name:key=value,...``, or a ``BackendSpec``) plus ``options``.

    The caller resets and closes it. Raises ``UsageError`` / ``OptionError`` for a bad
    spec and ``BackendUnavailable`` when the backend cannot run here.
    """
    parsed = BackendSpec.parse(spec) if isinstance(spec, str) else spec
    return resolve(parsed.with_options(options or {})).open()


__all__ = ["BUILTIN", "ENTRY_POINT_GROUP", "OptionError", "Resolved", "backend_names", "open_backend",
           "options_of", "resolve"]
