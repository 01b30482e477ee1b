"""Readers: other clients of a store than the writer, in this process or in a child process.

A permissions job writes through one client; API replicas read through others, usually
in other processes. ``open_reader`` and ``reader_spec`` ask an adapter for such a
client (``adapters.base.SecondClient``); ``ChildReader`` opens one from its spec in a
child process of ours (spawned, never forked: a fork of a process whose store runs
native threads can hang) and asks it over a pipe. ``ReadOnly`` is the base of the
built-in readers: every write raises; ``StoreReader`` opens one on the writer's store.
``open_writer`` asks for another client that writes (``adapters.base.SecondWriter``):
``OpensReaders`` opens the adapter's own class on the writer's store; ``writer_spec``
opens it in another process (``ChildWriter``), where a store admits another process.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from filterproof.adapters.base import (
    Adapter,
    Hit,
    NoSecondClient,
    Reader,
    ReaderSpec,
    SecondClient,
    SecondWriter,
    SecondWriterSpec,
)
from filterproof.adapters.readers.child import ChildReader, ChildWriter, ReaderDied
from filterproof.errors import ReaderFailed
from filterproof.policy import PolicyFilter

__all__ = ["ChildReader", "ChildWriter", "NoSecondClient", "OpensReaders", "ReadOnly", "ReaderDied", "StoreReader",
           "open_reader", "open_writer", "reader_spec", "writer_spec"]


def _second(adapter: Adapter) -> SecondClient:
    if not isinstance(adapter, SecondClient):
        raise NoSecondClient(f"{adapter.name} has no second client (the adapter does not implement open_reader)")
    return adapter


def open_reader(adapter: Adapter) -> Reader:
    """Another client of ``adapter``'s store in this process; ``NoSecondClient`` says why there is none."""
    return _second(adapter).open_reader()


def open_writer(adapter: Adapter) -> Adapter:
    """Another client of ``adapter``'s store that writes, in this process; ``NoSecondClient`` says why there is
    none."""
    if not isinstance(adapter, SecondWriter):
        raise NoSecondClient(f"{adapter.name} has no second writer (the adapter does not implement open_writer)")
    return adapter.open_writer()


def reader_spec(adapter: Adapter) -> ReaderSpec:
    """What a child process opens to read ``adapter``'s store; ``NoSecondClient`` says why it cannot."""
    return _second(adapter).reader_spec()


def writer_spec(adapter: Adapter) -> ReaderSpec:
    """What a child process opens to write to ``adapter``'s store; ``NoSecondClient`` says why it cannot."""
    if not isinstance(adapter, SecondWriterSpec):
        if isinstance(adapter, SecondClient):
            adapter.reader_spec()  # where no other process may read the store (it says why), none may write
        raise NoSecondClient(f"{adapter.name} has no writer in another process (the adapter does not implement "
                             "writer_spec)")
    return adapter.writer_spec()


class OpensReaders:
    """``reader_spec`` and ``open_reader`` for an adapter whose reader is a class of its own (``reader``,
    ``"module:Class"``), built from the writer's options and where the store is (``_reader_location``)."""

    name: str
    options: Any
    reader: ClassVar[str]

    def _reader_location(self) -> dict[str, Any] | None:
        """The options that point a reader at this store (a path, a DSN, a URL; a table); None before ``reset``."""
        raise NotImplementedError

    def _on_this_store(self, opening: str) -> dict[str, Any]:
        """The writer's options pointed at this store (``_reader_location``): what another client opens."""
        where = self._reader_location()
        if where is None:
            raise NoSecondClient(f"{self.name}: call reset(dim) before opening {opening}")
        return {**self.options.model_dump(exclude_none=True), **where}

    def reader_spec(self) -> ReaderSpec:
        return ReaderSpec(self.name, self.reader, self._on_this_store("a reader"))

    def open_reader(self) -> Reader:
        return self.reader_spec().open()

    def open_writer(self) -> Adapter:
        """The adapter's own class opened on this store (its ``_reader_location``), as a reader is: a client that
        never resets the store and whose ``close`` leaves it."""
        return type(self)(self._on_this_store("a second writer"))  # type: ignore[call-arg]

    def writer_spec(self) -> ReaderSpec:
        """``open_writer``'s client, opened in another process."""
        return ReaderSpec(self.name, f"{type(self).__module__}:{type(self).__qualname__}",
                          self._on_this_store("a second writer"))


class ReadOnly:
    """A reader's writes: each raises, naming the store (a reader that wrote would hide what it misses)."""

    name: str

    def _refuse(self, what: str) -> None:
        raise NoSecondClient(f"{self.name}: a reader does not {what}; write through the writer")

    def open_writer(self) -> Any:
        self._refuse("open a writer")

    def reset(self, dim: int) -> None:
        self._refuse("reset")

    def upsert(self, records: Sequence[Any]) -> None:
        self._refuse("upsert")

    def delete(self, ids: Sequence[str]) -> None:
        self._refuse("delete")

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        self._refuse("update metadata")

    def update_metadata_batch(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        self._refuse("update metadata")  # the writer's batch (LanceDB, DuckDB, Chroma) would write through a reader

    def set_active_revisions(self, active: Any) -> None:
        """A reader of a flag-encoded store reads the flags the writer wrote; the map comes with each query."""

    def optimize(self) -> None:
        """A reader builds nothing: the writer's ``optimize`` does."""


class StoreReader(ReadOnly):
    """A built-in reader: the writer's adapter class opened on the writer's location (its ``_reader_location``
    options). Opening fails as the writer's would, or finds no table there (``_missing``); either is a
    ``ReaderFailed`` naming the backend, so a child reader's failure says which store and why."""

    backend: ClassVar[str]
    """The writer's name, which each message starts with."""
    opening_errors: ClassVar[tuple[type[Exception], ...]]
    """What the writer's ``__init__`` raises on a store it cannot open (anything else is a bug, not caught)."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        try:
            super().__init__(options)  # type: ignore[call-arg]  # the adapter class after this one in the MRO
        except self.opening_errors as error:
            raise ReaderFailed(f"{self.backend}: cannot open a reader{self._of(options)}: {error}") from error
        missing = self._missing()
        if missing:
            self.close()
            raise ReaderFailed(f"{self.backend}: no {missing} to read")

    def _of(self, options: Mapping[str, Any]) -> str:
        """Where, for the message (`` of PATH``); nothing where the location could hold a secret (a DSN)."""
        return ""

    def _missing(self) -> str | None:
        """What is not there (``table 't' in /dir``), or None when the writer's table is."""
        raise NotImplementedError


def search_here(reader: Reader, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]
                ) -> list[list[Hit]]:
    """One answer per query, through ``search_batch`` when the reader has it."""
    batch = getattr(reader, "search_batch", None)
    if batch is not None:
        return list(batch(vectors, k, wheres))
    return [reader.search(v, k, w) for v, w in zip(vectors, wheres, strict=True)]
