"""milvus-lite through milvus-haystack: `not in` selects a document without the key alone, not inside an OR.

Standalone (haystack-ai, milvus-haystack, pymilvus and milvus-lite; Milvus Lite in a temporary directory).
Found by ``filterproof fuzz --seed 3`` (target ``haystack-milvus``, case 352, the ``conjunct`` oracle), shrunk from
8 documents. Seen with haystack-ai 3.4.1, milvus-haystack 0.0.18, pymilvus 2.6.17, milvus-lite 3.2.2.

The engine's, met through Haystack: on the dynamic field, ``(n not in [-1])`` alone selects the document without
``n`` (as Haystack's ``not in`` does: None is in no list), but ``((n not in [-1]) or (t in ['a']))`` does not, so
``A OR B`` selects less than ``A``. Lite has two evaluators with two rules for a missing key (the same bug through
LlamaIndex: ``fuzz_llamaindex_milvus_missing_not_in.py``; a key of mixed types: ``fuzz_milvus_mixed_json.py``).

Exit status 1 while it reproduces; 0 once the OR selects what its part does.

    python bench/repro/fuzz_haystack_milvus_missing_not_in.py
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import atexit
import logging
import os
import shutil
import sys
import tempfile

DOCS = {'d7': {}}
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


answers = {
    'P': ask_haystack_milvus({'operator': 'OR', 'conditions': [{'field': 'meta.n', 'operator': 'not in', 'value': [-1]}, {'field': 'meta.t', 'operator': 'in', 'value': ['a']}]}, 'search', False),
    'part 0': ask_haystack_milvus({'field': 'meta.n', 'operator': 'not in', 'value': [-1]}, 'search', False),
    'part 1': ask_haystack_milvus({'field': 'meta.t', 'operator': 'in', 'value': ['a']}, 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = answers['P'] >= answers['part 0'] and answers['P'] >= answers['part 1']
print('holds' if holds else 'VIOLATED: conjunct')
sys.exit(0 if holds else 1)
