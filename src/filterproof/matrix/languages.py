"""A probe expression in each framework's filter language: one small function per construct.

A language that has no way to say an operator raises ``Unsupported`` here (the
matrix says "unsupported"); everything it can say is rendered in its plain,
documented form and handed to the integration, whose own failures the matrix
records as "raises". Frameworks are imported inside the functions that need them.

* ``chroma_where``: a Chroma ``where`` dict, what langchain-chroma's ``filter=`` takes.
* ``qdrant_filter``: a ``qdrant_client.models.Filter`` over ``metadata.<key>``, what
  langchain-qdrant's ``filter=`` takes.
* ``pgvector_dict``: langchain-postgres's ``$``-operator dict, what langchain-pgvector's ``filter=`` takes.
* ``milvus_expr``: a Milvus boolean expression string, what langchain-milvus's ``expr=`` takes.
* ``structured``: LangChain's ``StructuredQuery`` filter, then a langchain-community
  translator (langchain-community's ``ChromaTranslator`` / ``QdrantTranslator``, langchain-postgres's
  ``PGVectorTranslator``), the self-query path.
* ``metadata_filters``: LlamaIndex ``MetadataFilters`` (ANY for "contains any", the
  documented operator; IS_EMPTY for "missing or null").
* ``haystack_filters``: Haystack's filter dict over ``meta.<key>`` (``==``, ``in``, ``<=``, ``>``,
  ``== None`` for "missing or null", AND/OR/NOT of ``conditions``, a NOT of an AND written as
  Haystack's NOT over the AND's conditions, which it defines as "not all"); it has no operator
  that looks inside a list.
"""

from __future__ import annotations

from typing import Any

from filterproof.adapters.chroma.language import Chroma
from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or, Unsupported
from filterproof.adapters.milvus.language import Milvus
from filterproof.adapters.qdrant.language import MODELS, Qdrant


def _plain(value: Any) -> Any:
    """A neutral list (a tuple) as the list an application hands its framework."""
    return list(value) if isinstance(value, tuple) else value


def _join(operator: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    return parts[0] if len(parts) == 1 else {operator: parts}  # langchain-postgres, as Chroma: no join of one


# -- Chroma where (langchain-chroma, native) ----------------------------------------

CHROMA = Chroma(strict=False)
"""Chroma's own renderer; what Chroma refuses (``$in: []``, ``$or: []``, a range on a date string) is written as an
application writes it, for the integration to refuse (the matrix records it: raises)."""


def chroma_where(expr: Expr) -> dict[str, Any]:
    return CHROMA.render(expr)


# -- Qdrant Filter (langchain-qdrant, native) -------------------------------------------


def qdrant_filter(expr: Expr, prefix: str = "metadata.") -> Any:
    """Qdrant's own renderer (qdrant_client models) over ``metadata.<key>``; an empty OR is the empty ``should`` an
    application sends (Qdrant reads it as no constraint: the matrix records it, ignored), a date string's range a
    ``DatetimeRange`` over it."""
    return Qdrant(MODELS, prefix=prefix, strict=False).native(expr)


# -- langchain-postgres filter dict (langchain-pgvector, native) --------------------------


def pgvector_dict(expr: Expr) -> dict[str, Any]:
    match expr:
        case Cond("eq" | "in" | "lte" | "gt" as op, key, value):
            return {key: {"$" + op: _plain(value)}}
        case Cond("contains" | "contains_any"):
            raise Unsupported("langchain-postgres has no operator that looks inside a JSON list")
        case Cond("is_empty"):
            raise Unsupported("langchain-postgres has $exists (absence) but no null test")
        case And(parts):
            return _join("$and", [pgvector_dict(p) for p in parts])
        case Or(parts):
            return _join("$or", [pgvector_dict(p) for p in parts])
        case Not(part):  # a dict: a list under $not means "none of" in langchain-postgres
            return {"$not": pgvector_dict(part)}
    raise TypeError(f"unknown expression {expr!r}")


# -- Milvus expression string (langchain-milvus, native) ---------------------------------

MILVUS = Milvus(empty=("()", "()"))
"""Milvus's own renderer over an application's keys; an AND or OR of no clauses is ``()``, what joining an empty
list of clauses writes, which Milvus refuses (the matrix records it: raises)."""


def milvus_expr(expr: Expr) -> str:
    return MILVUS.render(expr)


# -- LangChain StructuredQuery and its translators ------------------------------------


def structured(expr: Expr) -> Any:
    """The expression as LangChain's structured-query IR (what a self-query retriever builds)."""
    from langchain_core.structured_query import Comparator, Comparison, Operation, Operator

    def join(operator: Any, parts: list[Any]) -> Any:
        return parts[0] if len(parts) == 1 else Operation(operator=operator, arguments=parts)

    match expr:
        case Cond("eq" | "in" | "lte" | "gt" | "contains" as op, key, value):
            comparator = {"eq": Comparator.EQ, "in": Comparator.IN, "lte": Comparator.LTE, "gt": Comparator.GT,
                          "contains": Comparator.CONTAIN}[op]
            return Comparison(comparator=comparator, attribute=key, value=_plain(value))
        case Cond("contains_any", key, values):
            return join(Operator.OR, [Comparison(comparator=Comparator.CONTAIN, attribute=key, value=v)
                                      for v in values])
        case Cond("is_empty"):
            raise Unsupported("StructuredQuery has no comparator for a missing or null field")
        case And(parts):
            return join(Operator.AND, [structured(p) for p in parts])
        case Or(parts):
            return join(Operator.OR, [structured(p) for p in parts])
        case Not(part):
            return Operation(operator=Operator.NOT, arguments=[structured(part)])
    raise TypeError(f"unknown expression {expr!r}")


def translated(expr: Expr, store: str) -> Any:
    """``StructuredQuery`` -> the store's filter through langchain-community's translator (may raise)."""
    from langchain_core.structured_query import StructuredQuery

    if store == "chroma":
        from langchain_community.query_constructors.chroma import ChromaTranslator as Translator

        translator: Any = Translator()
    elif store == "pgvector":  # langchain-postgres ships its own (the one SelfQueryRetriever picks for it)
        from langchain_postgres import PGVectorTranslator

        translator = PGVectorTranslator()
    else:
        from langchain_community.query_constructors.qdrant import QdrantTranslator

        translator = QdrantTranslator(metadata_key="metadata")
    _, kwargs = translator.visit_structured_query(StructuredQuery(query="", filter=structured(expr)))
    return kwargs["filter"]


# -- LlamaIndex MetadataFilters ---------------------------------------------------------


def metadata_filters(expr: Expr) -> Any:
    from llama_index.core.vector_stores.types import FilterCondition, MetadataFilters

    found = _li(expr)
    return found if isinstance(found, MetadataFilters) else MetadataFilters(filters=[found],
                                                                            condition=FilterCondition.AND)


def _li(expr: Expr) -> Any:
    from llama_index.core.vector_stores.types import FilterCondition, FilterOperator, MetadataFilter, MetadataFilters

    operators = {"eq": FilterOperator.EQ, "in": FilterOperator.IN, "contains": FilterOperator.CONTAINS,
                 "contains_any": FilterOperator.ANY, "lte": FilterOperator.LTE, "gt": FilterOperator.GT}
    match expr:
        case Cond("is_empty", key):
            return MetadataFilter(key=key, operator=FilterOperator.IS_EMPTY, value=None)
        case Cond(op, key, value):
            return MetadataFilter(key=key, operator=operators[op], value=_plain(value))
        case And(parts):
            return MetadataFilters(filters=[_li(p) for p in parts], condition=FilterCondition.AND)
        case Or(parts):
            return MetadataFilters(filters=[_li(p) for p in parts], condition=FilterCondition.OR)
        case Not(part):
            return MetadataFilters(filters=[_li(part)], condition=FilterCondition.NOT)
    raise TypeError(f"unknown expression {expr!r}")


# -- Haystack filters ----------------------------------------------------------------------

HAYSTACK_OPERATORS = {"eq": "==", "in": "in", "lte": "<=", "gt": ">"}


def haystack_filters(expr: Expr) -> dict[str, Any]:
    match expr:
        case Cond("contains" | "contains_any"):
            raise Unsupported("Haystack's filters compare a field with a value or list; none looks inside a list")
        case Cond("is_empty", key):
            return {"field": f"meta.{key}", "operator": "==", "value": None}
        case Cond(op, key, value) if op in HAYSTACK_OPERATORS:
            return {"field": f"meta.{key}", "operator": HAYSTACK_OPERATORS[op], "value": _plain(value)}
        case And(parts) | Or(parts):
            return {"operator": "AND" if isinstance(expr, And) else "OR",
                    "conditions": [haystack_filters(p) for p in parts]}
        case Not(And(parts)):  # Haystack defines NOT over its conditions as "not all": an application writes it so
            return {"operator": "NOT", "conditions": [haystack_filters(p) for p in parts]}
        case Not(part):
            return {"operator": "NOT", "conditions": [haystack_filters(part)]}
    raise TypeError(f"unknown expression {expr!r}")

