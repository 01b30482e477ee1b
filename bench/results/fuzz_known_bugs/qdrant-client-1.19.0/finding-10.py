"""filterproof fuzz finding: differential on qdrant-local and qdrant-edge.

Two implementations of the same filter language must select the same documents.
Filter: s is empty
Versions: qdrant-client 1.19.0, qdrant-edge-py 0.9.0
Found by `filterproof fuzz --seed 1` (case 83), shrunk from 8 documents and 1 filter nodes.
Exit status 1: the relation is violated (the bug reproduces); 0: it holds.
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import os
import sys
import tempfile

import qdrant_edge as qe
from qdrant_client import QdrantClient, models

DOCS = {'d2': {}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = set()


INDEXES = {key: kind for key, kind in {'s': 'keyword', 't': 'keyword', 'n': 'integer', 'x': 'float', 'd': 'datetime', 'b': 'bool', 'tags': 'keyword', 'nums': 'integer'}.items()}
client = QdrantClient(":memory:")
ids = list(DOCS)
for name in ("plain", "indexed"):
    client.create_collection(name, vectors_config=models.VectorParams(size=2, distance=models.Distance.COSINE))
    client.upsert(name, [models.PointStruct(id=i, vector=[1.0, 0.01 * (i + 1)], payload=DOCS[d])
                         for i, d in enumerate(ids)])
for key, kind in INDEXES.items():
    client.create_payload_index("indexed", key, kind)


def ask_local(native, via, indexed):
    name = "indexed" if indexed else "plain"
    if via == "count":
        return {f"#{i}" for i in range(client.count(name, count_filter=native, exact=True).count)}
    if via == "scroll":
        found = client.scroll(name, scroll_filter=native, limit=len(ids))[0]
    else:
        found = client.query_points(name, query=[1.0, 0.0], query_filter=native, limit=len(ids)).points
    return {ids[int(p.id)] for p in found}


EDGE_INDEXES = {'s': 'Keyword', 't': 'Keyword', 'n': 'Integer', 'x': 'Float', 'd': 'Datetime', 'b': 'Bool', 'tags': 'Keyword', 'nums': 'Integer'}
DIMS = {"plain": 2, "indexed": 2, "optimized": 256}  # optimized: one vector passes the 1 KB threshold
edge_dir = tempfile.mkdtemp(prefix="edge-")
edge_ids = list(DOCS)
shards = {}
for name, dim in DIMS.items():
    os.makedirs(f"{edge_dir}/{name}")
    optimizers = qe.EdgeOptimizersConfig(indexing_threshold=1) if name == "optimized" else None
    config = qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine), optimizers=optimizers)
    shard = shards[name] = qe.EdgeShard.create(f"{edge_dir}/{name}", config)
    if name != "plain":
        for key, kind in EDGE_INDEXES.items():
            shard.update(qe.UpdateOperation.create_field_index(key, getattr(qe.PayloadSchemaType, kind)))
    shard.update(qe.UpdateOperation.upsert_points(
        [qe.Point(i, [1.0, 0.01 * (i + 1)] + [0.0] * (dim - 2), DOCS[d]) for i, d in enumerate(edge_ids)]))
shards["optimized"].optimize()  # the world built into a segment of its own: HNSW, immutable payload indexes


def ask_edge(native, via, indexed, optimized=None):
    name = "optimized" if optimized else "indexed" if indexed or optimized is False else "plain"
    shard, query = shards[name], [1.0, 0.0] + [0.0] * (DIMS[name] - 2)
    if via == "count":
        return {f"#{i}" for i in range(shard.count(qe.CountRequest(exact=True, filter=native)))}
    if via == "scroll":
        found = shard.scroll(qe.ScrollRequest(limit=len(edge_ids), filter=native))[0]
    else:
        found = shard.query(qe.QueryRequest(limit=len(edge_ids), query=qe.Query.Nearest(query), filter=native))
    return {edge_ids[int(p.id)] for p in found}


answers = {
    'P': ask_local(models.Filter(must=[models.FieldCondition(key='s', is_empty=True)]), 'search', False),
    'P (other)': ask_edge(qe.Filter(must=[qe.FieldCondition('s', is_empty=True)]), 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = answers['P'] == answers['P (other)']
print('holds' if holds else 'VIOLATED: differential')
sys.exit(0 if holds else 1)
