"""Two clients of one store whose first searches meet: each builds what the store needs (an index) at once."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date

import numpy as np

from filterproof.adapters import open_backend
from filterproof.adapters.base import Adapter, Record
from filterproof.conformance.checks.shared import concurrently
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import ActiveRevisions, PolicyFilter

DOCUMENTS, DIM, K = 20, 8, 5
WHERE = PolicyFilter(sc.principal(), date(2026, 9, 8), ActiveRevisions.of({("acme", f"l{i}"): 1
                                                                          for i in range(DOCUMENTS)}))


def searched_at_once(clients: tuple[Adapter, ...]) -> list[int | Exception]:
    """Each client searched once (``WHERE``, k = ``K``) by a thread of its own, from one barrier: how many hits
    each returned, or what it raised, in the order they finished."""
    barrier, answers = threading.Barrier(len(clients)), list[int | Exception]()

    def search(client: Adapter) -> None:
        barrier.wait(timeout=30)
        try:
            answers.append(len(client.search(np.ones(DIM, dtype=np.float32), K, WHERE)))
        except Exception as error:  # carried to the test's thread
            answers.append(error)

    with concurrently([threading.Thread(target=search, args=(c,)) for c in clients]):
        pass
    return answers


@contextmanager
def first_searches_met(spec: str, seed: int) -> Iterator[tuple[Adapter, list[int | Exception]]]:
    """The backend of ``spec`` with ``DOCUMENTS`` written, then searched first by it and by a second writer of its
    store (``open_writer``) at once: the writer, open, and what ``searched_at_once`` returned."""
    rng = np.random.default_rng(seed)
    writer = open_backend(spec)
    try:
        writer.reset(DIM)
        writer.upsert([Record(f"d{i}", rng.standard_normal(DIM).astype(np.float32), sc.meta(logical_id=f"l{i}"))
                       for i in range(DOCUMENTS)])
        other = writer.open_writer()  # type: ignore[attr-defined]
        try:
            answers = searched_at_once((writer, other))
        finally:
            other.close()
        yield writer, answers
    finally:
        writer.close()
