"""A store server for tests and benchmarks: a URL from the environment, else a container, else a clear reason.

``ContainerService`` is the common shape of ``servers.qdrant.QdrantService`` and
``servers.chroma_container.ChromaService``, in the manner of testcontainers
modules: defaults are class constants, each with an environment override, and
testcontainers is imported only when a container is actually needed, with an
error that says what to install. ``provide()`` is a context manager that yields a
``Server``:

1. the URL in ``URL_ENV`` (``QDRANT_URL``, ``CHROMA_URL``) when it is set: nothing
   is started or stopped, the server is the caller's;
2. otherwise a container of ``IMAGE`` (override: ``IMAGE_ENV``) when a Docker engine
   answers, stopped when the block ends;
3. otherwise ``BackendUnavailable`` with the reason, at once. The testcontainers
   constructor already fails within milliseconds on a missing socket; a TCP
   ``DOCKER_HOST`` that drops packets could block docker-py for its 60 s timeout, so
   such a host is first probed with a ``PROBE_TIMEOUT`` connect.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import urlsplit

from filterproof.errors import BackendUnavailable

PROBE_TIMEOUT = 1.0
DOCKER_TCP_PORT = 2375



@dataclass(frozen=True)
class Server:
    """Where a server answers, and who started it (``"env"`` or the container image)."""

    url: str
    api_key: str | None
    origin: str

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or "localhost"

    @property
    def port(self) -> int:
        parts = urlsplit(self.url)
        return parts.port or (443 if parts.scheme == "https" else 80)


def docker_host_problem(timeout: float = PROBE_TIMEOUT) -> str | None:
    """Why a TCP ``DOCKER_HOST`` does not answer, or None (answers, or not a TCP host: docker-py decides)."""
    host = os.environ.get("DOCKER_HOST", "")
    parts = urlsplit(host)
    if parts.scheme not in ("tcp", "http", "https") or not parts.hostname:
        return None
    try:
        with socket.create_connection((parts.hostname, parts.port or DOCKER_TCP_PORT), timeout=timeout):
            return None
    except OSError as error:
        return f"DOCKER_HOST={host} does not answer ({error})"


class ContainerService:
    """One kind of store server; subclasses set the constants and ``_container`` / ``_url_of``."""

    NAME: ClassVar[str]
    IMAGE: ClassVar[str]
    IMAGE_ENV: ClassVar[str]
    URL_ENV: ClassVar[str]
    API_KEY_ENV: ClassVar[str | None] = None

    @classmethod
    def image(cls) -> str:
        return os.environ.get(cls.IMAGE_ENV) or cls.IMAGE

    @classmethod
    def from_environment(cls) -> Server | None:
        url = os.environ.get(cls.URL_ENV)
        if not url:
            return None
        return Server(url.rstrip("/"), os.environ.get(cls.API_KEY_ENV) if cls.API_KEY_ENV else None, "env")

    def _container(self, image: str) -> Any:
        """A testcontainers container object, not started (its constructor contacts the engine)."""
        raise NotImplementedError

    def _url_of(self, container: Any) -> str:
        raise NotImplementedError

    def _create(self) -> Any:
        """The container, or ``BackendUnavailable`` with the reason, quickly."""
        unavailable = f"no Docker engine and no {self.URL_ENV}"
        problem = docker_host_problem()
        if problem:
            raise BackendUnavailable(f"{unavailable}: {problem}")
        try:
            return self._container(self.image())
        except ImportError as error:
            raise BackendUnavailable(
                f"no {self.URL_ENV}, and a {self.NAME} container needs testcontainers: "
                f"pip install 'filterproof[docker]' ({error})"
            ) from error
        except Exception as error:  # docker.errors.DockerException: raised by the constructor, before start
            raise BackendUnavailable(f"{unavailable}: {str(error)[:300]}") from error

    def unavailable_reason(self) -> str | None:
        """None when ``provide()`` can yield a server; else why not. Creates (never starts) a container."""
        if self.from_environment() is not None:
            return None
        try:
            self._create()
        except BackendUnavailable as error:
            return str(error)
        return None

    @contextlib.contextmanager
    def provide(self) -> Iterator[Server]:
        """The server for the duration of the block (see the module docstring)."""
        found = self.from_environment()
        if found is not None:
            yield found
            return
        container = self._create()
        container.start()
        try:
            yield Server(self._url_of(container), None, self.image())
        finally:
            container.stop()
