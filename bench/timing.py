"""What the benchmark scripts time with: the median of repeated calls (imported as ``timing``: a script's folder
is on its path)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_ms(run: Callable[[], object], repeats: int) -> float:
    """The median wall time of ``repeats`` calls of ``run``, in milliseconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000
