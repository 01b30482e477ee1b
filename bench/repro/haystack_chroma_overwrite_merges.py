"""chroma-haystack: `write_documents(policy=OVERWRITE)` merges the new metadata into the old: a removed key survives.

Standalone (haystack-ai and chroma-haystack alone; Chroma in memory). Seen with haystack-ai 3.4.1 and
chroma-haystack 5.0.0: the store upserts through Chroma, which updates the keys it is given and keeps the others,
so a document written again without a key still has it. A grant kept as a key (`g_eng: true`) and revoked by
writing the document again without it still admits the document; Haystack's InMemoryDocumentStore replaces it.

Exit status 1: the bug reproduces (the removed key is still there and still filtered on); 0: replaced.
"""
import os
import sys

os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"

from haystack import Document
from haystack.document_stores.in_memory import InMemoryDocumentStore
from haystack.document_stores.types import DuplicatePolicy
from haystack_integrations.document_stores.chroma import ChromaDocumentStore

granted = Document(id="a", content="a", embedding=[1.0, 0.0], meta={"tenant": "acme", "g_eng": True})
revoked = Document(id="a", content="a", embedding=[1.0, 0.0], meta={"tenant": "acme"})
grant = {"field": "meta.g_eng", "operator": "==", "value": True}
found = {}
for name, store in (("in-memory store", InMemoryDocumentStore()), ("chroma-haystack", ChromaDocumentStore())):
    store.write_documents([granted])
    store.write_documents([revoked], policy=DuplicatePolicy.OVERWRITE)
    found[name] = [d.id for d in store.filter_documents(grant)]
    print(f"{name}: metadata after OVERWRITE {store.filter_documents()[0].meta}; g_eng == true selects {found[name]}")
if found["chroma-haystack"] != found["in-memory store"]:
    print("VIOLATED: OVERWRITE merged the metadata; the revoked grant still admits the document")
    sys.exit(1)
sys.exit(0)
