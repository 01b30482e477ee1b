"""Milvus Lite: its two filter evaluators disagree on nulls, so one condition on a null field selects the row or not
depending on what else the expression holds.

Standalone (pymilvus and milvus-lite only). Found by ``filterproof fuzz`` (target ``milvus``: the ``spelling``,
``conjunct`` and three-way ``partition`` oracles: P, NOT P and "P unknown" by the rule below). Seen with pymilvus
2.6.17, milvus-lite 3.2.2 (the versions are printed).

Milvus's documented rule ("Nullable & Default"): filtering results on null values "are all false, indicating that
they will not be selected", under ``not`` too (``not (n == 1)`` does not select a null ``n``, and a Milvus server
keeps a validity bitmap for that). Milvus Lite compiles an expression for one of two evaluators
(``milvus_lite/search/filter/eval``): pyarrow kernels, or, as soon as the expression holds ``ARRAY_CONTAINS*`` or
``array_length``, a row-by-row Python evaluator. They differ on nulls:

* pyarrow: ``in`` is ``pc.is_in``, false (not null) on a null row, and ``not in`` its inversion: ``n not in [1]``
  and ``not (n in [1])`` select the null row, while ``n != 1`` and ``not (n == 1)`` do not (the finding
  ``milvus_not_in_null.py`` records);
* row by row: ``in`` on a null is unknown (right), but ``ARRAY_CONTAINS`` on a null array is false and
  ``array_length`` of a null array is 0, so ``not ARRAY_CONTAINS(tags, "a")`` and ``array_length(tags) == 0``
  select a row whose ``tags`` is null.

So ``n not in [1]`` selects the null row and ``(n not in [1]) and (array_length(nums) == 1)`` does not, although
``array_length(nums) == 1`` holds on it: A AND TRUE is not A. Expected: no expression below selects ``null``.
Exit status 1: the defect reproduces.

    python bench/repro/fuzz_milvus_null_backends.py
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from importlib.metadata import version

from pymilvus import DataType, MilvusClient

logging.getLogger("pymilvus").setLevel(logging.CRITICAL)
EXPRESSIONS = (
    "n not in [1]",
    "not (n in [1])",
    "(n not in [1]) and (array_length(nums) == 1)",
    "n != 1",
    "not (n == 1)",
    'not ARRAY_CONTAINS(tags, "a")',
    "array_length(tags) == 0",
)


def main() -> int:
    print(f"pymilvus {version('pymilvus')}, milvus-lite {version('milvus-lite')}")
    client = MilvusClient(os.path.join(tempfile.mkdtemp(), "nulls.db"))
    schema = client.create_schema(auto_id=False)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=10)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=2)
    schema.add_field("n", DataType.INT64, nullable=True)
    schema.add_field("nums", DataType.ARRAY, element_type=DataType.INT64, max_capacity=4, nullable=True)
    schema.add_field("tags", DataType.ARRAY, element_type=DataType.VARCHAR, max_capacity=4, max_length=10,
                     nullable=True)
    index = client.prepare_index_params()
    index.add_index("vector", index_type="FLAT", metric_type="COSINE")
    client.create_collection("nulls", schema=schema, index_params=index)
    client.insert("nulls", [{"id": "one", "vector": [1.0, 0.0], "n": 1, "nums": [1], "tags": ["a"]},
                            {"id": "null", "vector": [1.0, 1.0], "n": None, "nums": [5], "tags": None}])
    wrong = 0
    for expression in EXPRESSIONS:
        found = sorted(row["id"] for row in client.query("nulls", filter=expression, output_fields=["id"]))
        wrong += "null" in found
        print(f"{expression:<48} {found}{'   <- selects the null row' if 'null' in found else ''}")
    client.close()
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
