"""Which path a filtered search took: the optional ``explain`` of the adapter contract.

A green run says the answers were right; it does not say that the store a company runs
was exercised. A store may fall back to an exact scan for one shape of filter (DuckDB's
HNSW index is skipped for a correlated ``EXISTS``), or filter only the index's top N
(pgvector's HNSW without iterative scans): the answers then come from another path than
the one deployed. ``explain(vector, k, where)`` returns the path one search takes:

* ``index``: the vector index served it, the filter applied inside the index search;
* ``post-filter``: the index's top N (``ef_search``, ``nprobes``) came first and the filter
  was applied to them: short under a selective filter;
* ``exact scan``: every row the filter admits was scored (a sequential scan, a flat index);
* ``unknown``: the engine does not tell (the detail says why).

An adapter declares the path it means its filtered searches to take with
``Capabilities.search_path``; the suite's scale tier and ``compare`` report the paths taken
and say so when one differs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

import numpy as np

from filterproof.adapters.base import Adapter
from filterproof.policy import PolicyFilter

PathKind = Literal["index", "post-filter", "exact scan", "unknown"]


@dataclass(frozen=True)
class SearchPath:
    """The path of one search: its ``kind`` and the engine's words for it (a plan, or why it is unknown)."""

    kind: PathKind
    detail: str = ""

    def __str__(self) -> str:
        return self.kind


@runtime_checkable
class Explaining(Protocol):
    """Optional: the path a search would take, asked without changing the store."""

    def explain(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> SearchPath: ...


def search_path(adapter: Adapter, vector: np.ndarray, k: int, where: PolicyFilter | None) -> SearchPath:
    """The adapter's ``explain``, or ``unknown`` when it has none."""
    if isinstance(adapter, Explaining):
        return adapter.explain(vector, k, where)
    return SearchPath("unknown", f"{adapter.name} has no explain()")


def paths_taken(adapter: Adapter, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter]) -> Counter[str]:
    """How many of these filtered searches take each path."""
    return Counter(search_path(adapter, v, k, w).kind for v, w in zip(vectors, wheres, strict=True))


def summary(taken: Mapping[str, int]) -> str:
    """``index 12 of 12`` or ``post-filter 9, exact scan 3 of 12``."""
    ordered = sorted(taken.items(), key=lambda item: -item[1])
    return ", ".join(f"{kind} {count}" for kind, count in ordered) + f" of {sum(taken.values())}"


def off_declared(name: str, declared: str | None, taken: Mapping[str, int]) -> str | None:
    """A sentence when searches took another path than the one declared (``Capabilities.search_path``)."""
    if declared is None or set(taken) <= {declared, "unknown"}:
        return None
    return (f"{name} declares search_path={declared!r}, but its filtered searches took: {summary(taken)}: "
            f"the answers judged are not those of the path it declares")


class SearchPathWarning(UserWarning):
    """Filtered searches took another path than the adapter declares: a green run then says nothing of the
    declared path."""
