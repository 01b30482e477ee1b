"""qdrant-haystack: a filter's `in []` matches every document, even inside an AND.

Standalone (haystack-ai and qdrant-haystack alone; Qdrant's local mode in memory). Seen with haystack-ai 3.4.1 and
qdrant-haystack 13.1.0: `in` is translated to `Filter(should=[one MatchValue per value])`, and a `should` with no
condition matches every point in Qdrant. A policy's groups clause `{"field": "meta.group", "operator": "in",
"value": []}` for a principal with no groups therefore admits every document of the tenant (Haystack's own
InMemoryDocumentStore, the reference of its filter semantics, returns nothing).

Exit status 1: the bug reproduces (Qdrant returns documents the in-memory store does not); 0: both agree.
"""
import os
import sys

os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"  # no network: Haystack's telemetry would try to send

from haystack import Document
from haystack.document_stores.in_memory import InMemoryDocumentStore
from haystack_integrations.document_stores.qdrant import QdrantDocumentStore

docs = [Document(id="a", content="a", embedding=[1.0, 0.0], meta={"tenant": "acme", "group": "eng"}),
        Document(id="b", content="b", embedding=[0.0, 1.0], meta={"tenant": "beta", "group": "ops"})]
memory = InMemoryDocumentStore()
qdrant = QdrantDocumentStore(location=":memory:", embedding_dim=2, recreate_index=True, progress_bar=False)
for store in (memory, qdrant):
    store.write_documents(docs)
no_groups = {"operator": "AND", "conditions": [{"field": "meta.tenant", "operator": "==", "value": "acme"},
                                               {"field": "meta.group", "operator": "in", "value": []}]}
want = sorted(d.id for d in memory.filter_documents(no_groups))
got = sorted(d.id for d in qdrant.filter_documents(no_groups))
print(f"tenant acme AND group in []: in-memory store {want}, qdrant-haystack {got}")
if got != want:
    print("VIOLATED: an empty `in` matches every document")
    sys.exit(1)
sys.exit(0)
