"""A seeded defect on the real DuckDB: what a new user writes first, the policy's WHERE beside the HNSW search.

``FilterAfterTheIndexWindow`` is the ``duckdb`` adapter at ``index=hnsw`` with one query per search, the
WHERE and ``ORDER BY array_negative_inner_product(...) LIMIT k`` together, as DuckDB's docs show a filtered
vector search. The vss extension serves it with the index's top k rows and filters them after (duckdb-vss #35),
so a principal whose documents are not among the nearest gets fewer than K, or none. Under ``revision=flag``:
with the active keys' ``= ANY(...)`` in the WHERE, or the score selected beside the ORDER BY, DuckDB silently
scans exactly instead and the defect would be no defect (``tests/adapters/test_duckdb.py`` shows both).
The suite must fail it (``tests/adapters/test_duckdb.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from filterproof.adapters.duckdb.store import DuckDBAdapter
from filterproof.policy import PolicyFilter


class FilterAfterTheIndexWindow(DuckDBAdapter):
    name = "defect-duckdb-filter-after-the-index-window"

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__({**(options or {}), "index": "hnsw", "revision": "flag"})

    def _queries(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[tuple[str, list[Any]]]:
        clause, params = ("TRUE", []) if where is None else self.compile(where)
        return [(self._q(f"SELECT id, -nd FROM (SELECT *, array_negative_inner_product(embedding, "
                         f"?::FLOAT[{self._dim}]) AS nd FROM {{t}} WHERE {clause} ORDER BY nd LIMIT {int(k)})"),
                 [self._vector(vector), *params])]
