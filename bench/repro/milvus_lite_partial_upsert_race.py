"""Reproducer: Milvus Lite's partial upsert brings back a row deleted while it ran, or undoes another's.

``upsert(..., partial_update=True)`` reads the stored row, merges the given fields onto it and inserts the result
(``milvus_lite.engine.collection.Collection.upsert``), with no lock over the read and the insert. A delete of the
row that lands between the two is undone: the row comes back whole, its old vector with the new fields. (A row
that is not there is refused, its vector missing: the partial upsert alone never inserts; the race does.) And a
partial upsert of another field of the row between the two is lost: the merge wrote back the field as it was read.
Two clients of one Milvus Lite file, from one barrier, ``ROUNDS`` times each: one deletes the row while the other
updates it; one updates its groups while the other updates its flag. Exit 1 while either reproduces, 0 otherwise.

    python bench/repro/milvus_lite_partial_upsert_race.py
"""

from __future__ import annotations

import contextlib
import logging
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from pymilvus import DataType, MilvusClient, MilvusException

ROUNDS = 100


def collection(client: MilvusClient) -> None:
    schema = client.create_schema(auto_id=False)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=64)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=2)
    schema.add_field("groups", DataType.VARCHAR, max_length=64)
    schema.add_field("current", DataType.BOOL)
    index = client.prepare_index_params()
    index.add_index("vector", index_type="FLAT", metric_type="COSINE")
    client.create_collection("race", schema=schema, index_params=index, consistency_level="Strong")


def at_once(first: Callable[[], object], second: Callable[[], object]) -> None:
    barrier = threading.Barrier(2)

    def run(call: Callable[[], object]) -> None:
        barrier.wait()
        with contextlib.suppress(MilvusException):  # a partial upsert of a row already deleted: refused, rightly
            call()

    threads = [threading.Thread(target=run, args=(call,)) for call in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def main() -> int:
    logging.disable(logging.CRITICAL)  # pymilvus logs the refused partial upserts of an absent row
    sys.setswitchinterval(1e-6)
    path = str(Path(tempfile.mkdtemp(prefix="milvus-race-")) / "race.db")
    one, other = MilvusClient(path), MilvusClient(path)
    collection(one)

    def stored() -> list[dict[str, object]]:
        return list(one.query("race", filter='id == "x"', output_fields=["groups", "current"],
                              consistency_level="Strong"))

    back = lost = 0
    for _ in range(ROUNDS):
        one.upsert("race", [{"id": "x", "vector": [1.0, 0.0], "groups": "engineering", "current": False}])
        at_once(lambda: one.delete("race", filter='id == "x"'),
                lambda: other.upsert("race", [{"id": "x", "groups": "sales"}], partial_update=True))
        back += bool(stored())
        one.upsert("race", [{"id": "x", "vector": [1.0, 0.0], "groups": "engineering", "current": False}])
        at_once(lambda: one.upsert("race", [{"id": "x", "current": True}], partial_update=True),
                lambda: other.upsert("race", [{"id": "x", "groups": "sales"}], partial_update=True))
        row = stored()[0]
        lost += (row["groups"], row["current"]) != ("sales", True)
    print(f"a row deleted while a partial upsert of it ran was there after both returned in {back} of {ROUNDS} "
          f"rounds; one of two partial upserts of two fields of a row was lost in {lost} of {ROUNDS} (either order "
          "of the two leaves no row, and both fields changed)")
    return 1 if back or lost else 0


if __name__ == "__main__":
    sys.exit(main())
