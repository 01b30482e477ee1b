"""What a run may require of the adapter: a check that would skip for a capability it lacks fails instead.

The suite skips what an adapter does not declare or cannot do (no native filter, no
lifecycle, no ``search_batch``, no second client), with the reason. That is right for a
store that truly lacks it, and a green run for one whose claim was lost: an adapter that
stopped declaring ``native_filter``, or a reader that refuses to open, passes every check
it still runs. ``--conformance-require reader,child_reader`` (or
``$FILTERPROOF_CONFORMANCE_REQUIRE``) names what the store must have: each check that
would skip for one of those fails, with the same reason. Either way the run's summary
counts the checks each missing capability left out (``summary_lines``).

Imports nothing but pytest: the plugin loads it in every pytest run.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

import pytest

CAPABILITIES: dict[str, str] = {
    "native_filter": "the store filters by the policy itself (Capabilities.native_filter)",
    "lifecycle": "delete and update_metadata (Capabilities.lifecycle)",
    "search_batch": "many queries in one call (search_batch)",
    "reader": "a second client of the store in this process (open_reader)",
    "child_reader": "a second client in another process (reader_spec)",
    "writer": "a second client of the store that writes, in this process (open_writer)",
    "child_writer": "a second client that writes, in another process (writer_spec)",
    "thread_safe": "one client searched from several threads at once (Capabilities.thread_safe)",
}
"""Each capability a check may skip for (the names ``--conformance-require`` takes), and what it is."""
REQUIRE_ENV = "FILTERPROOF_CONFORMANCE_REQUIRE"
TAG = re.compile(r"\[lacks (\w+)\]\Z")
"""How a skip or failure for a capability names it, at the very end of its reason: what the summary counts (the
reason is what crosses from an xdist worker to the controller; a failure that only quotes one does not count)."""

_required: frozenset[str] = frozenset()
"""What this run requires, set once when pytest configures it: a setting of the process, not a fixture, because
the checks that skip are methods users override with their own signatures (and xdist's workers each configure
their own run)."""


def parse(value: str | None, where: str = "--conformance-require") -> frozenset[str]:
    """The capabilities ``NAME,NAME`` names; a usage error naming an unknown one and the known ones."""
    names = frozenset(name.strip() for name in (value or "").split(",") if name.strip())
    unknown = sorted(names - CAPABILITIES.keys())
    if unknown:
        raise pytest.UsageError(f"{where}: unknown capability {', '.join(map(repr, unknown))}; "
                                f"known: {', '.join(CAPABILITIES)}")
    return names


def configure(option: str | None) -> None:
    """Set what this run requires: ``--conformance-require``, else ``$FILTERPROOF_CONFORMANCE_REQUIRE``."""
    global _required
    _required = parse(option) if option else parse(os.environ.get(REQUIRE_ENV), f"${REQUIRE_ENV}")


def required() -> frozenset[str]:
    return _required


def restore(names: frozenset[str]) -> None:
    global _required
    _required = names


def lacks(capability: str, reason: str) -> str:
    """The reason to skip a check with (``reason``, tagged with ``capability``); when the run requires
    ``capability``, the check fails here instead. Callers skip where they are (``pytest.skip(lacks(...))``), so that
    the skip names the check's line, not this one."""
    if capability not in CAPABILITIES:
        raise ValueError(f"unknown capability {capability!r}")
    if capability in _required:
        pytest.fail(f"{reason}: --conformance-require {capability} [lacks {capability}]", pytrace=False)
    return f"{reason} [lacks {capability}]"


def summary_lines(reports: Iterable[Any]) -> list[str]:
    """A line for the end of the run: how many checks each missing capability skipped or failed, and how to
    require it; nothing when every check ran."""
    skipped: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    for report in reports:
        text = report.longrepr[2] if report.skipped and isinstance(report.longrepr, tuple) else str(report.longrepr)
        found = TAG.search((text or "").rstrip())
        if found:
            (skipped if report.skipped else failed)[found.group(1)] += 1
    lines = []
    for counted, said in ((skipped, "skipped for what the adapter lacks ({counts}); --conformance-require {names} "
                                    "makes each a failure"),
                          (failed, "failed for what --conformance-require asked and the adapter lacks ({counts})")):
        if counted:
            counts = ", ".join(f"{name} {n}" for name, n in sorted(counted.items()))
            lines.append(f"filterproof: {checks(counted.total())} "
                         + said.format(counts=counts, names=",".join(sorted(counted))))
    return lines


def checks(n: int) -> str:
    return f"{n} check" if n == 1 else f"{n} checks"
