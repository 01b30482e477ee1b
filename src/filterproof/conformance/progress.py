"""What a long tier says while it runs, and when it stops itself (issue 45).

The scale tier writes thousands of documents and asks hundreds of queries: on a store whose
writes take a second each it would run for hours and print nothing (pytest shows a test's
output when it ends). So the tier reports progress through pytest's terminal reporter, at
most every ``EVERY_S`` seconds (in one process; xdist's workers have no terminal), and times
its first small writes and its first query: when what they project for the whole tier passes
the budget (``--conformance-budget``: ``plugin.budget_seconds``), the test fails at once
with the slow operation, the projection and the options that shrink the tier.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field

import pytest

from filterproof.conformance.plugin import BUDGET_ENV

EVERY_S = 5.0
"""At most one progress line per this many seconds (the first at once)."""


class OverBudget(Exception):
    """The tier would run past its budget; the message says why and what shrinks it."""


@dataclass
class Progress:
    """Progress lines of one tier (``label``), and its budget."""

    config: pytest.Config
    label: str
    budget_s: float
    started: float = field(default_factory=time.monotonic)
    last: float = float("-inf")

    def note(self, text: str, force: bool = False) -> None:
        """A progress line, unless one was printed less than ``EVERY_S`` ago (``force``: print anyway)."""
        now = time.monotonic()
        if not force and now - self.last < EVERY_S:
            return
        self.last = now
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or hasattr(self.config, "workerinput"):
            return
        capture = self.config.pluginmanager.get_plugin("capturemanager")  # a test's output is captured: step past
        with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
            reporter.write_line(f"[filterproof] {self.label}: {text} ({now - self.started:.0f} s)")

    def project(self, operation: str, seconds: float, done: int, total: int, shrink: str) -> None:
        """Raise ``OverBudget`` when ``total`` operations at the pace of the first ``done`` (``seconds``) pass
        the budget."""
        projected = seconds / max(done, 1) * total
        if projected > self.budget_s:
            raise OverBudget(
                f"{self.label} stopped: {operation} took {seconds:.1f} s for {done} ({seconds / max(done, 1):.2f} s "
                f"each), so its {total:,} would take about {projected / 60:.0f} minutes, past the budget of "
                f"{self.budget_s:g} s. {shrink}; --conformance-budget SECONDS (or ${BUDGET_ENV}) raises the "
                "budget")
