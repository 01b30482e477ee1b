"""PostgreSQL's filter language over one JSONB document (``payload``): the neutral filter, read through typed views.

Every comparison reads the field through a *view* of the kind of the value it is compared with (``view``): a
missing key, a JSON null, or a JSON value of another type reads as SQL NULL, so the comparison is unknown and no
cast can raise on mixed data. The rules of each condition are in ``fuzz.targets.pgvector_sql``'s docstring (the
``pgvector-jsonb`` target, this module's one user); AND, OR, NOT and the typed bindings are ``language``'s.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date
from typing import Any

from filterproof.adapters.filterlang import RANGE_OPS, Cond, Expr, Unsupported, kind
from filterproof.adapters.pgvector.language import (
    COMPARE,
    NOT_A_DOUBLE,
    RANGE_TYPES,
    Sql,
    connective,
    exact_double,
    literal,
    value_kinds,
)


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
            if any(isinstance(v, int) and not exact_double(v) for v in listed):
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
    (have,) = value_kinds([c.value])
    if c.op in RANGE_OPS and have not in ("int", "float", "date"):
        raise Unsupported(RANGE_TYPES)
    if have == "date":
        return f"{view(key, 'date')} {COMPARE[c.op]} %s::date", [c.value.isoformat()]
    return f"{view(key, have)} {COMPARE[c.op]} %s", [c.value]


def render_jsonb(expr: Expr) -> str:
    """The native filter: Python source of the ``(where, params)`` tuple."""
    return repr(connective(expr, jsonb_condition))
