"""Qdrant's filter language (``qdrant_filter``) over two stores: qdrant-client's local mode (``qdrant_client.models``)
and Qdrant's engine in process (``qdrant_edge``). One renderer writes both, so the pair is a differential oracle.

Each keeps the world twice: ``plain``, and ``indexed`` with a payload index on every field
(``INDEXES``; local mode ignores them, which is what they must not change).
``qdrant-edge`` is ``optimizable``: its indexed shard holds the world in an appendable
segment (mutable payload indexes), as every write leaves it; a third shard, ``optimized``,
holds it after ``optimize()`` has built it into a segment of its own (HNSW, and the
payload indexes in the immutable form a built segment uses). Qdrant builds a segment
once its vectors pass the indexing threshold (1 KB here), so that shard's vectors are
the same two coordinates padded with zeros to ``OPTIMIZED_DIM`` (one document is 1 KB).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from filterproof.adapters.filterlang import Expr
from filterproof.adapters.qdrant.language import EDGE, MODELS, Family
from filterproof.fuzz.generate import BY_NAME
from filterproof.fuzz.target import Docs, Script, Target
from filterproof.fuzz.targets.qdrant_filter import source

INDEXES = {"text": "keyword", "int": "integer", "float": "float", "date": "datetime", "bool": "bool",
           "text_list": "keyword", "int_list": "integer"}
"""The payload index of each kind of field, on the indexed copy of the world."""
OPTIMIZED_DIM = 256
"""The optimized shard's vector size: one document's vector alone reaches the 1 KB indexing threshold."""
RELOAD_AFTER = 40
"""Segment directories on disk before the optimized shard is reopened: qdrant-edge 0.9 keeps every segment an
``optimize()`` replaced open (files, payload indexes) until the shard is closed."""


def points(docs: Docs) -> list[tuple[int, list[float], dict[str, Any]]]:
    """Point i holds document i (ids are Qdrant's integers; ``ids`` maps them back), a distinct positive cosine."""
    return [(i, [1.0, 0.01 * (i + 1)], dict(doc)) for i, doc in enumerate(docs.values())]


class QdrantTarget(Target):
    engine_errors: ClassVar[tuple[type[BaseException], ...]] = (Exception,)  # as every built-in (Target)
    spellings = 3
    equivalent = (1,)
    vias: ClassVar[tuple[str, ...]] = ("search", "scroll", "count")
    indexable = True
    family: ClassVar[Family]

    def __init__(self) -> None:
        self.ids: list[str] = []

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return source(expr, self.family, spelling)

    def _ids(self, found: list[Any]) -> set[str]:
        return {self.ids[int(p.id)] for p in found}

    def _answer(self, via: str, count: Callable[[], int], scroll: Callable[[], list[Any]],
                search: Callable[[], list[Any]]) -> set[str]:
        if via == "count":
            return {f"#{i}" for i in range(count())}
        return self._ids(scroll() if via == "scroll" else search())




class QdrantLocal(QdrantTarget):
    """qdrant-client's local mode (``QdrantClient(":memory:")``), a Python implementation of Qdrant's filters."""

    name = "qdrant-local"
    packages = ("qdrant-client",)
    family = MODELS

    def namespace(self) -> dict[str, Any]:
        from qdrant_client import models

        return {"models": models}

    def load(self, docs: Docs) -> None:
        from qdrant_client import QdrantClient, models

        self.client = QdrantClient(":memory:")
        self.ids = list(docs)
        for name in ("plain", "indexed"):
            self.client.create_collection(name, vectors_config=models.VectorParams(size=2,
                                                                                   distance=models.Distance.COSINE))
            self.client.upsert(name, [models.PointStruct(id=i, vector=v, payload=p) for i, v, p in points(docs)])
        with warnings.catch_warnings():  # qdrant-client warns that local mode ignores them: deliberate here
            warnings.filterwarnings("ignore", "Payload indexes have no effect in the local Qdrant", UserWarning)
            for field in BY_NAME.values():  # local mode ignores payload indexes: what they must not change
                self.client.create_payload_index("indexed", field.name, INDEXES[field.kind])

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        native, name, n = self.native(source), "indexed" if indexed else "plain", max(len(self.ids), 1)
        return self._answer(
            via, lambda: self.client.count(name, count_filter=native, exact=True).count,
            lambda: self.client.scroll(name, scroll_filter=native, limit=n)[0],
            lambda: self.client.query_points(name, query=[1.0, 0.0], query_filter=native, limit=n).points)

    def script(self, docs: Docs) -> Script:
        return Script("from qdrant_client import QdrantClient, models", _CLIENT_SETUP, "ask_local")

    def close(self) -> None:
        if getattr(self, "client", None) is not None:
            self.client.close()


class QdrantEdge(QdrantTarget):
    """Qdrant's engine in process (``qdrant_edge.EdgeShard``), the Rust code a Qdrant server runs."""

    name = "qdrant-edge"
    packages = ("qdrant-edge-py",)
    family = EDGE
    optimizable = True

    def namespace(self) -> dict[str, Any]:
        import qdrant_edge

        return {"qe": qdrant_edge}

    def load(self, docs: Docs) -> None:
        import qdrant_edge as qe

        if not getattr(self, "shards", None):
            self._create()
        self.ids, self._docs, self._built = list(docs), docs, False
        for name, shard in self.shards.items():  # emptied, not created again: a shard on disk costs 0.2-1 s
            if name != "optimized":  # written on the first ask after optimize(): most shrink attempts never need it
                shard.update(qe.UpdateOperation.delete_points_by_filter(qe.Filter()))
                shard.update(qe.UpdateOperation.upsert_points([qe.Point(i, v, p) for i, v, p in points(docs)]))

    def _optimized(self) -> Any:
        """The optimized shard, holding this world, built by ``optimize()``."""
        import qdrant_edge as qe

        shard = self.shards["optimized"]
        if not self._built:
            shard.update(qe.UpdateOperation.delete_points_by_filter(qe.Filter()))
            shard.update(qe.UpdateOperation.upsert_points(
                [qe.Point(i, v + [0.0] * (OPTIMIZED_DIM - len(v)), p) for i, v, p in points(self._docs)]))
            shard.optimize()
            self._built = True
            if sum(1 for _ in Path(self._dir.name, "optimized", "segments").iterdir()) > RELOAD_AFTER:
                shard.close()
                shard = self.shards["optimized"] = qe.EdgeShard.load(f"{self._dir.name}/optimized")
        return shard

    def _create(self) -> None:
        import tempfile

        import qdrant_edge as qe

        self._dir = tempfile.TemporaryDirectory(prefix="filterproof-fuzz-edge-")
        self.shards = {}
        for name in ("plain", "indexed", "optimized"):
            Path(self._dir.name, name).mkdir()  # qdrant-edge-py 0.8 creates no parent directory
            shard = self.shards[name] = qe.EdgeShard.create(f"{self._dir.name}/{name}", edge_config(qe, name))
            if name != "plain":
                for field in BY_NAME.values():
                    schema = getattr(qe.PayloadSchemaType, INDEXES[field.kind].capitalize())
                    shard.update(qe.UpdateOperation.create_field_index(field.name, schema))

    def ask(self, source: str, via: str = "search", indexed: bool = False, optimized: bool | None = None
            ) -> set[str]:
        import qdrant_edge as qe

        native, n = self.native(source), max(len(self.ids), 1)
        # before optimize() is the indexed shard: the optimize oracle asks both sides with indexed=True
        shard = self._optimized() if optimized else self.shards["indexed" if indexed else "plain"]
        query = [1.0, 0.0] + [0.0] * (OPTIMIZED_DIM - 2) * bool(optimized)
        return self._answer(
            via, lambda: shard.count(qe.CountRequest(exact=True, filter=native)),
            lambda: shard.scroll(qe.ScrollRequest(limit=n, filter=native))[0],
            lambda: shard.query(qe.QueryRequest(limit=n, query=qe.Query.Nearest(query), filter=native)))

    def script(self, docs: Docs) -> Script:
        return Script("import os\nimport tempfile\nimport qdrant_edge as qe", _EDGE_SETUP, "ask_edge")

    def close(self) -> None:
        for shard in getattr(self, "shards", {}).values():
            shard.close()
        self.shards = {}
        if getattr(self, "_dir", None) is not None:
            self._dir.cleanup()
            self._dir = None


def edge_config(qe: Any, name: str) -> Any:
    """The optimized shard: vectors of ``OPTIMIZED_DIM`` and a 1 KB indexing threshold, so that ``optimize()`` builds
    every world into a segment of its own; the others: Qdrant's defaults (2-d, never built)."""
    if name != "optimized":
        return qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=2, distance=qe.Distance.Cosine))
    return qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=OPTIMIZED_DIM, distance=qe.Distance.Cosine),
                         optimizers=qe.EdgeOptimizersConfig(indexing_threshold=1))


_CLIENT_SETUP = f"""
INDEXES = {{key: kind for key, kind in {dict((f.name, INDEXES[f.kind]) for f in BY_NAME.values())!r}.items()}}
client = QdrantClient(":memory:")
ids = list(DOCS)
for name in ("plain", "indexed"):
    client.create_collection(name, vectors_config=models.VectorParams(size=2, distance=models.Distance.COSINE))
    client.upsert(name, [models.PointStruct(id=i, vector=[1.0, 0.01 * (i + 1)], payload=DOCS[d])
                         for i, d in enumerate(ids)])
for key, kind in INDEXES.items():
    client.create_payload_index("indexed", key, kind)


def ask_local(native, via, indexed):
    name = "indexed" if indexed else "plain"
    if via == "count":
        return {{f"#{{i}}" for i in range(client.count(name, count_filter=native, exact=True).count)}}
    if via == "scroll":
        found = client.scroll(name, scroll_filter=native, limit=len(ids))[0]
    else:
        found = client.query_points(name, query=[1.0, 0.0], query_filter=native, limit=len(ids)).points
    return {{ids[int(p.id)] for p in found}}
"""

_EDGE_SETUP = f"""
EDGE_INDEXES = {dict((f.name, INDEXES[f.kind].capitalize()) for f in BY_NAME.values())!r}
DIMS = {{"plain": 2, "indexed": 2, "optimized": {OPTIMIZED_DIM}}}  # optimized: one vector passes the 1 KB threshold
edge_dir = tempfile.mkdtemp(prefix="edge-")
edge_ids = list(DOCS)
shards = {{}}
for name, dim in DIMS.items():
    os.makedirs(f"{{edge_dir}}/{{name}}")
    optimizers = qe.EdgeOptimizersConfig(indexing_threshold=1) if name == "optimized" else None
    config = qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine), optimizers=optimizers)
    shard = shards[name] = qe.EdgeShard.create(f"{{edge_dir}}/{{name}}", config)
    if name != "plain":
        for key, kind in EDGE_INDEXES.items():
            shard.update(qe.UpdateOperation.create_field_index(key, getattr(qe.PayloadSchemaType, kind)))
    shard.update(qe.UpdateOperation.upsert_points(
        [qe.Point(i, [1.0, 0.01 * (i + 1)] + [0.0] * (dim - 2), DOCS[d]) for i, d in enumerate(edge_ids)]))
shards["optimized"].optimize()  # the world built into a segment of its own: HNSW, immutable payload indexes


def ask_edge(native, via, indexed, optimized=None):
    name = "optimized" if optimized else "indexed" if indexed else "plain"  # before optimize(): the indexed shard
    shard, query = shards[name], [1.0, 0.0] + [0.0] * (DIMS[name] - 2)
    if via == "count":
        return {{f"#{{i}}" for i in range(shard.count(qe.CountRequest(exact=True, filter=native)))}}
    if via == "scroll":
        found = shard.scroll(qe.ScrollRequest(limit=len(edge_ids), filter=native))[0]
    else:
        found = shard.query(qe.QueryRequest(limit=len(edge_ids), query=qe.Query.Nearest(query), filter=native))
    return {{edge_ids[int(p.id)] for p in found}}
"""
