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
