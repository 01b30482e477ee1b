"""Typed, validated backend options.

Each adapter declares the options it takes as a pydantic model (``Options``, a
subclass of ``AdapterOptions``). Values arrive as strings from a backend spec
(``qdrant-edge:hnsw_ef=64,exact=true``) or as Python values from code; both are
validated by the same model. An unknown key or a value of the wrong type raises
``OptionError`` with one line that names the key and lists the valid options with
their types and defaults: never a traceback, never silently ignored.

    >>> from pydantic import Field
    >>> class MyOptions(AdapterOptions):
    ...     ef_search: int = Field(100, ge=1, description="beam width")
    >>> MyOptions.coerce({"ef_search": "64"}, "mystore").ef_search
    64
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, Self

from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.fields import FieldInfo

from filterproof.errors import OptionError

_TYPE_NAMES = {int: "integer", float: "number", bool: "true/false", str: "text"}


def type_name(annotation: Any) -> str:
    """A reader's name for an option's type: ``integer``, ``one of off|strict_order``, ``text or unset``."""
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return "one of " + "|".join(str(v) for v in typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        parts = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(parts) < len(typing.get_args(annotation))
        return " or ".join(type_name(a) for a in parts) + (", optional" if optional else "")
    return _TYPE_NAMES.get(annotation, getattr(annotation, "__name__", str(annotation)))


_BOUNDS = ((Ge, ">=", "ge"), (Gt, ">", "gt"), (Le, "<=", "le"), (Lt, "<", "lt"))


def _bounds(info: FieldInfo) -> str:
    found = [f"{symbol} {getattr(item, attr)}" for item in info.metadata
             for kind, symbol, attr in _BOUNDS if isinstance(item, kind)]
    return " " + " ".join(found) if found else ""


def describe_field(name: str, info: FieldInfo) -> str:
    """``ef_search (integer >= 1, default 200)``."""
    value = None if info.is_required() else info.get_default(call_default_factory=True)
    default = "" if value is None else f", default {str(value).lower() if isinstance(value, bool) else value}"
    return f"{name} ({type_name(info.annotation)}{_bounds(info)}{default})"


class AdapterOptions(BaseModel):
    """Base of every adapter's options: unknown keys are refused, values validated, instances immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    @classmethod
    def describe(cls) -> str:
        """Every option with its type and default, for error messages and ``filterproof backends``."""
        fields = [describe_field(name, info) for name, info in cls.model_fields.items()]
        return ", ".join(fields) if fields else "none"

    @classmethod
    def coerce(cls, value: AdapterOptions | Mapping[str, Any] | None, backend: str) -> Self:
        """Options from a mapping (strings or Python values) or an instance; ``OptionError`` when invalid."""
        if isinstance(value, cls):
            return value
        if isinstance(value, AdapterOptions):
            value = value.model_dump(exclude_unset=True)
        raw = dict(value or {})
        unknown = [key for key in raw if key not in cls.model_fields]
        if unknown:
            raise OptionError(unknown_message(cls, backend, unknown[0]))
        for key, given in raw.items():  # pydantic's lax mode reads True as 1: not for us
            if isinstance(given, bool) and cls.model_fields[key].annotation in (int, float, int | None):
                raise OptionError(f"backend {backend!r}: option {key}={given!r}: expected a number, not true/false; "
                                  f"valid options: {cls.describe()}")
        try:
            return cls.model_validate(raw)
        except ValidationError as error:
            first = error.errors()[0]
            key = ".".join(str(p) for p in first["loc"]) or "?"
            given = raw.get(key, first.get("input"))
            raise OptionError(f"backend {backend!r}: option {key}={given!r}: {first['msg'].lower()}; "
                              f"valid options: {cls.describe()}") from None

    def given(self) -> dict[str, Any]:
        """The options that were set explicitly (for labels and reports)."""
        return self.model_dump(exclude_unset=True)


def unknown_message(model: type[AdapterOptions], backend: str, key: str) -> str:
    hint = difflib.get_close_matches(key, list(model.model_fields), n=1)
    maybe = f" (did you mean {hint[0]!r}?)" if hint else ""
    return f"backend {backend!r}: unknown option {key!r}{maybe}; valid options: {model.describe()}"


class NoOptions(AdapterOptions):
    """For adapters that take no options."""


class RevisionOption(AdapterOptions):
    """How the authoritative-revision clause reaches the store (every built-in backend takes it).

    ``query``: the principal's tenant's active keys travel with every query (exact for
    any map, no writes when it changes; the filter grows with the tenant). ``flag``: a
    current-revision flag is written at upsert and rewritten by
    ``set_active_revisions`` when the map changes (a constant-size filter; a write on
    every map change, and stale until that write completes).
    """

    revision: Literal["query", "flag"] = Field(
        "query", description="query: the tenant's active keys travel with every query; flag: a current-revision "
                             "flag, written at upsert and rewritten by set_active_revisions")


class ReplaceOption(AdapterOptions):
    """What a backend that writes into a store the user names (a path, a server, ``table=``) takes: filterproof
    writes only into objects it created (``adapters.ownership``), unless the user says ``replace=true``."""

    replace: bool = Field(False, description="destructive: drop an existing table or collection of that name that "
                                             "filterproof did not create, and use the name (default: refuse)")
