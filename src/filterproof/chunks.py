"""Reading a fixture's documents in chunks, whatever holds them.

Everything that walks the whole corpus (the embedding, the exact ground truth, each
backend's ingest, writing a generated corpus out) reads it through ``chunks``, so
that only one chunk of texts and metadata dicts is alive at a time. A loaded
fixture is a list already, and its chunks are slices of it; a generated corpus
(``scale.corpus``) builds each chunk from its compact columns and drops it after
use, which is what bounds a million-document sweep's memory.

    >>> from filterproof.fixtures import load_fixture, shipped
    >>> fx = load_fixture(shipped("freshness-lab.json"))
    >>> [(c.start, c.ids) for c in chunks(fx, 4, texts=False)]
    [(0, ['retry-v1', 'retry-v2', 'keys-private-v1', 'keys-public-v1']), (4, ['refund-v2', 'other-tenant-v1'])]
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from filterproof.fixtures import Fixture


@dataclass(frozen=True)
class Chunk:
    """Rows ``start`` to ``stop`` of a fixture: ids, metadata as given, and texts when asked for."""

    start: int
    ids: list[str]
    metadata: list[Mapping[str, Any]]
    texts: list[str] | None = None

    @property
    def stop(self) -> int:
        return self.start + len(self.ids)

    def __len__(self) -> int:
        return len(self.ids)


@runtime_checkable
class Chunked(Protocol):
    """A fixture that builds its documents on demand (a generated corpus) rather than holding them."""

    def chunks(self, size: int, texts: bool = True) -> Iterator[Chunk]:
        """The documents in fixture order, ``size`` at a time; texts only when ``texts``."""
        ...

    def texts_of(self, rows: Sequence[int]) -> list[str]:
        """The texts of any rows, in the order given (the embedding's fitting sample)."""
        ...


def chunks(fixture: Fixture, size: int, texts: bool = True) -> Iterator[Chunk]:
    """The fixture's documents in order, ``size`` at a time."""
    if size < 1:
        raise ValueError(f"chunk size must be positive, got {size}")
    if isinstance(fixture, Chunked):
        yield from fixture.chunks(size, texts)
        return
    docs = fixture.documents
    for start in range(0, len(docs), size):
        part = docs[start:start + size]
        yield Chunk(start, [d.id for d in part], [d.metadata for d in part], [d.text for d in part] if texts else None)


def texts_of(fixture: Fixture, rows: Sequence[int]) -> list[str]:
    """The texts of the given rows."""
    if isinstance(fixture, Chunked):
        return fixture.texts_of(rows)
    return [fixture.documents[r].text for r in rows]
