"""Chroma's ``where`` language over HTTP: ``chromadb.HttpClient`` to a server (``chroma-server``).

The renderer, the rules and the vias are the in-process target's (``chroma``); the filter and the metadata go
through the client's JSON and the server's parsing instead of the in-process bindings, so ``chroma`` and
``chroma-server`` are one language's two implementations, diffed by the fuzzer when both run. The server is
``$CHROMA_URL``, else a ``chroma run`` of the installed chromadb started on first use and stopped on close.
"""

from __future__ import annotations

import os
from typing import Any

from filterproof.fuzz.target import Docs, Script
from filterproof.fuzz.targets.chroma import ChromaTarget


class ChromaServerTarget(ChromaTarget):
    """``chromadb.HttpClient`` to ``$CHROMA_URL``, else to a ``chroma run`` of our own (stopped on close)."""

    name = "chroma-server"

    def __init__(self) -> None:
        super().__init__()
        self.server: Any = None

    def namespace(self) -> dict[str, Any]:
        """Nothing: the source is a dict literal. The server's executable is looked for, so that ``installed()``
        skips this target where ``chroma run`` is missing (and no CHROMA_URL is set)."""
        if not os.environ.get("CHROMA_URL"):
            from filterproof.errors import BackendUnavailable
            from filterproof.servers.chroma import chroma_executable

            try:
                chroma_executable()
            except BackendUnavailable as error:
                raise ImportError(str(error)) from error
        return {}

    def open_client(self) -> Any:
        from filterproof.adapters.chroma.clients import http_client

        url = os.environ.get("CHROMA_URL")
        if not url:
            from filterproof.servers.chroma import ChromaServer

            self.server = ChromaServer.start()
            url = self.server.url
        return http_client(url)

    def script(self, docs: Docs) -> Script:
        return Script("import os\nimport sys\nfrom urllib.parse import urlsplit\nimport chromadb\n"
                      "from chromadb.config import Settings", _SERVER_SETUP, "ask_chroma_server")

    def close(self) -> None:
        super().close()
        self.client = None
        if self.server is not None:
            self.server.stop()
            self.server = None


_SERVER_SETUP = """
# chroma-server: a `chroma run` at $CHROMA_URL (http://host:port), in a collection of its own, deleted at exit.
if not os.environ.get("CHROMA_URL"):
    print("set CHROMA_URL to a running `chroma run` (http://127.0.0.1:8000)", file=sys.stderr)
    sys.exit(2)
server_url = urlsplit(os.environ["CHROMA_URL"])
server_client = chromadb.HttpClient(host=server_url.hostname, port=server_url.port or 8000,
                                    settings=Settings(anonymized_telemetry=False))
server_collection = server_client.create_collection("filterproof-fuzz-" + os.urandom(6).hex())
server_ids = list(DOCS)
if server_ids:
    server_collection.add(ids=server_ids, embeddings=[[1.0, 0.01 * (i + 1)] for i in range(len(server_ids))],
                          metadatas=[dict(DOCS[d]) or None for d in server_ids])


def ask_chroma_server(native, via, indexed):
    if via == "get":
        return set(server_collection.get(where=native)["ids"])
    found = server_collection.query(query_embeddings=[[1.0, 0.0]], n_results=max(len(server_ids), 1),
                                    where=native)
    return set(found["ids"][0])
"""
