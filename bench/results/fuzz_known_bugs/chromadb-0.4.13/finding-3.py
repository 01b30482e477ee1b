"""filterproof fuzz finding: reference on chroma.

On documents where every condition has the meaning engines share, the answer must be the neutral evaluator's.
Filter: NOT t in ['a']
Versions: chromadb 0.4.13
Found by `filterproof fuzz --seed 1` (case 46), shrunk from 8 documents and 2 filter nodes.
Exit status 1: the relation is violated (the bug reproduces); 0: it holds.
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import logging
import sys

import chromadb
from chromadb.config import Settings

DOCS = {'d2': {'t': 'a'}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = {'d2'}


logging.getLogger("chromadb.telemetry").setLevel(logging.CRITICAL)  # chromadb 0.4 logs its disabled telemetry
client = chromadb.EphemeralClient(Settings(anonymized_telemetry=False))
collection = client.create_collection("filterproof-fuzz")
chroma_ids = list(DOCS)
if chroma_ids:
    collection.add(ids=chroma_ids, embeddings=[[1.0, 0.01 * (i + 1)] for i in range(len(chroma_ids))],
                   metadatas=[dict(DOCS[d]) or None for d in chroma_ids])


def ask_chroma(native, via, indexed):
    if via == "get":
        return set(collection.get(where=native)["ids"])
    found = collection.query(query_embeddings=[[1.0, 0.0]], n_results=max(len(chroma_ids), 1), where=native)
    return set(found["ids"][0])


answers = {
    'P': ask_chroma({'t': {'$nin': ['a']}}, 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = answers['P'] & DEFINED == EXPECTED
print('holds' if holds else 'VIOLATED: reference')
sys.exit(0 if holds else 1)
