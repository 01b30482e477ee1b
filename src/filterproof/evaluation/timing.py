"""Time spent inside the backend, kept apart from time spent in the harness around it.

A run is only evidence about a store if the harness's own cost is small and
known. ``TimedAdapter`` wraps any adapter and adds the wall time of every call into
one ``Clock``; the runner compares that with the wall time of each phase, and
reports the rest (ranking post-processing, policy checks, metrics, progress bars)
as overhead = outside / inside.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from filterproof.adapters.base import (
    Adapter,
    Capabilities,
    Hit,
    Record,
    not_indexable,
    optimize,
    search_many,
    sync_active,
)
from filterproof.policy import ActiveRevisions, PolicyFilter


@dataclass
class Clock:
    """Seconds spent inside backend calls, and how many calls."""

    inside: float = 0.0
    calls: int = 0

    @contextmanager
    def measure(self) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.inside += time.perf_counter() - start
            self.calls += 1


class TimedAdapter:
    """An adapter that counts the time of every call into ``clock``; otherwise transparent."""

    def __init__(self, inner: Adapter, clock: Clock) -> None:
        self.inner, self.clock = inner, clock
        self.name = inner.name

    @property
    def capabilities(self) -> Capabilities:
        return self.inner.capabilities

    def reset(self, dim: int) -> None:
        with self.clock.measure():
            self.inner.reset(dim)

    def upsert(self, records: Sequence[Record]) -> None:
        with self.clock.measure():
            self.inner.upsert(records)

    def delete(self, ids: Sequence[str]) -> None:
        with self.clock.measure():
            self.inner.delete(ids)

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        with self.clock.measure():
            self.inner.update_metadata(id, metadata)

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        with self.clock.measure():
            return self.inner.search(vector, k, where)

    def search_batch(self, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]) -> list[list[Hit]]:
        with self.clock.measure():
            return search_many(self.inner, vectors, k, wheres)

    def optimize(self) -> None:
        with self.clock.measure():
            optimize(self.inner)

    def set_active_revisions(self, active: ActiveRevisions) -> None:
        with self.clock.measure():
            sync_active(self.inner, active)

    def build(self) -> float:
        """Let an engine that builds its index lazily (qdrant-edge's ``optimize``) do it now; returns the time.

        Otherwise the first search would pay for the whole index build and the
        latency numbers of one level would be meaningless. An adapter that also builds
        during its upserts (qdrant-edge's ``segment_docs``) says how long in all, as
        ``build_seconds`` since its reset; that is returned instead of this call's time.
        """
        start = time.perf_counter()
        self.optimize()
        elapsed = time.perf_counter() - start
        return float(getattr(self.inner, "build_seconds", elapsed))

    def not_indexable(self) -> dict[str, str]:
        return not_indexable(self.inner)

    def close(self) -> None:
        with self.clock.measure():
            self.inner.close()


def percentile(values: Sequence[float], q: float) -> float | None:
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if len(values) else None


def overhead(wall: float, inside: float) -> float | None:
    """Harness time over backend time; None when the backend took no measurable time."""
    return (wall - inside) / inside if inside > 0 else None
