"""milvus-haystack: a filter's string value and a deleted id are pasted into Milvus's expression as they are.

Standalone (haystack-ai, milvus-haystack, pymilvus and milvus-lite; Milvus Lite in a temporary directory). Seen with
milvus-haystack 0.0.18, pymilvus 2.6.17, milvus-lite 3.2.2: the filter converter writes a string between double
quotes without escaping it (`(tenant == "<value>")`), and `delete_documents` writes `id in ['<id>', ...]` without
escaping either. So a tenant named `nobody" or tenant != "` reads every tenant's documents (the filter becomes
`tenant == "nobody" or tenant != ""`), and deleting the one document `x','a` deletes the document `a` too. A value
or id holding a lone quote fails the query instead. Haystack's InMemoryDocumentStore compares the value as a value.

(pymilvus >= 2.6.10 no longer registers the ORM alias the store opens its collection under: the script registers
it first, as an application must, or the store fails at creation.)

Exit status 1: the bug reproduces (another tenant read, or another document deleted); 0: values kept as values.
"""
import logging
import os
import sys
import tempfile
import warnings

os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"

from haystack import Document
from haystack.document_stores.in_memory import InMemoryDocumentStore
from milvus_haystack import MilvusDocumentStore, MilvusEmbeddingRetriever
from pymilvus import MilvusClient, connections

logging.disable(logging.CRITICAL)
warnings.simplefilter("ignore")  # pymilvus's ORM deprecation, Haystack's Document mutation: the integration's own

uri = os.path.join(tempfile.mkdtemp(), "quotes.db")
client = MilvusClient(uri=uri)
connections.connect(alias=client._using, uri=uri)
milvus = MilvusDocumentStore(connection_args={"uri": uri}, collection_name="quotes", consistency_level="Strong",
                             index_params={"index_type": "FLAT", "metric_type": "COSINE", "params": {}},
                             search_params={"metric_type": "COSINE", "params": {}}, drop_old=True)
documents = [Document(id="a", content="a", embedding=[1.0, 0.0], meta={"tenant": "acme"}),
             Document(id="x", content="x", embedding=[0.9, 0.1], meta={"tenant": "globex"})]
memory = InMemoryDocumentStore()
violated = False
for name, store in (("in-memory store", memory), ("milvus-haystack", milvus)):
    store.write_documents(documents)
    hostile = {"field": "meta.tenant", "operator": "==", "value": 'nobody" or tenant != "'}
    if name == "milvus-haystack":
        found = MilvusEmbeddingRetriever(document_store=store).run(query_embedding=[1.0, 0.0], filters=hostile,
                                                                   top_k=10)["documents"]
    else:
        found = store.filter_documents(hostile)
    read = sorted(d.id for d in found)
    store.delete_documents(["x','a"])
    left = sorted(d.id for d in store.filter_documents())
    print(f"{name}: tenant == 'nobody\" or tenant != \"' reads {read}; after deleting the id \"x','a\": {left}")
    violated = violated or (name == "milvus-haystack" and (read != [] or left != ["a", "x"]))
if violated:
    print("VIOLATED: milvus-haystack pasted the value and the id into the expression unescaped")
    sys.exit(1)
sys.exit(0)
