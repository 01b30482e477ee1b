"""LlamaIndex ``MetadataFilters`` as Python source: what the ``llamaindex-*`` fuzz targets share.

Each integration translates the same objects into its store's filter, and each refuses something different; what they
share is how the objects are written, and, for the integrations that raise on the condition NOT (Chroma, PostgreSQL,
Milvus), how a negation is said without it: pushed to the leaves, each leaf swapped for its opposite operator and
AND/OR for each other (De Morgan). That is faithful: each leaf and its opposite never both select a document.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from filterproof.fuzz.lang import And, Cond, Expr, Not, Or
from filterproof.fuzz.target import Unsupported

LI_IMPORTS = "from llama_index.core.vector_stores import types as li"
NEGATED = {"eq": "ne", "ne": "eq", "in": "nin", "nin": "in", "gt": "lte", "lte": "gt", "gte": "lt", "lt": "gte"}
"""Each operator with an opposite among LlamaIndex's (no NOT CONTAINS, NOT ANY or NOT IS_EMPTY)."""

Leaf = Callable[[Cond, str], str]
"""Writes one condition under the operator given (the condition's own, or its opposite under a negation)."""


def join_filters(parts: list[str], condition: str) -> str:
    """``MetadataFilters`` source of the parts under one condition (AND, OR, NOT)."""
    return f"li.MetadataFilters(filters=[{', '.join(parts)}], condition=li.FilterCondition.{condition})"


def metadata_filter(key: str, operator: str, value: Any) -> str:
    return f"li.MetadataFilter(key={key!r}, operator=li.FilterOperator.{operator}, value={value!r})"


def pushed_down(expr: Expr, leaf: Leaf, name: str) -> str:
    """The filter with negation pushed to the leaves (a lone condition wrapped in an AND)."""
    found = _pushed(expr, leaf, name, negated=False)
    return found if found.startswith("li.MetadataFilters(") else join_filters([found], "AND")


def _pushed(expr: Expr, leaf: Leaf, name: str, negated: bool) -> str:
    match expr:
        case Cond():
            if negated and expr.op not in NEGATED:
                raise Unsupported(f"{name}: no negation of {expr.op} (the integration raises on NOT)")
            return leaf(expr, NEGATED[expr.op] if negated else expr.op)
        case And(parts) | Or(parts):
            if not parts:
                raise Unsupported(f"{name}: an empty MetadataFilters is no filter at all")
            both = isinstance(expr, And) != negated  # De Morgan
            return join_filters([_pushed(p, leaf, name, negated) for p in parts], "AND" if both else "OR")
        case Not(part):
            return _pushed(part, leaf, name, not negated)
    raise TypeError(f"unknown expression {expr!r}")
