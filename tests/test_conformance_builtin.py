"""The conformance suite against every built-in backend that can run on this machine.

The same classes a third party would write: subclass the suite, return a fresh adapter.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from filterproof.adapters import Adapter, open_backend
from filterproof.conformance import AdapterConformanceTests


def fresh(name: str, **options: str) -> Iterator[Adapter]:
    store = open_backend(name, options)
    yield store
    store.close()


class TestReference(AdapterConformanceTests):
    @pytest.fixture()
    def adapter(self) -> Iterator[Adapter]:
        yield from fresh("reference")


class TestChroma(AdapterConformanceTests):
    @pytest.fixture()
    def adapter(self) -> Iterator[Adapter]:
        yield from fresh("chroma")


@pytest.fixture(scope="module")
def chroma_url() -> Iterator[str]:
    """CHROMA_URL, or one real `chroma run` for the whole module (one per adapter is ~1 s each)."""
    if os.environ.get("CHROMA_URL"):
        yield os.environ["CHROMA_URL"]
        return
    from filterproof.servers.chroma import ChromaServer

    with ChromaServer.start() as server:
        yield server.url


class TestChromaServer(AdapterConformanceTests):
    @pytest.fixture()
    def adapter(self, chroma_url: str) -> Iterator[Adapter]:
        yield from fresh("chroma-server", url=chroma_url)


class TestQdrantEdge(AdapterConformanceTests):
    @pytest.fixture()
    def adapter(self) -> Iterator[Adapter]:
        yield from fresh("qdrant-edge")


class TestQdrantLocal(AdapterConformanceTests):
    @pytest.fixture()
    def adapter(self) -> Iterator[Adapter]:
        yield from fresh("qdrant-local")


@pytest.mark.docker
class TestQdrantServer(AdapterConformanceTests):
    @pytest.fixture()
    def adapter(self) -> Iterator[Adapter]:
        if not os.environ.get("QDRANT_URL"):
            pytest.skip("no QDRANT_URL: start one with `docker compose up -d qdrant`")
        yield from fresh("qdrant-server")
