"""Chroma alone (no filterproof): a dropped collection's list values reappear on the next collection's records.

    python bench/repro/chroma_dropped_list_values.py        # exit 1 while the leak is there, 0 once it is fixed

chromadb 1.5.9's ``delete_collection`` deletes a record's scalar metadata but not its list values (SQLite table
``embedding_metadata_array``), which are keyed by the record's row id; the next collection's first records reuse
those row ids, so each carries the dropped record's list values under every key it does not write itself: a
``$contains`` filter on a group list then admits a document into a group it was never given, in another collection.
Reported upstream as chroma-core/chroma#7594 (open; fixes proposed in #7595, #7635, #7707). Found by
``filterproof fuzz`` when two fuzz targets ran in one process. Deleting the records before the collection avoids it.
"""

from __future__ import annotations

import sys

import chromadb
from chromadb.config import Settings

client = chromadb.EphemeralClient(Settings(anonymized_telemetry=False))
dropped = client.create_collection("tenant-a")
dropped.add(ids=["a-1"], embeddings=[[1.0, 0.0]], metadatas=[{"tenant": "a", "groups": ["a-admins"]}])
client.delete_collection("tenant-a")

fresh = client.create_collection("tenant-b")  # another name: the leak crosses collections
fresh.add(ids=["b-1"], embeddings=[[1.0, 0.0]], metadatas=[{"tenant": "b"}])
admitted = fresh.get(where={"groups": {"$contains": "a-admins"}}, include=["metadatas"])
print(f"chromadb {chromadb.__version__}: tenant-b's record b-1, written as {{'tenant': 'b'}}, reads back as",
      fresh.get(ids=["b-1"], include=["metadatas"])["metadatas"][0])
print(f"groups $contains 'a-admins' in tenant-b admits {admitted['ids']}")
sys.exit(1 if admitted["ids"] else 0)
