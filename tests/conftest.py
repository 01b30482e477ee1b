"""Shared test fixtures: the shipped fixtures, prepared once per session."""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from filterproof.evaluation.truth import Prepared, prepare
from filterproof.fixtures import Fixture, load_fixture
from support import scratch
from support.paths import FIXTURES

if TYPE_CHECKING:
    from filterproof.servers.containers import Server

SHIPPED = ["freshness-lab.json", "authorized-recall", "adversarial.json"]
_SCRATCH = pytest.StashKey[Path]()


def pytest_configure(config: pytest.Config) -> None:
    """The run's throwaway files on a RAM file system where there is one (``support.scratch``): made by the main
    process before the workers start, so that they and everything they start inherit it."""
    if hasattr(config, "workerinput"):
        return
    directory = scratch.ram_directory()
    if directory is not None:
        scratch.use(directory)
        config.stash[_SCRATCH] = directory


def pytest_unconfigure(config: pytest.Config) -> None:
    directory = config.stash.get(_SCRATCH, None)
    if directory is not None:
        scratch.remove(directory)


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


LONGEST_FIRST = ("tests/conformance/test_conformance_suite.py", "tests/cli/test_ownership.py",
                 "tests/fuzz/test_fuzz.py", "tests/cli/test_stops.py", "tests/evaluation/test_congruence.py",
                 "tests/conformance/test_conformance_builtin.py::TestLanceDB", "tests/cli/test_bad_input.py",
                 "tests/embedding/test_own_vectors.py", "tests/conformance/test_mutants_stay_killed.py",
                 "tests/fuzz/test_fuzz_selfquery.py", "tests/adapters/test_haystack.py",
                 "tests/scaffold/test_several_backends.py", "tests/fuzz/test_fuzz_milvus.py")
"""Work units (``--dist loadscope``: a module's functions, or a class) of a few long tests each, longest first: the
quick set's three (75, 52 and 30 s of one worker, measured idle on 0e562b5), then the slow set's (measured on 62e9fd8,
idle: 91, 79, 74, 63, 60, 58, 53, 50, 58, 44 and 36 s). xdist's own order, most tests first, handed them out last, so
one worker ran one alone while the other sat idle (about five minutes of the slow set when this was first
measured)."""


def _scope(item: pytest.Item) -> str:
    return item.nodeid.rsplit("::", 1)[0]  # xdist's loadscope unit (LoadScopeScheduling._split_scope)


def _never(item: pytest.Item) -> bool:
    return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """What another test module already runs deselected (a module's ``quick_tier_ran(item)``); then the units above
    first, the others most tests first (xdist's order, which pyproject's ``--no-loadscope-reorder`` turns off so that
    this one holds); each unit's tests keep their order."""
    ran = [item for item in items if getattr(getattr(item, "module", None), "quick_tier_ran", _never)(item)]
    if ran:
        config.hook.pytest_deselected(items=ran)
        dropped = set(map(id, ran))
        items[:] = [item for item in items if id(item) not in dropped]
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        units.setdefault(_scope(item), []).append(item)

    def rank(scope: str) -> tuple[int, int]:
        first = LONGEST_FIRST.index(scope) if scope in LONGEST_FIRST else len(LONGEST_FIRST)
        return first, -len(units[scope])

    items[:] = [item for scope in sorted(units, key=rank) for item in units[scope]]


def pytest_collection_finish(session: pytest.Session) -> None:
    """What the collection imported (every store client, three frameworks: a few million objects) is moved out of
    the garbage collector's reach (``gc.freeze``), so that a full collection traverses only what tests create.

    Why: ``compare`` collects garbage between its phases (``runner.release_memory``), cheap in its own process and
    about 50 ms a call in a test worker holding every import, about half of each in-process ``compare`` on a small
    fixture (measured with cProfile: 1.7 of 2.8 s in tests/cli/test_ownership.py's DuckDB test)."""
    gc.collect()
    gc.freeze()
