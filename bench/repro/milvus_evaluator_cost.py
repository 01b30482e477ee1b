"""Milvus Lite: what one filtered search costs when the expression holds ARRAY_CONTAINS_ANY and a long ``in`` list.

Standalone (pymilvus, milvus-lite, numpy). 20,000 rows (tenant, a revision key, two
groups), one search per expression, each timed after a warm-up. The policy filter of
a tenant with 11,000 active documents, under ``revision=query``, is the tenant, the
groups and an ``in`` list of those 11,000 keys. Milvus Lite hands an expression that
holds ``ARRAY_CONTAINS_ANY`` to a row-by-row evaluator, so the list is tested per row;
its cost depends on the clause order. filterproof's ``milvus`` backend puts the list
last (``adapters/milvus/expr.py``); ``revision=flag`` replaces it with one flag.

    python bench/repro/milvus_evaluator_cost.py [rows]
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import time
from importlib.metadata import version

import numpy as np
from pymilvus import DataType, MilvusClient

logging.getLogger("pymilvus").setLevel(logging.CRITICAL)


def build(client: MilvusClient, rows: int) -> None:
    schema = client.create_schema(auto_id=False)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=20)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=16)
    schema.add_field("tenant", DataType.VARCHAR, max_length=20)
    schema.add_field("key", DataType.VARCHAR, max_length=40)
    schema.add_field("groups", DataType.ARRAY, element_type=DataType.VARCHAR, max_capacity=8, max_length=20)
    schema.add_field("current", DataType.BOOL)
    index = client.prepare_index_params()
    index.add_index("vector", index_type="FLAT", metric_type="COSINE")
    client.create_collection("docs", schema=schema, index_params=index)
    vectors = np.random.default_rng(7).normal(size=(rows, 16)).astype(np.float32)
    batch = [{"id": f"d{i}", "vector": vectors[i].tolist(), "tenant": "acme" if i % 10 < 6 else "beta",
              "key": f"acme/d{i}#1", "groups": [f"g{i % 7}", f"g{i % 5}"], "current": i % 2 == 0}
             for i in range(rows)]
    for start in range(0, rows, 1000):
        client.insert("docs", batch[start:start + 1000])


def timed(client: MilvusClient, expression: str) -> tuple[float, int]:
    query = [np.ones(16, dtype=np.float32).tolist()]
    client.search("docs", query, limit=10, filter=expression)
    start = time.perf_counter()
    hits = client.search("docs", query, limit=10, filter=expression)[0]
    return time.perf_counter() - start, len(hits)


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    print(f"pymilvus {version('pymilvus')}, milvus-lite {version('milvus-lite')}, {rows:,} rows")
    client = MilvusClient(os.path.join(tempfile.mkdtemp(), "cost.db"))
    build(client, rows)
    keys = "[" + ", ".join(f'"acme/d{i}#1"' for i in range(0, rows, 2)[:11_000]) + "]"
    groups = 'ARRAY_CONTAINS_ANY(groups, ["g1", "g2"])'
    cases = {
        "tenant only": 'tenant == "acme"',
        "tenant and key list (11,000 keys)": f'tenant == "acme" and key in {keys}',
        "tenant and groups": f'tenant == "acme" and {groups}',
        "key list first, then tenant and groups": f'key in {keys} and tenant == "acme" and {groups}',
        "tenant and groups, then key list": f'tenant == "acme" and {groups} and key in {keys}',
        "tenant, groups and a flag (revision=flag)": f'tenant == "acme" and {groups} and current == true',
    }
    for name, expression in cases.items():
        seconds, hits = timed(client, expression)
        print(f"{name:<44} {seconds * 1000:9.1f} ms  ({hits} hits)")
    client.close()


if __name__ == "__main__":
    main()
