"""qdrant-haystack: `NOT` over several conditions is translated as "none of them", where Haystack defines "not all".

Standalone (haystack-ai and qdrant-haystack alone; Qdrant's local mode in memory). Seen with haystack-ai 3.4.1 and
qdrant-haystack 13.1.0: `{"operator": "NOT", "conditions": [A, B]}` becomes `Filter(must_not=[A, B])`, which
excludes every point matching A or B; Haystack's documentation and its InMemoryDocumentStore read NOT as the
negation of the conditions' AND. A document matching A alone is selected by Haystack's rule and not by Qdrant's.

Exit status 1: the bug reproduces (the two stores select different documents); 0: both agree.
"""
import os
import sys

os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"

from haystack import Document
from haystack.document_stores.in_memory import InMemoryDocumentStore
from haystack_integrations.document_stores.qdrant import QdrantDocumentStore

docs = [Document(id=i, content=i, embedding=[1.0, float(n)], meta=meta) for n, (i, meta) in enumerate([
    ("acme-eng", {"tenant": "acme", "group": "eng"}), ("acme-ops", {"tenant": "acme", "group": "ops"}),
    ("beta-ops", {"tenant": "beta", "group": "ops"})])]
memory = InMemoryDocumentStore()
qdrant = QdrantDocumentStore(location=":memory:", embedding_dim=2, recreate_index=True, progress_bar=False)
for store in (memory, qdrant):
    store.write_documents(docs)
not_both = {"operator": "NOT", "conditions": [{"field": "meta.tenant", "operator": "==", "value": "acme"},
                                              {"field": "meta.group", "operator": "==", "value": "eng"}]}
want = sorted(d.id for d in memory.filter_documents(not_both))
got = sorted(d.id for d in qdrant.filter_documents(not_both))
print(f"NOT (tenant acme AND group eng): in-memory store {want}, qdrant-haystack {got}")
if got != want:
    print("VIOLATED: NOT [A, B] is read as neither A nor B")
    sys.exit(1)
sys.exit(0)
