"""filterproof fuzz finding: spelling on qdrant-local.

Two spellings of one filter that the engine documents (or SQL defines) as the same must select the same documents.
Filter: x is null
Versions: qdrant-client 1.19.0
Found by `filterproof fuzz --seed 1` (case 9), shrunk from 8 documents and 7 filter nodes.
Exit status 1: the relation is violated (the bug reproduces); 0: it holds.
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import sys

from qdrant_client import QdrantClient, models

DOCS = {'d0': {'x': None}}
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


answers = {
    'P': ask_local(models.Filter(must=[models.IsNullCondition(is_null=models.PayloadField(key='x'))]), 'search', False),
    'P spelled 1': ask_local(models.Filter(must=[models.FieldCondition(key='x', is_null=True)]), 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = answers['P'] == answers['P spelled 1']
print('holds' if holds else 'VIOLATED: spelling')
sys.exit(0 if holds else 1)
