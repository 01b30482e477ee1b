"""Milvus Lite: ``MilvusClient.close()`` leaves the embedded server running and the file locked for other processes.

Standalone (pymilvus and milvus-lite only). This process opens a Lite file, writes a
row and calls ``close()``, then stays alive (as a long-running writer would); a second
process opens the same file. It fails until this process stops the server with
``milvus_lite.server_manager.server_manager_instance.release_server(path)``; after that
it opens the file (and must ``load_collection`` first: a reopened collection starts
released). filterproof's ``milvus`` backend releases the server in its ``close()``.

    python bench/repro/milvus_close_lock.py
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import tempfile
from importlib.metadata import version

from pymilvus import DataType, MilvusClient

logging.getLogger("pymilvus").setLevel(logging.CRITICAL)
OTHER = """
import logging, sys
logging.disable(logging.CRITICAL)
from pymilvus import MilvusClient
try:
    client = MilvusClient(sys.argv[1])
    client.load_collection("docs")
    print("opened:", [row["id"] for row in client.query("docs", filter='id != ""', output_fields=["id"])])
except Exception as error:
    print("failed:", type(error).__name__, str(error).splitlines()[0][:120])
"""


def other_process(path: str) -> str:
    done = subprocess.run([sys.executable, "-c", OTHER, path], capture_output=True, text=True, timeout=120)
    return (done.stdout.strip() or done.stderr.strip().splitlines()[-1])[:200]


def main() -> None:
    print(f"pymilvus {version('pymilvus')}, milvus-lite {version('milvus-lite')}")
    path = os.path.join(tempfile.mkdtemp(), "locked.db")
    client = MilvusClient(path)
    schema = client.create_schema(auto_id=False)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=10)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=2)
    index = client.prepare_index_params()
    index.add_index("vector", index_type="FLAT", metric_type="COSINE")
    client.create_collection("docs", schema=schema, index_params=index)
    client.insert("docs", [{"id": "a", "vector": [1.0, 0.0]}])
    client.close()
    print("after MilvusClient.close(), another process:", other_process(path))
    from milvus_lite.server_manager import server_manager_instance

    server_manager_instance.release_server(path)
    print("after release_server(path), another process:", other_process(path))


if __name__ == "__main__":
    main()
