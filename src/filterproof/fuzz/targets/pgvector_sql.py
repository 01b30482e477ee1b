"""PostgreSQL + pgvector's filter language, SQL, written for two stores: typed columns (``pgvector-typed``) and
one JSONB document (``pgvector-jsonb``); the stores, the server and the read paths are ``pgvector``'s.

The native filter is Python source of a tuple ``(where, params)``: an SQL condition with ``%s`` placeholders and
the values psycopg binds to them (no value is ever written into the SQL text; the keys are the fixed field names).

SQL's rule, written down once: three-valued logic (``two_valued = False``): a comparison with NULL is NULL
(unknown), ``NOT NULL`` is NULL, a row is selected only when the WHERE condition is TRUE. ``is_null``,
``is_empty`` and ``exists`` are two-valued (``IS NULL`` and ``?``: never NULL). An empty ``in`` is
``= ANY('{}')``, FALSE on every row (a NULL one too), an empty ``nin`` ``<> ALL('{}')``, TRUE on every row; an
empty AND is TRUE, an empty OR FALSE.

``pgvector-typed`` stores each FIELD in a column of its kind: ``s``, ``t`` ``text``; ``n`` ``bigint``; ``x``
``double precision``; ``d`` ``date`` (the documents' ISO strings, cast); ``b`` ``boolean``; ``tags`` ``text[]``,
``nums`` ``bigint[]`` (NULL elements kept); a missing key or a null is NULL (``absent=False``), and a value of
another kind has no column (``mixed=False``); PostgreSQL text refuses U+0000 (``nul=False``). Conditions:
``s = %s``, ``s <> %s``, ``s = ANY(%s::text[])``, ``s <> ALL(...)``, ``n > %s``, ``d > %s::date``, ``tags @>
%s::text[]`` (contains), ``tags && %s::text[]`` (contains_any: NULL elements match nothing), ``s IS NULL``,
``s IS NOT NULL``, ``(tags IS NULL OR cardinality(tags) = 0)``. What SQL refuses as a type error (a text column
against an integer, a range on text, ``contains`` on a scalar column) raises ``Unsupported``; so does an integer
against the double column that is not exactly a double (``x >= 2^53 + 1`` rounds the bound: the JSONB side
compares numerics). An integer column against a float compares as doubles (PostgreSQL casts the column), and
so does the JSONB side (``numeric > float8`` is a float8 comparison). Indexed copy: a btree per scalar column,
GIN on each array.

``pgvector-jsonb`` stores the document as given in ``payload jsonb``: missing keys stay missing, JSON null, lists,
mixed types are kept (only U+0000 is refused: ``nul=False``). Every comparison reads the field through a
*view* of the kind of the value it is compared with: ``CASE WHEN jsonb_typeof(payload->'k') = 'string' THEN
payload->>'k' END`` (text), ``... = 'number' THEN (payload->'k')::numeric`` (numbers, exact),
``... = 'boolean' THEN (payload->'k')::boolean``, ``... = 'string' AND <YYYY-MM-DD> AND
pg_input_is_valid(.., 'date') THEN (payload->>'k')::date`` (dates), ``... = 'array' THEN payload->'k'`` (lists).
A missing key, a JSON null, or a JSON value of another type (a list where a scalar is asked, a string where a
number is) reads as SQL NULL: the comparison is unknown, as the neutral semantics has it, and no cast can raise
on mixed data. Conditions: ``view = %s``, ``view <> %s``, ``view > %s`` (an integer bound compares numerics
exactly, a float bound as doubles: ``numeric > float8`` casts the view, as the typed column is cast);
``view = ANY(%s::text[])`` for ``in``, one ANY per kind of value OR-ed (``s in ['a', 7]`` asks the text and the
number view), ``<> ALL`` AND-ed for ``nin`` (an empty list: one empty text array, FALSE / TRUE on every row);
``array_view @> %s::jsonb`` (contains: JSONB containment of ``[value]``, type-aware: ``"7"`` is not ``7``, ``7.0``
is ``7``; null elements match nothing; ``{"k": ["x"]}`` does not contain ``{"k": "x"}`` below the top level), one
``@>`` per value OR-ed for contains_any (an empty one is FALSE on a list, NULL elsewhere, as ``&&`` is on a typed
array); ``payload @> '{"k": null}'`` (is_null: present and JSON null; a missing key is FALSE),
``(payload ? 'k' AND payload->'k' <> 'null')`` (exists), ``COALESCE(payload->'k', 'null') IN ('null', '[]')``
(is_empty). Alone, this target also meets missing keys (is_null FALSE, is_empty TRUE, every comparison unknown),
lists where scalars are asked and scalars where lists are (unknown). Indexed copy: GIN ``jsonb_ops`` on
``payload`` (``@>``, ``?``), a btree on the view each field is mostly asked through (text for ``s``, ``t``, ``d``;
numeric, and numeric as double precision, for ``n``, ``x``; boolean for ``b``) and GIN ``jsonb_path_ops`` on the
array views of ``tags`` and ``nums`` (the date view casts with the session's DateStyle: not immutable, not
indexable).

"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

from filterproof.fuzz.generate import BY_NAME
from filterproof.fuzz.lang import RANGE_OPS, And, Cond, Expr, Not, Or
from filterproof.fuzz.semantics import kind
from filterproof.fuzz.target import Unsupported

Sql = tuple[str, list[Any]]
"""An SQL condition with ``%s`` placeholders and the values bound to them."""

COLUMNS = {"text": "text", "int": "bigint", "float": "double precision", "date": "date", "bool": "boolean",
           "text_list": "text[]", "int_list": "bigint[]"}
"""The typed column of each kind of field."""
COMPARE = {"eq": "=", "ne": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
QUERY = "[1,0]"
"""The search vector; document i has ``[1, 0.01 (i + 1)]``: a distinct cosine distance each."""


def literal(text: str) -> str:
    """An SQL string literal (``standard_conforming_strings`` on: only the quote is doubled)."""
    if not isinstance(text, str) or "\x00" in text:
        raise TypeError(f"no SQL literal for {text!r}")
    return "'" + text.replace("'", "''") + "'"


def identifier(key: str) -> str:
    """A typed column's name: one of the FIELDS (their names need no quoting)."""
    if key not in BY_NAME:
        raise TypeError(f"pgvector-typed: no column {key!r}")
    return key


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


RANGE_TYPES = "pgvector: a range takes a number or a date"
TYPE_ERROR = "pgvector-typed: a column against a value of another type is a type error"
ARRAY_TYPE_ERROR = "pgvector-typed: an array against values of another type is a type error"
NOT_A_DOUBLE = "pgvector: an integer that is no double against doubles (the bound would be rounded)"


def _values(c: Cond) -> tuple[Any, ...]:
    return c.value if isinstance(c.value, tuple) else (c.value,)


def _kinds(values: Sequence[Any]) -> set[str]:
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


def _exact_double(value: int) -> bool:
    try:
        return float(value) == value
    except OverflowError:
        return False


# -- typed columns -----------------------------------------------------------------------


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
            if not _exact_double(value):
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
    kinds = _kinds(values)
    if element_kind in ("int", "float") and kinds and kinds <= {"int", "float"}:
        if "float" in kinds or element_kind == "float":
            if any(isinstance(v, int) and not _exact_double(v) for v in values):
                raise Unsupported(NOT_A_DOUBLE)
            return "%s::double precision[]", [float(v) for v in values]
        return "%s::bigint[]", list(values)
    if kinds - {element_kind}:
        raise Unsupported(ARRAY_TYPE_ERROR)
    if element_kind == "date":
        return "%s::date[]", [v.isoformat() if isinstance(v, date) else v for v in values]
    return f"%s::{COLUMNS[element_kind]}[]", list(values)


def typed_condition(c: Cond) -> Sql:
    column, field_kind = identifier(c.key), BY_NAME[c.key].kind
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
                raise Unsupported(f"pgvector-typed: {c.op} takes an array column, not {COLUMNS[field_kind]}")
            placeholder, bound = typed_array(field_kind.removesuffix("_list"), _values(c))
            if placeholder.startswith("%s::double"):
                raise Unsupported(ARRAY_TYPE_ERROR)
            return f"{column} {'@>' if c.op == 'contains' else '&&'} {placeholder}", [bound]
    if listed:
        raise Unsupported(f"pgvector-typed: {c.op} on an array column compares the whole array")
    if c.op in ("in", "nin"):
        placeholder, bound = typed_array(field_kind, c.value)
        return f"{column} {'= ANY' if c.op == 'in' else '<> ALL'}({placeholder})", [bound]
    if c.op in COMPARE:
        placeholder, value = typed_param(field_kind, c.value, c.op)
        return f"{column} {COMPARE[c.op]} {placeholder}", [value]
    raise TypeError(f"unknown operator {c.op!r}")


def render_typed(expr: Expr) -> str:
    return repr(connective(expr, typed_condition))


# -- JSONB -------------------------------------------------------------------------------


def value_of(key: str) -> str:
    return f"payload->{literal(key)}"


def view(key: str, of: str) -> str:
    """The field read as SQL ``of`` (text, number, bool, date, list); NULL when its JSON type is another."""
    j, text = value_of(key), f"payload->>{literal(key)}"
    match of:
        case "text":
            return f"(CASE WHEN jsonb_typeof({j}) = 'string' THEN {text} END)"
        case "int" | "float" | "number":
            return f"(CASE WHEN jsonb_typeof({j}) = 'number' THEN ({j})::numeric END)"
        case "bool":
            return f"(CASE WHEN jsonb_typeof({j}) = 'boolean' THEN ({j})::boolean END)"
        case "date":
            return (f"(CASE WHEN jsonb_typeof({j}) = 'string' AND {text} ~ '^[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}$' "
                    f"AND pg_input_is_valid({text}, 'date') THEN ({text})::date END)")
        case "list":
            return f"(CASE WHEN jsonb_typeof({j}) = 'array' THEN {j} END)"
    raise TypeError(f"no view of {of!r}")


def jsonb_value(value: Any) -> str:
    """A JSON text for a value inside a JSONB containment (a date is no JSON value)."""
    if isinstance(value, date):
        raise Unsupported("pgvector-jsonb: a date is no JSON value")
    if kind(value) is None:
        raise TypeError(f"no JSON value for {value!r}")
    return json.dumps([value], ensure_ascii=False, allow_nan=False)


def jsonb_arrays(values: Sequence[Any]) -> list[tuple[str, str, list[Any]]]:
    """The views, placeholders and lists of an ``in``/``nin``: one SQL array per kind of value (numbers together,
    as doubles when one is a float); an empty list is one empty text array."""
    groups: dict[str, list[Any]] = {}
    for value in values:
        found = "date" if isinstance(value, date) else kind(value)
        if found is None:
            raise TypeError(f"no SQL value for {value!r}")
        groups.setdefault("number" if found in ("int", "float") else found, []).append(value)
    if not groups:
        return [("text", "%s::text[]", [])]
    arrays = []
    for of, listed in groups.items():
        if of == "number" and any(isinstance(v, float) for v in listed):
            if any(isinstance(v, int) and not _exact_double(v) for v in listed):
                raise Unsupported(NOT_A_DOUBLE)
            arrays.append((of, "%s::double precision[]", [float(v) for v in listed]))
        elif of == "date":
            arrays.append((of, "%s::date[]", [v.isoformat() for v in listed]))
        else:
            arrays.append((of, {"number": "%s::numeric[]", "text": "%s::text[]", "bool": "%s::boolean[]"}[of], listed))
    return arrays


def jsonb_condition(c: Cond) -> Sql:
    key = c.key
    match c.op:
        case "is_null":
            return "payload @> %s::jsonb", [json.dumps({key: None}, ensure_ascii=False)]
        case "exists":
            return f"(payload ? {literal(key)} AND {value_of(key)} <> 'null'::jsonb)", []
        case "is_empty":
            return f"COALESCE({value_of(key)}, 'null'::jsonb) IN ('null'::jsonb, '[]'::jsonb)", []
        case "contains":
            return f"{view(key, 'list')} @> %s::jsonb", [jsonb_value(c.value)]
        case "contains_any":
            if not c.value:
                return f"(CASE WHEN jsonb_typeof({value_of(key)}) = 'array' THEN FALSE END)", []
            parts = [f"{view(key, 'list')} @> %s::jsonb" for _ in c.value]
            return "(" + " OR ".join(parts) + ")", [jsonb_value(v) for v in c.value]
        case "in" | "nin":
            arrays = jsonb_arrays(c.value)
            test = "= ANY" if c.op == "in" else "<> ALL"
            parts = [f"{view(key, of)} {test}({placeholder})" for of, placeholder, _ in arrays]
            where = parts[0] if len(parts) == 1 else "(" + (" OR " if c.op == "in" else " AND ").join(parts) + ")"
            return where, [bound for _, _, bound in arrays]
    if c.op not in COMPARE:
        raise TypeError(f"unknown operator {c.op!r}")
    (have,) = _kinds([c.value])
    if c.op in RANGE_OPS and have not in ("int", "float", "date"):
        raise Unsupported(RANGE_TYPES)
    if have == "date":
        return f"{view(key, 'date')} {COMPARE[c.op]} %s::date", [c.value.isoformat()]
    return f"{view(key, have)} {COMPARE[c.op]} %s", [c.value]


def render_jsonb(expr: Expr) -> str:
    return repr(connective(expr, jsonb_condition))
