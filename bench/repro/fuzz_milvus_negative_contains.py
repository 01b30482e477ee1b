"""Milvus Lite refuses a negative number as ``ARRAY_CONTAINS``'s value: ``ARRAY_CONTAINS(nums, -1)`` is a parse error.

Standalone (pymilvus and milvus-lite only). Found by ``filterproof fuzz`` (target ``milvus``: every oracle, as an
engine error). Seen with pymilvus 2.6.17, milvus-lite 3.2.2 (the versions are printed).

Milvus documents ``ARRAY_CONTAINS(field, value)`` for any element value, and a Milvus server parses ``-1`` there.
Milvus Lite's parser (``milvus_lite/search/filter/parser.py``, ``_parse_array_contains``) reads the value with
``parse_primary``, which takes no unary minus: "unexpected token '-' ... expected literal, identifier, or '('".
``-1`` is read everywhere else (``n == -1``, ``n in [-1]``, ``ARRAY_CONTAINS_ANY(nums, [-1])``), and
``ARRAY_CONTAINS(nums, (-1))`` works. Expected: ``ARRAY_CONTAINS(nums, -1)`` selects ``neg``.
Exit status 1: the defect reproduces.

    python bench/repro/fuzz_milvus_negative_contains.py
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from importlib.metadata import version

from pymilvus import DataType, MilvusClient

logging.getLogger("pymilvus").setLevel(logging.CRITICAL)
EXPRESSIONS = ("ARRAY_CONTAINS(nums, -1)", "ARRAY_CONTAINS(nums, (-1))", "ARRAY_CONTAINS_ANY(nums, [-1])",
               "n == -1", "n in [-1]")


def main() -> int:
    print(f"pymilvus {version('pymilvus')}, milvus-lite {version('milvus-lite')}")
    client = MilvusClient(os.path.join(tempfile.mkdtemp(), "negative.db"))
    schema = client.create_schema(auto_id=False)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=10)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=2)
    schema.add_field("n", DataType.INT64)
    schema.add_field("nums", DataType.ARRAY, element_type=DataType.INT64, max_capacity=4)
    index = client.prepare_index_params()
    index.add_index("vector", index_type="FLAT", metric_type="COSINE")
    client.create_collection("numbers", schema=schema, index_params=index)
    client.insert("numbers", [{"id": "neg", "vector": [1.0, 0.0], "n": -1, "nums": [-1, 3]},
                              {"id": "pos", "vector": [0.0, 1.0], "n": 3, "nums": [3]}])
    refused = False
    for expression in EXPRESSIONS:
        try:
            found = str(sorted(row["id"] for row in client.query("numbers", filter=expression, output_fields=["id"])))
        except Exception as error:
            found, refused = f"raises: {' '.join(str(error).split())[:100]}", refused or expression.endswith(", -1)")
        print(f"{expression:<34} {found}")
    client.close()
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
