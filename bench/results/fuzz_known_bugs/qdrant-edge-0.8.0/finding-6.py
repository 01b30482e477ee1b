"""filterproof fuzz finding: index on qdrant-edge.

Building payload indexes must not change what a filter selects.
Filter: n lte 9007199254740993
Versions: qdrant-edge-py 0.8.0
Found by `filterproof fuzz --seed 1` (case 139), shrunk from 8 documents and 1 filter nodes.
Exit status 1: the relation is violated (the bug reproduces); 0: it holds.
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import os
import sys
import tempfile

import qdrant_edge as qe

DOCS = {'d7': {'n': 9007199254740993}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = set()


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
    'P': ask_edge(qe.Filter(must=[qe.FieldCondition('n', range=qe.RangeFloat(lte=9007199254740993))]), 'search', False),
    'P indexed': ask_edge(qe.Filter(must=[qe.FieldCondition('n', range=qe.RangeFloat(lte=9007199254740993))]), 'search', True),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = answers['P'] == answers['P indexed']
print('holds' if holds else 'VIOLATED: index')
sys.exit(0 if holds else 1)
