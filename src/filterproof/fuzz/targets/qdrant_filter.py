"""Qdrant's filter language, written in either model family: qdrant-client's (``qdrant_client.models``, keyword
arguments) and Qdrant's engine in process (``qdrant_edge``, positional); the stores are ``qdrant``'s.

Spellings (``Target.spellings``):

0. ``MatchValue``/``MatchAny`` (``ne``/``nin`` as ``must_not``), ``IsNullCondition``,
   ``IsEmptyCondition``, ``should`` for OR;
1. what Qdrant documents as the same filter: ``FieldCondition(is_null=True)`` and
   ``FieldCondition(is_empty=True)``, ``min_should`` with ``min_count=1`` for OR, one
   ``MatchAny`` of one value for ``eq`` (the ``spelling`` oracle compares it with 0);
2. ``MatchExcept`` for ``ne``/``nin`` (Qdrant's own "none of these" match, which its
   documentation does not make equal to ``must_not``: judged by the other oracles).

Qdrant's rules, written down once: NOT is ``must_not``, the complement (two-valued); a
``MatchValue`` on a list matches an element; an empty ``should`` is no constraint (so
an empty OR has no faithful form); ``exists`` is ``must_not IsEmpty``, which is only
"present, not null" for scalars (an empty list is empty), so it is rendered for scalar
fields alone; no float equality (``MatchValue`` takes text, integers and booleans).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or, Unsupported
from filterproof.fuzz.generate import BY_NAME


class Spelling:
    """How one model family writes each construct (client: keyword arguments; edge: positional)."""

    def __init__(self, m: str, edge: bool) -> None:
        self.m, self.edge = m, edge

    def field(self, key: str, **part: str) -> str:
        head = repr(key) if self.edge else f"key={key!r}"
        return f"{self.m}.FieldCondition({head}, " + ", ".join(f"{k}={v}" for k, v in part.items()) + ")"

    def match(self, kind: str, values: Any) -> str:
        cls = {"value": "MatchValue", "any": "MatchAny", "except": "MatchExcept"}[kind]
        if self.edge:
            return f"{self.m}.{cls}({values!r})"
        return f"{self.m}.{cls}(**{{{kind!r}: {values!r}}})"  # MatchExcept's field is "except", a keyword

    def range(self, op: str, value: Any) -> str:
        if isinstance(value, date):
            cls = "RangeDateTime" if self.edge else "DatetimeRange"
            return f"{self.m}.{cls}({op}={value.isoformat()!r})"
        cls = "RangeFloat" if self.edge else "Range"
        return f"{self.m}.{cls}({op}={value!r})"

    def unary(self, cls: str, key: str) -> str:
        """``IsNullCondition`` / ``IsEmptyCondition`` on ``key``."""
        if self.edge:
            return f"{self.m}.{cls}({key!r})"
        name = "is_null" if cls == "IsNullCondition" else "is_empty"
        return f"{self.m}.{cls}({name}={self.m}.PayloadField(key={key!r}))"

    def filter(self, **parts: list[str]) -> str:
        return f"{self.m}.Filter(" + ", ".join(f"{k}=[{', '.join(v)}]" for k, v in parts.items()) + ")"

    def min_should(self, conditions: list[str], count: int) -> str:
        inner = f"[{', '.join(conditions)}], {count}" if self.edge else \
            f"conditions=[{', '.join(conditions)}], min_count={count}"
        return f"{self.m}.Filter(min_should={self.m}.MinShould({inner}))"


def render(expr: Expr, w: Spelling, spelling: int) -> str:
    """A ``Filter`` (or a condition) as source; the root is always wrapped in a ``Filter`` by ``as_filter``."""
    match expr:
        case Cond():
            return _condition(expr, w, spelling)
        case And(parts):
            return w.filter(must=[render(p, w, spelling) for p in parts])
        case Or(parts):
            if not parts:
                raise Unsupported("qdrant: an empty should is no constraint (an empty OR has no faithful form)")
            children = [render(p, w, spelling) for p in parts]
            return w.min_should(children, 1) if spelling == 1 else w.filter(should=children)
        case Not(part):
            return w.filter(must_not=[render(part, w, spelling)])
    raise TypeError(f"unknown expression {expr!r}")


def _condition(c: Cond, w: Spelling, spelling: int) -> str:
    kind = BY_NAME[c.key].kind
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
                return w.field(c.key, match=w.match("any", [c.value]))
            return w.field(c.key, match=w.match("value", c.value))
        case "in" | "contains_any":
            return w.field(c.key, match=w.match("any", list(c.value)))
        case "ne" | "nin":
            listed = list(values)
            if spelling == 2 and not any(isinstance(v, bool) for v in listed):
                return w.field(c.key, match=w.match("except", listed))
            positive = "value" if c.op == "ne" else "any"
            return w.filter(must_not=[w.field(c.key, match=w.match(positive, c.value if c.op == "ne" else listed))])
        case "gt" | "gte" | "lt" | "lte":
            if isinstance(c.value, bool | str):
                raise Unsupported("qdrant: a range takes a number or a datetime")
            return w.field(c.key, range=w.range(c.op, c.value))
        case "is_null":
            return w.field(c.key, is_null="True") if spelling == 1 else w.unary("IsNullCondition", c.key)
        case "is_empty":
            return w.field(c.key, is_empty="True") if spelling == 1 else w.unary("IsEmptyCondition", c.key)
        case "exists":
            if kind.endswith("list"):
                raise Unsupported("qdrant: no test for 'present' on a list field (must_not IsEmpty drops [])")
            return w.filter(must_not=[w.unary("IsEmptyCondition", c.key)])
    raise ValueError(f"unknown operator {c.op!r}")


def as_filter(source: str, w: Spelling) -> str:
    return source if source.startswith(f"{w.m}.Filter(") else w.filter(must=[source])
