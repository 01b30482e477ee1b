"""Chroma's filter language, a ``where`` dict: the neutral filter written in it, once.

The ``chroma`` adapter builds its policy as a neutral filter and writes it here (``where.compile_where``); the
``chroma`` fuzz targets render their generated filters here (``fuzz.targets.chroma``); the matrix writes
langchain-chroma's ``filter=`` here (``matrix.languages``). A rule fixed for one is fixed for all three.

``Chroma(spelling, strict, arrays)`` renders ``adapters.filterlang`` trees. Chroma's rules:

* No ``$not``: NOT is pushed to the leaves (negation normal form): ``eq``/``ne``, ``in``/``nin``,
  ``contains``/``not_contains`` swap, a range becomes the opposite range, De Morgan for ``$and``/``$or``
  (the fuzz target's docstring says why that is faithful under Chroma's missing-key rule).
* No ``$exists``, no null in metadata: ``is_null``, ``is_empty``, ``exists`` are ``Unsupported``; so is a date
  (Chroma has no date type: a date is stored as text).
* ``$and``/``$or`` take two or more clauses (one child is written as itself); ``$in``/``$nin`` take a non-empty
  list of values of one type; a range takes a number; ``contains_any`` is an ``$or`` of ``$contains``.

``strict`` (the default: the adapter, the fuzz target): a filter Chroma would refuse (an empty AND, OR, ``$in``
or ``contains_any``, a list of mixed types, a range on text) is ``Unsupported``: it has no faithful form. With
``strict=False`` (the matrix) it is written as an application writes it (``{"$or": []}``, ``{"$in": []}``,
``{"day": {"$gt": "2026-01-01"}}``), for the integration and Chroma to refuse (the matrix's verdict: raises; all
three measured on chromadb 1.5.9: "Expected where value for $and or $or to be a list with at least two where
expressions", "Expected where operand value to be a non-empty list", "Expected operand value to be an int or a
float for operator $gt").

``arrays``: list metadata and ``$contains``/``$not_contains`` on it exist (chromadb 1.5 on); without them a
``contains`` is ``Unsupported``.

Spellings: 0 ``{key: {"$eq": v}}``; 1 the shorthand ``{key: v}``, which Chroma documents as the same filter
("Using the $eq operator is equivalent to using the where filter").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from filterproof.adapters.filterlang import RANGE_OPS, UNARY_OPS, And, Cond, Expr, Not, Or, Unsupported

Where = dict[str, Any]

OPPOSITE = {"eq": "ne", "ne": "eq", "in": "nin", "nin": "in", "gt": "lte", "lte": "gt", "gte": "lt", "lt": "gte",
            "contains": "not_contains", "not_contains": "contains"}
"""Each leaf's negation (``not_contains`` is Chroma's own, not a neutral operator)."""


def scalar(value: Any) -> str | int | float | bool:
    """A metadata value as a where operand; a date has none (Chroma stores it as text)."""
    if isinstance(value, date):
        raise Unsupported("chroma: no date type (a date is stored as text)")
    if isinstance(value, str | int | float):  # bool is an int
        return value
    raise TypeError(f"not a metadata value: {value!r}")


@dataclass(frozen=True)
class Chroma:
    """The neutral filter as a Chroma ``where`` dict; see the module's docstring for each parameter."""

    spelling: int = 0
    strict: bool = True
    arrays: bool = True

    def render(self, expr: Expr, negated: bool = False) -> Where:
        """The ``where`` dict for ``expr`` (``NOT expr`` when ``negated``), negation pushed to the leaves."""
        match expr:
            case Cond():
                return self.leaf(expr, negated)
            case And(parts):
                return self.join("$or" if negated else "$and", [self.render(p, negated) for p in parts])
            case Or(parts):
                return self.join("$and" if negated else "$or", [self.render(p, negated) for p in parts])
            case Not(part):
                return self.render(part, not negated)
        raise TypeError(f"unknown expression {expr!r}")

    def join(self, operator: str, clauses: list[Where]) -> Where:
        """``$and``/``$or`` of the clauses; one clause as itself (Chroma refuses a join of one)."""
        if not clauses and self.strict:
            raise Unsupported("chroma: no empty AND or OR ($and/$or take two or more clauses)")
        return clauses[0] if len(clauses) == 1 else {operator: clauses}

    def leaf(self, c: Cond, negated: bool) -> Where:
        if c.op in UNARY_OPS:
            raise Unsupported(f"chroma: no {c.op} (no $exists, no null in metadata)")
        if c.op == "contains_any":
            if not c.value and self.strict:
                raise Unsupported("chroma: contains_any of no value has no form")
            clauses = [self.leaf(Cond("contains", c.key, v), negated) for v in c.value]
            return self.join("$and" if negated else "$or", clauses)
        op = OPPOSITE[c.op] if negated else c.op
        if op in ("eq", "ne"):
            return self.compare(c.key, op, scalar(c.value))
        if op in ("in", "nin"):
            return self.compare(c.key, op, self.listed(c.value))
        if op in RANGE_OPS:
            return self.compare(c.key, op, self.number(c.value))
        if op in ("contains", "not_contains"):
            if not self.arrays:
                raise Unsupported("chroma: no $contains on metadata before 1.5 (no list metadata)")
            return self.compare(c.key, op, scalar(c.value))
        raise TypeError(f"unknown operator {c.op!r}")

    def compare(self, key: str, op: str, value: Any) -> Where:
        """``{key: {"$op": value}}``; ``eq`` in spelling 1 as the documented shorthand ``{key: value}``."""
        if not isinstance(key, str):
            raise TypeError(f"a metadata key is text, got {key!r}")
        if op == "eq" and self.spelling == 1:
            return {key: value}
        return {key: {f"${op}": value}}

    def number(self, value: Any) -> int | float | str:
        """A range's operand: a number (``strict=False``: also text, as an application writes a date)."""
        if isinstance(value, str) and not self.strict:
            return value
        if isinstance(value, bool | str | date):
            raise Unsupported("chroma: a range takes a number (text and dates are not ordered)")
        if isinstance(value, int | float):
            return value
        raise TypeError(f"not a number: {value!r}")

    def listed(self, values: Any) -> list[Any]:
        """The list of ``$in``/``$nin``: non-empty, of one type (``strict=False``: as given)."""
        if not isinstance(values, tuple):
            raise TypeError(f"in/nin take a tuple, got {values!r}")
        items = [scalar(v) for v in values]
        if self.strict and (not items or len({type(v) for v in items}) > 1):
            raise Unsupported("chroma: $in/$nin take a non-empty list of one type")
        return items
