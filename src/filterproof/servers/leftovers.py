"""What a run leaves on the machine if it dies: the servers it started, announced to whoever cleans up.

A store that crashes natively (a segmentation fault, an abort, the OOM killer) ends its
process without ``finally`` blocks or exit handlers, so a ``chroma run`` or a throwaway
PostgreSQL it started would outlive it: they run in sessions of their own, out of reach
of a signal to the process group. Every ``ChildServer`` therefore announces itself here
when it starts; the isolation layer (``filterproof.evaluation.isolation``) forwards the
announcement to the parent process, which stops what a dead worker left running.
Outside a worker nobody listens and an announcement costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Leftover:
    """A child server: its process id, its directory, and the signals that stop it, in order."""

    pid: int
    workdir: str
    signals: tuple[int, ...]


_listeners: list[Callable[[Leftover], None]] = []


def announce(pid: int, workdir: str, signals: Sequence[int]) -> None:
    for listener in _listeners:
        listener(Leftover(pid, workdir, tuple(signals)))


def listen(listener: Callable[[Leftover], None]) -> None:
    """Hear of every server started from now on in this process (a worker's forwarding)."""
    _listeners.append(listener)
