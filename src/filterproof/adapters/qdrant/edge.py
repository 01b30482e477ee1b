"""``qdrant-edge``: the Qdrant engine in process (qdrant-edge-py), with real HNSW and payload indexes.

The same Rust segments, payload indexes and query planner as a Qdrant server, in
a directory of our own: a temporary one, or ``<path>/edge-shard`` with the
``path`` option (the adapter owns that subdirectory and empties it on reset).

Edge has no background optimizer: HNSW graphs are only built by
``EdgeShard.optimize()``. The adapter calls it lazily, before the first search
after any write, so a whole ingest is optimized once and every search sees built
indexes; writes after that land in a small appendable segment, searched exactly,
until the next search optimizes again (cheap when nothing needs rebuilding).
A build that replaced segments is followed by a reopen of the shard: qdrant-edge
0.9 keeps replaced segments open until then (``_release_replaced``).
Segments smaller than the indexing threshold (Qdrant's default, about 10 MB of
vectors) are never turned into HNSW and are searched exactly: the shipped fixtures
are; a corpus of 100k x 256-d is not.

Options: see ``options.QdrantEdgeOptions``.
"""

from __future__ import annotations

import math
import shutil
import tempfile
import time
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from filterproof.adapters.base import Capabilities
from filterproof.adapters.ownership import claim
from filterproof.adapters.paths import PathLock
from filterproof.adapters.qdrant.common import Point, QdrantAdapter
from filterproof.adapters.qdrant.language import EDGE
from filterproof.adapters.qdrant.options import QdrantEdgeOptions
from filterproof.adapters.qdrant.owned import SHARD, mark_shard, owned, shard_mark
from filterproof.adapters.qdrant.payload import CURRENT, GROUPS, ID, STATUS, TENANT, IndexKind
from filterproof.errors import NoSecondClient

RECALL_TOLERANCE = 0.01
EDGE_KEYS_PER_CALL = 1_000_000
"""Revision keys per batched call: its native filters exist together (~95 bytes a key, ~95 MB)."""


LINKED: dict[str, frozenset[str] | None] = {
    "all": None,
    "split": frozenset({TENANT, STATUS, GROUPS, CURRENT}),
    "tenant": frozenset({TENANT}),
}
"""``payload_links`` -> the indexed fields that keep Qdrant's per-value links (None: every one).
``split``: the fields whose values split the corpus into what principals filter to; not the
well-formed marker, which nearly every point has (its links would be a second copy of the graph),
nor the date ranges."""


def index_schema(kind: IndexKind, memory: Any = None, links: bool = True) -> Any:
    """A payload index's schema, kept where ``memory`` says (None: Qdrant's default, in RAM).

    ``links=False`` turns off the index's extra HNSW links (``enable_hnsw``): Qdrant otherwise
    builds, for each value of an indexed field holding enough points, links among those
    points, so that a graph search filtered on that value stays connected. Keeping them on
    the tenant key alone made the build twice as fast at 200k documents, and filtered
    search lost its answers from 10% selectivity up (``bench/README.md``). Every other
    parameter left unset is Qdrant's default.
    """
    hnsw = None if links else False
    return {
        "keyword": qe.KeywordIndexParams(memory=memory, enable_hnsw=hnsw),
        "tenant": qe.KeywordIndexParams(is_tenant=True, memory=memory),
        "datetime": qe.DatetimeIndexParams(memory=memory, enable_hnsw=hnsw),
    }[kind]


def placement(memory: str) -> Any:
    """The engine's ``Memory`` for an option value; None (the engine's default, in RAM) for ``ram``."""
    return {"ram": None, "cached": qe.Memory.Cached, "cold": qe.Memory.Cold}[memory]


class QdrantEdgeAdapter(QdrantAdapter[Any]):
    name = "qdrant-edge"
    Options = QdrantEdgeOptions
    options: QdrantEdgeOptions
    max_keys_per_call = EDGE_KEYS_PER_CALL

    def open_reader(self) -> Any:
        raise NoSecondClient("qdrant-edge: the engine runs inside this adapter over a shard it alone opens; a "
                             "second client is a Qdrant server's (qdrant-server)")

    reader_spec = open_reader

    def __init__(self, options: QdrantEdgeOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options, EDGE)
        opts = self.options
        # ACORN walks the graph past filtered-out neighbours: recall under broad and narrow filters alike.
        acorn = qe.AcornSearchParams(enable=True) if opts.acorn else None
        self._params = qe.SearchParams(hnsw_ef=opts.hnsw_ef, exact=opts.exact, acorn=acorn)
        self._hnsw = qe.HnswIndexConfig(m=opts.hnsw_m, ef_construct=opts.hnsw_ef_construct,
                                        full_scan_threshold=opts.full_scan_threshold_kb,
                                        memory=placement(opts.memory))
        self.capabilities = Capabilities(
            native_filter=True, exact=opts.exact, persistent=False, lifecycle=True,
            recall_tolerance=0.0 if opts.exact else RECALL_TOLERANCE,
        )
        self._lock: PathLock | None = None
        if opts.path:
            self._root = Path(opts.path)
            self._lock = PathLock(self._root, self.name)
            self._cleanup: weakref.finalize[Any, Any] | None = None
            try:
                self._claim()
            except BaseException:
                self._lock.release()
                raise
        else:  # removed by close(), or when the adapter is collected, or at exit: never left behind
            self._root = Path(tempfile.mkdtemp(prefix="filterproof-edge-"))
            self._cleanup = weakref.finalize(self, shutil.rmtree, str(self._root), True)
        self._shard: Any = None
        self._shard_dim = 0
        self._unoptimized = False
        self._written = 0  # points written since the last optimize()
        self.build_seconds = 0.0
        """Seconds in ``optimize()`` since the last reset, the builds ``segment_docs`` runs during the
        upserts included (``timing.TimedAdapter.build`` reports it as the build time)."""

    @property
    def _path(self) -> Path:
        """The shard's directory (``EdgeShard.create`` and ``load`` take it)."""
        return self._root / SHARD

    owned_objects = staticmethod(owned)
    """For ``filterproof clean``: the shard under ``path``, when it carries the marker."""

    def _claim(self) -> None:
        """Refuse ``PATH/edge-shard`` when filterproof did not create it (no ``filterproof.json`` marker in it)."""
        exists, mark = shard_mark(self._path)
        claim(self.name, f"directory {self._path}", exists=exists, mark=mark, replace=self.options.replace,
              instead="another path")

    @property
    def shard(self) -> Any:
        """The open ``EdgeShard`` (for inspection: ``info()``, ``count()``)."""
        if self._shard is None:
            raise RuntimeError("qdrant-edge: call reset(dim) first")
        return self._shard

    def _create(self, dim: int) -> None:
        self.build_seconds = 0.0
        if self._shard is not None and self._shard_dim == dim:
            # Same dimension: empty the open shard. Recreating it costs its payload indexes again,
            # measured 0.2-1 s per reset here (most of the suite's time), against ~1 ms for this.
            self._shard.update(qe.UpdateOperation.delete_points_by_filter(qe.Filter()))
            self._unoptimized, self._written = True, 0
            return
        self._close_shard()
        path = self._path
        if self._cleanup is None:  # under path=: only a shard of ours (a temporary root is ours as a whole)
            self._claim()
        if path.is_symlink():
            path.unlink()
        shutil.rmtree(path, ignore_errors=True)
        memory = placement(self.options.memory)
        config = qe.EdgeConfig(
            vectors=qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine, memory=memory),
            hnsw_config=self._hnsw, optimizers=self._optimizers_for(dim), payload_memory=memory,
            id_tracker_memory=memory,
        )
        self._shard = qe.EdgeShard.create(str(path), config)
        mark_shard(path)
        linked = LINKED[self.options.payload_links]
        for field, kind in self.indexes.items():
            schema = index_schema(kind, memory, linked is None or field in linked)
            self._shard.update(qe.UpdateOperation.create_field_index(field, schema))
        self._shard_dim, self._unoptimized, self._written = dim, False, 0

    def _optimizers_for(self, dim: int) -> Any:
        """Qdrant's optimizer settings: its defaults, unless an option says otherwise.

        ``segment_docs``: no segment may hold more vectors than that (``max_segment_size``, in
        KB of float32 vectors), so the segments built every ``segment_docs`` writes are never
        merged back into one.
        """
        opts = self.options
        if opts.indexing_threshold_kb is None and opts.segment_docs is None:
            return None
        largest = None if opts.segment_docs is None else math.ceil(opts.segment_docs * dim * 4 / 1024)
        return qe.EdgeOptimizersConfig(indexing_threshold=opts.indexing_threshold_kb, max_segment_size=largest)

    def _put(self, points: list[Point]) -> None:
        cap = self.options.segment_docs
        while cap is not None and self._written + len(points) >= cap:
            # A segment's worth written: build it now, as a server's optimizer would in the background.
            head, points = points[:cap - self._written], points[cap - self._written:]
            self._write(head)
            self.optimize()
        if points:
            self._write(points)

    def _write(self, points: list[Point]) -> None:
        self.shard.update(qe.UpdateOperation.upsert_points([qe.Point(*p) for p in points]))
        self._unoptimized = True
        self._written += len(points)

    def _remove(self, point_ids: list[str]) -> None:
        self.shard.update(qe.UpdateOperation.delete_points(point_ids))
        self._unoptimized = True

    def _exists(self, pid: str) -> bool:
        return bool(self.shard.retrieve([pid], False, False))

    def _replace_payload(self, pid: str, payload: dict[str, Any]) -> None:
        self.shard.update(qe.UpdateOperation.overwrite_payload([pid], payload))
        self._unoptimized = True

    def _set_payload_where(self, selector: Any, payload: dict[str, Any]) -> None:
        self.shard.update(qe.UpdateOperation.set_payload_by_filter(selector, payload))
        self._unoptimized = True

    def optimize(self) -> bool:
        """Build what the writes since the last call need (HNSW graphs, merged segments)."""
        self._unoptimized, self._written = False, 0
        start = time.perf_counter()
        built = bool(self.shard.optimize())
        if built:  # nothing built, nothing replaced
            self._release_replaced()
        self.build_seconds += time.perf_counter() - start
        return built

    def _release_replaced(self) -> None:
        """Reopen the shard when segments that ``optimize()`` replaced are still on disk.

        qdrant-edge 0.9 keeps each replaced appendable segment open (its mapped files, and its
        payload indexes on the heap: about 0.45 GB per 250k-document segment) and on disk
        until the shard is closed; ``EdgeShard.load`` then deletes them. A directory count
        against the live count, so the many small optimizes of a lifecycle test reopen nothing.
        """
        on_disk = sum(1 for _ in (self._path / "segments").iterdir())
        if on_disk > self.shard.info().segments_count:
            self._shard.close()
            self._shard = qe.EdgeShard.load(str(self._path))

    def _query(self, vectors: list[list[float]], k: int, filters: list[Any]) -> list[list[tuple[Any, float]]]:
        if self._unoptimized:
            self.optimize()
        requests = [
            qe.QueryRequest(limit=k, query=qe.Query.Nearest(v), filter=f, with_payload=[ID], params=self._params)
            for v, f in zip(vectors, filters, strict=True)
        ]
        batches = self.shard.query_batch(qe.QueryBatchRequest(requests))
        return [[(p.payload, p.score) for p in points] for points in batches]

    def _close_shard(self) -> None:
        if self._shard is not None:
            self._shard.close()
            self._shard = None

    def close(self) -> None:
        try:
            self._close_shard()
        finally:
            if self._cleanup is not None:
                self._cleanup()
            if self._lock is not None:
                self._lock.release()
