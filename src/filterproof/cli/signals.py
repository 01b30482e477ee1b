"""Stop cleanly on SIGTERM and Ctrl-C: servers stopped, temporary directories removed.

Python's default SIGTERM ends the process at once, without ``finally`` blocks or
exit handlers, so a ``chroma run`` we started would outlive us and every temporary
directory would stay. Here the first SIGTERM or SIGINT raises in the main thread
(``SystemExit(143)`` or ``KeyboardInterrupt``), so the run unwinds through the
adapters' ``close()`` and the exit handlers (``weakref.finalize``) as on any error;
further signals are ignored until the process ends, because a second Ctrl-C during
that cleanup would abort it half way and leave a directory behind. The cleanup
itself is bounded (servers get a few seconds to stop, then are killed).
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

_STOPPED = (signal.SIGINT, signal.SIGTERM)


def _stop(signum: int, frame: FrameType | None) -> None:
    for sig in _STOPPED:
        signal.signal(sig, signal.SIG_IGN)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise SystemExit(128 + signum)


def install() -> None:
    """Route SIGTERM and SIGINT through the normal exit path (main thread only; a no-op elsewhere)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in _STOPPED:
        if signal.getsignal(sig) in (signal.SIG_DFL, signal.default_int_handler):
            signal.signal(sig, _stop)
