"""``@locked``: one call at a time on an adapter whose client must not run two calls at once.

An application shares one client between the threads that serve requests
(``conformance.checks.shared``). A connection that keeps its last result on itself (DuckDB's
``execute`` then ``fetchall``) hands one thread's rows to another when two calls overlap, and
an in-memory index read while it is rebuilt is half built. Each ``@locked`` method holds the
adapter's ``_lock`` (an ``RLock``: a locked method may call another) for the whole call.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def locked(method: F) -> F:
    """Run ``method`` holding ``self._lock``."""
    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)
    return call  # type: ignore[return-value]
