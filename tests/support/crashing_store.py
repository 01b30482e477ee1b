"""A seeded defect for the isolation layer: the reference store, made to die natively.

``CrashingAdapter`` answers as the reference until the call named by
``FILTERPROOF_CRASH_AT`` (``upsert``, ``build``: its ``optimize``, or ``search``), where it ends its process
the way a native engine does: a real segmentation fault (a read at address 0), or
``abort()`` with ``FILTERPROOF_CRASH_HOW=abort``. With ``FILTERPROOF_CRASH_SERVER=1`` it
first starts a throwaway PostgreSQL (a server in a session of its own, which no signal to
our process group reaches) and with ``FILTERPROOF_CRASH_DIR=path`` it makes a temporary
directory; it writes the server's pid and both directories to that file: what a crash must not leave behind.

``register()`` adds it as the backend ``crashing``; run under ``python -c`` by the tests.
"""

from __future__ import annotations

import ctypes
import os
import tempfile
from collections.abc import Sequence
from typing import Any

from filterproof.adapters.base import Hit, Record
from filterproof.adapters.reference import ReferenceAdapter


def crash() -> None:
    if os.environ.get("FILTERPROOF_CRASH_HOW") == "abort":
        os.abort()
    ctypes.string_at(0)  # SIGSEGV, as a native store's bug would


class CrashingAdapter(ReferenceAdapter):
    name = "crashing"

    def __init__(self, options: Any = None) -> None:
        super().__init__(options)
        self._at = os.environ.get("FILTERPROOF_CRASH_AT", "search")
        if os.environ.get("FILTERPROOF_CRASH_SERVER"):
            from filterproof.servers.postgres import PostgresServer

            self._server = PostgresServer.start()
            self._record(f"server {self._server.process.pid} {self._server.workdir}")
        if os.environ.get("FILTERPROOF_CRASH_DIR"):
            self._record(f"directory {tempfile.mkdtemp(prefix='filterproof-crashing-')}")

    @staticmethod
    def _record(line: str) -> None:
        with open(os.environ["FILTERPROOF_CRASH_DIR"], "a") as out:
            out.write(line + "\n")

    def upsert(self, records: Sequence[Record]) -> None:
        if self._at == "upsert":
            crash()
        super().upsert(records)

    def optimize(self) -> None:
        if self._at == "build":
            crash()

    def search(self, vector: Any, k: int, where: Any = None) -> list[Hit]:
        if self._at == "search":
            crash()
        return super().search(vector, k, where)

    def search_batch(self, vectors: Any, k: int, wheres: Any) -> list[list[Hit]]:
        if self._at == "search":
            crash()
        return super().search_batch(vectors, k, wheres)


def register() -> None:
    from filterproof.adapters import registry

    registry.BUILTIN["crashing"] = registry.Builtin("support.crashing_store:CrashingAdapter", None, None,
                                                    "the reference, made to crash natively (a test's seeded defect)")
