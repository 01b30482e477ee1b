"""The neutral filter as a Haystack filter dict: what the ``haystack-*`` fuzz targets hand their document stores.

Haystack (haystack-ai 3.x) writes a filter as nested dicts, a comparison ``{"field": "meta.k", "operator": "==",
"value": v}`` (``== != > >= < <= in``, ``not in``) or a logic ``{"operator": "AND" | "OR" | "NOT", "conditions":
[...]}``. Its semantics are the ones of ``haystack.utils.filters`` (``document_matches_filter``), the reference
implementation that ``InMemoryDocumentStore`` runs and the protocol's documentation points to. Read from it and
decided once:

* ``==``/``!=`` are Python's equality on the field's value; ``in``/``not in`` "equals one of" / "none of", so
  ``in []`` selects nothing and ``not in []`` everything: both are written (an empty list is a policy's
  principal without groups);
* ``> >= < <=`` compare numbers, or ISO dates (a string is parsed as a date; any other string raises
  ``FilterError``, and so does a date against a number): a range takes an int or a float (no bool) or a
  ``date``, written as its ISO text, of the field's kind where the field is one of the fuzzer's;
* ``AND``/``OR`` are ``all``/``any`` of their conditions, an empty one too (True / False, as the neutral
  language's); ``NOT`` is "not all of its conditions" (``_not = not _and``). So ``NOT (A AND B)`` has two
  spellings: 0, the conditions of the AND written as NOT's own (``{"operator": "NOT", "conditions": [A, B]}``,
  how Haystack's NOT reads), and 1, the AND kept as NOT's one condition; the ``spelling`` oracle holds them
  equal;
* a missing field is read as None, so no comparison tells a null from a missing field or from an empty list
  (``== None`` is both): ``is_null`` and ``is_empty`` have no form; ``exists`` would be ``!= None``, but Haystack's
  protocol documents no None value and qdrant-haystack refuses one (the filter-support matrix records it), so it
  is not written either;
* ``==`` on a list field compares the whole list (the in-memory store never matches an element, Qdrant does):
  ``contains`` and ``contains_any`` have no form.

Unknown input (an expression that is no ``Expr``, an unknown spelling) raises; what the language cannot say raises
``Unsupported`` with the reason, named after the target.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from filterproof.adapters.filterlang import RANGE_OPS, And, Cond, Expr, Not, Or, Unsupported
from filterproof.fuzz.generate import BY_NAME

Filter = dict[str, Any]
COMPARISONS = {"eq": "==", "ne": "!=", "in": "in", "nin": "not in", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
"""The neutral operators with a Haystack comparison of the same meaning (``Allows.ops`` of every Haystack target)."""
SPELLINGS = 2
"""0: ``NOT (A AND B)`` as ``NOT [A, B]``; 1: as ``NOT [AND [A, B]]`` (Haystack defines them as one filter)."""
NO_FORM = {
    "contains": "Haystack's == compares a list field as a whole (no operator looks inside a list)",
    "contains_any": "Haystack's in compares a list field as a whole (no operator looks inside a list)",
    "is_null": "a missing field is read as None: no comparison tells a null from a missing field",
    "is_empty": "a missing field is read as None: no comparison tells missing, null and [] apart",
    "exists": "!= None is not documented, and qdrant-haystack refuses a None value",
}


def haystack_filter(expr: Expr, spelling: int = 0, name: str = "haystack") -> Filter:
    """``expr`` as a Haystack filter dict; ``Unsupported`` (its message starting ``name: ``) where it has no form."""
    if spelling not in range(SPELLINGS):
        raise ValueError(f"{name}: unknown spelling {spelling!r} (0 to {SPELLINGS - 1})")
    return _node(expr, spelling, name)


def haystack_source(expr: Expr, spelling: int = 0, name: str = "haystack") -> str:
    """The filter dict as Python source (the fuzzer's native filter: a literal, evaluated with no names)."""
    return repr(haystack_filter(expr, spelling, name))


def _node(expr: Expr, spelling: int, name: str) -> Filter:
    match expr:
        case Cond():
            return condition(expr, name)
        case And(parts):
            return logic("AND", [_node(p, spelling, name) for p in parts])
        case Or(parts):
            return logic("OR", [_node(p, spelling, name) for p in parts])
        case Not(And(parts)) if spelling == 0:  # NOT is "not all of its conditions": the AND's own parts
            return logic("NOT", [_node(p, spelling, name) for p in parts])
        case Not(part):
            return logic("NOT", [_node(part, spelling, name)])
    raise TypeError(f"{name}: unknown expression {expr!r}")


def logic(operator: str, conditions: list[Filter]) -> Filter:
    return {"operator": operator, "conditions": conditions}


def compare(key: str, operator: str, value: Any) -> Filter:
    return {"field": f"meta.{key}", "operator": operator, "value": value}


def condition(c: Cond, name: str) -> Filter:
    if c.op in NO_FORM:
        raise Unsupported(f"{name}: no {c.op} ({NO_FORM[c.op]})")
    if c.op in RANGE_OPS:
        return range_condition(c, name)
    if c.op in ("in", "nin"):
        return list_condition(c, name)
    if c.op in ("eq", "ne"):
        return scalar_condition(c, name)
    raise ValueError(f"{name}: unknown operator {c.op!r}")


def scalar_condition(c: Cond, name: str) -> Filter:
    return compare(c.key, COMPARISONS[c.op], scalar(c.value, name))


def list_condition(c: Cond, name: str) -> Filter:
    # A list, even empty: Haystack's `in []` is "equals none of nothing", so it selects nothing.
    return compare(c.key, COMPARISONS[c.op], [scalar(v, name) for v in c.value])


def range_condition(c: Cond, name: str) -> Filter:
    value = c.value
    # A bool is an int to Python's `>`, not a number to the neutral language; a text is parsed as a date (or raises).
    if isinstance(value, bool) or not isinstance(value, int | float | date):
        raise Unsupported(f"{name}: a range compares a number or an ISO date, not {type(value).__name__}")
    # A date against a number raises FilterError for the whole query (not "no match"): where the field is declared
    # (the fuzzer's worlds, one kind per field), a bound of the other kind has no form.
    field = BY_NAME.get(c.key)
    if field is not None and field.kind in ("int", "float", "date") and (field.kind == "date") != isinstance(value,
                                                                                                         date):
        raise Unsupported(f"{name}: a range compares a date with a date and a number with a number (else "
                          "FilterError)")
    return compare(c.key, COMPARISONS[c.op], scalar(value, name))


def scalar(value: Any, name: str) -> Any:
    """A value as Haystack's filters take it: a date as its ISO text (how a stored date is compared)."""
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str | int | float):  # a bool is an int
        return value
    raise TypeError(f"{name}: unknown value {value!r}")  # the neutral language has no other scalar


# -- negation pushed to the leaves, for the integrations that have no NOT (chroma-haystack, pgvector-haystack) ------

OPPOSITE = {"eq": "ne", "ne": "eq", "in": "nin", "nin": "in"}
"""The comparisons whose negation is another comparison in Haystack's semantics (``_not_equal = not _equal``...)."""


def pushed(expr: Expr, name: str, integration: str, negated: bool = False) -> Expr:
    """``expr`` (``NOT expr`` when ``negated``) without NOT, where that is exact under Haystack's semantics: De Morgan
    over AND/OR, and a comparison's opposite (a range has none: its opposite leaves out a document without the field,
    which NOT selects). ``name``: the target, ``integration``: the package without a NOT, for the refusal."""
    match expr:
        case Cond(op, key, value):
            if not negated:
                return expr
            if op not in OPPOSITE:
                raise Unsupported(f"{name}: no negation of {op} ({integration} has no NOT, and the opposite "
                                  "range leaves out a document without the field, which NOT selects)")
            return Cond(OPPOSITE[op], key, value)  # type: ignore[arg-type]  # an operator of OPPOSITE's
        case And(parts) | Or(parts):
            children = tuple(pushed(p, name, integration, negated) for p in parts)
            return And(children) if isinstance(expr, And) != negated else Or(children)  # De Morgan
        case Not(part):
            return pushed(part, name, integration, not negated)
    raise TypeError(f"{name}: unknown expression {expr!r}")
