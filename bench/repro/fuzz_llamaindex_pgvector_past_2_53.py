"""llama-index-vector-stores-postgres: integers compared as doubles.

Standalone (llama-index-core, llama-index-vector-stores-postgres and a PostgreSQL server with pgvector at
$PGVECTOR_URL, a SQLAlchemy URL with the psycopg2 driver). Found by ``filterproof fuzz --seed 3`` (target
``llamaindex-pgvector``, case 1313, the ``reference`` oracle), shrunk from 8 documents. Seen with
llama-index-core 0.14.25, llama-index-vector-stores-postgres 0.9.0, SQLAlchemy 2.0.58, psycopg2 2.9.13,
PostgreSQL 18.3.

EQ/NE and the ranges on an integer are written ``(metadata_->>'n')::float = 9007199254740992.0``: past 2^53 two
integers are one double, so ``n == 9007199254740992`` selects ``n = 9007199254740993`` (and NE drops it).

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

DOCS = {'d0': {'n': 9007199254740993}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = {'d0'}


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
    'P': ask_llamaindex_pgvector(li.MetadataFilters(filters=[li.MetadataFilter(key='n', operator=li.FilterOperator.EQ, value=9007199254740992)], condition=li.FilterCondition.AND), 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = answers['P'] & DEFINED == EXPECTED
print('holds' if holds else 'VIOLATED: reference')
sys.exit(0 if holds else 1)
