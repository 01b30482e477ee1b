"""``@locked``: one call at a time on an adapter whose client must not run two calls at once.

An application shares one client between the threads that serve requests
(``conformance.checks.shared``). A connection that keeps its last result on itself (DuckDB's
``execute`` then ``fetchall``) hands one thread's rows to another when two calls overlap, and
an in-memory index read while it is rebuilt is half built. Each ``@locked`` method holds the
adapter's ``_lock`` (an ``RLock``: a locked method may call another) for the whole call.

``@writing``: one write at a time on one client (``conformance.checks.writers``). A write that reads before it
writes (the stored row an update keeps the vector of, whether a point exists, the map a flag is computed from, a
connection's transaction) loses or undoes another thread's write made between its two steps. Each ``@writing``
method holds the adapter's ``_writes`` (an ``RLock``, made by ``AdapterBase``) for the whole call; searches do not
take it, and run beside a write as before.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def holding(lock: str) -> Callable[[F], F]:
    """A decorator that runs a method holding the adapter's attribute ``lock``."""
    def decorate(method: F) -> F:
        @functools.wraps(method)
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            with getattr(self, lock):
                return method(self, *args, **kwargs)
        return call  # type: ignore[return-value]
    return decorate


locked = holding("_lock")
"""Run the method holding ``self._lock``: one call at a time."""
writing = holding("_writes")
"""Run the method holding ``self._writes``: writes one at a time, searches free."""
