"""The neutral filter language: one tree for every engine's filter language to be rendered from.

The fuzzer generates it, renders it into each engine's own and judges the answers; the
filter-support matrix writes its probes in it; an adapter's compiler builds its policy
clauses in it. Each engine's renderer lives in the engine's package (``adapters.<engine>``),
so that the adapter, the fuzz target and the matrix quote and translate through one function.

A filter is a tree of ``Cond`` (one field condition) under ``And`` / ``Or`` / ``Not``.
The conditions are the operators a policy compiles into, and their negations:

============== ===================================== ==========================================
op             value                                 reads
============== ===================================== ==========================================
eq, ne         a scalar (str, int, float, bool)      the field equals / does not equal it
in, nin        a list of scalars                     the field is / is not one of them
gt gte lt lte  a number, or a ``date`` (ISO string   the field is a number (a date string) in
               in the documents)                     that range
contains       a scalar                              the list field holds it
contains_any   a list of scalars                     the list field holds one of them
is_null        none                                  the field is present and null
is_empty       none                                  missing, null, or an empty list
exists         none                                  present and not null
============== ===================================== ==========================================

What each engine makes of a missing field, a null, a list where a scalar is asked, or a
type mismatch is the engine's own rule; ``semantics`` writes down the ones the oracles
lean on, and the rest is judged by metamorphic relations that need no agreement (see
``oracles``). Trees are plain frozen data: hashable, comparable, and written to JSON
and back (``to_json`` / ``from_json``) for reproducers and ``--replay``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal


class Unsupported(Exception):
    """The engine's filter language has no faithful form for this condition (the reason is the message)."""


Op = Literal["eq", "ne", "in", "nin", "gt", "gte", "lt", "lte", "contains", "contains_any", "is_null", "is_empty",
             "exists"]
SCALAR_OPS = ("eq", "ne")
LIST_OPS = ("in", "nin", "contains_any")
RANGE_OPS = ("gt", "gte", "lt", "lte")
UNARY_OPS = ("is_null", "is_empty", "exists")
OPS: tuple[str, ...] = (*SCALAR_OPS, *LIST_OPS, *RANGE_OPS, "contains", *UNARY_OPS)


@dataclass(frozen=True)
class Cond:
    op: Op
    key: str
    value: Any = None

    def __post_init__(self) -> None:
        if self.op not in OPS:
            raise ValueError(f"unknown operator {self.op!r}")
        if (self.op in LIST_OPS) != isinstance(self.value, tuple):
            raise TypeError(f"{self.op} takes {'a tuple' if self.op in LIST_OPS else 'no list'}, got {self.value!r}")
        if self.op in UNARY_OPS and self.value is not None:
            raise TypeError(f"{self.op} takes no value, got {self.value!r}")


@dataclass(frozen=True)
class And:
    parts: tuple[Expr, ...]


@dataclass(frozen=True)
class Or:
    parts: tuple[Expr, ...]


@dataclass(frozen=True)
class Not:
    part: Expr


Expr = Cond | And | Or | Not


def kind(value: Any) -> str | None:
    """The comparable kind of a scalar: text, bool, int, float; None for anything else (a bool is no int)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "text"
    return None


def nodes(expr: Expr) -> Iterator[Expr]:
    """Every node of the tree, the root first."""
    yield expr
    match expr:
        case And(parts) | Or(parts):
            for part in parts:
                yield from nodes(part)
        case Not(part):
            yield from nodes(part)


def size(expr: Expr) -> int:
    return sum(1 for _ in nodes(expr))


def shape(expr: Expr, kinds: bool = False) -> str:
    """The operators of the tree without keys or values: a finding's signature (``not(and(eq,is_null))``);
    ``kinds``: with the kind of each value (``ne<bool>``), which tells a bool's bug from a null's."""
    match expr:
        case Cond(op, _, value):
            if not kinds or op in UNARY_OPS:
                return op
            values = value if isinstance(value, tuple) else (value,)
            return f"{op}<{','.join(sorted({type(v).__name__ for v in values})) or 'empty'}>"
        case And(parts):
            return "and(" + ",".join(sorted(shape(p, kinds) for p in parts)) + ")"
        case Or(parts):
            return "or(" + ",".join(sorted(shape(p, kinds) for p in parts)) + ")"
        case Not(part):
            return f"not({shape(part, kinds)})"
    raise TypeError(f"unknown expression {expr!r}")


def show(expr: Expr) -> str:
    """A readable one-line form: ``(n >= 3 AND NOT tags contains "x")``."""
    match expr:
        case Cond(op, key, value) if op in UNARY_OPS:
            return f"{key} {op.replace('_', ' ')}"
        case Cond(op, key, value):
            shown = "[" + ", ".join(map(_literal, value)) + "]" if isinstance(value, tuple) else _literal(value)
            return f"{key} {op} {shown}"
        case And(parts):
            return "(" + " AND ".join(map(show, parts)) + ")" if parts else "(empty AND)"
        case Or(parts):
            return "(" + " OR ".join(map(show, parts)) + ")" if parts else "(empty OR)"
        case Not(part):
            return f"NOT {show(part)}"
    raise TypeError(f"unknown expression {expr!r}")


def _literal(value: Any) -> str:
    return f"date {value.isoformat()}" if isinstance(value, date) else repr(value)


# -- JSON -----------------------------------------------------------------------------


def value_to_json(value: Any) -> Any:
    if isinstance(value, date):
        return {"$date": value.isoformat()}
    if isinstance(value, tuple | list):
        return [value_to_json(v) for v in value]
    if isinstance(value, float) and value != value:
        raise ValueError("NaN is not generated (it equals nothing, itself included, in every engine)")
    return value


def value_from_json(value: Any, as_tuple: bool = False) -> Any:
    if isinstance(value, dict):
        if set(value) != {"$date"}:
            raise ValueError(f"unknown value {value!r}")
        return date.fromisoformat(value["$date"])
    if isinstance(value, list):
        items = [value_from_json(v) for v in value]
        return tuple(items) if as_tuple else items
    return value


def to_json(expr: Expr) -> Any:
    match expr:
        case Cond(op, key, value):
            return {"op": op, "key": key, **({} if op in UNARY_OPS else {"value": value_to_json(value)})}
        case And(parts):
            return {"and": [to_json(p) for p in parts]}
        case Or(parts):
            return {"or": [to_json(p) for p in parts]}
        case Not(part):
            return {"not": to_json(part)}
    raise TypeError(f"unknown expression {expr!r}")


def from_json(doc: Any) -> Expr:
    if not isinstance(doc, dict):
        raise ValueError(f"a filter is an object, got {doc!r}")
    if "and" in doc:
        return And(tuple(from_json(p) for p in doc["and"]))
    if "or" in doc:
        return Or(tuple(from_json(p) for p in doc["or"]))
    if "not" in doc:
        return Not(from_json(doc["not"]))
    op = doc.get("op")
    return Cond(op, doc["key"], value_from_json(doc.get("value"), as_tuple=op in LIST_OPS))
