"""qdrant-haystack: a float under ==, !=, in or not in raises a pydantic ValidationError.

Standalone (haystack-ai, qdrant-haystack and qdrant-client only; Qdrant's local mode in memory). Found by
``filterproof fuzz`` (target ``haystack-qdrant``: under every oracle, as an error). Seen with haystack-ai 3.4.1,
qdrant-haystack 13.1.0, qdrant-client 1.20.0.

Haystack's ``==`` is Python's equality on any value, and ``InMemoryDocumentStore`` compares a float; qdrant-haystack
writes every ``==`` (and each value of ``in``, ``!=``, ``not in``) as ``MatchValue(value=v)``, which takes a bool,
an integer or a text: ``meta.n == 0.5`` raises "3 validation errors for MatchValue" where a selection (none, here)
was expected. It fails loudly, so nothing leaks, but a float field cannot be matched. Exit status 1 (a traceback)
while it reproduces.

    python bench/repro/fuzz_haystack_qdrant_float.py
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import os
import sys

DOCS = {'d0': {}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = set()


os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no network: read when haystack is first imported
from haystack import Document  # noqa: E402
from haystack_integrations.components.retrievers.qdrant import QdrantEmbeddingRetriever  # noqa: E402
from haystack_integrations.document_stores.qdrant import QdrantDocumentStore  # noqa: E402

hs_qdrant = QdrantDocumentStore(location=":memory:", index="fuzz", embedding_dim=2, similarity="cosine",
                                recreate_index=True, progress_bar=False)
hs_documents = [Document(id=d, content=d, embedding=[1.0, 0.01 * (i + 1)], meta=dict(DOCS[d]))
                for i, d in enumerate(DOCS)]
hs_qdrant.write_documents(hs_documents)
hs_qdrant_retriever = QdrantEmbeddingRetriever(document_store=hs_qdrant)


def ask_haystack_qdrant(native, via, indexed):
    if not DOCS:
        return set()
    if via == "count":
        return {f"#{i}" for i in range(hs_qdrant.count_documents_by_filter(native))}
    if via == "filter":
        return {d.id for d in hs_qdrant.filter_documents(native)}
    found = hs_qdrant_retriever.run(query_embedding=[1.0, 0.0], filters=native, top_k=len(DOCS))["documents"]
    return {d.id for d in found}


answers = {
    'P': ask_haystack_qdrant({'field': 'meta.n', 'operator': '==', 'value': 0.5}, 'search', False),
    'NOT P': ask_haystack_qdrant({'operator': 'NOT', 'conditions': [{'field': 'meta.n', 'operator': '==', 'value': 0.5}]}, 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = not (answers['P'] & answers['NOT P']) and answers['P'] | answers['NOT P'] == ALL
print('holds' if holds else 'VIOLATED: partition')
sys.exit(0 if holds else 1)
