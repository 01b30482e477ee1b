"""llama-index-vector-stores-postgres: one document that is not a number fails every numeric filter on its key.

Standalone (llama-index-core, llama-index-vector-stores-postgres and a PostgreSQL server with pgvector at
$PGVECTOR_URL, a SQLAlchemy URL with the psycopg2 driver). Found by ``filterproof fuzz --seed 3`` (target
``llamaindex-pgvector``, case 19, the ``partition`` oracle), shrunk from 8 documents. Seen with
llama-index-core 0.14.25, llama-index-vector-stores-postgres 0.9.0, SQLAlchemy 2.0.58, psycopg2 2.9.13,
PostgreSQL 18.3.

EQ/NE/GT/GTE/LT/LTE with a value ``float()`` reads (a number, or text such as ``"007"``, ``"1e3"``) are written
``(metadata_->>'n')::float <= 0.0``: the cast runs on every row, so one document whose ``n`` is text, a bool or
a list (here ``'9999-12-31'``) makes the query fail ("invalid input syntax for type double precision") for
every caller, and ``NaN``/``Infinity`` are pasted as the bare words ``nan``/``inf`` ("column does not exist").

Exit status 1: the bug reproduces (a violated relation, or the query fails); 0: it holds.
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import atexit
import os
import sys
import uuid

from llama_index.core.schema import TextNode
from llama_index.core.vector_stores import types as li
from llama_index.vector_stores.postgres import PGVectorStore

DOCS = {'d3': {'n': '9999-12-31'}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = set()


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


answers = {
    'P': ask_llamaindex_pgvector(li.MetadataFilters(filters=[li.MetadataFilter(key='n', operator=li.FilterOperator.LTE, value=0)], condition=li.FilterCondition.AND), 'search', False),
    'NOT P': ask_llamaindex_pgvector(li.MetadataFilters(filters=[li.MetadataFilter(key='n', operator=li.FilterOperator.GT, value=0)], condition=li.FilterCondition.AND), 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = not (answers['P'] & answers['NOT P']) and True
print('holds' if holds else 'VIOLATED: partition')
sys.exit(0 if holds else 1)
