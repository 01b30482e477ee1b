"""Persistent store paths: a directory (never a file), used by one run at a time.

A store kept on disk (``chroma:path=DIR``, ``qdrant-edge:path=DIR``,
``qdrant-local:path=DIR``) is claimed with an exclusive, non-blocking ``flock`` on
``DIR/.filterproof.lock`` for the adapter's life: a second run on the same path gets
a clear "in use" error at once, instead of two clients corrupting one store or a
store's own traceback. The lock is the kernel's, so it is released when the process
ends, however it ends.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

from filterproof.errors import UsageError

LOCK_NAME = ".filterproof.lock"


def check_directory(value: str | None) -> str | None:
    """For an options model: a path that is a directory or does not exist yet."""
    if value is not None and Path(value).exists() and not Path(value).is_dir():
        raise ValueError(f"{value} exists and is not a directory")
    return value


class PathLock:
    """Holds ``DIR/.filterproof.lock`` until ``release()`` (or process exit)."""

    def __init__(self, directory: str | Path, backend: str) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] | None = open(self.directory / LOCK_NAME, "a+")  # noqa: SIM115 - held until release
        try:
            fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._file.seek(0)
            holder = self._file.read().strip() or "another process"
            self._file.close()
            self._file = None
            raise UsageError(f"backend {backend!r}: {self.directory} is in use by another run ({holder}); "
                             "wait for it, or give another path") from None
        self._file.seek(0)
        self._file.truncate()
        self._file.write(f"pid {os.getpid()}")
        self._file.flush()

    def release(self) -> None:
        if self._file is not None:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()
            self._file = None


def existing_directory_lock(path: str | None, backend: str) -> PathLock:
    """The lock of a store's directory that must exist already (``filterproof clean`` creates nothing)."""
    if not path:
        raise UsageError(f"{backend}: nothing to clean in memory or in a temporary directory: give path=DIR")
    if not Path(path).is_dir():
        raise UsageError(f"{backend}: {path} is not a directory")
    return PathLock(path, backend)
