"""Ownership: everything filterproof creates in a store says so, and filterproof drops only what says so.

Pointed at a real deployment (``PGVECTOR_DSN``, ``CHROMA_URL``, ``path=``, ``table=``,
``collection=``), filterproof shares the store with its owner's tables and collections.
So every object it creates there carries a *marker*, kept where the engine keeps a
description of its own (a table comment, collection metadata, schema metadata), and
an adapter checks the name it is about to use before it writes anything (``claim``):

* no object of that name: it creates one, with the marker;
* an object with the marker: filterproof's own (a ``table=`` kept by an earlier run),
  emptied and reused;
* an object without it: ``NotOurs``, a usage error (exit 2) that names the object and
  says how to go on (another name, or ``replace=true``, which the docs call destructive).

The marker is a small JSON text (``Marker``). ``temporary`` says whether the run that
created it drops it on close (a fresh random name) or keeps it (a name the user gave);
a killed run leaves its temporary objects behind, and ``filterproof clean`` finds them
by their marker (an adapter's ``owned_objects``) and drops those whose run is over.
Third-party adapters use the same toolkit (``examples/sqlite-store``).
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from filterproof import __version__
from filterproof.errors import UsageError

KEY = "filterproof"
"""The key (or prefix) a store keeps the marker under, where it keeps key-value metadata."""
CREATED_BY = "filterproof"


@dataclass(frozen=True)
class Marker:
    """Who created an object, when, and whether its run meant to drop it."""

    temporary: bool
    version: str
    host: str
    pid: int
    created: str
    """UTC, ISO 8601 to the second."""
    created_by: str = CREATED_BY

    @classmethod
    def new(cls, temporary: bool) -> Marker:
        now = datetime.now(UTC).replace(microsecond=0).isoformat()
        return cls(temporary, __version__, socket.gethostname(), os.getpid(), now)

    def text(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def parse(cls, text: object) -> Marker | None:
        """The marker a store kept (text or bytes), or None when it is not filterproof's."""
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        if not isinstance(text, str) or CREATED_BY not in text:
            return None
        try:
            data = json.loads(text)
            if data.get("created_by") != CREATED_BY:
                return None
            return cls(bool(data["temporary"]), str(data["version"]), str(data["host"]), int(data["pid"]),
                       str(data["created"]))
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    def age_s(self) -> float:
        try:
            return time.time() - datetime.fromisoformat(self.created).timestamp()
        except ValueError:
            return float("inf")

    def here(self) -> bool:
        """Whether it was created on this host (where a process id says whether its run still goes on)."""
        return self.host == socket.gethostname()

    def run_alive(self) -> bool:
        """Whether the process that created it (on this host) still runs; a reused process id reads as alive."""
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # another user's process
            return True
        return True


class NotOurs(UsageError):
    """A name that would make filterproof write into an object it did not create."""

    def __init__(self, backend: str, what: str, instead: str) -> None:
        super().__init__(f"{backend}: {what} exists and was not created by filterproof; nothing was written to it. "
                         f"Use {instead}, or replace=true to let filterproof drop it and everything in it "
                         "(destructive)")
        self.backend, self.what = backend, what


def claim(backend: str, what: str, *, exists: bool, mark: object, replace: bool, instead: str) -> None:
    """Go on when ``what`` does not exist, carries the marker ``mark`` (the store's stored text), or the user
    asked ``replace``; otherwise raise ``NotOurs``. Called before the first write to the name."""
    if exists and not replace and Marker.parse(mark) is None:
        raise NotOurs(backend, what, instead)


@dataclass(frozen=True)
class Owned:
    """An object of filterproof's found in a store: what it is, its marker, and how to drop it."""

    what: str
    marker: Marker
    drop: Callable[[], Any]

    def leftover(self, older_than_s: float) -> bool:
        """Left behind by a run that is over: temporary, and its process gone (created on this host) or older
        than ``older_than_s`` (created elsewhere, where we cannot see whether the run still goes on)."""
        if not self.marker.temporary:
            return False
        if self.marker.here():
            return not self.marker.run_alive()
        return self.marker.age_s() >= older_than_s
