"""A reader in a child process: ``ChildReader`` (our side) and ``main`` (the child's side); ``ChildWriter``, a
client in a child process that writes too.

The child is a fresh interpreter (``python -m filterproof.adapters.readers.child``), spawned, not
forked: forking a process whose store runs native threads can hang the child. It dies
with us (``PR_SET_PDEATHSIG``), opens the reader from its ``ReaderSpec`` and answers
requests over two pipes of pickled messages; its own output goes to a log whose tail
names what went wrong when it fails or dies. It creates nothing on disk besides the log,
which we remove, so a killed reader leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from filterproof.adapters.base import Hit, ReaderSpec, Record, sync_active
from filterproof.errors import ReaderFailed
from filterproof.policy import ActiveRevisions, PolicyFilter

OPEN_TIMEOUT = 120.0
"""Seconds a child may take to import its store and open the reader."""
REPLY_TIMEOUT = 300.0
CLOSE_TIMEOUT = 10.0
"""Seconds a child may take to answer ``close`` and to exit after it (closing its reader, its interpreter)."""
LOG_TAIL = 1500
WRITES = frozenset({"upsert", "delete", "update_metadata", "set_active_revisions"})
"""What a ``ChildWriter`` asks its child to call on the client it opened."""


class ReaderDied(ReaderFailed):
    """The reader's process ended, or answered with an error; the message names the backend and why."""


class ChildReader:
    """A reader opened from ``spec`` in a child process: ``search``, ``search_batch``, ``load``, ``close``."""

    role = "reader"

    def __init__(self, spec: ReaderSpec) -> None:
        self.spec, self.name = spec, f"{spec.backend} ({self.role} in pid {{}})"
        self._asking = threading.Lock()  # one request on the pipes at a time, whichever thread asks
        self._log = tempfile.NamedTemporaryFile(prefix=f"filterproof-{self.role}-", suffix=".log")  # noqa: SIM115
        ours_in, theirs_out = os.pipe()
        theirs_in, ours_out = os.pipe()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "filterproof.adapters.readers.child", str(os.getpid()), str(theirs_in),
                 str(theirs_out)], pass_fds=(theirs_in, theirs_out), stdin=subprocess.DEVNULL, stdout=self._log,
                stderr=subprocess.STDOUT)
        finally:
            os.close(theirs_in)
            os.close(theirs_out)
        self.name = self.name.format(self.process.pid)
        self._to = Connection(ours_out, readable=False)
        self._from = Connection(ours_in, writable=False)
        try:
            self._ask(("open", spec, list(sys.path)), OPEN_TIMEOUT)
        except BaseException:
            self.kill()
            raise

    def _ask(self, message: tuple[Any, ...], timeout: float = REPLY_TIMEOUT) -> Any:
        try:
            with self._asking:
                self._to.send(message)
                if not self._from.poll(timeout):
                    raise ReaderDied(f"{self.spec.backend}: the {self.role} process gave no answer in "
                                     f"{timeout:.0f} s{self._tail()}")
                kind, value = self._from.recv()
        except (EOFError, OSError, BrokenPipeError):
            raise ReaderDied(f"{self.spec.backend}: the {self.role} process {self._ended()}{self._tail()}") from None
        if kind == "error":
            raise ReaderDied(f"{self.spec.backend}: the {self.role} {value}")
        return value

    def _ended(self) -> str:
        try:
            code = self.process.wait(5)
        except subprocess.TimeoutExpired:
            return "stopped answering"
        return f"died of {signal.Signals(-code).name}" if code < 0 else f"exited with status {code}"

    def _tail(self) -> str:
        with contextlib.suppress(OSError):
            with open(self._log.name, "rb") as log:
                text = log.read()[-LOG_TAIL:].decode("utf-8", "replace").strip()
            return f"; its output ends: {text}" if text else ""
        return ""

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        return self.search_batch(np.asarray(vector, dtype=np.float32)[None, :], k, [where])[0]

    def search_batch(self, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]) -> list[list[Hit]]:
        return list(self._ask(("search", np.asarray(vectors, dtype=np.float32), k, list(wheres))))

    def load(self, plan: Any) -> None:
        """Start querying continuously under ``plan`` (``readers.load.Plan``) until ``finish``."""
        self._ask(("load", plan))

    def finish(self, timeout: float = REPLY_TIMEOUT) -> Any:
        """Stop the load and return what it observed."""
        return self._ask(("finish",), timeout)

    def close(self) -> None:
        """Ask the child to close its reader and exit, wait for it (``CLOSE_TIMEOUT``), then ``kill`` what is left:
        a child killed as soon as it answered would cut its store's connections instead of closing them."""
        with contextlib.suppress(ReaderDied, OSError, subprocess.TimeoutExpired):
            if self.process.poll() is None:
                self._ask(("close",), CLOSE_TIMEOUT)
                self.process.wait(CLOSE_TIMEOUT)
        self.kill()

    def kill(self) -> None:
        """End the child at once (a stop, a failure) and remove its log."""
        if self.process.poll() is None:
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        for end in (self._to, self._from):
            with contextlib.suppress(OSError):
                end.close()
        self._log.close()


class ChildWriter(ChildReader):
    """A client opened from ``spec`` (a ``writer_spec``) in a child process that writes too: the publishing
    service beside the permissions job, each a process of its own. Each write is made in the child, whole, before
    the call returns; calls from several threads take turns on the pipes."""

    role = "writer"

    def upsert(self, records: Sequence[Record]) -> None:
        self._ask(("call", "upsert", (list(records),)))

    def delete(self, ids: Sequence[str]) -> None:
        self._ask(("call", "delete", (list(ids),)))

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        self._ask(("call", "update_metadata", (id, dict(metadata))))

    def set_active_revisions(self, active: ActiveRevisions) -> None:
        self._ask(("call", "set_active_revisions", (active,)))


def serve(inbox: Connection, outbox: Connection) -> None:
    """Answer requests until ``close`` (or the pipe closes): open, search, load, finish, and a writer's calls."""
    from filterproof.adapters.readers.load import Load

    reader: Any = None
    load: Load | None = None
    while True:
        try:
            message = inbox.recv()
        except EOFError:
            break
        kind = message[0]
        try:
            if kind == "open":
                sys.path[:0] = [p for p in message[2] if p not in sys.path]
                reader = message[1].open()
                reply: Any = reader.name
            elif kind == "search":
                from filterproof.adapters.readers import search_here

                reply = search_here(reader, message[1], message[2], message[3])
            elif kind == "load":
                load = Load(reader, message[1])
                load.start()
                reply = None
            elif kind == "finish":
                reply = load.finish() if load is not None else None
            elif kind == "call" and message[1] in WRITES:
                if message[1] == "set_active_revisions":  # a store that takes no map ignores it, as here
                    sync_active(reader, *message[2])
                else:
                    getattr(reader, message[1])(*message[2])
                reply = None
            elif kind == "close":
                outbox.send(("ok", None))
                break
            else:
                raise ValueError(f"unknown request {kind!r}")
        except Exception as error:  # sent back: the parent names the backend and raises
            what = "could not open" if kind == "open" else f"failed on {message[1] if kind == 'call' else kind}"
            outbox.send(("error", f"{what}: {type(error).__name__}: {error}"))
            continue
        outbox.send(("ok", reply))
    if reader is not None:
        with contextlib.suppress(Exception):
            reader.close()


def main(argv: Sequence[str]) -> None:
    from filterproof.servers.guardian import die_with

    parent, inbox, outbox = (int(a) for a in argv)
    die_with(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C reaches the whole group: the parent stops us
    serve(Connection(inbox, writable=False), Connection(outbox, readable=False))


if __name__ == "__main__":
    main(sys.argv[1:])
