"""filterproof fuzz finding (reference oracle): Chroma compares an integer metadata value with a non-integral float
bound as if the bound were truncated to an integer.

Found by `filterproof fuzz` on the chroma target (seed 2: ``x lt 0.5`` on ``{"x": 0}`` selects nothing; seed 3:
``x gte 0.5`` and ``x lte -1e-300`` select it), shrunk to one document.

Versions: chromadb 1.5.9 (EphemeralClient; ``get`` and ``query`` alike). chromadb 0.4.13 answers correctly.
Expected: an integer compares with 1.5 as the number it is: 1 < 1.5, not 1 >= 1.5, 1 != 1.5, -1 > -1.5.
Got: the bound acts as ``int(bound)`` (toward zero) against integer-stored values: ``$lt 1.5`` drops v=1,
``$gte 1.5`` and ``$eq 1.5`` select it, ``$in [1.5]`` selects it, ``$gt -1.5`` drops v=-1 (and ``$ne 1.5`` drops
v=1, where 1.x's ``$ne`` selects every record not equal; not checked here, since 0.4's ``$ne`` compares within the
operand's type). Float-stored values (0.5) are compared correctly.
Tracker: chroma-core/chroma#7491 (open; fixes proposed in #7493 and #7548): the sqlite metadata int/float union
subquery casts the float bound with ``f as i64``.
Exit status 1: the bug reproduces; 0: every answer is right.
"""
import logging
import sys

import chromadb
from chromadb.config import Settings

logging.getLogger("chromadb.telemetry").setLevel(logging.CRITICAL)
client = chromadb.EphemeralClient(Settings(anonymized_telemetry=False))
collection = client.create_collection("int-float-bound")
collection.add(ids=["one", "half", "minus_one"], embeddings=[[1.0, 0.1], [1.0, 0.2], [1.0, 0.3]],
               metadatas=[{"v": 1}, {"v": 0.5}, {"v": -1}])

CASES = [  # where, the ids it must select
    ({"v": {"$lt": 1.5}}, {"one", "half", "minus_one"}),
    ({"v": {"$gte": 1.5}}, set()),
    ({"v": {"$eq": 1.5}}, set()),
    ({"v": {"$in": [1.5]}}, set()),
    ({"v": {"$gt": -1.5}}, {"one", "half", "minus_one"}),
    ({"v": {"$lt": 0.5}}, {"minus_one"}),
]
wrong = 0
for where, expected in CASES:
    got = set(collection.get(where=where)["ids"])
    searched = set(collection.query(query_embeddings=[[1.0, 0.0]], n_results=3, where=where)["ids"][0])
    ok = got == expected == searched
    wrong += not ok
    print(f"{'ok   ' if ok else 'WRONG'} {where}: get {sorted(got)}, query {sorted(searched)}, "
          f"expected {sorted(expected)}")
print(f"chromadb {chromadb.__version__}: {wrong} of {len(CASES)} wrong")
sys.exit(1 if wrong else 0)
