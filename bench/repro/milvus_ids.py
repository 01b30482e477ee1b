"""pymilvus's ``delete(ids=...)`` and ``get(ids=...)`` put text primary keys into an expression unescaped.

Standalone (pymilvus and milvus-lite only). A collection holds "victim" and "it's"; the
client is then asked to delete one id that does not exist, ``nothere', 'victim``.
pymilvus wraps each id in single quotes as it is and sends ``id in ['nothere', 'victim']``,
and Milvus deletes ``victim``. An id holding a single quote makes ``get`` fail. filterproof's ``milvus``
backend therefore never passes ``ids=``: it writes the expression itself with every id
escaped (``adapters/milvus/expr.py``, ``id_filter``).

    python bench/repro/milvus_ids.py
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
    client = MilvusClient(os.path.join(tempfile.mkdtemp(), "ids.db"))
    schema = client.create_schema(auto_id=False)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=100)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=2)
    index = client.prepare_index_params()
    index.add_index("vector", index_type="FLAT", metric_type="COSINE")
    client.create_collection("docs", schema=schema, index_params=index)
    ids = ["victim", "it's", 'say "hi"', "keep"]
    client.insert("docs", [{"id": i, "vector": [1.0, 0.0]} for i in ids])
    for hostile in ('nothere", "victim', "nothere', 'victim"):
        client.upsert("docs", [{"id": "victim", "vector": [1.0, 0.0]}])
        try:
            client.delete("docs", ids=[hostile])
            outcome = "returned"
        except Exception as error:
            outcome = f"raised {type(error).__name__}: {str(error).splitlines()[0][:100]}"
        left = [row["id"] for row in client.query("docs", filter='id == "victim"', output_fields=["id"])]
        print(f"delete(ids=[{hostile!r}]) {outcome}; victim {'kept' if left else 'DELETED'}")
    for odd in ("it's", 'say "hi"'):
        try:
            found = client.get("docs", ids=[odd])
            print(f"get(ids=[{odd!r}]) -> {[row['id'] for row in found]}")
        except Exception as error:
            print(f"get(ids=[{odd!r}]) raised {type(error).__name__}: {str(error).splitlines()[0][:120]}")
    client.close()


if __name__ == "__main__":
    main()
