"""What the servers filterproof starts itself share: a child process, its directory, and a sure stop.

A ``ChildServer`` owns one process (started in a session of its own, so that the
terminal's Ctrl-C reaches only us) and one temporary directory (its data and its
log). ``stop()`` sends the stop signals in order, waiting a few seconds after each,
and removes the directory; a ``weakref.finalize`` does the same when the object is
collected and at interpreter exit, so an exception or Ctrl-C leaves nothing behind.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Self

from filterproof.servers import leftovers

STOP_TIMEOUT = 10.0
LOG_TAIL = 3000


def shutdown(process: subprocess.Popen[bytes], workdir: str, signals: Sequence[int]) -> None:
    """Each signal in turn until the process ends (a few seconds each), then remove the directory."""
    for sig in signals:
        if process.poll() is not None:
            break
        process.send_signal(sig)
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            continue
    shutil.rmtree(workdir, ignore_errors=True)


class ChildServer:
    """One child process and its directory; subclasses start it and say which signals stop it."""

    STOP_SIGNALS: tuple[int, ...] = (signal.SIGTERM, signal.SIGKILL)
    LOG_NAME = "server.log"

    def __init__(self, process: subprocess.Popen[bytes], workdir: str) -> None:
        self.process, self.workdir = process, workdir
        self._finalizer = weakref.finalize(self, shutdown, process, workdir, self.STOP_SIGNALS)
        leftovers.announce(process.pid, workdir, self.STOP_SIGNALS)  # stopped by the parent if we die natively

    def log_tail(self) -> str:
        try:
            return (Path(self.workdir) / self.LOG_NAME).read_bytes()[-LOG_TAIL:].decode(errors="replace")
        except OSError:
            return "(no log)"

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        self._finalizer()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
