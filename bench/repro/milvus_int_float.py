"""Milvus Lite: comparing an INT64 field with a float fails the whole query once any row holds a value past 2^53.

Standalone (pymilvus and milvus-lite only). Two rows, ``r = 1`` and ``r = 2^53 + 1``.
``r == 1.0`` and ``r < 1.5`` raise "Integer value 9007199254740993 not in range" (the
column is cast to float64 to compare it with the literal), while ``r in [1.0]`` and
``r == 1`` match the first row; deleting the large row makes ``r == 1.0`` work again.
So whether a query runs depends on what other rows hold. filterproof's ``milvus`` backend
compares integers only with integers (dates as YYYYMMDD; revisions inside text keys).

    python bench/repro/milvus_int_float.py
"""

from __future__ import annotations

import logging
import os
import tempfile
from importlib.metadata import version

from pymilvus import DataType, MilvusClient

logging.getLogger("pymilvus").setLevel(logging.CRITICAL)


def ask(client: MilvusClient, expression: str) -> str:
    try:
        found = client.search("numbers", [[1.0, 1.0]], limit=5, filter=expression)[0]
        return str(sorted(hit["id"] for hit in found))
    except Exception as error:
        return f"raises: {str(error).splitlines()[0][:110]}"


def main() -> None:
    print(f"pymilvus {version('pymilvus')}, milvus-lite {version('milvus-lite')}")
    client = MilvusClient(os.path.join(tempfile.mkdtemp(), "numbers.db"))
    schema = client.create_schema(auto_id=False)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=10)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=2)
    schema.add_field("r", DataType.INT64)
    index = client.prepare_index_params()
    index.add_index("vector", index_type="FLAT", metric_type="COSINE")
    client.create_collection("numbers", schema=schema, index_params=index)
    client.insert("numbers", [{"id": "one", "vector": [1.0, 0.0], "r": 1},
                              {"id": "big", "vector": [0.0, 1.0], "r": 2**53 + 1}])
    for expression in ("r == 1.0", "r < 1.5", "r in [1.0]", "r == 1", f"r == {2**53 + 1}"):
        print(f"{expression:<24} {ask(client, expression)}")
    client.delete("numbers", filter='id == "big"')
    print(f"{'r == 1.0 (big deleted)':<24} {ask(client, 'r == 1.0')}")
    client.close()


if __name__ == "__main__":
    main()
