"""Milvus Lite on a JSON (dynamic) field: one value of another type in a key the filter names turns a null key's
``not in`` from selected to not selected.

Standalone (pymilvus and milvus-lite only). Found by ``filterproof fuzz`` (target ``selfquery-milvus``, the
``conjunct`` oracle: ``A OR B`` selected less than ``B``), through ``MilvusTranslator``, whose ``nin`` is
``not(( t in [...] ))``; the engine alone does the same. Seen with pymilvus 2.6.17, milvus-lite 3.2.2 (the versions
are printed).

Lite evaluates an expression over the dynamic field by pulling each key it names into an Arrow column and running
its pyarrow evaluator; when pyarrow refuses (a key's values with no common Arrow type, a literal of another type),
it falls back to its row-by-row evaluator for the whole expression (``milvus_lite/search/filter/eval/
hybrid_backend.py``). The two read a null or missing key differently under ``not in``
(``fuzz_milvus_null_backends.py`` records that on typed fields, where an array function is the switch;
``fuzz_llamaindex_milvus_missing_not_in.py`` on a missing key); here the switch is the data. So
``(x < -3.0) or not (t in ['c'])`` selects the row whose ``t`` is null while every ``x`` is a number, and does not
once one row's ``x`` is ``false``, although ``x < -3.0`` selects nothing either way and ``not (t in ['c'])`` alone
selects the row in both; ``(x == false) or ...`` loses it on numbers alone. Expected: each collection answers
``A or B`` with at least what ``B`` selects.
Exit status 1: the defect reproduces.

    python bench/repro/fuzz_milvus_mixed_json.py
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from importlib.metadata import version

from pymilvus import DataType, MilvusClient

logging.getLogger("pymilvus").setLevel(logging.CRITICAL)
B = "not (t in ['c'])"
A_OR_B = (f"(x < -3.0) or {B}", f"(x == false) or {B}")


def collection(client: MilvusClient, name: str, other_x: object) -> None:
    schema = client.create_schema(auto_id=False, enable_dynamic_field=True)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=10)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=2)
    index = client.prepare_index_params()
    index.add_index("vector", index_type="FLAT", metric_type="COSINE")
    client.create_collection(name, schema=schema, index_params=index, consistency_level="Strong")
    client.insert(name, [{"id": "a", "vector": [1.0, 0.0], "t": "a", "x": other_x},
                         {"id": "null", "vector": [1.0, 1.0], "t": None, "x": 1e300}])


def main() -> int:
    print(f"pymilvus {version('pymilvus')}, milvus-lite {version('milvus-lite')}")
    client = MilvusClient(os.path.join(tempfile.mkdtemp(), "mixed.db"))
    wrong = 0
    for name, other_x in (("numbers", 0.0), ("mixed", False)):
        collection(client, name, other_x)
        alone = sorted(r["id"] for r in client.query(name, filter=B, output_fields=["id"]))
        print(f"x of row a = {other_x!r}: {B} selects {alone}")
        for expression in A_OR_B:
            found = sorted(r["id"] for r in client.query(name, filter=expression, output_fields=["id"]))
            lost = set(alone) - set(found)
            wrong += bool(lost)
            print(f"    {expression:<38} {found}{'   <- A or B lost ' + ', '.join(sorted(lost)) if lost else ''}")
    client.close()
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
