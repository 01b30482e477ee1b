"""Shared test fixtures: the shipped fixtures, prepared once per session."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from filterproof.fixtures import Fixture, load_fixture
from filterproof.truth import Prepared, prepare

if TYPE_CHECKING:
    from filterproof.servers.containers import Server

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SHIPPED = ["freshness-lab.json", "authorized-recall", "adversarial.json"]


@pytest.fixture(scope="session")
def lab() -> Fixture:
    return load_fixture(FIXTURES / "freshness-lab.json")


@pytest.fixture(scope="session")
def lab_prepared(lab: Fixture) -> Prepared:
    return prepare(lab)


@pytest.fixture(scope="session")
def corpus_prepared() -> Prepared:
    return prepare(load_fixture(FIXTURES / "authorized-recall"))


@pytest.fixture(scope="session")
def adversarial() -> Prepared:
    return prepare(load_fixture(FIXTURES / "adversarial.json"))


@pytest.fixture(scope="session", params=SHIPPED)
def shipped(request: pytest.FixtureRequest) -> Prepared:
    """Each shipped fixture, prepared (vectors and policy answers) once."""
    return prepare(load_fixture(FIXTURES / request.param))


@pytest.fixture(scope="session")
def chroma_url() -> Iterator[str]:
    """``$CHROMA_URL`` when set; else one real ``chroma run`` for the session, stopped (and checked) at the end."""
    external = os.environ.get("CHROMA_URL")
    if external:
        yield external
        return
    from filterproof.servers.chroma import ChromaServer

    server = ChromaServer.start()
    yield server.url
    server.stop()
    assert server.process.returncode is not None, "chroma run still running after stop()"


@pytest.fixture(scope="session")
def qdrant_server() -> Iterator[Server]:
    """``QDRANT_URL``, else a testcontainers container for the session, else skip with the reason."""
    from filterproof.servers.qdrant import BackendUnavailable, QdrantService

    with contextlib.ExitStack() as stack:
        try:
            server = stack.enter_context(QdrantService().provide())
        except BackendUnavailable as error:
            pytest.skip(str(error))
        yield server


@pytest.fixture()
def backend_options(request: pytest.FixtureRequest) -> Callable[[str], dict[str, Any]]:
    """Options that point a server backend at the session's server (started on first use)."""

    def options(backend: str) -> dict[str, Any]:
        if backend == "chroma-server":
            return {"url": request.getfixturevalue("chroma_url")}
        if backend == "qdrant-server":
            server = request.getfixturevalue("qdrant_server")
            return {"url": server.url, "api_key": server.api_key}
        return {}

    return options
