"""The ``chroma run`` process manager: started for real, always stopped, clear errors when it cannot run."""

from __future__ import annotations

import gc
import os
import socket
import subprocess
import sys
import textwrap
import time
from datetime import date
from pathlib import Path

import numpy as np
import pytest

from filterproof.adapters.base import Record
from filterproof.adapters.chroma import ChromaServerAdapter
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal
from filterproof.servers import chroma as servers
from filterproof.servers.chroma import BackendUnavailable, ChromaServer, heartbeat

META = {"tenant": "acme", "logical_id": "a", "revision": 1, "status": "active", "groups": ["eng"],
        "valid_from": "2026-01-01"}


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    if not Path("/proc").is_dir():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_start_answers_and_stop_ends_the_process_and_its_directory() -> None:
    server = ChromaServer.start()
    assert server.running and heartbeat(server.url)
    assert Path(server.workdir, "data").is_dir()
    server.stop()
    assert server.process.returncode is not None and not server.running
    assert not Path(server.workdir).exists()
    assert not heartbeat(server.url, timeout=0.5)
    server.stop()  # twice is harmless


def test_adapter_without_url_starts_its_own_server_and_close_stops_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHROMA_URL", raising=False)
    adapter = ChromaServerAdapter({"ef_search": "50"})
    server = adapter.server
    assert server is not None and server.running and adapter.url == server.url
    try:
        adapter.reset(2)
        adapter.upsert([Record("a1", np.array([1, 0], dtype=np.float32), META)])
        where = PolicyFilter(Principal("acme", ("eng",)), date(2026, 9, 8), ActiveRevisions.of({("acme", "a"): 1}))
        assert [h.id for h in adapter.search(np.array([1, 1], dtype=np.float32), 5, where)] == ["a1"]
    finally:
        adapter.close()
    assert server.process.returncode is not None
    assert not heartbeat(server.url, timeout=0.5)


def test_a_forgotten_server_is_stopped_by_its_finalizer() -> None:
    server = ChromaServer.start()
    process = server.process
    del server
    gc.collect()
    assert process.returncode is not None


def test_ctrl_c_in_the_owner_leaves_no_server_running(tmp_path: Path) -> None:
    script = tmp_path / "owner.py"
    script.write_text(textwrap.dedent("""
        from filterproof.servers.chroma import ChromaServer
        server = ChromaServer.start()
        print(server.process.pid, server.workdir, flush=True)
        raise KeyboardInterrupt
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert "KeyboardInterrupt" in done.stderr
    pid, workdir = done.stdout.split()
    deadline = time.monotonic() + 5
    while alive(int(pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(int(pid))
    assert not Path(workdir).exists()


def test_a_server_that_dies_at_start_is_reported_with_its_log(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        monkeypatch.setattr(servers, "free_port", lambda host="127.0.0.1": port)
        with pytest.raises(BackendUnavailable, match=rf"exited with code .*\n(?s:.*){port}"):
            ChromaServer.start()


def test_a_missing_executable_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(servers.sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(BackendUnavailable, match="no 'chroma' executable"):
        ChromaServer.start()


def docker_engine() -> bool:
    try:
        import docker

        docker.from_env().ping()
    except Exception:
        return False
    return True


@pytest.mark.filterwarnings("ignore:The @wait_container_is_ready decorator is deprecated:DeprecationWarning")
def test_docker_without_an_engine_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    if docker_engine():
        pytest.skip("a Docker engine answers here: the container path would really start")
    monkeypatch.delenv("CHROMA_URL", raising=False)
    started = time.monotonic()
    with pytest.raises(BackendUnavailable, match=r"no Docker engine and no CHROMA_URL"):
        ChromaServerAdapter({"server": "docker"})
    assert time.monotonic() - started < 30


def test_an_unknown_server_kind_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHROMA_URL", raising=False)
    with pytest.raises(ValueError, match="server"):
        ChromaServerAdapter({"server": "kubernetes"})
