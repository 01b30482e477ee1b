"""A generated corpus held as columns, read as documents only where and when they are needed.

``GeneratedFixture`` is a ``Fixture`` whose documents are not stored: it keeps the
population's narrow integer columns, every background document's words as indices,
the planted documents' texts packed, and the metadata's own draws (about 150 bytes a
document at 1M, against 3-4 KB for a ``Document`` with its text and metadata dict).
Everything that reads the whole corpus asks for ``chunks`` (``filterproof.fixtures.chunks``),
and ``documents`` is a read-only sequence that builds what is indexed, so code
written for loaded fixtures (``len(fx.documents)``, ``fx.documents[row]``, a loop
over them) still works, one chunk alive at a time.

Document ids are ``d`` + the row number, zero-padded to seven digits; ``order`` (id ->
row) reads the row back from the id instead of holding a dict of a million ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import numpy as np

from filterproof.fixtures import Document, Fixture
from filterproof.fixtures.chunks import Chunk
from filterproof.policy import problem
from filterproof.scale.metadata import MetadataMaker
from filterproof.scale.text import Background, PackedTexts, TextMaker

READ_CHUNK = 4096
"""Rows per chunk when a generated fixture is iterated as a plain sequence of documents."""
_ROW_ID = re.compile(r"d(\d{7,})")


def row_id(row: int) -> str:
    """The id of a generated document: ``d0000042``."""
    return f"d{row:07d}"


class RowIds(Mapping[str, int]):
    """id -> row for a generated corpus, computed from the id (no dict of N ids)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __getitem__(self, doc_id: str) -> int:
        match = _ROW_ID.fullmatch(doc_id) if isinstance(doc_id, str) else None
        row = int(match.group(1)) if match else -1
        if not 0 <= row < self.n or row_id(row) != doc_id:
            raise KeyError(doc_id)
        return row

    def __iter__(self) -> Iterator[str]:
        return (row_id(r) for r in range(self.n))

    def __len__(self) -> int:
        return self.n


@dataclass
class CorpusColumns:
    """What a generated corpus holds for every row, and how it turns rows into documents."""

    n: int
    maker: TextMaker
    background: Background
    planted: PackedTexts
    metadata: MetadataMaker

    def texts(self, rows: np.ndarray) -> list[str]:
        """The texts of ``rows`` (a row array), planted texts in place of background ones."""
        texts = self.maker.texts(self.background, rows)
        self.planted.apply(rows, texts)
        return texts

    def chunk(self, start: int, stop: int, texts: bool = True) -> Chunk:
        rows = np.arange(start, stop)
        return Chunk(start, [row_id(r) for r in range(start, stop)], list(self.metadata.rows(start, stop)),
                     self.texts(rows) if texts else None)


class LazyDocuments(Sequence[Document]):
    """A generated fixture's documents as a read-only sequence, built on access."""

    def __init__(self, columns: CorpusColumns) -> None:
        self.columns = columns

    def __len__(self) -> int:
        return self.columns.n

    @overload
    def __getitem__(self, index: int) -> Document: ...

    @overload
    def __getitem__(self, index: slice) -> list[Document]: ...

    def __getitem__(self, index: int | slice) -> Document | list[Document]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self.columns.n)
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return _documents(self.columns.chunk(start, max(start, stop)))
        row = index + self.columns.n if index < 0 else index
        if not 0 <= row < self.columns.n:
            raise IndexError(index)
        return _documents(self.columns.chunk(row, row + 1))[0]

    def __iter__(self) -> Iterator[Document]:
        for start in range(0, self.columns.n, READ_CHUNK):
            yield from self[start:start + READ_CHUNK]


def _documents(chunk: Chunk) -> list[Document]:
    assert chunk.texts is not None
    return [Document(*d) for d in zip(chunk.ids, chunk.texts, chunk.metadata, strict=True)]


@dataclass
class GeneratedFixture(Fixture):
    """A ``Fixture`` over ``CorpusColumns``: documents built on demand, in chunks (``filterproof.fixtures.chunks``)."""

    columns: CorpusColumns | None = field(default=None, repr=False, kw_only=True)
    _malformed: dict[str, str] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.order = RowIds(len(self.documents))  # type: ignore[assignment]

    @property
    def source(self) -> CorpusColumns:
        if self.columns is None:
            raise RuntimeError("a GeneratedFixture needs its columns")
        return self.columns

    def chunks(self, size: int, texts: bool = True) -> Iterator[Chunk]:
        for start in range(0, self.source.n, size):
            yield self.source.chunk(start, min(self.source.n, start + size), texts)

    def texts_of(self, rows: Sequence[int]) -> list[str]:
        return self.source.texts(np.asarray(rows, dtype=np.int64))

    def malformed(self) -> dict[str, str]:
        """Document id -> why it can never be eligible, in row order (one pass over the metadata, then kept)."""
        if self._malformed is None:
            found: dict[str, str] = {}
            for chunk in self.chunks(READ_CHUNK * 4, texts=False):
                for doc_id, meta in zip(chunk.ids, chunk.metadata, strict=True):
                    why = problem(meta, self.active)
                    if why:
                        found[doc_id] = why
            self._malformed = found
        return self._malformed


def generated_fixture(columns: CorpusColumns, **fields: Any) -> GeneratedFixture:
    """A ``GeneratedFixture`` over ``columns`` (``fields``: the ``Fixture`` fields but documents)."""
    return GeneratedFixture(documents=LazyDocuments(columns), columns=columns, **fields)  # type: ignore[arg-type]
