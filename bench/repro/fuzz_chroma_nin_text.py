"""filterproof fuzz finding (partition and reference oracles): on chromadb 0.4.13 a ``$nin`` of text selects every
document that has the key, whatever its value, so ``t $nin ["good"]`` and ``t $in ["good"]`` share a document.

Found by `filterproof fuzz` on the chroma target in the chromadb 0.4.13 venv within 10 s on every seed tried
(signatures ``chroma partition nin<str> [str]``, ``chroma partition in<str> [str]`` (NOT in is rendered as $nin),
``chroma reference nin<str> [str]``, ``chroma reference not(in<str>) [str]``), shrunk to one document.

Versions: chromadb 0.4.13 (and 0.4.14). Fixed in 0.4.15; chromadb 1.5.9 answers correctly.
Expected: ``{"feeling": {"$nin": ["good"]}}`` selects "bad" and "meh".
Got: it selects all three: the SQLite query for a list of text compares a column ``str_value`` that does not exist,
which SQLite reads as the string literal 'str_value' (``'str_value' NOT IN ('good')`` is true on every row).
Integers, floats and bools are not affected.
Tracker: chroma-core/chroma#1424 and #1252 (closed; fixed by #1264, released in 0.4.15).
Exit status 1: the bug reproduces; 0: the answers are right.
"""
import logging
import sys

import chromadb
from chromadb.config import Settings

logging.getLogger("chromadb.telemetry").setLevel(logging.CRITICAL)
client = chromadb.EphemeralClient(Settings(anonymized_telemetry=False))
collection = client.create_collection("nin-text")
collection.add(ids=["good", "bad", "meh"], embeddings=[[1.0, 0.1], [1.0, 0.2], [1.0, 0.3]],
               metadatas=[{"feeling": "good"}, {"feeling": "bad"}, {"feeling": "meh"}])
where_nin, where_in = {"feeling": {"$nin": ["good"]}}, {"feeling": {"$in": ["good"]}}
nin = set(collection.get(where=where_nin)["ids"])
searched = set(collection.query(query_embeddings=[[1.0, 0.0]], n_results=3, where=where_nin)["ids"][0])
within = set(collection.get(where=where_in)["ids"])
print(f"chromadb {chromadb.__version__}: $nin ['good'] get {sorted(nin)}, query {sorted(searched)}; "
      f"$in ['good'] {sorted(within)}; expected $nin ['bad', 'meh']")
sys.exit(0 if nin == searched == {"bad", "meh"} and within == {"good"} else 1)
