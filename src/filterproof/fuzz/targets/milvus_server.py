"""Milvus's filter language on a Milvus server (``milvus-server``): the expressions, schema and vias of the Lite target
(``milvus``), asked of ``MilvusClient(uri=...)``.

Milvus Lite evaluates expressions in Python (pyarrow, and a row-by-row fallback); a server evaluates them in its C++
segcore. So ``milvus`` and ``milvus-server`` are one language's two implementations, paired by the differential
oracle, and the server's INVERTED indexes are its own, judged by the index oracle.

The server is ``$MILVUS_URI`` (with ``$MILVUS_TOKEN``), else a container where a Docker engine answers
(``servers.milvus_container.MilvusService``, stopped on close). Without either the target cannot be opened:
``installed()`` leaves it out and ``filterproof fuzz -b milvus-server`` says why. The target writes two collections of
its own, ``filterproof_fuzz_<random>_plain`` and ``_indexed``, and drops them on close.
"""

from __future__ import annotations

import contextlib
import time
import uuid

from filterproof.fuzz.target import Docs, Script
from filterproof.fuzz.targets.milvus import (
    COLLECTIONS,
    EVERYTHING,
    INDEXED,
    MilvusTarget,
    collection_script,
    create,
    rows,
)
from filterproof.fuzz.targets.milvus_expr import SCHEMA

INDEX_WAIT_S = 30.0
"""How long ``load`` waits for the server to index a new segment: until then a query reads the rows, and the index
oracle would compare the unindexed path with itself."""


class MilvusServerTarget(MilvusTarget):
    """``MilvusClient(uri=$MILVUS_URI)``, else a Milvus container; two collections of its own, dropped on close."""

    name = "milvus-server"
    packages = ("pymilvus",)

    def __init__(self) -> None:
        super().__init__()
        from filterproof.servers.milvus_container import MilvusService

        self.service = MilvusService()
        reason = self.service.unavailable_reason()
        if reason is not None:  # what installed() and the command take as "not here"
            raise ImportError(f"milvus-server needs a Milvus server: {reason}")
        self._stack = contextlib.ExitStack()
        self.prefix = f"filterproof_fuzz_{uuid.uuid4().hex[:8]}"

    def collection(self, name: str) -> str:
        return f"{self.prefix}_{name}"

    def _open(self) -> None:
        from pymilvus import MilvusClient

        server = self._stack.enter_context(self.service.provide())
        self.client = MilvusClient(uri=server.url, token=server.api_key or "")
        for name in COLLECTIONS:
            create(self.client, self.collection(name), indexed=name == "indexed")

    def load(self, docs: Docs) -> None:
        if self.client is None:
            self._open()
        self.ids = list(docs)
        for name in COLLECTIONS:
            collection = self.collection(name)
            self.client.delete(collection, filter=EVERYTHING)
            if docs:
                self.client.insert(collection, rows(docs))
            self.client.flush(collection)
        self._wait_for_indexes()

    def _wait_for_indexes(self) -> None:
        """Until every scalar index of the indexed copy has no row pending (or ``INDEX_WAIT_S``)."""
        collection, deadline = self.collection("indexed"), time.monotonic() + INDEX_WAIT_S
        for key in INDEXED:  # an index is named after its field when the schema names none
            while time.monotonic() < deadline:
                try:
                    found = self.client.describe_index(collection, key) or {}
                except Exception:  # a server that describes no such index: nothing to wait for
                    return
                if not found.get("pending_index_rows"):
                    break
                time.sleep(0.1)

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        native, n = self.native(source), max(len(self.ids), 1)
        name = self.collection("indexed" if indexed else "plain")
        if via == "count":
            return {f"#{i}" for i in range(self.client.query(name, filter=native, output_fields=["count(*)"])[0][
                "count(*)"])}
        if via == "query":
            return {r["id"] for r in self.client.query(name, filter=native, output_fields=["id"])}
        return {h["id"] for h in self.client.search(name, [[1.0, 0.0]], limit=n, filter=native)[0]}

    def versions(self) -> dict[str, str]:
        """The client, and the server's version (once a world was loaded)."""
        found = super().versions()
        if self.client is not None:
            found["milvus (server)"] = str(self.client.get_server_version())
        return found

    def script(self, docs: Docs) -> Script:
        return Script("import os\nfrom pymilvus import DataType, MilvusClient", _SERVER_SETUP, "ask_milvus_server")

    def close(self) -> None:
        if self.client is not None:
            for name in COLLECTIONS:
                with contextlib.suppress(Exception):  # a server gone already has nothing left to drop
                    self.client.drop_collection(self.collection(name))
            with contextlib.suppress(Exception):
                self.client.close()
            self.client = None
        self._stack.close()


_SERVER_SETUP = f"""
SCHEMA = {SCHEMA!r}
INDEXED = {INDEXED!r}
mserver = MilvusClient(uri=os.environ.get("MILVUS_URI", "http://localhost:19530"),
                       token=os.environ.get("MILVUS_TOKEN", ""))
for name in ("plain", "indexed"):
    collection = f"filterproof_repro_{{name}}"
    if mserver.has_collection(collection):
        mserver.drop_collection(collection)
{collection_script("mserver", "collection")}

def ask_milvus_server(native, via, indexed):
    collection = "filterproof_repro_" + ("indexed" if indexed else "plain")
    if via == "count":
        counted = mserver.query(collection, filter=native, output_fields=["count(*)"])[0]["count(*)"]
        return {{f"#{{i}}" for i in range(counted)}}
    if via == "query":
        return {{row["id"] for row in mserver.query(collection, filter=native, output_fields=["id"])}}
    return {{hit["id"] for hit in mserver.search(collection, [[1.0, 0.0]], limit=max(len(DOCS), 1),
                                                filter=native)[0]}}
"""
