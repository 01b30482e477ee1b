"""A Qdrant server for ``qdrant-server`` and the ``docker`` tests: ``QDRANT_URL``, else a container.

Runnable on a machine with a Docker engine (or with ``QDRANT_URL`` set)::

    from filterproof.evaluation.runner import Settings, prepare, run_backend
    from filterproof.fixtures import load_fixture
    from filterproof.servers.qdrant import QdrantService

    with QdrantService().provide() as server:
        runs = run_backend(prepare(load_fixture("fixtures/freshness-lab.json")), "qdrant-server",
                           Settings(), {"url": server.url, "api_key": server.api_key})

Without either, ``provide()`` raises ``BackendUnavailable("no Docker engine and no
QDRANT_URL: ...")`` within milliseconds, and the tests skip with that reason.

The image is pinned near our qdrant-client (1.20): qdrant-client accepts servers
one minor version apart without a warning. Override it with
``FILTERPROOF_QDRANT_IMAGE``; ``docker-compose.yml`` pins the same image.
"""

from __future__ import annotations

from typing import Any

from filterproof.errors import BackendUnavailable
from filterproof.servers.containers import ContainerService, Server

__all__ = ["BackendUnavailable", "QdrantService", "Server"]


class QdrantService(ContainerService):
    NAME = "Qdrant"
    IMAGE = "qdrant/qdrant:v1.19.1"
    IMAGE_ENV = "FILTERPROOF_QDRANT_IMAGE"
    URL_ENV = "QDRANT_URL"
    API_KEY_ENV = "QDRANT_API_KEY"
    REST_PORT = 6333

    def _container(self, image: str) -> Any:
        from testcontainers.community.qdrant import QdrantContainer

        return QdrantContainer(image=image, rest_port=self.REST_PORT)

    def _url_of(self, container: Any) -> str:
        return f"http://{container.get_container_host_ip()}:{container.get_exposed_port(self.REST_PORT)}"
