"""The corpus's vectors in a file instead of in memory: written once in order, read back a chunk at a time.

A sweep of N documents needs every document's vector twice after embedding it:
each backend's ingest reads them in order, a chunk at a time, and scoring reads the
few rows a backend returned. Neither needs them all in memory at once, and at 128-d
they are the largest thing left (512 MB at 1M documents, 5 GB at 10M). ``VectorFile``
keeps them in a temporary file: reads go through the page cache (which the kernel
may reclaim) rather than the process's resident memory. The file is unlinked as soon
as it is made and read through its descriptor only, so the kernel reclaims it when
the descriptor closes: when the object is closed or collected, and however the
process ends, SIGKILL included (``guardian``).

It indexes like the float32 array it replaces, for what the pipeline asks of it:
``v[start:stop]`` (a copy, read with one ``pread``), ``v[rows]`` for an array of rows
and ``v[row]``, ``len(v)``, ``v.shape``; ``np.asarray(v)`` reads everything (tests).
"""

from __future__ import annotations

import os
import tempfile
import weakref
from pathlib import Path
from typing import Any

import numpy as np

DTYPE = np.dtype(np.float32)


def _remove(path: str, fd: int) -> None:
    os.close(fd)
    Path(path).unlink(missing_ok=True)


class VectorFile:
    """``n`` float32 rows of ``dim`` in a temporary file (in ``directory``, default the system's temp dir)."""

    def __init__(self, n: int, dim: int, directory: str | Path | None = None) -> None:
        self.shape = (n, dim)
        self.dtype = DTYPE
        self.ndim = 2
        self._row = dim * DTYPE.itemsize
        fd, path = tempfile.mkstemp(prefix="filterproof-vectors-", suffix=".f32", dir=directory)
        os.unlink(path)  # read through the descriptor only: the kernel reclaims the file however the run ends
        self.path, self._fd, self.written = Path(path), fd, 0
        os.ftruncate(fd, n * self._row)
        self._finalizer = weakref.finalize(self, _remove, path, fd)

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def nbytes(self) -> int:
        return self.shape[0] * self._row

    def append(self, start: int, rows: np.ndarray) -> None:
        """Write ``rows`` at row ``start``; rows arrive in order, each chunk after the last."""
        if start != self.written:
            raise ValueError(f"vectors written in order: expected row {self.written}, got {start}")
        block = np.ascontiguousarray(rows, dtype=DTYPE)
        if block.ndim != 2 or block.shape[1] != self.shape[1] or start + len(block) > self.shape[0]:
            raise ValueError(f"rows of shape {block.shape} do not fit at row {start} of {self.shape}")
        os.pwrite(self._fd, block.tobytes(), start * self._row)
        self.written += len(block)

    def _read(self, start: int, stop: int) -> np.ndarray:
        data = os.pread(self._fd, (stop - start) * self._row, start * self._row)
        return np.frombuffer(bytearray(data), dtype=DTYPE).reshape(stop - start, self.shape[1])

    def __getitem__(self, index: Any) -> np.ndarray:
        n = self.shape[0]
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            block = self._read(start, max(start, stop))
            return block if step == 1 else block[::step]
        if isinstance(index, int | np.integer):
            row = int(index) + n if index < 0 else int(index)
            if not 0 <= row < n:
                raise IndexError(index)
            return self._read(row, row + 1)[0]
        rows = np.asarray(index, dtype=np.int64)
        if rows.ndim != 1:
            raise TypeError(f"index vectors by a slice, a row or a 1-d array of rows, not {index!r}")
        out = np.empty((len(rows), self.shape[1]), dtype=DTYPE)
        for j, row in enumerate(rows.tolist()):
            out[j] = self[row]
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        whole = self._read(0, self.shape[0])
        return whole if dtype is None else whole.astype(dtype)

    def close(self) -> None:
        """Remove the file (also done when the object is collected, or at exit)."""
        self._finalizer()
