"""LangChain's filter dicts through langchain-postgres's ``PGVector`` (JSONB ``cmetadata``): what an application
built on LangChain hands its PostgreSQL vector store, translated into SQL by the integration's own code.

The neutral filter is rendered as the ``$``-operator dict a LangChain user writes; ``PGVector`` turns it into
SQL, so a finding here is the integration's translation (the ``pgvector-jsonb`` target fuzzes SQL over JSONB
directly). What the translation does, read from langchain-postgres 0.0.19 and written down once:

* ``$eq $ne $lt $lte $gt $gte`` are SQL/JSON path predicates, ``jsonb_path_match(cmetadata, '$.k == $value')``:
  in lax mode a list is unwrapped (``$.tags == "a"`` holds when an element is ``"a"``), a missing key is
  FALSE (no item), and values of two JSON types are not comparable (unknown: SQL NULL); strings compare by
  code point, so an ISO date is compared as its string;
* ``$in``/``$nin`` compare the field's *text*, ``cmetadata->>'k' IN ('7', ...)`` (the values ``str()``-ed,
  booleans refused); a missing key is NULL;
* ``$exists`` is ``jsonb_exists`` (present, null or not); ``$and``/``$or`` of an empty list raise ValueError;
  ``$not`` of a dict is SQL's NOT; a dict of several fields is their AND; a bare value is ``$eq``.

So the renderer writes contains as ``$eq`` (lax unwrapping), contains_any as an ``$or`` of them, is_null as
``$eq None``, exists as ``$exists`` and not ``$eq None``, and is_empty on a scalar field as not ``$exists``
or ``$eq None`` (no operator tests ``[]``: on a list field it has no form, nor has an empty AND, OR or
contains_any). SQL's NOT is three-valued: ``two_valued = False``.

Spellings (``Target.spellings``): 0, the operators above; 1, the shorthands the integration documents (a bare
value for ``$eq``, as its docstring's ``filter={"bar": "baz"}``; several fields in one dict for their AND);
2, ``$in``/``$nin`` written as the OR of ``$eq`` / the AND of ``$ne`` they abbreviate (SQL defines ``x IN (a,
b)`` as ``x = a OR x = b``). The ``spelling`` oracle holds both to spelling 0.
"""

from __future__ import annotations

from datetime import date
from typing import Any, ClassVar

from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or, Unsupported
from filterproof.fuzz.generate import BY_NAME, Allows
from filterproof.fuzz.target import Docs, Script, Target

Filter = dict[str, Any]
QUERY = [1.0, 0.0]
"""The search vector; document i has ``[1, 0.01 (i + 1)]``: a distinct cosine distance each."""


def langchain_filter(expr: Expr, spelling: int = 0) -> Filter:
    """The filter dict ``PGVector``'s ``filter=`` takes; ``Unsupported`` where it has no faithful form."""
    match expr:
        case Cond():
            return _condition(expr, spelling)
        case And(parts) | Or(parts):
            if not parts:
                raise Unsupported("langchain-pgvector: an empty $and or $or raises ValueError")
            written = [langchain_filter(p, spelling) for p in parts]
            if isinstance(expr, And) and spelling == 1 and (merged := _fields(written)):
                return merged
            return {"$and" if isinstance(expr, And) else "$or": written}
        case Not(part):
            return {"$not": langchain_filter(part, spelling)}
    raise TypeError(f"unknown expression {expr!r}")


def _fields(parts: list[Filter]) -> Filter | None:
    """Several one-field conditions on distinct fields as one dict (their AND), or None."""
    keys = [next(iter(p)) for p in parts]
    if len(parts) < 2 or any(len(p) != 1 or k.startswith("$") for p, k in zip(parts, keys, strict=True)) \
            or len(set(keys)) < len(keys):
        return None
    return {k: v for p in parts for k, v in p.items()}


def _field(key: str, operator: str, value: Any, spelling: int) -> Filter:
    bare = spelling == 1 and operator == "$eq" and not isinstance(value, dict)
    return {key: value if bare else {operator: value}}


def _condition(c: Cond, spelling: int) -> Filter:
    listed = BY_NAME[c.key].kind.endswith("list")
    values = c.value if isinstance(c.value, tuple) else (c.value,)
    match c.op:
        case "eq" | "ne" | "gt" | "gte" | "lt" | "lte":
            value = c.value.isoformat() if isinstance(c.value, date) else c.value
            return _field(c.key, f"${c.op}", value, spelling)
        case "in" | "nin":
            if spelling == 2 and values:
                joined = "$or" if c.op == "in" else "$and"
                parts = [_field(c.key, "$eq" if c.op == "in" else "$ne", v, 0) for v in values]
                return parts[0] if len(parts) == 1 else {joined: parts}
            if any(isinstance(v, bool) for v in values):
                raise Unsupported("langchain-pgvector: $in and $nin refuse a bool (NotImplementedError)")
            return {c.key: {f"${c.op}": list(values)}}
        case "contains":
            return _field(c.key, "$eq", c.value, spelling)
        case "contains_any":
            if not values:
                raise Unsupported("langchain-pgvector: an empty contains_any is an empty $or (ValueError)")
            parts = [_field(c.key, "$eq", v, spelling) for v in values]
            return parts[0] if len(parts) == 1 else {"$or": parts}
        case "is_null":
            return _field(c.key, "$eq", None, spelling)
        case "exists":
            return {"$and": [{c.key: {"$exists": True}}, {"$not": _field(c.key, "$eq", None, spelling)}]}
        case "is_empty":
            if listed:
                raise Unsupported("langchain-pgvector: no operator tests for an empty list")
            absent = {c.key: {"$exists": False}} if spelling == 1 else {"$not": {c.key: {"$exists": True}}}
            return {"$or": [absent, _field(c.key, "$eq", None, spelling)]}
    raise ValueError(f"unknown operator {c.op!r}")


class LangChainPgvector(Target):
    """``PGVector.similarity_search_by_vector(..., filter=...)`` on the pgvector backend's server (or
    ``$PGVECTOR_DSN``), in a database of its own, dropped on close."""

    engine_errors: ClassVar[tuple[type[BaseException], ...]] = (Exception,)  # as every built-in (Target)
    name = "langchain-pgvector"
    packages = ("langchain-postgres", "langchain-core", "sqlalchemy", "psycopg")
    allows = Allows(nul=False)  # JSONB refuses U+0000 in text
    two_valued = False
    vias: ClassVar[tuple[str, ...]] = ("search", "mmr")
    spellings = 3
    equivalent = (1, 2)

    def __init__(self) -> None:
        self.store: Any = None
        self.database: Any = None
        self.ids: list[str] = []

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return repr(langchain_filter(expr, spelling))

    def namespace(self) -> dict[str, Any]:
        """Nothing: the source is a dict literal. langchain_postgres is imported, so ``installed()`` sees it."""
        import langchain_postgres  # noqa: F401

        return {}

    def _open(self) -> None:
        from langchain_postgres import PGVector

        from filterproof.adapters.bridges.langchain_stores import ShimEmbeddings
        from filterproof.adapters.bridges.pgvector import Database, libpq_dsn, sqlalchemy_url

        self.database = Database(libpq_dsn(None))
        # No embedding_length: PGVector keeps its ORM classes per process with the first width it met.
        self.store = PGVector(ShimEmbeddings(lambda text: QUERY), connection=sqlalchemy_url(self.database.dsn,
                                                                                             "psycopg"),
                              collection_name="fuzz", use_jsonb=True)

    def load(self, docs: Docs) -> None:
        if self.store is None:
            self._open()
        if self.ids:
            self.store.delete(ids=self.ids)
        self.ids = list(docs)
        if docs:
            self.store.add_embeddings(texts=self.ids, embeddings=[[1.0, 0.01 * (i + 1)] for i in range(len(docs))],
                                      metadatas=[dict(d) for d in docs.values()], ids=self.ids)

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        if not self.ids:
            return set()
        k, native = len(self.ids), self.native(source)
        if via == "mmr":  # every candidate fetched and kept: the same set as the search, in MMR's order
            found = self.store.max_marginal_relevance_search_by_vector(QUERY, k=k, fetch_k=k, filter=native)
        else:
            found = self.store.similarity_search_by_vector(QUERY, k=k, filter=native)
        return {str(doc.id) for doc in found}

    def versions(self) -> dict[str, str]:
        """The packages, and the server's PostgreSQL and pgvector (once a world was loaded)."""
        found = super().versions()
        return found if self.database is None else {**found, **self.database.versions()}

    def script(self, docs: Docs) -> Script:
        return Script("import atexit\nimport os\nimport uuid\nfrom langchain_core.embeddings import FakeEmbeddings\n"
                      "from langchain_postgres import PGVector", _SETUP, "ask_langchain")

    def close(self) -> None:
        if self.store is not None:
            self.store._engine.dispose()  # its pool holds connections to the database dropped next
            self.store = None
        if self.database is not None:
            self.database.drop()
            self.database = None
        self.ids = []


_SETUP = '''
# PGVector on $PGVECTOR_URL, a SQLAlchemy URL ("postgresql+psycopg://postgres@/postgres?host=/tmp/..."),
# in a collection of its own, deleted at exit.
if not os.environ.get("PGVECTOR_URL"):
    print("set PGVECTOR_URL to a SQLAlchemy URL of a PostgreSQL server with pgvector", file=sys.stderr)
    sys.exit(2)
lc_store = PGVector(FakeEmbeddings(size=2), connection=os.environ["PGVECTOR_URL"],
                    collection_name="repro_" + uuid.uuid4().hex[:12], use_jsonb=True)
atexit.register(lc_store.delete_collection)
lc_ids = list(DOCS)
if lc_ids:
    lc_store.add_embeddings(texts=lc_ids, embeddings=[[1.0, 0.01 * (i + 1)] for i in range(len(lc_ids))],
                            metadatas=[dict(d) for d in DOCS.values()], ids=lc_ids)


def ask_langchain(native, via, indexed):
    if not lc_ids:
        return set()
    if via == "mmr":
        found = lc_store.max_marginal_relevance_search_by_vector([1.0, 0.0], k=len(lc_ids), fetch_k=len(lc_ids),
                                                                 filter=native)
    else:
        found = lc_store.similarity_search_by_vector([1.0, 0.0], k=len(lc_ids), filter=native)
    return {doc.id for doc in found}
'''
