"""The vectors of documents removed while a search was under way, for the search paths that return no score.

A bridge scores a hit of such a path (LangChain's retriever and MMR) from the vectors it
holds. A search sees the framework's answer from some moment between its start and its
end; another thread may publish a document after the search began and delete it before
the hits are scored, while the framework found it in between. Neither the record as the
search began nor as it ends holds that document, yet the answer is a true one. So each
removal made while a search is under way is kept, with the moment it was made, until
every search that began before it has scored its hits; nothing is kept while no search
runs.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Iterator, Mapping

import numpy as np


class Departed:
    """Removed vectors, kept for the searches that began before their removal."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._clock = itertools.count()
        self._began: set[int] = set()
        """The moment each search under way began (each its own)."""
        self._gone: dict[str, tuple[int, np.ndarray]] = {}

    @contextlib.contextmanager
    def searching(self) -> Iterator[Callable[[str], np.ndarray | None]]:
        """For one search: what it may ask, the vector of a document removed since it began."""
        with self._lock:
            began = next(self._clock)
            self._began.add(began)

        def vector(doc_id: str) -> np.ndarray | None:
            with self._lock:
                kept = self._gone.get(doc_id)
            return kept[1] if kept is not None and kept[0] > began else None

        try:
            yield vector
        finally:
            with self._lock:
                self._began.discard(began)
                oldest = min(self._began, default=None)
                self._gone = {} if oldest is None else {i: e for i, e in self._gone.items() if e[0] > oldest}

    def removed(self, vectors: Mapping[str, np.ndarray]) -> None:
        """Documents removed (after the framework's remove returned): kept if a search is under way."""
        with self._lock:
            if self._began:
                now = next(self._clock)
                self._gone.update((i, (now, v)) for i, v in vectors.items())

    def clear(self) -> None:
        with self._lock:
            self._gone = {}
