"""filterproof fuzz finding: partition on chroma.

P and NOT P must not share a document (where NOT is the complement, they must cover all; where the language says 'P is unknown', P, NOT P and P-unknown must partition the documents).
Filter: s in ['K\u2060iösk-straße-ﬁn']
Versions: chromadb 0.4.13
Found by `filterproof fuzz --seed 1` (case 9), shrunk from 8 documents and 1 filter nodes.
Exit status 1: the relation is violated (the bug reproduces); 0: it holds.
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import logging
import sys

import chromadb
from chromadb.config import Settings

DOCS = {'d0': {'s': 'K\u2060iösk-straße-ﬁn'}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = set()


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
    'P': ask_chroma({'s': {'$in': ['K\u2060iösk-straße-ﬁn']}}, 'search', False),
    'NOT P': ask_chroma({'s': {'$nin': ['K\u2060iösk-straße-ﬁn']}}, 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = not (answers['P'] & answers['NOT P'])
print('holds' if holds else 'VIOLATED: partition')
sys.exit(0 if holds else 1)
