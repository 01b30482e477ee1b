"""chroma-haystack: a filter on `meta.acl.tenant` compares the key `tenant`: only a field's last dotted segment is kept.

Standalone (haystack-ai and chroma-haystack alone; Chroma in memory). Seen with haystack-ai 3.4.1 and
chroma-haystack 5.0.0: its filter converter removes the `meta.` prefix by keeping what follows the last dot, so
`meta.acl.tenant == "acme"` asks Chroma for `tenant == "acme"`. Haystack reads a dotted field as a path into nested
metadata (InMemoryDocumentStore: `meta["acl"]["tenant"]`), which Chroma cannot store; a document whose flat key
`tenant` happens to say "acme" is selected by a condition on another field. The same cut turns a key holding a dot
(`grp.eng`, a group kept as a key) into another key (`eng`): a document holding `eng` is admitted.

Exit status 1: the bug reproduces (the integration selects what Haystack's own store does not); 0: they agree.
"""
import os
import sys

os.environ["HAYSTACK_TELEMETRY_ENABLED"] = "False"

from haystack import Document
from haystack.document_stores.in_memory import InMemoryDocumentStore
from haystack_integrations.document_stores.chroma import ChromaDocumentStore

documents = [Document(id="flat", content="flat", embedding=[1.0, 0.0], meta={"tenant": "acme", "eng": 1}),
             Document(id="other", content="other", embedding=[0.0, 1.0], meta={"tenant": "globex"})]
asked = {"nested tenant": {"field": "meta.acl.tenant", "operator": "==", "value": "acme"},
         "dotted group key": {"field": "meta.grp.eng", "operator": "==", "value": 1}}
disagree = False
for n, (what, condition) in enumerate(asked.items()):
    found = {}
    # a collection each: Chroma's in-memory clients of one process share their collections
    chroma = ChromaDocumentStore(collection_name=f"dotted-{n}")
    for name, store in (("in-memory store", InMemoryDocumentStore()), ("chroma-haystack", chroma)):
        store.write_documents(documents)
        found[name] = sorted(d.id for d in store.filter_documents(condition))
    print(f"{what}: {condition['field']} == {condition['value']!r} selects {found}")
    disagree = disagree or found["chroma-haystack"] != found["in-memory store"]
if disagree:
    print("VIOLATED: chroma-haystack kept only the last dotted segment of the field and selected another key's match")
    sys.exit(1)
sys.exit(0)
