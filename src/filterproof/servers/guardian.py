"""A small process that outlives a killed run and removes what the run left behind.

SIGKILL and the OOM killer end a process with no cleanup at all: no ``finally``, no exit
handler, no signal handler. Each layer of the run has its own answer:

* the locks on store paths are ``flock`` locks, which the kernel releases;
* the sweep's vector file is unlinked as soon as it is created and read through its
  descriptor, so the kernel reclaims it (``vectors.VectorFile``);
* a worker process (``isolation``) asks the kernel to kill it when its parent dies
  (``PR_SET_PDEATHSIG``);
* what remains is kept by this guardian: the workers' directories, and the servers the
  run started (``chroma run``, the throwaway PostgreSQL). Those servers run in sessions
  of their own, so they outlive the run, and so do their data directories.

``watch()`` starts the guardian once per process (``compare``, ``sweep`` and ``matrix``
call it). It is a fresh interpreter, ``python -m filterproof.servers.guardian PID``, in a
session of its own, so that a Ctrl-C or a SIGTERM to the process group does not stop it
half way. It reads one JSON line per resource on its stdin: ``{"path": ...}``,
``{"process": pid, "started": ticks}`` or ``{"server": pid, "started": ticks, "workdir":
..., "signals": [...]}``. Workers inherit the pipe and write to it too: a line is far
below ``PIPE_BUF``, so each write is atomic. Every 0.1 s the guardian checks that its
parent is still the process that started it. When the parent is gone without having said
``done`` (a run that ends, even by SIGTERM or Ctrl-C, cleans up itself and says it), the
guardian kills the processes, stops the servers, removes the paths and exits. A process
is signalled only if its start time is still the one recorded, never a stranger that
reused the pid.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from typing import IO, Any, NoReturn

from filterproof.servers import leftovers

POLL = 0.1
"""Seconds between checks that the parent is alive."""
GRACE = 1.0
"""Seconds after each stop signal to a server before the next."""

_pipe: IO[bytes] | None = None


def started(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (``/proc/PID/stat`` field 22), or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == b"Z" else int(fields[19])


PR_SET_PDEATHSIG = 1
"""prctl(2): a signal for this process when its parent dies (Linux)."""


def die_with(parent: int) -> None:
    """Ask the kernel for SIGKILL when the parent dies (a SIGKILL of the run must not leave us running)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it died before the request took effect
        os._exit(1)


def watch() -> None:
    """Start this process's guardian, once; a no-op where ``/proc`` does not exist (not Linux)."""
    global _pipe
    if _pipe is not None or not os.path.isdir("/proc"):
        return
    guardian = subprocess.Popen([sys.executable, "-m", "filterproof.servers.guardian", str(os.getpid())],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)  # nothing of ours on a terminal or a pipe after the run
    _pipe = guardian.stdin
    atexit.register(_done)
    leftovers.listen(lambda left: guard(server=left.pid, workdir=left.workdir, signals=list(left.signals)))


def guard(**resource: Any) -> None:
    """Hand a resource to the guardian (nothing when none runs); a pid is recorded with its start time."""
    pid = resource.get("process", resource.get("server"))
    if pid is not None:
        resource["started"] = started(pid)
    _send(json.dumps(resource))


def _send(line: str) -> None:
    if _pipe is None:
        return
    with contextlib.suppress(OSError, ValueError):  # the guardian is gone: there is nobody to tell
        _pipe.write(line.encode() + b"\n")
        _pipe.flush()


def _done() -> None:
    """The run ended and cleaned up itself: the guardian leaves everything as it is."""
    global _pipe
    _send("done")
    with contextlib.suppress(OSError, ValueError):
        if _pipe is not None:
            _pipe.close()
    _pipe = None


def end_stopped(code: int) -> NoReturn:
    """End a run stopped by a signal, now: the exit handlers run (the servers' stop, the guardian's "done"),
    the interpreter's teardown does not (freeing a large run's objects one by one took half a second here,
    and a stop has 2 seconds in all)."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


# -- the guardian's side -----------------------------------------------------------------


def _same(resource: dict[str, Any], pid: int) -> bool:
    return resource.get("started") is not None and started(pid) == resource["started"]


def _stop(pid: int, signals: list[int], resource: dict[str, Any]) -> None:
    for sig in signals:
        if not _same(resource, pid):
            return
        with contextlib.suppress(OSError):
            os.kill(pid, sig)
        deadline = time.monotonic() + GRACE
        while _same(resource, pid) and time.monotonic() < deadline:
            time.sleep(0.02)


def clean(resources: list[dict[str, Any]]) -> None:
    """Kill the processes, stop the servers, remove the paths and the servers' directories."""
    for resource in resources:
        if "process" in resource:
            _stop(resource["process"], [signal.SIGKILL], resource)
    for resource in resources:
        if "server" in resource:
            _stop(resource["server"], resource.get("signals") or [signal.SIGKILL], resource)
            shutil.rmtree(resource["workdir"], ignore_errors=True)
    for resource in resources:
        if "path" in resource:
            path = resource["path"]
            if os.path.isdir(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(path)


def main(parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # our parent decides when a run ends, not the terminal
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    resources: list[dict[str, Any]] = []
    lines = _Lines(sys.stdin.fileno())
    while os.getppid() == parent:
        for line in lines.read(POLL):
            if line == b"done":
                return
            resources.append(_parsed(line))
        if lines.closed:  # every writer closed its end without "done": see whether the parent lives
            time.sleep(POLL)
            if os.getppid() == parent:
                return
            break
    for line in lines.read(0.0, drain=True):  # what the parent wrote just before it died
        if line == b"done":
            return
        resources.append(_parsed(line))
    clean([r for r in resources if r])


class _Lines:
    """Lines from a pipe, as they arrive."""

    def __init__(self, fd: int) -> None:
        self.fd, self.buffer, self.closed = fd, b"", False

    def read(self, timeout: float, drain: bool = False) -> list[bytes]:
        found = []
        while not self.closed:
            ready, _, _ = select.select([self.fd], [], [], timeout)
            if not ready:
                break
            chunk = os.read(self.fd, 65536)
            self.closed = not chunk
            *lines, self.buffer = (self.buffer + chunk).split(b"\n")
            found += lines
            if not drain:
                break
        return found


def _parsed(line: bytes) -> dict[str, Any]:
    try:
        parsed = json.loads(line)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


if __name__ == "__main__":
    main(int(sys.argv[1]))
