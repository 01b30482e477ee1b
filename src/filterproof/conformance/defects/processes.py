"""A defect of two processes writing one store: right beside its own threads and beside another client of its
process, wrong beside a client in another process. The two-processes check fails it; the two-clients check (both
clients in one process) and the two-threads check pass it.

The store is a file that every client of it reads before each call (the reference's documents, pickled), as an
embedded store's clients share a path.
"""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from filterproof.adapters.base import Capabilities, Hit, ReaderSpec, Record
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.adapters.reference.store import ReferenceOptions
from filterproof.conformance.defects.steps import ROUND_TRIP_S
from filterproof.errors import NoSecondClient
from filterproof.policy import PolicyFilter

PROCESS_LOCK = threading.RLock()
"""The defect: one lock for every client of this process, none shared with another process's."""
FILE = "documents.pickle"


class FileOptions(ReferenceOptions):
    """``path``: the directory of the store's file (a temporary one of the writer's when not given)."""

    path: str | None = None


class LocksOneProcessOnly(ReferenceAdapter):
    """Each write reads the whole file, changes it, and writes it back a round trip later, under a lock of the
    process (a ``threading.Lock`` at module level: every client of this process waits for it, as in development,
    where one process served). Another process's write, under its own process's lock, lands between a read and its
    write back, and is lost: a revocation undone, a deleted document back."""

    name = "defect-locks-one-process-only"
    Options = FileOptions
    options: FileOptions
    capabilities = Capabilities(native_filter=True, exact=True, persistent=True, lifecycle=True,
                                staleness_bound_s=0.0, search_path="exact scan")

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._temporary: str | None = None
        self._file = Path(self.options.path, FILE) if self.options.path else None

    def reset(self, dim: int) -> None:
        if self._file is None:
            self._temporary = tempfile.mkdtemp(prefix="filterproof-defect-")
            self._file = Path(self._temporary, FILE)
        super().reset(dim)
        self._save()

    def _load(self) -> None:
        assert self._file is not None, "call reset(dim) first"
        with self._lock, open(self._file, "rb") as stored:
            self._dim, self._ids, self._vectors, self._metadata = pickle.load(stored)
            self._row = {i: r for r, i in enumerate(self._ids)}
            self._changed()

    def _save(self) -> None:
        assert self._file is not None
        with self._lock:
            state = (self._dim, self._ids, self._vectors, self._metadata)
        written = self._file.with_suffix(f".{os.getpid()}.{threading.get_ident()}")
        written.write_bytes(pickle.dumps(state))
        os.replace(written, self._file)  # a reader sees the old file or the new one, never half of one

    def _written(self, write: Any, *args: Any) -> None:
        with PROCESS_LOCK, self._lock:  # the client's lock too: its searches read its memory
            self._load()
            write(self, *args)
            time.sleep(ROUND_TRIP_S)  # the file travels back to the disk
            self._save()

    def upsert(self, records: Sequence[Record]) -> None:
        self._written(ReferenceAdapter.upsert, records)

    def delete(self, ids: Sequence[str]) -> None:
        self._written(ReferenceAdapter.delete, ids)

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        self._written(ReferenceAdapter.update_metadata, id, metadata)

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        with self._lock:
            self._load()
            return super().search(vector, k, where)

    def _location(self) -> dict[str, Any]:
        if self._file is None:
            raise NoSecondClient(f"{self.name}: call reset(dim) before opening a second writer")
        return {**self.options.model_dump(exclude_none=True), "path": str(self._file.parent)}

    def open_writer(self) -> LocksOneProcessOnly:
        return type(self)(self._location())

    def writer_spec(self) -> ReaderSpec:
        return ReaderSpec(self.name, f"{__name__}:{type(self).__qualname__}", self._location())

    def close(self) -> None:
        super().close()
        if self._temporary is not None:
            shutil.rmtree(self._temporary, ignore_errors=True)
            self._temporary = None
