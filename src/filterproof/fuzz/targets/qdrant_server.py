"""Qdrant's filter language over HTTP: ``qdrant_client.QdrantClient(url=...)`` to a Qdrant server (``qdrant-server``).

The renderer, the spellings and the vias are local mode's (``qdrant-local``): the same ``models``, sent as JSON to
the Rust engine a server runs. So ``qdrant-local``, ``qdrant-edge`` and ``qdrant-server`` are one language's three
implementations, paired by the differential oracle, and on a server the payload indexes of the ``indexed`` copy are
real (local mode ignores them), so the index oracle judges them too.

The server is ``$QDRANT_URL`` (with ``$QDRANT_API_KEY``), else a container where a Docker engine answers
(``servers.qdrant.QdrantService``, stopped on close). Without either the target cannot be opened: ``installed()``
leaves it out and ``filterproof fuzz -b qdrant-server`` says why. The target writes two collections of its own,
``filterproof-fuzz-<random>-plain`` and ``-indexed``, and drops them on close; nothing else on the server is read.
"""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

from filterproof.fuzz.generate import BY_NAME
from filterproof.fuzz.target import Docs, Script
from filterproof.fuzz.targets.qdrant import INDEXES, QdrantLocal, points

COLLECTIONS = ("plain", "indexed")


class QdrantServer(QdrantLocal):
    """``QdrantClient(url=$QDRANT_URL)``, else a Qdrant container; two collections of its own, dropped on close."""

    name = "qdrant-server"

    def __init__(self) -> None:
        super().__init__()
        from filterproof.servers.qdrant import QdrantService

        self.service = QdrantService()
        reason = self.service.unavailable_reason()
        if reason is not None:  # what installed() and the command take as "not here"
            raise ImportError(f"qdrant-server needs a Qdrant server: {reason}")
        self._stack = contextlib.ExitStack()
        self.client: Any = None
        self.prefix = f"filterproof-fuzz-{uuid.uuid4().hex[:8]}"
        self.loaded = 0

    def collection(self, name: str) -> str:
        return f"{self.prefix}-{name}"

    def _connect(self) -> None:
        from qdrant_client import QdrantClient, models

        from filterproof.adapters.qdrant.owned import marked

        server = self._stack.enter_context(self.service.provide())
        self.client = QdrantClient(url=server.url, api_key=server.api_key)
        for name in COLLECTIONS:
            self.client.create_collection(self.collection(name), vectors_config=models.VectorParams(
                size=2, distance=models.Distance.COSINE), metadata=marked(temporary=True))
        for field in BY_NAME.values():  # on a server these are real: the index oracle judges them
            self.client.create_payload_index(self.collection("indexed"), field.name, INDEXES[field.kind], wait=True)

    def load(self, docs: Docs) -> None:
        from qdrant_client import models

        if self.client is None:
            self._connect()
        self.ids = list(docs)
        for name in COLLECTIONS:  # emptied by id, not created again: a collection on a server costs a round trip
            if self.loaded:
                self.client.delete(self.collection(name), models.PointIdsList(points=list(range(self.loaded))),
                                   wait=True)
            self.client.upsert(self.collection(name), [models.PointStruct(id=i, vector=v, payload=p)
                                                       for i, v, p in points(docs)], wait=True)
        self.loaded = len(self.ids)

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        native, n = self.native(source), max(len(self.ids), 1)
        name = self.collection("indexed" if indexed else "plain")
        return self._answer(
            via, lambda: self.client.count(name, count_filter=native, exact=True).count,
            lambda: self.client.scroll(name, scroll_filter=native, limit=n)[0],
            lambda: self.client.query_points(name, query=[1.0, 0.0], query_filter=native, limit=n,
                                             search_params=models_exact()).points)

    def versions(self) -> dict[str, str]:
        """The client, and the server's version (once a world was loaded)."""
        found = super().versions()
        if self.client is not None:
            found["qdrant (server)"] = str(self.client.info().version)
        return found

    def script(self, docs: Docs) -> Script:
        return Script("import os\nfrom qdrant_client import QdrantClient, models", _SERVER_SETUP, "ask_server")

    def close(self) -> None:
        if self.client is not None:
            for name in COLLECTIONS:
                with contextlib.suppress(Exception):  # a server gone already has nothing left to drop
                    self.client.delete_collection(self.collection(name))
            self.client.close()
            self.client = None
        self._stack.close()


def models_exact() -> Any:
    """Exact search: the filtered search must return every point that passes (k = the collection size), which an
    HNSW graph need not; the fuzzer judges the filter, not the graph."""
    from qdrant_client import models

    return models.SearchParams(exact=True)


_SERVER_SETUP = f"""
SERVER_INDEXES = {dict((f.name, INDEXES[f.kind]) for f in BY_NAME.values())!r}
server = QdrantClient(url=os.environ.get("QDRANT_URL", "http://localhost:6333"),
                      api_key=os.environ.get("QDRANT_API_KEY") or None)
server_ids = list(DOCS)
for name in ("plain", "indexed"):
    collection = f"filterproof-repro-{{name}}"
    if server.collection_exists(collection):
        server.delete_collection(collection)
    server.create_collection(collection, vectors_config=models.VectorParams(size=2, distance=models.Distance.COSINE))
    if name == "indexed":
        for key, kind in SERVER_INDEXES.items():
            server.create_payload_index(collection, key, kind, wait=True)
    server.upsert(collection, [models.PointStruct(id=i, vector=[1.0, 0.01 * (i + 1)], payload=DOCS[d])
                               for i, d in enumerate(server_ids)], wait=True)


def ask_server(native, via, indexed):
    collection = "filterproof-repro-" + ("indexed" if indexed else "plain")
    if via == "count":
        return {{f"#{{i}}" for i in range(server.count(collection, count_filter=native, exact=True).count)}}
    if via == "scroll":
        found = server.scroll(collection, scroll_filter=native, limit=len(server_ids))[0]
    else:
        found = server.query_points(collection, query=[1.0, 0.0], query_filter=native, limit=len(server_ids),
                                    search_params=models.SearchParams(exact=True)).points
    return {{server_ids[int(p.id)] for p in found}}
"""
