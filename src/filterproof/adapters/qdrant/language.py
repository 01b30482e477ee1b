"""Qdrant's filter language, a ``Filter`` of conditions in either model family: the neutral filter in it, once.

Qdrant's three forms take the same filter language through two sets of classes: ``qdrant_client.models``
(local mode and servers; keyword arguments) and ``qdrant_edge`` (the engine in process; key and match values
positional). ``Qdrant(family, ...)`` renders an ``adapters.filterlang`` tree for one family as ``Call`` s:
plain data naming each constructor and its arguments, which ``Family.make`` turns into the native objects
(the ``qdrant`` adapters' ``compiler.PolicyCompiler``, langchain-qdrant's bridge, the matrix) and
``Family.source`` writes as Python source (the fuzz targets' ``render``, which a reproducer evaluates). One
rendering, two outputs, so that what the fuzzer judges is what the adapter sends.

Spellings (the fuzz target's ``spellings``):

0. ``MatchValue``/``MatchAny`` (``ne``/``nin`` as ``must_not``), ``IsNullCondition``, ``IsEmptyCondition``,
   ``should`` for OR;
1. what Qdrant documents as the same filter: ``FieldCondition(is_null=True)`` and
   ``FieldCondition(is_empty=True)``, ``min_should`` with ``min_count=1`` for OR, one ``MatchAny`` of one value
   for ``eq``;
2. ``MatchExcept`` for ``ne``/``nin`` (Qdrant's own "none of these" match, which its documentation does not
   make equal to ``must_not``).

Qdrant's rules: NOT is ``must_not``, the complement (two-valued); a ``MatchValue`` on a list matches an element;
an empty ``should`` is no constraint, so an empty OR has no faithful form (``Unsupported``); ``exists`` is
``must_not IsEmpty``, which is "present, not null" for scalars only (an empty list is empty), so it is rendered
for fields ``fields`` names as scalars alone; no float or date equality (``MatchValue`` takes text, integers and
booleans), ``MatchAny`` a list of text or of integers; a range takes a number (``Range``) or a date
(``DatetimeRange`` at midnight UTC, ``payload.timestamp``: the RFC 3339 form the adapter stores). ``prefix`` goes
before every key (LangChain nests metadata under ``metadata.``).

``strict`` (the default: the adapters, the fuzz targets): an empty OR and a range on text are ``Unsupported``.
``strict=False`` (the matrix) writes them as an application does, for the integration to show what Qdrant makes
of them: an empty ``should`` (no constraint: the matrix's verdict "ignored") and a ``DatetimeRange`` over a date
kept as an ISO string.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from importlib import import_module
from typing import Any

from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or, Unsupported
from filterproof.adapters.qdrant.payload import timestamp

MATCHES = {"value": "MatchValue", "any": "MatchAny", "except": "MatchExcept"}


@dataclass(frozen=True)
class Call:
    """One constructor of a model family with its arguments (values, lists, other calls): data, not an object."""

    name: str
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()


def _written(value: Any, alias: str) -> str:
    if isinstance(value, Call):
        parts = [_written(a, alias) for a in value.args]
        for key, part in value.kwargs:  # MatchExcept's field is "except", a Python keyword
            shown = _written(part, alias)
            parts.append(f"**{{{key!r}: {shown}}}" if keyword.iskeyword(key) else f"{key}={shown}")
        return f"{alias}.{value.name}({', '.join(parts)})"
    if isinstance(value, list):
        return "[" + ", ".join(_written(v, alias) for v in value) + "]"
    return repr(value)


def _made(value: Any, module: Any) -> Any:
    if isinstance(value, Call):
        return getattr(module, value.name)(*(_made(a, module) for a in value.args),
                                           **{k: _made(v, module) for k, v in value.kwargs})
    if isinstance(value, list) and value and isinstance(value[0], Call):  # a list holds calls or values only
        return [_made(v, module) for v in value]
    return value  # a value, or a list of values as it is (a MatchAny of 500k keys is not walked)


@dataclass(frozen=True)
class Family:
    """One model set: the module its classes are in, its name in source, how its constructors take arguments."""

    module: str
    alias: str
    positional: bool

    def make(self, call: Call) -> Any:
        """The native objects ``call`` describes (the family's module imported on first use)."""
        return _made(call, import_module(self.module))

    def source(self, call: Call) -> str:
        """``call`` as Python source over the family's module named ``alias``."""
        return _written(call, self.alias)

    def field(self, key: str, **part: Any) -> Call:
        if self.positional:
            return Call("FieldCondition", (key,), tuple(part.items()))
        return Call("FieldCondition", (), (("key", key), *part.items()))

    def match(self, kind: str, values: Any) -> Call:
        return Call(MATCHES[kind], (values,)) if self.positional else Call(MATCHES[kind], (), ((kind, values),))

    def range(self, op: str, value: Any) -> Call:
        if isinstance(value, date | str):
            cls = "RangeDateTime" if self.positional else "DatetimeRange"
            return Call(cls, (), ((op, timestamp(value) if isinstance(value, date) else value),))
        return Call("RangeFloat" if self.positional else "Range", (), ((op, value),))

    def unary(self, cls: str, key: str) -> Call:
        """``IsNullCondition`` / ``IsEmptyCondition`` on ``key``."""
        if self.positional:
            return Call(cls, (key,))
        name = "is_null" if cls == "IsNullCondition" else "is_empty"
        return Call(cls, (), ((name, Call("PayloadField", (), (("key", key),))),))

    def filter(self, **parts: list[Any]) -> Call:
        return Call("Filter", (), tuple(parts.items()))

    def min_should(self, conditions: list[Any], count: int) -> Call:
        if self.positional:
            return self.filter(min_should=Call("MinShould", (conditions, count)))  # type: ignore[arg-type]
        inner = Call("MinShould", (), (("conditions", conditions), ("min_count", count)))
        return self.filter(min_should=inner)  # type: ignore[arg-type]


MODELS = Family("qdrant_client.models", "models", positional=False)
EDGE = Family("qdrant_edge", "qe", positional=True)


@dataclass(frozen=True)
class Qdrant:
    """The neutral filter as a Qdrant ``Filter`` of ``family``; see the module's docstring for each parameter."""

    family: Family
    spelling: int = 0
    fields: Mapping[str, str] | None = None
    prefix: str = ""
    strict: bool = True

    def native(self, expr: Expr) -> Any:
        return self.family.make(self.render(expr))

    def source(self, expr: Expr) -> str:
        return self.family.source(self.render(expr))

    def render(self, expr: Expr) -> Call:
        """A top-level ``Filter`` (a lone condition is wrapped in ``must``)."""
        found = self.node(expr)
        return found if found.name == "Filter" else self.family.filter(must=[found])

    def node(self, expr: Expr) -> Call:
        """A condition, or a nested ``Filter``: AND is ``must``, OR ``should`` (``min_should``), NOT ``must_not``."""
        if isinstance(expr, Cond):
            return self.condition(expr)
        if isinstance(expr, Not):
            return self.family.filter(must_not=[self.node(expr.part)])
        if not isinstance(expr, And | Or):
            raise TypeError(f"unknown expression {expr!r}")
        children = [self.node(p) for p in expr.parts]
        if isinstance(expr, And):
            return self.family.filter(must=children)
        if not children and self.strict:
            raise Unsupported("qdrant: an empty should is no constraint (an empty OR has no faithful form)")
        return self.family.min_should(children, 1) if self.spelling == 1 else self.family.filter(should=children)

    def condition(self, c: Cond) -> Call:
        w, key, spelling = self.family, self.prefix + c.key, self.spelling
        values = c.value if isinstance(c.value, tuple) else (c.value,)
        if c.op in ("eq", "ne", "in", "nin", "contains", "contains_any") and any(
                isinstance(v, float | date) for v in values):
            raise Unsupported("qdrant: no match on a float or a date (MatchValue takes text, integers, booleans)")
        if c.op in ("in", "nin", "contains_any") and (len({type(v) for v in values}) > 1 or any(
                isinstance(v, bool) for v in values)):
            raise Unsupported("qdrant: MatchAny takes a list of text or of integers")
        match c.op:
            case "eq" | "contains":
                if spelling == 1 and not isinstance(c.value, bool):
                    return w.field(key, match=w.match("any", [c.value]))
                return w.field(key, match=w.match("value", c.value))
            case "in" | "contains_any":
                return w.field(key, match=w.match("any", list(c.value)))
            case "ne" | "nin":
                listed = list(values)
                if spelling == 2 and not any(isinstance(v, bool) for v in listed):
                    return w.field(key, match=w.match("except", listed))
                positive = w.match("value", c.value) if c.op == "ne" else w.match("any", listed)
                return w.filter(must_not=[w.field(key, match=positive)])
            case "gt" | "gte" | "lt" | "lte":
                if isinstance(c.value, bool) or (isinstance(c.value, str) and self.strict):
                    raise Unsupported("qdrant: a range takes a number or a datetime")
                return w.field(key, range=w.range(c.op, c.value))
            case "is_null":
                return w.field(key, is_null=True) if spelling == 1 else w.unary("IsNullCondition", key)
            case "is_empty":
                return w.field(key, is_empty=True) if spelling == 1 else w.unary("IsEmptyCondition", key)
            case "exists":
                if self.fields is None or self.fields[c.key].endswith("list"):
                    raise Unsupported("qdrant: no test for 'present' on a list field (must_not IsEmpty drops [])")
                return w.filter(must_not=[w.unary("IsEmptyCondition", key)])
        raise ValueError(f"unknown operator {c.op!r}")
