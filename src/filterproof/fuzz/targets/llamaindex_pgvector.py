"""LlamaIndex's filter objects (``MetadataFilters``) through llama-index-vector-stores-postgres's ``PGVectorStore``:
what an application built on LlamaIndex hands its PostgreSQL store, turned into SQL by the integration's own
``_build_filter_clause`` over the node's metadata (a ``json`` column, ``metadata_``: the default, ``use_jsonb=False``).

A finding here is the translation (``pgvector-jsonb`` fuzzes SQL over a JSON document directly). What the
integration does, read from llama-index-vector-stores-postgres 0.9.0 and written down once; the operators' meaning is
LlamaIndex's own (``FilterOperator``'s comments: EQ/NE on "string, int, float", the ranges on "int, float", IN/NIN
"string or number", ANY "array of strings", CONTAINS "metadata array contains value (string or number)", IS_EMPTY
"the field is not exist or empty (null or empty array)"):

* each value is pasted into the SQL text, in quotes, unescaped (``metadata_->>'k' = 'v'``);
* EQ NE GT GTE LT LTE: when ``float(value)`` succeeds (a number, or text such as ``"007"`` or ``"NaN"``), the field's
  text is cast, ``(metadata_->>'k')::float = 7.0``; else the texts are compared, ``metadata_->>'k' = 'v'``;
* IN / NIN: ``metadata_->>'k' IN ('v1', 'v2')``, the field's text against each value's ``str()``;
* CONTAINS: ``metadata_::jsonb->'k' @> '["v"]'`` (the value written as a JSON string); ANY:
  ``metadata_::jsonb->'k' ?| array['v1', ...]``; IS_EMPTY: ``metadata_->>'k' IS NULL``;
* the conditions are AND and OR (NOT raises ValueError: negation is pushed to the leaves, EQ/NE, IN/NIN and a range
  and its opposite swapped, De Morgan; a negated CONTAINS, ANY or IS_EMPTY has no form); an empty
  ``MetadataFilters`` is no filter at all (an empty AND or OR: no faithful form).

The renderer writes what the operators' comments admit: no bool value (``MetadataFilter.value`` is strict), no text
range, a date as its ISO text (the field holds that text), contains_any of text as ANY and of numbers as an OR of
CONTAINS, lists of one type; an empty IN or NIN (``IN ()``, an SQL syntax error) has no form. SQL is three-valued:
``two_valued = False``. Vias: ``search`` (k = the collection size) and ``mmr`` (every candidate fetched and kept).
"""

from __future__ import annotations

from typing import Any, ClassVar

from filterproof.adapters.filterlang import Expr
from filterproof.fuzz.generate import Allows
from filterproof.fuzz.target import Docs, Script, Target
from filterproof.fuzz.targets.metadata_filters import DOCUMENTED, LI_IMPORTS, documented_leaf, pushed_down

QUERY = [1.0, 0.0]


_condition = documented_leaf("llamaindex-pgvector", " (IN () is an SQL syntax error)")


def pg_metadata_filters(expr: Expr) -> str:
    """The filter as ``MetadataFilters(...)`` source, negation pushed to the leaves (a lone condition in an AND)."""
    return pushed_down(expr, _condition, "llamaindex-pgvector")


class LlamaIndexPgvector(Target):
    """``PGVectorStore.query(VectorStoreQuery(filters=MetadataFilters(...)))`` on the pgvector backend's server (or
    ``$PGVECTOR_DSN``), in a database of its own, dropped on close."""

    engine_errors: ClassVar[tuple[type[BaseException], ...]] = (Exception,)  # as every built-in (Target)
    name = "llamaindex-pgvector"
    packages = ("llama-index-core", "llama-index-vector-stores-postgres", "sqlalchemy", "psycopg2-binary")
    allows = Allows(nul=False, ops=tuple(DOCUMENTED))  # PostgreSQL text (and a json's ->>) refuses U+0000
    two_valued = False
    vias: ClassVar[tuple[str, ...]] = ("search", "mmr")

    def __init__(self) -> None:
        self.store: Any = None
        self.database: Any = None
        self.ids: list[str] = []

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return pg_metadata_filters(expr)

    def namespace(self) -> dict[str, Any]:
        from llama_index.core.vector_stores import types
        from llama_index.vector_stores.postgres import PGVectorStore  # noqa: F401  # installed() looks for it

        return {"li": types}

    def load(self, docs: Docs) -> None:
        from llama_index.core.schema import TextNode

        if self.store is None:
            import logging

            from llama_index.vector_stores.postgres import PGVectorStore

            from filterproof.adapters.bridges.pgvector import Database, libpq_dsn, sqlalchemy_url

            self.database = Database(libpq_dsn(None))
            self.store = PGVectorStore.from_params(
                connection_string=sqlalchemy_url(self.database.dsn, "psycopg2"),
                async_connection_string=sqlalchemy_url(self.database.dsn, "asyncpg"), table_name="fuzz", embed_dim=2)
            # MMR with fewer matches than k falls back to a plain search, warning each time (the answer is kept).
            logging.getLogger("llama_index.vector_stores.postgres.base").setLevel(logging.ERROR)
        elif self.ids:
            self.store.clear()
        self.ids = list(docs)
        nodes = [TextNode(id_=d, text=d, embedding=[1.0, 0.01 * (i + 1)], metadata=dict(docs[d]))
                 for i, d in enumerate(self.ids)]
        if nodes:
            self.store.add(nodes)

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        from llama_index.core.vector_stores.types import VectorStoreQuery, VectorStoreQueryMode

        if not self.ids:
            return set()
        if via not in self.vias:
            raise ValueError(f"unknown via {via!r}")
        mode = VectorStoreQueryMode.MMR if via == "mmr" else VectorStoreQueryMode.DEFAULT
        query = VectorStoreQuery(query_embedding=QUERY, similarity_top_k=len(self.ids), filters=self.native(source),
                                 mode=mode)
        extra = {"mmr_prefetch_k": len(self.ids)} if via == "mmr" else {}
        return set(self.store.query(query, **extra).ids or [])

    def versions(self) -> dict[str, str]:
        """The packages, and the server's PostgreSQL and pgvector (once a world was loaded)."""
        found = super().versions()
        return found if self.database is None else {**found, **self.database.versions()}

    def script(self, docs: Docs) -> Script:
        return Script(f"{LI_IMPORTS}\nimport atexit\nimport os\nimport sys\nimport uuid\n"
                      "from llama_index.core.schema import TextNode\n"
                      "from llama_index.vector_stores.postgres import PGVectorStore", _SETUP, "ask_llamaindex_pgvector")

    def close(self) -> None:
        if self.store is not None:
            from filterproof.adapters.bridges.pgvector import close_pgvectorstore

            close_pgvectorstore(self.store)
            self.store = None
        if self.database is not None:
            self.database.drop()
            self.database = None
        self.ids = []


_SETUP = '''
# PGVectorStore on $PGVECTOR_URL, a SQLAlchemy URL ("postgresql+psycopg2://postgres@/postgres?host=/tmp/..."),
# in a table of its own (PGVectorStore names it data_<table_name>), emptied at exit.
if not os.environ.get("PGVECTOR_URL"):
    print("set PGVECTOR_URL to a SQLAlchemy URL of a PostgreSQL server with pgvector", file=sys.stderr)
    sys.exit(2)
li_pg_ids = list(DOCS)
li_pg = PGVectorStore.from_params(connection_string=os.environ["PGVECTOR_URL"],
                                  async_connection_string=os.environ["PGVECTOR_URL"].replace("+psycopg2", "+asyncpg"),
                                  table_name="repro_" + uuid.uuid4().hex[:12], embed_dim=2)
atexit.register(li_pg.clear)
if li_pg_ids:
    li_pg.add([TextNode(id_=d, text=d, embedding=[1.0, 0.01 * (i + 1)], metadata=dict(DOCS[d]))
               for i, d in enumerate(li_pg_ids)])


def ask_llamaindex_pgvector(native, via, indexed):
    if not li_pg_ids:
        return set()
    mode = li.VectorStoreQueryMode.MMR if via == "mmr" else li.VectorStoreQueryMode.DEFAULT
    query = li.VectorStoreQuery(query_embedding=[1.0, 0.0], similarity_top_k=len(li_pg_ids), filters=native, mode=mode)
    extra = {"mmr_prefetch_k": len(li_pg_ids)} if via == "mmr" else {}
    return set(li_pg.query(query, **extra).ids or [])
'''
