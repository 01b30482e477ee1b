"""Milvus Lite: an INVERTED index on an INT64 field truncates a float it is compared with, so ``n >= 1.5`` selects 1.

Standalone (pymilvus and milvus-lite only). Found while making the ``filterproof fuzz`` target ``milvus`` reach
Lite's scalar index (its ``index`` oracle, an indexed and a plain collection holding the same rows, flags
``n >= 1.5``; random runs ask a float of an integer field rarely). Seen with pymilvus 2.6.17, milvus-lite 3.2.2 (the
versions are printed).

Milvus Lite (3.x) reads a scalar INVERTED index for an expression made of comparisons, ``in``, ``is null``, ``and``
and ``or`` on indexed fields, once the rows are in a sealed segment (after ``flush``, and after the background
worker has built the index: the script waits for it). The index turns the literal into the field's type first
(``milvus_lite/index/scalar/inverted.py``, ``_normalize_value``: ``int(value)`` for an INT64 field), so ``1.5``
becomes ``1``: ``n == 1.5`` and ``n in [1.5]`` select ``n = 1``, ``n >= 1.5`` selects it too, ``n < 1.5`` does not,
and ``n > -0.5`` drops ``n = 0``. The same expressions without the index compare as numbers (or raise,
``milvus_int_float.py``). Expected: both collections give the same answer, the plain one's.
Exit status 1: the defect reproduces.

    python bench/repro/fuzz_milvus_index_float.py
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from importlib.metadata import version

from pymilvus import DataType, MilvusClient

logging.getLogger("pymilvus").setLevel(logging.CRITICAL)
EXPRESSIONS = ("n == 1.5", "n in [1.5]", "n >= 1.5", "n < 1.5", "n > -0.5", "n >= 1")


def wait_for_index(path: str, name: str) -> None:
    """Lite builds a flushed segment's index on a background worker; a query before it is done reads the rows.
    Lite has no public call to wait for it: this drains the in-process server's worker queue."""
    from milvus_lite.server_manager import server_manager_instance

    server_manager_instance._servers[os.path.abspath(path)][1].get_collection(name)._wait_for_bg()


def main() -> int:
    print(f"pymilvus {version('pymilvus')}, milvus-lite {version('milvus-lite')}")
    path = os.path.join(tempfile.mkdtemp(), "index.db")
    client = MilvusClient(path)
    for name in ("plain", "indexed"):
        schema = client.create_schema(auto_id=False)
        schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=10)
        schema.add_field("vector", DataType.FLOAT_VECTOR, dim=2)
        schema.add_field("n", DataType.INT64)
        index = client.prepare_index_params()
        index.add_index("vector", index_type="FLAT", metric_type="COSINE")
        if name == "indexed":
            index.add_index("n", index_type="INVERTED")
        client.create_collection(name, schema=schema, index_params=index)
        client.insert(name, [{"id": f"n={n}", "vector": [1.0, 0.1 * n], "n": n} for n in (0, 1, 2)])
        client.flush(name)  # the scalar index is built on, and read from, a sealed segment
        wait_for_index(path, name)
    differ = False
    for expression in EXPRESSIONS:
        plain, indexed = (sorted(row["id"] for row in client.query(name, filter=expression, output_fields=["id"]))
                          for name in ("plain", "indexed"))
        differ = differ or plain != indexed
        print(f"{expression:<12} plain {plain!s:<24} indexed {indexed}{'   <- differs' if plain != indexed else ''}")
    client.close()
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
