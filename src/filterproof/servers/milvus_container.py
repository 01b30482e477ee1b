"""A Milvus server for ``milvus:server=docker`` and the ``docker`` tests: ``MILVUS_URI``, else a container.

Runnable on a machine with a Docker engine (or with ``MILVUS_URI`` set)::

    from pymilvus import MilvusClient
    from filterproof.servers.milvus_container import MilvusService

    with MilvusService().provide() as server:
        print(MilvusClient(uri=server.url).list_collections())

Without either, ``provide()`` raises ``BackendUnavailable("no Docker engine and no
MILVUS_URI: ...")`` within milliseconds. The image is Milvus standalone with its embedded
etcd and local storage (override: ``FILTERPROOF_MILVUS_IMAGE``; ``docker-compose.yml``
pins the same); testcontainers waits for its ``/healthz``. Milvus Lite (the ``milvus``
backend's default) needs neither.
"""

from __future__ import annotations

import warnings
from typing import Any

from filterproof.errors import BackendUnavailable
from filterproof.servers.containers import ContainerService, Server

__all__ = ["BackendUnavailable", "MilvusService", "Server"]


class MilvusService(ContainerService):
    NAME = "milvus"
    IMAGE = "milvusdb/milvus:v2.6.6"
    IMAGE_ENV = "FILTERPROOF_MILVUS_IMAGE"
    URL_ENV = "MILVUS_URI"
    API_KEY_ENV = "MILVUS_TOKEN"

    def _container(self, image: str) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            from testcontainers.community.milvus import MilvusContainer

        return MilvusContainer(image=image)

    def _url_of(self, container: Any) -> str:
        return str(container.get_connection_url())
