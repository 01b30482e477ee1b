"""The neutral evaluator: what a filter means where every engine's documentation agrees, and "unknown" elsewhere.

``truth(expr, doc)`` is True, False or None (unknown), in Kleene's three-valued logic:
``NOT unknown`` is unknown, ``AND`` is false when one part is, ``OR`` true when one
part is. A condition is *defined* on a document only where engines agree on its
meaning; everywhere else it is unknown, and the oracles that need a meaning skip that
document (the metamorphic ones still judge it). The rules, written down once:

* ``is_null`` (present and null), ``is_empty`` (missing, null or ``[]``) and
  ``exists`` (present, not null) are defined on every document but one whose field is
  a list holding a null (Qdrant reads ``[null]`` as null; SQL as a list).
* Any other condition on a missing or null field is unknown (SQL's NULL; Qdrant
  and Chroma each have a rule of their own, which ``targets`` state).
* ``eq``/``ne``/``in``/``nin`` are defined on a scalar of the value's kind (text with
  text, a bool with a bool, an integer with an integer); on a list they are unknown
  (Qdrant matches an element, SQL compares the array).
* ranges are defined on a number against a number within 2^53 (Qdrant's range bounds
  are doubles, so are JSON numbers in many engines) and on an ISO date string against a
  date.
* ``contains``/``contains_any`` are defined on a list against values of its kind;
  null elements hold nothing; on a scalar they are unknown.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from filterproof.adapters.filterlang import UNARY_OPS, And, Cond, Expr, Not, Or, kind

Truth = bool | None
MISSING = object()
EXACT_FLOAT = 2**53


def _same_kind(have: Any, want: Any) -> bool:
    return kind(have) is not None and kind(have) == kind(want)


def _as_date(value: Any) -> date | None:
    if not isinstance(value, str) or len(value) != 10:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def _ordered(have: Any, want: Any) -> tuple[Any, Any] | None:
    """The two sides of a range, comparable, or None where engines disagree."""
    if isinstance(want, date):
        day = _as_date(have)
        return None if day is None else (day, want)
    numbers = ("int", "float")
    if kind(have) not in numbers or kind(want) not in numbers:
        return None
    if abs(have) > EXACT_FLOAT or abs(want) > EXACT_FLOAT:  # Qdrant's ranges are doubles; JSON numbers may be
        return None
    return have, want


def _compare(op: str, have: Any, want: Any) -> Truth:
    if op in ("eq", "ne"):
        if isinstance(have, list) or not _same_kind(have, want):
            return None
        return (have == want) == (op == "eq")
    if op in ("in", "nin"):
        if isinstance(have, list) or any(not _same_kind(have, w) for w in want):
            return None
        return (have in want) == (op == "in")
    if op in ("gt", "gte", "lt", "lte"):
        pair = _ordered(have, want)
        if pair is None:
            return None
        a, b = pair
        return {"gt": a > b, "gte": a >= b, "lt": a < b, "lte": a <= b}[op]
    if op in ("contains", "contains_any"):
        wanted = want if op == "contains_any" else (want,)
        if not isinstance(have, list) or any(kind(w) is None for w in wanted):
            return None
        if not wanted:
            return False
        if any(h is not None and not _same_kind(h, wanted[0]) for h in have) or len({kind(w) for w in wanted}) > 1:
            return None
        return any(w in [h for h in have if h is not None] for w in wanted)
    raise ValueError(f"unknown operator {op!r}")


def condition(cond: Cond, doc: Mapping[str, Any]) -> Truth:
    have = doc.get(cond.key, MISSING)
    if cond.op in ("is_null", "is_empty", "exists") and isinstance(have, list) and None in have:
        return None  # a list holding a null: Qdrant reads [null] as null, SQL as a list; engines differ
    if cond.op == "is_null":
        return have is None
    if cond.op == "is_empty":
        return have is MISSING or have is None or have == []
    if cond.op == "exists":
        return have is not MISSING and have is not None
    if have is MISSING or have is None:
        return None
    return _compare(cond.op, have, cond.value)


def truth(expr: Expr, doc: Mapping[str, Any]) -> Truth:
    match expr:
        case Cond():
            return condition(expr, doc)
        case And(parts):
            values = [truth(p, doc) for p in parts]
            return False if False in values else (None if None in values else True)
        case Or(parts):
            values = [truth(p, doc) for p in parts]
            return True if True in values else (None if None in values else False)
        case Not(part):
            value = truth(part, doc)
            return None if value is None else not value
    raise TypeError(f"unknown expression {expr!r}")


def defined(expr: Expr, doc: Mapping[str, Any]) -> bool:
    """Every condition of the tree has a meaning on ``doc``: any engine must answer it as ``truth`` does."""
    match expr:
        case Cond():
            return condition(expr, doc) is not None
        case And(parts) | Or(parts):
            return all(defined(p, doc) for p in parts)
        case Not(part):
            return defined(part, doc)
    raise TypeError(f"unknown expression {expr!r}")


def unknown_under_null_rule(expr: Expr) -> Expr:
    """SQL's null rule, which Milvus documents too, as a filter: the documents on which ``expr`` is unknown when a
    condition on a null field is unknown and every other condition is true or false (``is_null``, ``is_empty`` and
    ``exists`` never unknown; no value of another kind, as in a typed store). It is NOT (expr is TRUE OR expr is
    FALSE), each written with ``exists`` guards, so that it is two-valued itself: a target whose language has no
    ``(P) IS NULL`` says "P is unknown" in its own words, and P, NOT P and it must partition the documents."""
    return Not(Or((_is(expr, True), _is(expr, False))))


def _is(expr: Expr, value: bool) -> Expr:
    """"``expr`` is ``value``", true or false on every document under the null rule."""
    match expr:
        case Cond(op) if op in UNARY_OPS:
            return expr if value else Not(expr)
        case Cond(_, key):
            return And((expr if value else Not(expr), Cond("exists", key)))
        case And(parts):
            return And(tuple(_is(p, True) for p in parts)) if value else Or(tuple(_is(p, False) for p in parts))
        case Or(parts):
            return Or(tuple(_is(p, True) for p in parts)) if value else And(tuple(_is(p, False) for p in parts))
        case Not(part):
            return _is(part, not value)
    raise TypeError(f"unknown expression {expr!r}")
