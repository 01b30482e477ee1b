"""LanceDB's filter language, a DataFusion SQL ``WHERE`` string: its literals, and the neutral filter in it, once.

The ``lancedb`` adapter builds its policy as a neutral filter and writes it here (``where.compile_where``), and
quotes the ids and keys of its deletes and updates with ``quoted``; the ``lancedb`` fuzz target renders its
generated filters here (``fuzz.targets.lancedb_sql``). A quoting rule fixed for one is fixed for both. (The
LlamaIndex-LanceDB integration writes its own SQL, ``_to_lance_filter``: that is what its target judges.)

``LanceDB(fields, spelling)`` renders ``adapters.filterlang`` trees over typed Arrow columns. ``fields`` maps each
column to the kind of value it holds (text, int, float, date: date32, bool, text_list, int_list); a value of
another kind is ``Unsupported`` (LanceDB refuses to coerce a literal it cannot convert losslessly, ``n > 1.5`` or
``s = 1``: a type error, not a filter), and so are ``eq``/``in``/ranges on a list column (SQL compares the whole
array, which the neutral language leaves undefined) and ``contains`` on a scalar column (a type error).

Spelling 0: ``col = v``, ``col <> v``, ``col IN (...)``, ``col NOT IN (...)``, ``col > v``...; ``array_has(col, v)``
and ``array_has_any(col, [...])`` (the functions LanceDB's documentation names for a LABEL_LIST column);
``col IS NULL``, ``col IS NOT NULL``; ``is_empty`` on a list ``(col IS NULL OR array_length(col) = 0)``, on a
scalar ``col IS NULL``. An empty IN list is ``FALSE`` (``NOT IN ()``: ``TRUE``: DataFusion's parser refuses
``IN ()``), an empty AND ``TRUE``, an empty OR ``FALSE``; an AND or OR is parenthesized as a whole, NOT is
``NOT (...)``. Spelling 1 writes what SQL defines as the same filter: the literal on the left (``v < col``),
``NOT (col = v)`` for ``<>``, ``IN``/``NOT IN`` as a chain of ``=``/``<>``, ``array_has_any(col, [v])`` for
``array_has(col, v)``, ``array_has`` joined by OR for ``array_has_any``, ``NOT (col IS NOT NULL)`` /
``NOT (col IS NULL)``, and ``cardinality`` for ``array_length``.

Literals: a string is single-quoted with ``'`` doubled (``quoted``), the only escape DataFusion's string literals
have (a backslash, NUL or newline is an ordinary character there: ``' OR 1=1 --``, ``\\'``, NUL and newlines stay
inside the literal); a lone surrogate is refused (not UTF-8). Integers are decimal, except -2^63, which is
``(-9223372036854775807 - 1)``: DataFusion reads ``-9223372036854775808`` as the negation of 2^63, a float, which
LanceDB refuses against an int64 column. Floats are ``repr`` (``1e+300``, ``-0.0``); dates ``DATE 'YYYY-MM-DD'``
(an ISO date string is taken for one in an equality, not in a range); booleans ``TRUE``/``FALSE``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or, Unsupported
from filterproof.adapters.filterlang import kind as kind_of

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
KINDS = ("text", "int", "float", "date", "bool", "text_list", "int_list")
ELEMENT = {"text_list": "text", "int_list": "int"}
"""The kind of a list column's elements."""

TYPE_ERROR = "lancedb: a literal of another type than the column's is a type error (no lossless coercion)"
LIST_COMPARED = "lancedb: a comparison on a list column compares the whole array (undefined in the neutral language)"
SCALAR_CONTAINS = "lancedb: array_has on a scalar column is a type error"
COMPARE = {"eq": "=", "ne": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
FLIPPED = {"eq": "=", "ne": "<>", "gt": "<", "gte": "<=", "lt": ">", "lte": ">="}
"""The operator with the literal on the left: ``v < col`` is ``col > v``."""


# -- literals -------------------------------------------------------------------------


def quoted(value: str) -> str:
    """A single-quoted SQL string holding ``value`` exactly: ``'`` doubled, every other character as it is."""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {value!r}")
    if any("\ud800" <= c <= "\udfff" for c in value):
        raise Unsupported("lancedb: a lone surrogate is not UTF-8 (no client can send it)")
    return "'" + value.replace("'", "''") + "'"


def int_literal(value: int) -> str:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected an integer, got {value!r}")
    if not INT64_MIN <= value <= INT64_MAX:
        raise Unsupported("lancedb: an integer beyond int64")
    return f"({INT64_MIN + 1} - 1)" if value == INT64_MIN else str(value)


def float_literal(value: float) -> str:
    if not isinstance(value, float):
        raise TypeError(f"expected a float, got {value!r}")
    if not math.isfinite(value):
        raise Unsupported("lancedb: no literal for an infinite or NaN float")
    return repr(value)


def as_date(value: Any) -> date | None:
    """A date, or an ISO date string as the documents hold them; None for anything else."""
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    if isinstance(value, str) and len(value) == 10:
        try:
            return date.fromisoformat(value)
        except ValueError:
            return None
    return None


def literal(value: Any, kind: str, ranged: bool = False) -> str:
    """``value`` as a literal of a column of ``kind`` (text, int, float, date, bool); Unsupported on a mismatch."""
    have = kind_of(value)
    day = as_date(value) if kind == "date" and (isinstance(value, date) or not ranged) else None
    if kind == "text" and have == "text":
        return quoted(value)
    if kind == "int" and have == "int":
        return int_literal(value)
    if kind == "float" and have in ("int", "float"):
        return int_literal(value) if have == "int" else float_literal(value)
    if day is not None:
        return f"DATE '{day.isoformat()}'"
    if kind == "bool" and have == "bool":
        return "TRUE" if value else "FALSE"
    if kind not in KINDS:
        raise TypeError(f"unknown column kind {kind!r}")
    raise Unsupported(TYPE_ERROR)


def array_literal(values: Sequence[Any], kind: str) -> str:
    """A DataFusion array literal ``[a, b]`` of elements of ``kind``."""
    return "[" + ", ".join(literal(v, kind) for v in values) + "]"


# -- the renderer -----------------------------------------------------------------------


@dataclass(frozen=True)
class LanceDB:
    """The neutral filter as a LanceDB ``WHERE`` string over ``fields``; see the module's docstring."""

    fields: Mapping[str, str]
    spelling: int = 0

    def render(self, expr: Expr) -> str:
        match expr:
            case Cond():
                return self.condition(expr)
            case And(parts):
                return "(" + " AND ".join(self.render(p) for p in parts) + ")" if parts else "TRUE"
            case Or(parts):
                return "(" + " OR ".join(self.render(p) for p in parts) + ")" if parts else "FALSE"
            case Not(part):
                return f"NOT ({self.render(part)})"
        raise TypeError(f"unknown expression {expr!r}")

    def condition(self, c: Cond) -> str:
        if c.key not in self.fields:
            raise TypeError(f"unknown field {c.key!r}")
        kind = self.fields[c.key]
        if c.op in ("contains", "contains_any"):
            return self.holds(c.op, c.key, c.value, kind)
        if c.op in ("is_null", "exists", "is_empty"):
            return self.unary(c.op, c.key, kind)
        if kind in ELEMENT:
            raise Unsupported(LIST_COMPARED)
        if c.op in ("in", "nin"):
            return self.membership(c.op, c.key, c.value, kind)
        shown = literal(c.value, kind, ranged=c.op not in ("eq", "ne"))
        if self.spelling == 1:
            return f"NOT ({c.key} = {shown})" if c.op == "ne" else f"{shown} {FLIPPED[c.op]} {c.key}"
        return f"{c.key} {COMPARE[c.op]} {shown}"

    def membership(self, op: str, key: str, values: tuple[Any, ...], kind: str) -> str:
        """in, nin on a scalar column: ``IN``/``NOT IN``, or (spelling 1) a chain of ``=``/``<>``."""
        shown = [literal(v, kind) for v in values]
        if not shown:
            return "FALSE" if op == "in" else "TRUE"
        if self.spelling == 1:
            sign, join = ("=", " OR ") if op == "in" else ("<>", " AND ")
            return "(" + join.join(f"{key} {sign} {v}" for v in shown) + ")"
        return f"{key} {'IN' if op == 'in' else 'NOT IN'} ({', '.join(shown)})"

    def holds(self, op: str, key: str, value: Any, kind: str) -> str:
        """contains (one value) and contains_any (a tuple) on a list column."""
        if kind not in ELEMENT:
            raise Unsupported(SCALAR_CONTAINS)
        element = ELEMENT[kind]
        if op == "contains":
            if self.spelling == 1:
                return f"array_has_any({key}, {array_literal([value], element)})"
            return f"array_has({key}, {literal(value, element)})"
        if self.spelling == 1:
            parts = [f"array_has({key}, {literal(v, element)})" for v in value]
            return "(" + " OR ".join(parts) + ")" if parts else "FALSE"
        return f"array_has_any({key}, {array_literal(value, element)})"

    def unary(self, op: str, key: str, kind: str) -> str:
        """is_null, exists, is_empty (null, or on a list also ``[]``)."""
        null = f"NOT ({key} IS NOT NULL)" if self.spelling == 1 else f"{key} IS NULL"
        if op == "is_null":
            return null
        if op == "exists":
            return f"NOT ({key} IS NULL)" if self.spelling == 1 else f"{key} IS NOT NULL"
        if kind not in ELEMENT:
            return null
        length = "cardinality" if self.spelling == 1 else "array_length"
        return f"({key} IS NULL OR {length}({key}) = 0)"
