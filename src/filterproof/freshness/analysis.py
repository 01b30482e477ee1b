"""From the writer's timestamps and the readers' observations to what a freshness run reports.

For a change that must make a document vanish, a **post-return leak** is a query of
the principal that *started* after the writer's call returned and still returned the
document (queries in flight during the call are not judged). Its **time to
invisibility** is 0 when no such query exists, else the time from the call's return
to the start of the first query without the document after the last leak; a document
still returned by the principal's last query is *unresolved* (unbounded within the
run). A change that publishes a document is judged the same way, the other way round
(post-return misses, time to visibility). A leak is **beyond the bound** when its
query started more than the declared ``staleness_bound_s`` (0 when undeclared) after
the return. ``resolution_ms`` is the median gap between two queries of a principal:
no time below it can be seen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from filterproof.adapters.readers.load import Observations
from filterproof.freshness.world import Change


@dataclass
class Timed:
    """A change as the writer made it: when its call began and returned (monotonic seconds)."""

    change: Change
    called: float
    returned: float


@dataclass
class Judged:
    """One change, judged over every reader's queries of its principal."""

    timed: Timed
    stale_queries: int
    beyond_bound: int
    settle_s: float | None
    """Seconds from the return to the first right answer for good (0: right at once; None: never in the run)."""
    judged_queries: int


def _merged(observed: Sequence[Observations]) -> tuple[np.ndarray, np.ndarray, list[tuple[str, ...]]]:
    started = np.array([t for o in observed for t in o.started])
    principal = np.array([p for o in observed for p in o.principal], dtype=int)
    seen = [s for o in observed for s in o.seen]
    order = np.argsort(started, kind="stable")
    return started[order], principal[order], [seen[i] for i in order]


def judge(timed: Sequence[Timed], observed: Sequence[Observations], bound: float) -> list[Judged]:
    started, principal, seen = _merged(observed)
    judged = []
    for t in timed:
        c = t.change
        rows = [i for i in np.flatnonzero((principal == c.principal) & (started >= t.returned))]
        stale = [i for i in rows if (c.target in seen[i]) == c.vanishes]
        beyond = [i for i in stale if started[i] - t.returned > bound]
        if not stale:
            settle: float | None = 0.0
        else:
            after = [i for i in rows if started[i] > started[stale[-1]]]
            settle = float(started[after[0]] - t.returned) if after else None
        judged.append(Judged(t, len(stale), len(beyond), settle, len(rows)))
    return judged


def percentile(values: Sequence[float], q: float) -> float | None:
    return float(np.percentile(values, q)) if values else None


def resolution_ms(observed: Sequence[Observations]) -> float | None:
    """The median gap between consecutive queries of one principal, over all readers."""
    started, principal, _ = _merged(observed)
    gaps = [float(g) for p in set(principal.tolist()) for g in np.diff(started[principal == p])]
    return None if not gaps else 1000 * float(np.median(gaps))


def summary(judged: Sequence[Judged], observed: Sequence[Observations], duration_s: float,
            bound: float | None) -> dict[str, Any]:
    """The figures of one backend's run (one row of the report)."""
    vanish = [j for j in judged if j.timed.change.vanishes]
    appear = [j for j in judged if not j.timed.change.vanishes]
    settled = [j.settle_s for j in vanish if j.settle_s is not None]
    shown = [j.settle_s for j in appear if j.settle_s is not None]
    writes = [1000 * (j.timed.returned - j.timed.called) for j in judged]
    queries = sum(len(o) for o in observed)

    def ms(value: float | None) -> float | None:
        return None if value is None else round(1000 * value, 3)

    return {
        "changes": len(judged), "vanishing": len(vanish), "appearing": len(appear),
        "post_return_leaks": sum(j.stale_queries for j in vanish),
        "leaks_beyond_bound": sum(j.beyond_bound for j in vanish),
        "changes_leaked": sum(1 for j in vanish if j.stale_queries),
        "unresolved": sum(1 for j in vanish if j.settle_s is None),
        "invisible_p50_ms": ms(percentile(settled, 50)), "invisible_p99_ms": ms(percentile(settled, 99)),
        "invisible_max_ms": ms(max(settled) if settled else None),
        "post_return_misses": sum(j.stale_queries for j in appear),
        "misses_beyond_bound": sum(j.beyond_bound for j in appear),
        "never_visible": sum(1 for j in appear if j.settle_s is None),
        "visible_max_ms": ms(max(shown) if shown else None),
        "queries": queries, "reader_qps": round(queries / duration_s, 1) if duration_s > 0 else None,
        "resolution_ms": None if (r := resolution_ms(observed)) is None else round(r, 3),
        "writer_p50_ms": percentile(writes, 50), "writer_p99_ms": percentile(writes, 99),
        "reader_errors": [o.error for o in observed if o.error],
        "failed_queries": sum(o.errors for o in observed),
        "invisible_ms": [None if j.settle_s is None else round(1000 * j.settle_s, 3) for j in vanish],
        "declared_bound_s": bound,
    }
