"""filterproof's errors: one hierarchy, so that every caller can tell bad input from a broken store.

=====================  ===============================================  ==========
error                  meaning                                          CLI exit
=====================  ===============================================  ==========
``UsageError``         a bad command line, backend spec or option       2
``OptionError``        a backend option unknown or of the wrong type    2
``FixtureError``       a fixture that cannot be loaded                  2
``BackendUnavailable`` not installed, or its server cannot be reached   2 when asked for by name
``AdapterError``       an adapter broke the contract                    1 (a finding)
=====================  ===============================================  ==========

This module imports nothing of filterproof, so that any layer may raise these.
"""

from __future__ import annotations

from pathlib import Path


class FilterproofError(Exception):
    """Base of every error filterproof raises on purpose."""


class UsageError(FilterproofError, ValueError):
    """The caller asked for something that cannot be done as asked (a typo, a bad value)."""


class OptionError(UsageError):
    """A backend option that the backend does not take, or a value of the wrong type."""


class FixtureError(UsageError):
    """A fixture that cannot be loaded; the message names the file, the record and the field."""

    def __init__(self, path: Path | str, record: str, fld: str | None, message: str) -> None:
        where = f"{path}: {record}" + (f": field '{fld}'" if fld else "")
        super().__init__(f"{where}: {message}")
        self.path, self.record, self.field = str(path), record, fld


class BackendUnavailable(FilterproofError, RuntimeError):
    """A backend whose dependencies are not installed, or whose server cannot be started or reached."""


class AdapterError(FilterproofError, RuntimeError):
    """An adapter broke the contract (an unknown id returned, a store refused a write)."""


class NoSecondClient(AdapterError):
    """A store cannot have another client (or not in another process), or its reader failed; the message says
    why, naming the backend."""


class ReaderFailed(AdapterError):
    """A store's second client could not open (a locked path, a server gone) or failed; the message names the
    backend."""
