"""A real Chroma server for the ``chroma-server`` backend: ``chroma run`` as a child process, or a container.

``ChromaServer.start()`` runs the ``chroma`` executable installed with chromadb on
a free loopback port with a temporary data directory, and returns once
``/api/v2/heartbeat`` answers. It is stopped by ``stop()`` (terminate, then kill),
and, whatever happens to the caller (an exception, Ctrl-C, a forgotten close), by
a ``weakref.finalize`` that also runs at interpreter exit: no test or CLI run
leaves a server behind. Only a SIGKILL of our own process can orphan it.

``servers.chroma_container.ChromaService`` is the same server from a Docker engine,
through testcontainers.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from filterproof.errors import BackendUnavailable
from filterproof.servers.process import ChildServer

STARTUP_TIMEOUT = 60.0
POLL_INTERVAL = 0.1


_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""Heartbeats go straight to the server, whatever proxy the environment names."""



def chroma_executable() -> str:
    """The ``chroma`` next to this interpreter (the venv's), else the one on PATH."""
    beside = Path(sys.executable).parent / "chroma"
    if beside.exists():
        return str(beside)
    found = shutil.which("chroma")
    if found is None:
        raise BackendUnavailable("no 'chroma' executable next to the interpreter or on PATH: pip install chromadb")
    return found


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def heartbeat(url: str, timeout: float = 1.0) -> bool:
    """True when the server at ``url`` answers its heartbeat."""
    try:
        with _DIRECT.open(f"{url.rstrip('/')}/api/v2/heartbeat", timeout=timeout) as response:
            return 200 <= response.status < 300
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


class ChromaServer(ChildServer):
    """One ``chroma run`` child process; use ``start()`` and ``stop()`` (or ``with``)."""

    LOG_NAME = "chroma.log"

    def __init__(self, process: subprocess.Popen[bytes], url: str, workdir: str) -> None:
        super().__init__(process, workdir)
        self.url = url

    @classmethod
    def start(cls, host: str = "127.0.0.1", timeout: float = STARTUP_TIMEOUT) -> ChromaServer:
        executable = chroma_executable()
        workdir = tempfile.mkdtemp(prefix="filterproof-chroma-")
        port = free_port(host)
        command = [executable, "run", "--path", str(Path(workdir) / "data"),
                   "--host", host, "--port", str(port)]
        env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
        try:
            # The child keeps its own handle on the log. A session of its own: the terminal's
            # Ctrl-C reaches only us, and we stop the server in order.
            with open(Path(workdir) / "chroma.log", "wb") as log:
                process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log,
                                           stderr=subprocess.STDOUT, env=env, start_new_session=True)
        except OSError as error:
            shutil.rmtree(workdir, ignore_errors=True)
            raise BackendUnavailable(f"cannot run {command[0]}: {error}") from error
        server = cls(process, f"http://{host}:{port}", workdir)
        try:
            server._wait_ready(timeout)
        except BaseException:
            server.stop()
            raise
        return server

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not heartbeat(self.url):
            if self.process.poll() is not None:
                raise BackendUnavailable(f"chroma run exited with code {self.process.returncode} "
                                        f"before answering on {self.url}:\n{self.log_tail()}")
            if time.monotonic() > deadline:
                raise BackendUnavailable(f"chroma run did not answer on {self.url} within {timeout:.0f} s:\n"
                                        f"{self.log_tail()}")
            time.sleep(POLL_INTERVAL)
