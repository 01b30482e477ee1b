"""A reader's load: filtered searches, one after another, until told to finish.

The same loop runs in a thread of ours (``freshness --readers-in threads``) and in a
reader's child process (``processes``). Each query's start and end are ``time.monotonic()``, which
is one clock for every process of the machine (Linux ``CLOCK_MONOTONIC``), so the
writer's timestamps and every reader's compare directly. Only the watched documents
(those the writer will change) are recorded of each answer: what a revocation leaks.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from filterproof.policy import PolicyFilter

MAX_ERRORS = 1000
"""A reader that failed this many queries stops (a store gone, not a race)."""
ERROR_PAUSE_S = 0.01


@dataclass(frozen=True)
class Plan:
    """What one reader asks: principal ``p`` searches with ``vectors[p]`` under ``wheres[p]``, ``k`` deep, and the
    ids of ``watch[p]`` in each answer are recorded."""

    vectors: np.ndarray
    wheres: list[PolicyFilter]
    k: int
    watch: list[frozenset[str]]
    seed: int = 0


@dataclass
class Observations:
    """One row per query: start, end (monotonic seconds), principal, the watched ids it returned."""

    started: list[float] = field(default_factory=list)
    ended: list[float] = field(default_factory=list)
    principal: list[int] = field(default_factory=list)
    seen: list[tuple[str, ...]] = field(default_factory=list)
    error: str | None = None
    """The first query error (the reader goes on: a replica's next request is another)."""
    errors: int = 0

    def __len__(self) -> int:
        return len(self.started)


class Load:
    """Queries ``reader`` under ``plan`` in a thread of its own from ``start()`` until ``finish()``."""

    def __init__(self, reader: Any, plan: Plan) -> None:
        self.reader, self.plan = reader, plan
        self.observed = Observations()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="filterproof-reader", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        plan, seen = self.plan, self.observed
        order = list(range(len(plan.wheres)))
        rnd = random.Random(plan.seed)
        while not self._stop.is_set():
            rnd.shuffle(order)  # every principal once a round, in a new order each round
            for p in order:
                if self._stop.is_set():
                    break
                started = time.monotonic()
                try:
                    hits = self.reader.search(plan.vectors[p], plan.k, plan.wheres[p])
                except Exception as error:  # counted and reported: a reader that fails under writes is a finding
                    seen.errors += 1
                    seen.error = seen.error or f"{type(error).__name__}: {error}"
                    if seen.errors >= MAX_ERRORS:
                        return
                    time.sleep(ERROR_PAUSE_S)
                    continue
                ended = time.monotonic()
                watched = plan.watch[p]
                seen.started.append(started)
                seen.ended.append(ended)
                seen.principal.append(p)
                seen.seen.append(tuple(h.id for h in hits if h.id in watched))

    def finish(self, timeout: float = 60.0) -> Observations:
        self._stop.set()
        self._thread.join(timeout)
        return self.observed
