r"""milvus-haystack: a string value is pasted between double quotes unescaped, so Milvus reads its escapes.

Standalone (haystack-ai, milvus-haystack, pymilvus and milvus-lite; Milvus Lite in a temporary directory).
Found by ``filterproof fuzz --seed 2`` (target ``haystack-milvus``, case 326, the ``reference`` oracle),
shrunk from 8 documents. Seen with haystack-ai 3.4.1, milvus-haystack 0.0.18, pymilvus 2.6.17, milvus-lite 3.2.2.

milvus-haystack's ``parse_filters`` writes ``{"field": "meta.s", "operator": "==", "value": v}`` as ``(s == "v")``
with nothing escaped (integration finding 14), and a list as Python's ``str()``. Milvus then reads the text as an
expression: here the stored value ``a\'b`` (a backslash, a quote) is asked for and Milvus reads ``\'`` as an escaped
quote, so the filter compares with ``a'b`` and selects nothing. A lone backslash, a double quote or a newline fails
the query ("unterminated string literal", ``tests/data/fuzz/haystack_milvus_pasted_text-2.json``), a list value
Python writes with ``\x``/``\u`` escapes (a no-break space, a zero-width joiner) fails it ("unknown escape
sequence"), and a value written as an expression (``x" or s != "``) widens it to every tenant
(``bench/repro/haystack_milvus_quotes.py``).

Exit status 1 while it reproduces; 0 once the value is compared as a value.

    python bench/repro/fuzz_haystack_milvus_pasted_text.py
"""
import atexit
import logging
import os
import shutil
import sys
import tempfile

DOCS = {'d4': {'s': "a\\'b"}}
ALL = set(DOCS)
EXPECTED = {'d4'}
DEFINED = {'d4'}


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
    'P': ask_haystack_milvus({'field': 'meta.s', 'operator': '==', 'value': "a\\'b"}, 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = answers['P'] & DEFINED == EXPECTED
print('holds' if holds else 'VIOLATED: reference')
sys.exit(0 if holds else 1)
