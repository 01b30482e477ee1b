"""One backend under load: readers query continuously while the writer makes the scheduled changes.

The writer is the adapter (this process). Readers are its second clients: threads of
ours, each with its own ``open_reader()``, or child processes, each opened from
``reader_spec()`` (``readers.ChildReader``): an API replica reading what a
permissions job writes. Changes are made at a set rate after a warm-up; the readers
go on for a settling time after the last one, so that a late invisibility is seen.
A stop (SIGTERM, Ctrl-C) ends the run at once: the readers are finished or killed,
what was measured is judged and returned, marked ``stopped``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from filterproof.adapters.base import optimize, staleness_bound
from filterproof.adapters.ownership import NotOurs
from filterproof.adapters.readers.load import Load, Observations, Plan
from filterproof.adapters.registry import Resolved
from filterproof.errors import FilterproofError
from filterproof.freshness import analysis
from filterproof.freshness.world import World, writer

ReadersIn = Literal["threads", "processes"]
STOP_FINISH_S = 1.0
"""Seconds a reader process gets to hand over its observations when the run is stopped."""


@dataclass(frozen=True)
class Settings:
    readers: int = 4
    readers_in: ReadersIn = "threads"
    rate: float = 4.0
    """Changes per second."""
    warmup_s: float = 1.0
    settle_s: float = 3.0


class Readers:
    """``count`` readers of ``store`` under ``plan``, as threads or child processes."""

    def __init__(self, store: Any, plan: Plan, count: int, where: ReadersIn) -> None:
        from filterproof.adapters.readers import ChildReader, open_reader, reader_spec

        self.where, self.clients, self.loads = where, [], []
        try:
            for n in range(count):
                plan_n = Plan(plan.vectors, plan.wheres, plan.k, plan.watch, seed=plan.seed + n)
                if where == "threads":
                    client = open_reader(store)
                    self.clients.append(client)
                    self.loads.append(Load(client, plan_n))
                    self.loads[-1].start()
                else:
                    child = ChildReader(reader_spec(store))
                    self.clients.append(child)
                    child.load(plan_n)
        except BaseException:
            self.close()
            raise

    def finish(self, timeout: float = 60.0) -> list[Observations]:
        if self.where == "threads":
            return [load.finish(timeout) for load in self.loads]
        observed = []
        for child in self.clients:
            with contextlib.suppress(FilterproofError):
                observed.append(child.finish(timeout))
        return observed

    def close(self) -> None:
        for load in self.loads:
            load.finish(1.0)
        for client in self.clients:
            with contextlib.suppress(Exception):
                client.close()


def run(backend: Resolved, world: World, settings: Settings,
        tick: Callable[[str], None] = lambda phase: None) -> dict[str, Any]:
    """Measure one backend; the row of the report (``status`` ok, failed or stopped; a stop's exception in
    ``_stop``). ``tick`` hears each phase as it begins: indexing, readers, changes, settling."""
    row: dict[str, Any] = {"backend": backend.label, "readers": settings.readers, "readers_in": settings.readers_in,
                           "status": "ok", "reason": None}
    try:
        store = backend.open()
    except NotOurs:  # a user's table or collection: the command stops, in one line (exit 2)
        raise
    except FilterproofError as error:
        return {**row, "status": "failed", "reason": f"{type(error).__name__}: {error}"}
    readers: Readers | None = None
    timed: list[analysis.Timed] = []
    observed: list[Observations] = []
    try:
        row["declared_bound_s"] = store.capabilities.staleness_bound_s
        tick("indexing")
        make = writer(store, world)
        optimize(store)
        tick("readers")
        plan = Plan(world.queries, world.wheres(), world.depth(), world.watch())
        readers = Readers(store, plan, settings.readers, settings.readers_in)
        time.sleep(settings.warmup_s)
        tick("changes")
        begun = time.monotonic()
        for n, change in enumerate(world.changes):
            time.sleep(max(0.0, begun + n / settings.rate - time.monotonic()))
            called = time.monotonic()
            make(change)
            timed.append(analysis.Timed(change, called, time.monotonic()))
        tick("settling")
        time.sleep(settings.settle_s)
        observed = readers.finish()
    except Exception as error:  # the store failed (ours or its own error): this backend's row says how
        return {**row, "status": "failed", "reason": f"{type(error).__name__}: {error}"}
    except (KeyboardInterrupt, SystemExit) as stop:  # what was measured is judged; readers get a second
        observed = readers.finish(STOP_FINISH_S) if readers is not None else []
        row.update(status="stopped", reason=f"stopped after {len(timed)} of {len(world.changes)} changes",
                   _stop=stop)
    finally:
        if readers is not None:
            readers.close()
        with contextlib.suppress(Exception):
            store.close()
    row["summary"] = _summary(timed, observed, row["declared_bound_s"], store)
    return row


def _summary(timed: list[analysis.Timed], observed: list[Observations], declared: float | None,
             store: Any) -> dict[str, Any]:
    bound = staleness_bound(store.capabilities)
    judged = analysis.judge(timed, observed, bound)
    span = [t for o in observed for t in (o.started[:1] + o.ended[-1:])]
    return analysis.summary(judged, observed, (max(span) - min(span)) if span else 0.0, declared)
