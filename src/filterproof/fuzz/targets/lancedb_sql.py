"""LanceDB's filter language: a DataFusion SQL ``WHERE`` string over typed Arrow columns (each field's type
below); the store and the read paths are ``lancedb``'s.

======= ================ ===============================================================
field   Arrow type       stored
======= ================ ===============================================================
id      string           the document's id (not null); ``vector`` a 2-d float32 point
s, t    string           the text as given (NUL, quotes, backslashes, newlines: Arrow
                         and DataFusion hold them all)
n       int64            the integer (the generator's are all within int64)
x       float64          the float
d       date32           the document's ISO date string, parsed on write
b       bool             the boolean
tags    list<string>     the list, null elements and ``[]`` included
nums    list<int64>      the list, null elements and ``[]`` included
======= ================ ===============================================================

A missing key is a null in its column (a typed column cannot tell the two apart:
``Allows(absent=False)``, so the generator writes explicit nulls), and a column holds
one type (``mixed=False``).

The null rule, written down once: SQL's three-valued logic (LanceDB's documentation:
"a comparison against null is unknown, and NOT unknown is still unknown"; a ``WHERE``
keeps the rows where the filter is true), so NOT is not the complement
(``two_valued = False``). ``array_has``/``array_has_any`` on a null list is null;
``array_has_any(col, [])`` is false even on a null list; a null element holds nothing
(``array_has(['a', NULL], 'b')`` is false, not null: the neutral rule; measured, lancedb 0.40).

Rendering (``render``, spelling 0): ``col = v``, ``col <> v``, ``col IN (...)``,
``col NOT IN (...)``, ``col > v``...; ``array_has(col, v)`` and
``array_has_any(col, [...])`` (the functions LanceDB's documentation names for a
LABEL_LIST column); ``col IS NULL``, ``col IS NOT NULL``; ``is_empty`` on a list
``(col IS NULL OR array_length(col) = 0)``, on a scalar ``col IS NULL``. An empty IN
list is ``FALSE`` (``NOT IN ()``: ``TRUE``: DataFusion's parser refuses ``IN ()``), an
empty AND ``TRUE``, an empty OR ``FALSE``; NOT is ``NOT (...)``.
Literals: a string is single-quoted with ``'`` doubled, the only escape DataFusion's
string literals have (a backslash, NUL or newline is an ordinary character there); a
lone surrogate is refused (not UTF-8). Integers are decimal, except -2^63, which is
``(-9223372036854775807 - 1)``: DataFusion reads ``-9223372036854775808`` as the
negation of 2^63, a float, which LanceDB refuses against an int64 column. Floats are
``repr`` (``1e+300``, ``-0.0``); dates ``DATE 'YYYY-MM-DD'``; booleans ``TRUE``/``FALSE``.

What is ``Unsupported``: a value of another type than the column's (LanceDB refuses to
coerce a literal it cannot convert losslessly, ``n > 1.5`` or ``s = 1``: a type error,
not a filter), ``eq``/``in``/ranges on a list column (SQL compares the whole array, which
the neutral language leaves undefined) and ``contains`` on a scalar column (a type error).

Spelling 1 writes what SQL defines as the same filter, which the ``spelling`` oracle
compares with spelling 0: the literal on the left (``v < col``), ``NOT (col = v)`` for
``<>``, ``IN``/``NOT IN`` as a chain of ``=``/``<>`` (SQL's definition),
``array_has_any(col, [v])`` for ``array_has(col, v)``, ``array_has`` joined by OR for
``array_has_any``, ``NOT (col IS NOT NULL)`` / ``NOT (col IS NULL)``, and ``cardinality``
for ``array_length``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or, Unsupported
from filterproof.adapters.filterlang import kind as kind_of
from filterproof.fuzz.generate import BY_NAME

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
ARROW_TYPES = {"text": "string", "int": "int64", "float": "float64", "date": "date32", "bool": "bool",
               "text_list": "list<string>", "int_list": "list<int64>"}
ELEMENT = {"text_list": "text", "int_list": "int"}

TYPE_ERROR = "lancedb: a literal of another type than the column's is a type error (no lossless coercion)"
LIST_COMPARED = "lancedb: a comparison on a list column compares the whole array (undefined in the neutral language)"
SCALAR_CONTAINS = "lancedb: array_has on a scalar column is a type error"


# -- literals -------------------------------------------------------------------------


def text_literal(value: str) -> str:
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


def date_literal(value: date) -> str:
    if not isinstance(value, date) or isinstance(value, datetime):
        raise TypeError(f"expected a date, got {value!r}")
    return f"DATE '{value.isoformat()}'"


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
    if kind == "text" and have == "text":
        return text_literal(value)
    if kind == "int" and have == "int":
        return int_literal(value)
    if kind == "float" and have in ("int", "float"):
        return int_literal(value) if have == "int" else float_literal(value)
    if kind == "date" and (isinstance(value, date) or not ranged) and as_date(value) is not None:
        return date_literal(as_date(value))  # type: ignore[arg-type]
    if kind == "bool" and have == "bool":
        return "TRUE" if value else "FALSE"
    if kind not in ARROW_TYPES:
        raise TypeError(f"unknown column kind {kind!r}")
    raise Unsupported(TYPE_ERROR)


def array_literal(values: Sequence[Any], kind: str) -> str:
    """A DataFusion array literal ``[a, b]`` of elements of ``kind``."""
    return "[" + ", ".join(literal(v, kind) for v in values) + "]"


# -- conditions -------------------------------------------------------------------------

COMPARE = {"eq": "=", "ne": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
FLIPPED = {"eq": "=", "ne": "<>", "gt": "<", "gte": "<=", "lt": ">", "lte": ">="}
"""The operator with the literal on the left: ``v < col`` is ``col > v``."""


def comparison(op: str, key: str, value: Any, spelling: int) -> str:
    """eq, ne and the ranges on a scalar column."""
    kind = BY_NAME[key].kind
    if kind in ELEMENT:
        raise Unsupported(LIST_COMPARED)
    if op not in COMPARE:
        raise TypeError(f"not a comparison: {op!r}")
    shown = literal(value, kind, ranged=op not in ("eq", "ne"))
    if spelling == 1:
        return f"NOT ({key} = {shown})" if op == "ne" else f"{shown} {FLIPPED[op]} {key}"
    return f"{key} {COMPARE[op]} {shown}"


def membership(op: str, key: str, values: tuple[Any, ...], spelling: int) -> str:
    """in, nin on a scalar column: ``IN``/``NOT IN``, or (spelling 1) a chain of ``=``/``<>``."""
    kind = BY_NAME[key].kind
    if kind in ELEMENT:
        raise Unsupported(LIST_COMPARED)
    if op not in ("in", "nin"):
        raise TypeError(f"not a membership: {op!r}")
    shown = [literal(v, kind) for v in values]
    if not shown:
        return "FALSE" if op == "in" else "TRUE"
    if spelling == 1:
        sign, join = ("=", " OR ") if op == "in" else ("<>", " AND ")
        return "(" + join.join(f"{key} {sign} {v}" for v in shown) + ")"
    return f"{key} {'IN' if op == 'in' else 'NOT IN'} ({', '.join(shown)})"


def holds(op: str, key: str, value: Any, spelling: int) -> str:
    """contains (one value) and contains_any (a tuple) on a list column."""
    kind = BY_NAME[key].kind
    if kind not in ELEMENT:
        raise Unsupported(SCALAR_CONTAINS)
    element = ELEMENT[kind]
    if op == "contains":
        if spelling == 1:
            return f"array_has_any({key}, {array_literal([value], element)})"
        return f"array_has({key}, {literal(value, element)})"
    if op != "contains_any":
        raise TypeError(f"not a list condition: {op!r}")
    if spelling == 1:
        parts = [f"array_has({key}, {literal(v, element)})" for v in value]
        return "(" + " OR ".join(parts) + ")" if parts else "FALSE"
    return f"array_has_any({key}, {array_literal(value, element)})"


def unary(op: str, key: str, spelling: int) -> str:
    """is_null, exists, is_empty (null, or on a list also ``[]``)."""
    kind = BY_NAME[key].kind
    null = f"NOT ({key} IS NOT NULL)" if spelling == 1 else f"{key} IS NULL"
    if op == "is_null":
        return null
    if op == "exists":
        return f"NOT ({key} IS NULL)" if spelling == 1 else f"{key} IS NOT NULL"
    if op == "is_empty":
        if kind not in ELEMENT:
            return null
        length = "cardinality" if spelling == 1 else "array_length"
        return f"({key} IS NULL OR {length}({key}) = 0)"
    raise TypeError(f"not a unary condition: {op!r}")


def condition(c: Cond, spelling: int) -> str:
    if c.key not in BY_NAME:
        raise TypeError(f"unknown field {c.key!r}")
    if c.op in COMPARE:
        return comparison(c.op, c.key, c.value, spelling)
    if c.op in ("in", "nin"):
        return membership(c.op, c.key, c.value, spelling)
    if c.op in ("contains", "contains_any"):
        return holds(c.op, c.key, c.value, spelling)
    return unary(c.op, c.key, spelling)


def sql(expr: Expr, spelling: int = 0) -> str:
    """The filter as a DataFusion SQL expression."""
    match expr:
        case Cond():
            return condition(expr, spelling)
        case And(parts):
            return "(" + " AND ".join(sql(p, spelling) for p in parts) + ")" if parts else "TRUE"
        case Or(parts):
            return "(" + " OR ".join(sql(p, spelling) for p in parts) + ")" if parts else "FALSE"
        case Not(part):
            return f"NOT ({sql(part, spelling)})"
    raise TypeError(f"unknown expression {expr!r}")
