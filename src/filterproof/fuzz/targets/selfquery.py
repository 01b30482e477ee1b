"""LangChain's self-query filters (``langchain_core.structured_query``) through ``SelfQueryRetriever``: what an
application that lets a model write its metadata filter hands each store, translated by the translator the
retriever picks for that store (``_get_builtin_translator``).

The retriever asks the model for a query and a filter in LangChain's query language (``and(eq("tenant", "acme"),
gt("n", 3))``), parses it into ``Comparison``/``Operation`` objects (the structured query) and hands those to the
store's translator, which writes the store's native filter. Each translator admits a subset of the comparators
and operators (``allowed_comparators``/``allowed_operators``), and ``SelfQueryRetriever.from_llm`` tells the
model exactly that subset; the renderer writes only what the translator admits, saying the rest as the model
would (NE as NOT EQ where NOT is admitted; IN as an OR of EQ; NOT pushed to the leaves where it is not) and
skipping, with the reason, what none of them can say (null, missing, empty).

Spellings (``Target.spellings``): 0, the structured query built directly, as a developer's code would;
1, the model's answer as text, ``{"query": ..., "filter": "and(...)"}``, parsed by LangChain's own
``StructuredQueryOutputParser`` (its lark grammar), which the retriever runs on every answer. Both must select
the same documents (the ``spelling`` oracle). A model's text writes a string in JSON's double quotes, a number as
JSON does, a bool as ``true``/``false`` and a date as ``"YYYY-MM-DD"`` (the query constructor's prompt asks for
that form; the grammar reads it as the structured query's date, ``{"date": ..., "type": "date"}``), so a range on
a date is that date in spelling 0 too.

A target fixes the store and its translator (``translator``); the search is the retriever's own (``invoke``), with
k = the collection size, by similarity (via ``search``) or by MMR with every candidate fetched (via ``mmr``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from typing import Any, ClassVar

from filterproof.adapters.filterlang import OPS, RANGE_OPS, UNARY_OPS, And, Cond, Expr, Not, Or, Unsupported
from filterproof.fuzz.target import Target
from filterproof.fuzz.targets.metadata_filters import NEGATED

SAYABLE = tuple(o for o in OPS if o not in UNARY_OPS and o not in ("contains", "contains_any"))
"""What the query language says through every translator here (no comparator tests null, missing or empty; only
PGVector's admits ``contain``): a target's ``allows.ops``, so that the generator asks nothing else."""
SQ_IMPORTS = ("from langchain_classic.chains.query_constructor.base import StructuredQueryOutputParser\n"
              "from langchain_classic.retrievers.self_query.base import SelfQueryRetriever\n"
              "from langchain_core import structured_query as sq\nfrom langchain_core.runnables import RunnableLambda")
COMPARATOR = {"eq": "eq", "ne": "ne", "gt": "gt", "gte": "gte", "lt": "lt", "lte": "lte", "in": "in", "nin": "nin",
              "contains": "contain"}
"""The neutral operators with a comparator of that name (LangChain's ``Comparator`` values)."""


@dataclass(frozen=True)
class Node:
    """One node of a structured query: a comparison (``attribute`` set) or an operation over ``arguments``."""

    name: str
    """A ``Comparator`` or ``Operator`` value (``eq``, ``and``...)."""
    attribute: str = ""
    value: Any = None
    arguments: tuple[Node, ...] = ()


def structured(expr: Expr, comparators: frozenset[str], operators: frozenset[str], name: str,
               negated: bool = False) -> Node:
    """``expr`` (``NOT expr`` when ``negated``) in the comparators and operators one translator admits."""
    match expr:
        case Cond():
            return _leaf(expr, comparators, operators, name, negated)
        case And(parts) | Or(parts):
            if not parts:
                raise Unsupported(f"{name}: the query language has no empty and() or or()")
            joined = "and" if isinstance(expr, And) != negated else "or"  # De Morgan under a pushed-down NOT
            children = tuple(structured(p, comparators, operators, name, negated) for p in parts)
            if len(children) == 1:  # the parser reads and(x) as x; so is it written
                return children[0]
            return _operation(joined, children, operators, name)
        case Not(part):
            if "not" in operators:
                inner = structured(part, comparators, operators, name)
                return inner if negated else Node("not", arguments=(inner,))
            return structured(part, comparators, operators, name, not negated)
    raise TypeError(f"unknown expression {expr!r}")


def _operation(op: str, children: tuple[Node, ...], operators: frozenset[str], name: str) -> Node:
    if op not in operators:
        raise Unsupported(f"{name}: the translator admits no {op}()")
    return Node(op, arguments=children)


def _leaf(c: Cond, comparators: frozenset[str], operators: frozenset[str], name: str, negated: bool) -> Node:
    op: str = c.op
    if negated:
        if op not in NEGATED:
            raise Unsupported(f"{name}: no negation of {op} without not()")
        op = NEGATED[op]
    value = {"date": c.value.isoformat(), "type": "date"} if isinstance(c.value, date) else c.value
    if op in ("is_null", "is_empty", "exists"):
        raise Unsupported(f"{name}: the query language has no comparator for null, missing or empty")
    if op in RANGE_OPS and (isinstance(value, bool) or not isinstance(value, int | float | dict)):
        raise Unsupported(f"{name}: a range is on a number or a date (the translators write no text range)")
    if COMPARATOR.get(op) in comparators:
        if isinstance(value, tuple) and len({type(v) for v in value}) > 1:
            raise Unsupported(f"{name}: a list of values of one type (the attribute's)")
        return Node(COMPARATOR[op], c.key, list(value) if isinstance(value, tuple) else value)
    if op == "ne" and "eq" in comparators and "not" in operators:
        return Node("not", arguments=(Node("eq", c.key, value),))
    if op in ("gte", "lte") and op[:2] in comparators and "eq" in comparators and "or" in operators:
        return Node("or", arguments=(Node(op[:2], c.key, value), Node("eq", c.key, value)))  # as a model says it
    if op in ("in", "contains_any") and value:
        one = "eq" if op == "in" else "contain"
        if one in comparators:
            return _either([Node(one, c.key, v) for v in value], operators, name)
    if op == "nin" and value and "in" in comparators and "not" in operators:
        return Node("not", arguments=(_leaf(Cond("in", c.key, c.value), comparators, operators, name, False),))
    if op == "nin" and value and "ne" in comparators:
        parts = tuple(Node("ne", c.key, v) for v in value)
        return parts[0] if len(parts) == 1 else _operation("and", parts, operators, name)
    if op == "nin" and value and "eq" in comparators and "not" in operators:
        return Node("not", arguments=(_either([Node("eq", c.key, v) for v in value], operators, name),))
    raise Unsupported(f"{name}: the translator admits no comparator for {op}{' (empty list)' if value == () else ''}")


def _either(parts: list[Node], operators: frozenset[str], name: str) -> Node:
    return parts[0] if len(parts) == 1 else _operation("or", tuple(parts), operators, name)


def as_objects(node: Node) -> str:
    """The structured query's filter as Python source over ``sq`` (``langchain_core.structured_query``)."""
    if node.arguments:
        return (f"sq.Operation(operator=sq.Operator.{node.name.upper()}, "
                f"arguments=[{', '.join(as_objects(a) for a in node.arguments)}])")
    return f"sq.Comparison(comparator=sq.Comparator.{node.name.upper()}, attribute={node.attribute!r}, " \
           f"value={node.value!r})"


def as_text(node: Node) -> str:
    """The filter in LangChain's query language, as a model writes it."""
    if node.arguments:
        return f"{node.name}({', '.join(as_text(a) for a in node.arguments)})"
    return f"{node.name}({json.dumps(node.attribute)}, {_text_value(node.value)})"


def _text_value(value: Any) -> str:
    if isinstance(value, dict):  # the structured query's date
        return json.dumps(value["date"])
    if isinstance(value, list):
        return f"[{', '.join(_text_value(v) for v in value)}]"
    if (isinstance(value, float) and value != value) or value in (float("inf"), float("-inf")):
        raise Unsupported("the query language has no NaN or infinity")
    return json.dumps(value, ensure_ascii=False)  # true/false, numbers, strings in JSON's quotes and escapes


class SelfQueryTarget(Target):
    """A store behind ``SelfQueryRetriever``; subclasses open the store (``store``) and name its translator."""

    engine_errors: ClassVar[tuple[type[BaseException], ...]] = (Exception,)  # as every built-in (Target)
    translator: ClassVar[str]
    """``module:Class`` of the translator ``_get_builtin_translator`` would pick for this store. The target hands it
    to the retriever itself: with langchain-classic 1.0.8 and langchain-community 0.4.2 the built-in pick raises
    ImportError for every store (``DatabricksVectorSearch`` is gone from ``langchain_community.vectorstores``;
    ``bench/repro/selfquery_builtin_translator.py``), so an application must pass it too."""
    store_module: ClassVar[str]
    """The LangChain integration the store comes from (``installed()`` looks for it)."""
    spellings = 2
    equivalent = (1,)
    vias: ClassVar[tuple[str, ...]] = ("search", "mmr")
    store: Any = None
    ids: list[str]

    def translator_class(self) -> Any:
        import importlib

        module, _, cls = self.translator.partition(":")
        return getattr(importlib.import_module(module), cls)

    def make_translator(self) -> Any:
        """The translator, built as ``_get_builtin_translator`` builds it for this store."""
        return self.translator_class()()

    def grammar(self) -> tuple[frozenset[str], frozenset[str]]:
        translator = self.translator_class()
        return (frozenset(c.value for c in translator.allowed_comparators),
                frozenset(o.value for o in translator.allowed_operators))

    def render(self, expr: Expr, spelling: int = 0) -> str:
        comparators, operators = self.grammar()
        node = structured(expr, comparators, operators, self.name)
        if spelling == 1:
            answer = json.dumps({"query": "q", "filter": as_text(node)}, ensure_ascii=False)
            return f"parser.parse({answer!r})"
        return f"sq.StructuredQuery(query='q', filter={as_objects(node)}, limit=None)"

    def namespace(self) -> dict[str, Any]:
        import importlib

        from langchain_classic.chains.query_constructor.base import StructuredQueryOutputParser
        from langchain_core import structured_query

        importlib.import_module(self.store_module)

        comparators, operators = self.grammar()
        parser = StructuredQueryOutputParser.from_components(
            allowed_comparators=[structured_query.Comparator(c) for c in sorted(comparators)],
            allowed_operators=[structured_query.Operator(o) for o in sorted(operators)])
        return {"sq": structured_query, "parser": parser}

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        if not self.ids:
            return set()
        if via not in self.vias:
            raise ValueError(f"unknown via {via!r}")
        found = retrieve(self.store, self.make_translator(), self.native(source), via, len(self.ids))
        return {str(d.page_content) for d in found}  # each document's text is its id


def retrieve(store: Any, translator: Any, query: Any, via: str, k: int) -> list[Any]:
    """What ``SelfQueryRetriever.invoke`` returns when its model answers ``query`` (a ``StructuredQuery``)."""
    from langchain_classic.retrievers.self_query.base import SelfQueryRetriever
    from langchain_core.runnables import RunnableLambda

    kwargs: dict[str, Any] = {"k": k, "fetch_k": k} if via == "mmr" else {"k": k}
    retriever = SelfQueryRetriever(query_constructor=RunnableLambda(lambda _: query), vectorstore=store,
                                   structured_query_translator=translator,
                                   search_type="mmr" if via == "mmr" else "similarity", search_kwargs=kwargs)
    return list(retriever.invoke("q"))
