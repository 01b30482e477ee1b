"""LlamaIndex ``MetadataFilters`` as Python source: what the ``llamaindex-*`` fuzz targets share.

Each integration translates the same objects into its store's filter, and each refuses something different; what they
share is how the objects are written, and, for the integrations that raise on the condition NOT (Chroma, PostgreSQL,
Milvus), how a negation is said without it: pushed to the leaves, each leaf swapped for its opposite operator and
AND/OR for each other (De Morgan). That is faithful: each leaf and its opposite never both select a document.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from filterproof.adapters.filterlang import RANGE_OPS, And, Cond, Expr, Not, Or, Unsupported

LI_IMPORTS = "from llama_index.core.vector_stores import types as li"
NEGATED = {"eq": "ne", "ne": "eq", "in": "nin", "nin": "in", "gt": "lte", "lte": "gt", "gte": "lt", "lt": "gte"}
"""Each operator with an opposite among LlamaIndex's (no NOT CONTAINS, NOT ANY or NOT IS_EMPTY)."""

Leaf = Callable[[Cond, str], str]
"""Writes one condition under the operator given (the condition's own, or its opposite under a negation)."""


DOCUMENTED = {"eq": "EQ", "ne": "NE", "in": "IN", "nin": "NIN", "gt": "GT", "gte": "GTE", "lt": "LT", "lte": "LTE",
              "contains": "CONTAINS", "contains_any": "ANY", "is_empty": "IS_EMPTY"}
"""The neutral operators with a LlamaIndex ``FilterOperator`` of the same meaning, by its comments."""


def documented_leaf(name: str, why_not_empty: str = "") -> Leaf:
    """A leaf writer for an integration that maps every operator in ``DOCUMENTED`` (PostgreSQL, Milvus), admitting
    what LlamaIndex's ``FilterOperator`` comments admit: no bool value (``MetadataFilter.value`` is strict), no text
    range, a date as its ISO text, lists of one type and not empty, ANY for text ("array of strings") and an OR of
    CONTAINS ("string or number") for numbers."""

    def leaf(c: Cond, op: str) -> str:
        if op not in DOCUMENTED:
            raise Unsupported(f"{name}: no operator for {op} (IS_EMPTY is missing, null or [])")
        values = tuple(v.isoformat() if isinstance(v, date) else v
                       for v in (c.value if isinstance(c.value, tuple) else (c.value,)))
        if any(isinstance(v, bool) for v in values):
            raise Unsupported(f"{name}: MetadataFilter's value is a strict int, float or text (no bool)")
        if isinstance(c.value, tuple) and (not values or len({type(v) for v in values}) > 1):
            raise Unsupported(f"{name}: a list of one type, not empty{why_not_empty}")
        if op in RANGE_OPS and isinstance(c.value, str):
            raise Unsupported(f"{name}: the ranges are documented on int and float")
        if op == "contains_any" and not isinstance(values[0], str):
            parts = [metadata_filter(c.key, "CONTAINS", v) for v in values]
            return parts[0] if len(parts) == 1 else join_filters(parts, "OR")
        if op == "is_empty":
            return metadata_filter(c.key, "IS_EMPTY", None)
        return metadata_filter(c.key, DOCUMENTED[op], list(values) if isinstance(c.value, tuple) else values[0])

    return leaf


def join_filters(parts: list[str], condition: str) -> str:
    """``MetadataFilters`` source of the parts under one condition (AND, OR, NOT)."""
    return f"li.MetadataFilters(filters=[{', '.join(parts)}], condition=li.FilterCondition.{condition})"


def metadata_filter(key: str, operator: str, value: Any) -> str:
    return f"li.MetadataFilter(key={key!r}, operator=li.FilterOperator.{operator}, value={value!r})"


def negation_normal_form(expr: Expr, name: str, negated: bool = False) -> Expr:
    """``expr`` (``NOT expr`` when ``negated``) without NOT: each leaf under a negation swapped for its opposite,
    AND and OR for each other; ``Unsupported`` for a leaf with no opposite, or an empty AND or OR."""
    match expr:
        case Cond():
            if not negated:
                return expr
            if expr.op not in NEGATED:
                raise Unsupported(f"{name}: no negation of {expr.op} (the integration raises on NOT)")
            return Cond(NEGATED[expr.op], expr.key, expr.value)
        case And(parts) | Or(parts):
            if not parts:
                raise Unsupported(f"{name}: an empty MetadataFilters is no filter at all")
            children = tuple(negation_normal_form(p, name, negated) for p in parts)
            return And(children) if isinstance(expr, And) != negated else Or(children)  # De Morgan
        case Not(part):
            return negation_normal_form(part, name, not negated)
    raise TypeError(f"unknown expression {expr!r}")


def pushed_down(expr: Expr, leaf: Leaf, name: str) -> str:
    """The filter with negation pushed to the leaves (a lone condition wrapped in an AND)."""
    found = _written(negation_normal_form(expr, name), leaf)
    return found if found.startswith("li.MetadataFilters(") else join_filters([found], "AND")


def _written(expr: Expr, leaf: Leaf) -> str:
    if isinstance(expr, Cond):
        return leaf(expr, expr.op)
    if isinstance(expr, And | Or):
        return join_filters([_written(p, leaf) for p in expr.parts], "AND" if isinstance(expr, And) else "OR")
    raise TypeError(f"not in negation normal form: {expr!r}")


def search_all(store: Any, ids: list[str], native: Any) -> set[str]:
    """The ids ``store.query`` returns for a search with k = every node, filtered by ``native`` (the integration's own
    path; the query vector is the one every target's documents are placed around)."""
    from llama_index.core.vector_stores.types import VectorStoreQuery

    if not ids:
        return set()
    return set(store.query(VectorStoreQuery(query_embedding=[1.0, 0.0], similarity_top_k=len(ids),
                                            filters=native)).ids or [])
