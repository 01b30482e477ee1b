"""PostgreSQL's filter language for pgvector's tables, once: the neutral filter as an SQL condition with bound values.

A condition is ``(sql, params)``: the SQL holds column names and ``%s`` placeholders only, and every value reaches
the server bound (psycopg), so no value is ever quoted into the text; ``literal`` quotes the only text that is
(a JSON key, ``jsonb``). The ``pgvector`` adapter writes its policy clauses here over its typed columns
(``sql``); the ``pgvector-typed`` fuzz target renders its generated filters here (``fuzz.targets.pgvector_sql``);
``jsonb`` reads one JSONB document with the same connectives.

SQL's rule: three-valued logic. ``connective`` writes AND, OR and NOT as SQL's own: an empty AND is TRUE, an
empty OR FALSE. Over typed columns (``typed_condition``, ``fields``: each column's kind): ``k = %s``, ``k <> %s``,
``k = ANY(%s::text[])``, ``k <> ALL(...)``, ``k > %s``, ``k > %s::date`` (a date bound as its ISO text),
``k @> %s::text[]`` (contains), ``k && %s::text[]`` (contains_any), ``k IS NULL``, ``k IS NOT NULL``,
``(k IS NULL OR cardinality(k) = 0)`` (is_empty of an array). What SQL refuses as a type error (a text column
against an integer, a range on text, ``contains`` on a scalar column) raises ``Unsupported``; so does an integer
compared with doubles that is not exactly a double (the bound would be rounded).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

from filterproof.adapters.filterlang import RANGE_OPS, And, Cond, Expr, Not, Or, Unsupported, kind

Sql = tuple[str, list[Any]]
"""An SQL condition with ``%s`` placeholders and the values bound to them."""

COLUMNS = {"text": "text", "int": "bigint", "float": "double precision", "date": "date", "bool": "boolean",
           "text_list": "text[]", "int_list": "bigint[]"}
"""The typed column of each kind of field."""
COMPARE = {"eq": "=", "ne": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}


def literal(text: str) -> str:
    """An SQL string literal (``standard_conforming_strings`` on: only the quote is doubled)."""
    if not isinstance(text, str) or "\x00" in text:
        raise TypeError(f"no SQL literal for {text!r}")
    return "'" + text.replace("'", "''") + "'"


def connective(expr: Expr, condition: Callable[[Cond], Sql]) -> Sql:
    """AND, OR and NOT as SQL's own (three-valued); ``condition`` writes one field condition."""
    match expr:
        case Cond():
            return condition(expr)
        case And(parts) | Or(parts):
            if not parts:
                return ("TRUE" if isinstance(expr, And) else "FALSE"), []
            written = [connective(p, condition) for p in parts]
            joiner = " AND " if isinstance(expr, And) else " OR "
            return "(" + joiner.join(w for w, _ in written) + ")", [v for _, params in written for v in params]
        case Not(part):
            where, params = connective(part, condition)
            return f"NOT ({where})", params
    raise TypeError(f"unknown expression {expr!r}")


RANGE_TYPES = "SQL: a range takes a number or a date"
TYPE_ERROR = "typed SQL: a column against a value of another type is a type error"
ARRAY_TYPE_ERROR = "typed SQL: an array against values of another type is a type error"
NOT_A_DOUBLE = "SQL: an integer that is no double against doubles (the bound would be rounded)"


def _values(c: Cond) -> tuple[Any, ...]:
    return c.value if isinstance(c.value, tuple) else (c.value,)


def value_kinds(values: Sequence[Any]) -> set[str]:
    """The neutral kinds of the values, ``date`` for a date; TypeError for anything else."""
    found = set()
    for value in values:
        if isinstance(value, date):
            found.add("date")
        elif kind(value) is None:
            raise TypeError(f"no SQL value for {value!r}")
        else:
            found.add(str(kind(value)))
    return found


def exact_double(value: int) -> bool:
    try:
        return float(value) == value
    except OverflowError:
        return False


# -- typed columns ---------------------------------------------------------------------------------------


def typed_param(field_kind: str, value: Any, op: str) -> tuple[str, Any]:
    """The placeholder and the bound value of one value compared with a column of ``field_kind``."""
    have = "date" if isinstance(value, date) else kind(value)
    if have is None:
        raise TypeError(f"no SQL value for {value!r}")
    if op in RANGE_OPS and have not in ("int", "float", "date"):
        raise Unsupported(RANGE_TYPES)
    match field_kind, have:
        case ("text", "text") | ("bool", "bool") | ("int", "int") | ("float", "float") | ("int", "float"):
            return "%s", value
        case "float", "int":
            if not exact_double(value):
                raise Unsupported(NOT_A_DOUBLE)
            return "%s", value
        case "date", "date":
            return "%s::date", value.isoformat()
        case "date", "text" if op == "eq" and _iso_date(value):
            return "%s::date", value
    raise Unsupported(TYPE_ERROR)


def _iso_date(text: str) -> bool:
    try:
        return date.fromisoformat(text).isoformat() == text
    except ValueError:
        return False


def typed_array(element_kind: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
    """``%s::<type>[]`` and the list bound to it: the values of one kind, that of the column's (or its elements')."""
    kinds = value_kinds(values)
    if element_kind in ("int", "float") and kinds and kinds <= {"int", "float"}:
        if "float" in kinds or element_kind == "float":
            if any(isinstance(v, int) and not exact_double(v) for v in values):
                raise Unsupported(NOT_A_DOUBLE)
            return "%s::double precision[]", [float(v) for v in values]
        return "%s::bigint[]", list(values)
    if kinds - {element_kind}:
        raise Unsupported(ARRAY_TYPE_ERROR)
    if element_kind == "date":
        return "%s::date[]", [v.isoformat() if isinstance(v, date) else v for v in values]
    return f"%s::{COLUMNS[element_kind]}[]", list(values)


def typed_condition(c: Cond, fields: Mapping[str, str]) -> Sql:
    """One condition on the typed column ``c.key``, whose kind ``fields`` gives (text, int, float, date, bool,
    text_list, int_list)."""
    if c.key not in fields:
        raise TypeError(f"typed SQL: no column {c.key!r}")
    column, field_kind = c.key, fields[c.key]  # the column names are the caller's constants: never quoted
    listed = field_kind.endswith("list")
    match c.op:
        case "is_null":
            return f"{column} IS NULL", []
        case "exists":
            return f"{column} IS NOT NULL", []
        case "is_empty":
            return (f"({column} IS NULL OR cardinality({column}) = 0)" if listed else f"{column} IS NULL"), []
        case "contains" | "contains_any":
            if not listed:
                raise Unsupported(f"typed SQL: {c.op} takes an array column, not {COLUMNS[field_kind]}")
            placeholder, bound = typed_array(field_kind.removesuffix("_list"), _values(c))
            if placeholder.startswith("%s::double"):
                raise Unsupported(ARRAY_TYPE_ERROR)
            return f"{column} {'@>' if c.op == 'contains' else '&&'} {placeholder}", [bound]
    if listed:
        raise Unsupported(f"typed SQL: {c.op} on an array column compares the whole array")
    if c.op in ("in", "nin"):
        placeholder, bound = typed_array(field_kind, c.value)
        return f"{column} {'= ANY' if c.op == 'in' else '<> ALL'}({placeholder})", [bound]
    if c.op in COMPARE:
        placeholder, value = typed_param(field_kind, c.value, c.op)
        return f"{column} {COMPARE[c.op]} {placeholder}", [value]
    raise TypeError(f"unknown operator {c.op!r}")
