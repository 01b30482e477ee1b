"""Server provisioning: a URL from the environment, else a container, else a quick, clear skip.

On a machine without a Docker engine the ``docker`` tests must be reported as
skipped with the reason, at once; these tests prove the "at once" part with the
engine pointed nowhere, and that ``docker-compose.yml`` pins the same images the
testcontainers path uses.
"""

from __future__ import annotations

import contextlib
import socket
import time

import pytest

from filterproof.servers.chroma_container import ChromaService
from filterproof.servers.containers import BackendUnavailable, ContainerService, Server, docker_host_problem
from filterproof.servers.qdrant import QdrantService
from support.paths import ROOT

SERVICES = [QdrantService, ChromaService]
# Loopback only: a socket that does not exist, and a port nothing listens on.
NOWHERE = ["unix:///nonexistent/filterproof/docker.sock", "tcp://127.0.0.1:9"]


@pytest.mark.parametrize("docker_host", NOWHERE)
@pytest.mark.parametrize("service", SERVICES)
def test_no_engine_and_no_url_is_reported_within_seconds(
    monkeypatch: pytest.MonkeyPatch, service: type[ContainerService], docker_host: str
) -> None:
    monkeypatch.setenv("DOCKER_HOST", docker_host)
    monkeypatch.delenv(service.URL_ENV, raising=False)
    started = time.monotonic()
    reason = service().unavailable_reason()
    assert reason is not None and reason.startswith(f"no Docker engine and no {service.URL_ENV}")
    with pytest.raises(BackendUnavailable, match=f"no Docker engine and no {service.URL_ENV}"), service().provide():
        pass
    assert time.monotonic() - started < 5.0


def test_a_tcp_docker_host_is_probed_before_docker_py_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as closed:  # a port with nothing listening: refused at once
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("DOCKER_HOST", f"tcp://127.0.0.1:{port}")
    problem = docker_host_problem(timeout=0.5)
    assert problem is not None and "does not answer" in problem
    with socket.socket() as listening:  # something answers: left to docker-py to judge
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        monkeypatch.setenv("DOCKER_HOST", f"tcp://127.0.0.1:{listening.getsockname()[1]}")
        assert docker_host_problem(timeout=0.5) is None
    monkeypatch.setenv("DOCKER_HOST", "unix:///var/run/docker.sock")
    assert docker_host_problem() is None  # not TCP: docker-py fails fast on a missing socket itself


@pytest.mark.parametrize("service", SERVICES)
def test_a_url_in_the_environment_is_used_as_is(monkeypatch: pytest.MonkeyPatch,
                                                 service: type[ContainerService]) -> None:
    monkeypatch.setenv(service.URL_ENV, "http://store.example:6333/")
    monkeypatch.setenv("QDRANT_API_KEY", "secret")
    monkeypatch.setenv("DOCKER_HOST", NOWHERE[0])  # never consulted
    assert service().unavailable_reason() is None
    with service().provide() as server:
        assert (server.url, server.host, server.port, server.origin) == ("http://store.example:6333", "store.example",
                                                                          6333, "env")
        assert server.api_key == ("secret" if service is QdrantService else None)


@pytest.mark.parametrize("service", SERVICES)
def test_images_are_pinned_and_overridable(monkeypatch: pytest.MonkeyPatch, service: type[ContainerService]) -> None:
    name, _, tag = service.IMAGE.partition(":")
    assert tag and tag != "latest"
    assert service.image() == service.IMAGE
    monkeypatch.setenv(service.IMAGE_ENV, f"{name}:other")
    assert service.image() == f"{name}:other"


def test_compose_file_pins_the_same_images_with_health_checks_the_images_can_run() -> None:
    yaml = pytest.importorskip("yaml")
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    qdrant, chroma = compose["services"]["qdrant"], compose["services"]["chroma"]
    assert qdrant["image"] == QdrantService.IMAGE and chroma["image"] == ChromaService.IMAGE
    assert {p.split("#")[0].strip() for p in qdrant["ports"]} == {"6333:6333", "6334:6334"}
    assert chroma["ports"] == ["8000:8000"]
    for service in (qdrant, chroma):
        test = service["healthcheck"]["test"]
        assert test[:3] == ["CMD", "bash", "-c"]  # the images have bash, and no curl or wget
        assert "curl" not in test[3] and "wget" not in test[3] and "/dev/tcp/127.0.0.1/" in test[3]


@pytest.mark.docker
def test_the_provided_qdrant_server_answers(qdrant_server: Server) -> None:
    from qdrant_client import QdrantClient

    client = QdrantClient(url=qdrant_server.url, api_key=qdrant_server.api_key)
    try:
        assert isinstance(client.get_collections().collections, list)
    finally:
        client.close()


@pytest.mark.docker
def test_the_provided_chroma_server_answers() -> None:
    with contextlib.ExitStack() as stack:
        try:
            server = stack.enter_context(ChromaService().provide())
        except BackendUnavailable as error:
            pytest.skip(str(error))
        chromadb = pytest.importorskip("chromadb")
        client = chromadb.HttpClient(host=server.host, port=server.port)
        assert client.heartbeat() > 0
