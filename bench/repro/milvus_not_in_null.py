"""Milvus Lite: ``n not in [1]`` matches rows whose ``n`` is null; ``not (n == 1)`` and ``n != 1`` do not.

Standalone (pymilvus and milvus-lite only). A nullable INT64 field, three rows: 1, 2 and
null. Under SQL's three-valued logic (and Milvus's documented rule that a comparison with
null is not true) none of these three should match the null row. filterproof's
``milvus`` backend stores no nulls for this reason: a malformed document holds ``""``,
``0``, ``[]`` and a reason in ``problem``, and every expression starts ``problem == ""``.

    python bench/repro/milvus_not_in_null.py
"""

from __future__ import annotations

import logging
import os
import tempfile
from importlib.metadata import version

from pymilvus import DataType, MilvusClient

logging.getLogger("pymilvus").setLevel(logging.CRITICAL)


def main() -> None:
    print(f"pymilvus {version('pymilvus')}, milvus-lite {version('milvus-lite')}")
    client = MilvusClient(os.path.join(tempfile.mkdtemp(), "nulls.db"))
    schema = client.create_schema(auto_id=False)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=10)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=2)
    schema.add_field("n", DataType.INT64, nullable=True)
    index = client.prepare_index_params()
    index.add_index("vector", index_type="FLAT", metric_type="COSINE")
    client.create_collection("nulls", schema=schema, index_params=index)
    client.insert("nulls", [{"id": "one", "vector": [1.0, 0.0], "n": 1}, {"id": "two", "vector": [0.0, 1.0], "n": 2},
                            {"id": "null", "vector": [1.0, 1.0], "n": None}])
    for expression in ("n not in [1]", "not (n in [1])", "not (n == 1)", "n != 1", "n is null"):
        found = client.search("nulls", [[1.0, 1.0]], limit=5, filter=expression)[0]
        print(f"{expression:<16} {sorted(hit['id'] for hit in found)}")
    client.close()


if __name__ == "__main__":
    main()
