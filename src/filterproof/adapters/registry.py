"""Backends by stable name: the built-in ones, and any installed through an entry point.

A package adds a backend by declaring, in its ``pyproject.toml``::

    [project.entry-points."filterproof.adapters"]
    mystore = "mypackage.adapter:MyStoreAdapter"

where ``MyStoreAdapter(options)`` returns an adapter. When the class declares
``Options`` (an ``AdapterOptions`` model) it receives the validated model; otherwise
the spec's options as a dict of strings. Built-in backends are described in their own
packages (``adapters.descriptor``) and declare their options in modules that import no
store client, so that a spec is validated (``resolve``) before anything heavy loads, and
a missing extra is named with its install command.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from filterproof.adapters.base import Adapter
from filterproof.adapters.descriptor import stores
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


BUILTIN: dict[str, Builtin] = {s.name: Builtin(s.factory, s.options, s.extra, s.summary) for s in stores()}
"""The built-in backends, by name, read from each store's descriptor (``adapters.descriptor``)."""


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
