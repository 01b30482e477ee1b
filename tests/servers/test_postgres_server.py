"""The throwaway PostgreSQL: started for real, always stopped, also on an error, Ctrl-C and SIGTERM.

Each exit path runs a real child (``filterproof compare -b pgvector`` or a short
script) with its temporary directory redirected (``TMPDIR``) to a directory of the
test's own, so that the test sees exactly the server that child started.
"""

from __future__ import annotations

import gc
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from filterproof.servers import postgres
from filterproof.servers.pgvector_container import PgvectorService
from filterproof.servers.postgres import PostgresServer
from support.paths import ROOT

pytest.importorskip("psycopg")
FILTERPROOF = Path(sys.executable).parent / "filterproof"


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_start_answers_and_stop_removes_everything() -> None:
    import psycopg

    server = PostgresServer.start()
    pid = server.process.pid
    with psycopg.connect(server.dsn) as connection:
        assert connection.execute("SELECT 1").fetchone() == (1,)
    if os.geteuid() == 0:  # PostgreSQL refuses root: the server runs as nobody
        assert Path(f"/proc/{pid}/status").read_text().split("Uid:")[1].split()[0] == str(postgres.run_as()[0])
    server.stop()
    assert not alive(pid) and not Path(server.workdir).exists()
    server.stop()  # twice is harmless


def test_a_loopback_port_instead_of_a_socket() -> None:
    import psycopg

    with PostgresServer.start(host="127.0.0.1") as server:
        assert server.host == "127.0.0.1" and server.port != 5432
        with psycopg.connect(server.dsn) as connection:
            assert connection.execute("SELECT 1").fetchone() == (1,)
    assert not server.running


def test_a_temporary_directory_closed_to_others_is_avoided(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    monkeypatch.setattr(tempfile, "tempdir", str(closed))
    expected = "/tmp" if os.geteuid() == 0 else str(closed)
    assert postgres.base_directory(postgres.run_as()) == expected


def test_a_temporary_directory_too_deep_for_a_socket_is_avoided(monkeypatch: pytest.MonkeyPatch,
                                                                 tmpdir_of_child: Path) -> None:
    """A Unix socket's path holds at most 107 bytes: under a deep TMPDIR (a test runner's, a CI job's) the server
    could not listen and every pgvector run failed ("could not create any Unix-domain sockets"). The directory is
    one others may enter, as root's server user must (tmp_path's parents are closed to it: ``/tmp`` either way)."""
    deep = tmpdir_of_child / ("d" * 100)
    deep.mkdir(mode=0o711)
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    psycopg = pytest.importorskip("psycopg")
    with PostgresServer.start() as server, psycopg.connect(server.dsn) as connection:
        assert connection.execute("SELECT 1").fetchone() == (1,)
        assert len(os.fsencode(Path(server.workdir) / ".s.PGSQL.5432")) <= postgres.SOCKET_PATH_MAX
    assert list(deep.iterdir()) == []
    deep.rmdir()


def test_a_forgotten_server_is_stopped_by_its_finalizer() -> None:
    server = PostgresServer.start()
    process, workdir = server.process, server.workdir
    del server
    gc.collect()
    assert process.returncode is not None and not Path(workdir).exists()


@pytest.fixture()
def tmpdir_of_child() -> Iterator[Path]:
    """A short temporary directory for the child's TMPDIR, so that its server is under it (a Unix socket path holds
    at most 107 bytes: under the test run's own, a RAM disk's, it would go to /tmp; ``postgres.base_directory``)."""
    path = Path(tempfile.mkdtemp(prefix="fp-child-", dir="/tmp"))
    path.chmod(0o711)  # as a TMPDIR would be: as root the server runs as nobody, who must enter it
    yield path
    leftovers = list(path.iterdir())
    for pidfile in path.glob("**/data/postmaster.pid"):  # stop a leftover by its own pid before failing
        os.kill(int(pidfile.read_text().split()[0]), signal.SIGQUIT)
    shutil.rmtree(path, ignore_errors=True)
    assert leftovers == [], f"left behind: {leftovers}"


def wait_for_server(tmp: Path, timeout: float = 60) -> int:
    """The postmaster pid of the server the child started under ``tmp``, once it is ready."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        # In the backend worker's directory, at fixed depths: a recursive glob walks into the data directory, whose
        # subdirectories initdb makes and removes as it goes (FileNotFoundError mid-walk, met on a RAM disk).
        for pidfile in [*tmp.glob("filterproof-pg-*/data/postmaster.pid"),
                        *tmp.glob("*/filterproof-pg-*/data/postmaster.pid")]:
            try:
                lines = pidfile.read_text().splitlines()
            except FileNotFoundError:  # the server removed it (a failed start): look again
                continue
            if len(lines) >= 8 and lines[7].strip() == "ready":
                return int(lines[0])
        time.sleep(0.02)
    raise AssertionError("the child started no server")


COMPARE = [str(FILTERPROOF), "compare", str(ROOT / "fixtures" / "authorized-recall"), str(ROOT / "fixtures" /
           "adversarial.json"), "-b", "pgvector", "-b", "pgvector:index=hnsw", "-b", "pgvector:index=ivfflat",
           "-b", "pgvector:index=hnsw,plan=index"]


@pytest.mark.slow  # about 7 s: two compares stopped by a signal
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_a_running_compare_leaves_no_server(tmpdir_of_child: Path, sig: signal.Signals) -> None:
    """SIGTERM (a supervisor) and SIGINT (Ctrl-C) to ``filterproof compare -b pgvector`` mid-run."""
    if sig == signal.SIGINT and signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        pytest.skip("SIGINT is ignored here (a background job), and so in the child: no Ctrl-C to test")
    child = subprocess.Popen(COMPARE, env={**os.environ, "TMPDIR": str(tmpdir_of_child)},
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        postmaster = wait_for_server(tmpdir_of_child)
        child.send_signal(sig)
        child.wait(60)
    finally:
        child.kill()
    assert child.returncode != 0, "the compare finished before the signal: make it longer"
    assert not alive(postmaster)


def test_an_error_after_the_start_leaves_no_server(tmpdir_of_child: Path) -> None:
    script = textwrap.dedent("""
        from filterproof.adapters import open_backend
        store = open_backend("pgvector")
        store.reset(2)
        raise RuntimeError("boom")
    """)
    run = subprocess.run([sys.executable, "-c", script], env={**os.environ, "TMPDIR": str(tmpdir_of_child)},
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 1 and "boom" in run.stderr


def test_an_applications_own_sigterm_handler_is_kept(tmpdir_of_child: Path) -> None:
    script = textwrap.dedent("""
        import signal
        from filterproof.servers.postgres import shared_server
        def mine(signum, frame):
            raise SystemExit(7)
        signal.signal(signal.SIGTERM, mine)
        shared_server()
        assert signal.getsignal(signal.SIGTERM) is mine
        print("ok")
    """)
    run = subprocess.run([sys.executable, "-c", script], env={**os.environ, "TMPDIR": str(tmpdir_of_child)},
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.stdout.strip() == "ok", run.stderr


def test_without_docker_the_container_path_says_why_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PGVECTOR_DSN", raising=False)
    started = time.monotonic()
    reason = PgvectorService().unavailable_reason()
    if reason is None:
        pytest.skip("a Docker engine answers here")
    assert reason.startswith("no Docker engine and no PGVECTOR_DSN") and time.monotonic() - started < 5


def test_compose_pins_the_container_image() -> None:
    service = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["pgvector"]
    assert service["image"] == PgvectorService.IMAGE
    assert service["healthcheck"]["test"][:2] == ["CMD", "pg_isready"]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root runs PostgreSQL as another user")
def test_binaries_the_server_user_cannot_reach_are_copied(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A venv under a directory closed to others (``/root``): the server runs a copy of the binaries."""
    import psycopg

    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    binaries = postgres.copy_binaries(postgres.pg_bin(), closed / "site-packages")
    monkeypatch.setattr(postgres, "pg_bin", lambda: binaries)
    with PostgresServer.start() as server:
        assert Path(server.workdir, "site", "pgserver", "pginstall", "bin", "postgres").exists()
        with psycopg.connect(server.dsn) as connection:
            connection.execute("CREATE EXTENSION vector")
            assert connection.execute("SELECT '[1,2]'::vector <=> '[2,4]'::vector").fetchone() == (0.0,)
    assert not Path(server.workdir).exists()
