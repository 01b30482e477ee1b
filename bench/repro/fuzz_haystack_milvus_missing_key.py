"""milvus-haystack: != and NOT leave out a document without the field, which Haystack's filters select.

Standalone (haystack-ai, milvus-haystack, pymilvus and milvus-lite, Haystack's InMemoryDocumentStore beside it; Milvus Lite in a temporary directory).
Found by ``filterproof fuzz --seed 3`` (target ``haystack-milvus`` beside ``haystack-memory``, case 10, the ``differential`` oracle),
shrunk from 8 documents. Seen with haystack-ai 3.4.1, milvus-haystack 0.0.18, pymilvus 2.6.17, milvus-lite 3.2.2.

Haystack reads a missing meta field as None: ``meta.t != "a"`` selects a document without ``t``
(``haystack.utils.filters``, and Haystack's own DocumentStore test suite, ``FilterDocumentsTest.
test_comparison_not_equal``: every document whose ``meta.get("number") != 100``). milvus-haystack hands ``(t !=
"a")`` to Milvus, whose JSON (dynamic) field is three-valued on a missing key: the document is left out, and so is
it under ``not (t == "a")`` and ``not (x > 0.5)``. A policy's "not the blocked tenant" then drops every document
without the field where Haystack's other stores keep it.

Exit status 1 while it reproduces (the two stores answer otherwise); 0 once they agree.

    python bench/repro/fuzz_haystack_milvus_missing_key.py
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import atexit
import logging
import os
import shutil
import sys
import tempfile

DOCS = {'d2': {}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = set()


os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no network: read when haystack is first imported
from haystack import Document  # noqa: E402
from milvus_haystack import MilvusDocumentStore, MilvusEmbeddingRetriever  # noqa: E402
from pymilvus import MilvusClient, connections  # noqa: E402

for logger in ('pymilvus', 'milvus_lite', 'grpc._server', 'milvus_haystack', 'milvus_haystack.document_store'):
    logging.getLogger(logger).setLevel(logging.CRITICAL)
hs_milvus_dir = tempfile.mkdtemp(prefix="hs-milvus-")
atexit.register(shutil.rmtree, hs_milvus_dir, True)  # the Lite file and its directory, removed at exit
hs_milvus_uri = os.path.join(hs_milvus_dir, "fuzz.db")
# pymilvus >= 2.6.10 no longer registers the ORM alias the store opens its collection under: register it first.
hs_milvus_client = MilvusClient(uri=hs_milvus_uri)
connections.connect(alias=hs_milvus_client._using, uri=hs_milvus_uri)
hs_milvus = MilvusDocumentStore(collection_name="fuzz", connection_args={"uri": hs_milvus_uri},
                                consistency_level="Strong", drop_old=True,
                                index_params={"index_type": "FLAT", "metric_type": "COSINE", "params": {}},
                                search_params={"metric_type": "COSINE", "params": {}})
hs_documents = [Document(id=d, content=d, embedding=[1.0, 0.01 * (i + 1)], meta=dict(DOCS[d]))
                for i, d in enumerate(DOCS)]
hs_milvus.write_documents(hs_documents)
hs_milvus_retriever = MilvusEmbeddingRetriever(document_store=hs_milvus)


def ask_haystack_milvus(native, via, indexed):
    if not DOCS:
        return set()
    if via == "count":
        return {f"#{i}" for i in range(hs_milvus.count_documents_by_filter(native))}
    if via == "filter":
        return {d.id for d in hs_milvus.filter_documents(native)}
    found = hs_milvus_retriever.run(query_embedding=[1.0, 0.0], filters=native, top_k=len(DOCS))["documents"]
    return {d.id for d in found}


os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no network: read when haystack is first imported
from haystack import Document  # noqa: E402
from haystack.components.retrievers.in_memory import InMemoryEmbeddingRetriever  # noqa: E402
from haystack.document_stores.in_memory import InMemoryDocumentStore  # noqa: E402

hs_memory = InMemoryDocumentStore()
hs_documents = [Document(id=d, content=d, embedding=[1.0, 0.01 * (i + 1)], meta=dict(DOCS[d]))
                for i, d in enumerate(DOCS)]
hs_memory.write_documents(hs_documents)
hs_memory_retriever = InMemoryEmbeddingRetriever(document_store=hs_memory)


def ask_haystack_memory(native, via, indexed):
    if not DOCS:
        return set()
    if via == "count":
        return {f"#{i}" for i in range(hs_memory.count_documents_by_filter(native))}
    if via == "filter":
        return {d.id for d in hs_memory.filter_documents(native)}
    found = hs_memory_retriever.run(query_embedding=[1.0, 0.0], filters=native, top_k=len(DOCS))["documents"]
    return {d.id for d in found}


answers = {
    'P': ask_haystack_milvus({'field': 'meta.t', 'operator': '!=', 'value': 'a'}, 'search', False),
    'P (other)': ask_haystack_memory({'field': 'meta.t', 'operator': '!=', 'value': 'a'}, 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = answers['P'] == answers['P (other)']
print('holds' if holds else 'VIOLATED: differential')
sys.exit(0 if holds else 1)
