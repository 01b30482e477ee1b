"""A Chroma server for ``chroma-server`` and the ``docker`` tests: ``CHROMA_URL``, else a container.

Runnable on a machine with a Docker engine (or with ``CHROMA_URL`` set)::

    import chromadb
    from filterproof.servers.chroma_container import ChromaService

    with ChromaService().provide() as server:
        client = chromadb.HttpClient(host=server.host, port=server.port)
        print(client.heartbeat())

Without either, ``provide()`` raises ``BackendUnavailable("no Docker engine and no
CHROMA_URL: ...")`` within milliseconds. The testcontainers default image
(``chromadb/chroma:1.0.0``) predates list metadata, so the image is pinned to the
chromadb we test, 1.5.9 (override: ``FILTERPROOF_CHROMA_IMAGE``); its container
waits for ``/api/v2/heartbeat`` before ``provide()`` yields. ``servers.chroma`` runs
the same server without Docker, as a child process.
"""

from __future__ import annotations

import warnings
from typing import Any

from filterproof.errors import BackendUnavailable
from filterproof.servers.containers import ContainerService, Server

__all__ = ["BackendUnavailable", "ChromaService", "Server"]


class ChromaService(ContainerService):
    NAME = "Chroma"
    IMAGE = "chromadb/chroma:1.5.9"
    IMAGE_ENV = "FILTERPROOF_CHROMA_IMAGE"
    URL_ENV = "CHROMA_URL"
    PORT = 8000

    def _container(self, image: str) -> Any:
        with warnings.catch_warnings():  # its module warns about its own use of a deprecated decorator
            warnings.simplefilter("ignore", DeprecationWarning)
            from testcontainers.community.chroma import ChromaContainer

        return ChromaContainer(image=image, port=self.PORT)

    def _url_of(self, container: Any) -> str:
        config = container.get_config()
        return f"http://{config['host']}:{config['port']}"
