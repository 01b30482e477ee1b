"""Each backend in a worker process of its own: a store that crashes natively costs only its own results.

A segmentation fault in an engine's native code (Chroma 1.5.9 with a principal in
10,000 groups, ``docs/findings/engine.md``), an abort or the OOM killer ends the
process it happens in, at once: in process, the whole comparison would die with it
and every other backend's results would be lost. So ``compare`` and ``sweep`` run
every backend but the reference (pure NumPy, the oracle) in a forked worker, one per
backend spec over all the fixtures, which sends back each fixture's ``BackendRun``,
its progress, and the servers it starts (``filterproof.servers.leftovers``). When the worker
dies, the parent records the backend as failed with its signal and the phase it was
in, keeps what arrived, stops the servers the worker left running and removes the
worker's temporary directory (every ``tempfile`` directory of the worker is made
inside it).

Why fork: the worker inherits the prepared fixtures (vectors, truths, masks) as they
are, without a copy or a pickle, and a stopped parent can kill it whatever native
call it is in. The parent never opens a native store, so it holds none of the
threads a native client starts, which fork would not copy, and whose locks a child could
inherit held. A process that has opened a native store itself (a test process, a
notebook) therefore runs every backend in process, as ``--in-process`` does; so does one
where fork does not exist (``available()``).

Signals: the worker ignores SIGINT and the parent decides. On SIGTERM or Ctrl-C the
parent (whose handler runs at once: it waits on a pipe, not in native code) sends the
worker SIGTERM, which unwinds it through the adapters' ``close()``; a worker still
running after ``STOP_GRACE`` (inside a native index build that holds the interpreter
lock) is killed and cleaned up after from here.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

from filterproof.adapters.base import native_store_opened
from filterproof.adapters.registry import Resolved
from filterproof.evaluation.runner import BackendRun, Settings, Tick, run_backend
from filterproof.evaluation.truth import Prepared
from filterproof.servers import guardian, leftovers

STOP_GRACE = 0.3
"""Seconds a stopped worker gets to unwind before SIGKILL: with the servers' stop, within a 2 s budget."""
PR_SET_NAME = 15
"""prctl(2) options (Linux)."""
SERVER_GRACE = 0.3
"""Seconds for each stop signal to a server a dead worker left behind."""
Keep = Callable[[int, BackendRun], None]
"""Receives (fixture index, its run) as each arrives."""
UNITS = {"ingest": "documents written", "queries": "cases asked", "latency": "timings taken"}


def available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def isolated(backend: Resolved) -> bool:
    """Every backend but the reference, the oracle (pure NumPy, it cannot crash natively); and none in a process
    that opened a native store itself (a test process: ``adapters.base.native_store_opened``)."""
    return backend.spec.name != "reference" and available() and not native_store_opened()


def run_isolated(prepared: Sequence[Prepared], backend: Resolved, settings: Settings, tick: Tick,
                 keep: Keep) -> None:
    """One worker runs ``backend`` over every fixture; ``keep`` gets one ``BackendRun`` per fixture, in order,
    as each arrives, whatever happens (a stop, SIGTERM or Ctrl-C, propagates once the worker is cleaned up)."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    scratch = tempfile.mkdtemp(prefix="filterproof-worker-")
    os.chmod(scratch, 0o711)  # as a TMPDIR: a server run as another user (PostgreSQL as nobody) can enter it
    worker = context.Process(target=_work, args=(sender, list(prepared), backend, settings, scratch, os.getpid()),
                             name=f"filterproof worker {backend.label}")
    runs: list[BackendRun] = []
    servers: list[leftovers.Leftover] = []
    progress: tuple[str, int] | None = None
    worker.start()
    guardian.guard(path=scratch)
    guardian.guard(process=worker.pid)
    sender.close()  # the worker holds the only write end: its end, however it comes, is end of file here
    try:
        while True:
            try:
                kind, body = receiver.recv()
            except EOFError:
                break
            if kind == "tick":
                tick(*body)
                phase, done = body[1], body[2]  # units done since the last tick: summed per phase
                progress = phase, done + (progress[1] if progress and progress[0] == phase else 0)
            elif kind == "run":
                keep(len(runs), body)
                runs.append(body)
                progress = None
            elif kind == "server":
                servers.append(body)
        worker.join()
    finally:
        stop(worker)
        receiver.close()
        stop_servers(servers)
        shutil.rmtree(scratch, ignore_errors=True)
    reason = death(worker.exitcode, progress)
    for f in range(len(runs), len(prepared)):
        keep(f, failed(prepared[f], backend, reason))


def _work(sender: Connection, prepared: list[Prepared], backend: Resolved, settings: Settings, scratch: str,
          parent: int) -> None:
    """The worker: run and send, fixture by fixture (a crash keeps what was sent)."""
    guardian.die_with(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the parent decides
    tempfile.tempdir = scratch  # every temporary directory of the stores, removed by the parent in any case
    os.environ["TMPDIR"] = scratch
    leftovers.listen(lambda leftover: sender.send(("server", leftover)))

    def tick(label: str, phase: str, done: int) -> None:
        sender.send(("tick", (label, phase, done)))
        _name(f"fp {phase}")

    for prep in prepared:
        sender.send(("run", run_backend(prep, backend, settings, tick)))
    sender.close()


def _name(name: str) -> None:
    """The worker's name in ``ps`` and ``/proc/PID/comm`` (15 bytes): which phase it is in."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(PR_SET_NAME, ctypes.c_char_p(name.encode()[:15]), 0, 0, 0)


def stop(worker: Any) -> None:
    """SIGTERM, ``STOP_GRACE`` to unwind, then SIGKILL; a worker that has ended is left as it is."""
    if worker.exitcode is not None:
        return
    worker.terminate()
    worker.join(STOP_GRACE)
    if worker.exitcode is None:
        worker.kill()
        worker.join()


def stop_servers(servers: Sequence[leftovers.Leftover]) -> None:
    """Stop the servers a worker started and did not stop (their directory is still there), and remove it."""
    for server in servers:
        if not os.path.isdir(server.workdir):  # stopped by the worker: the pid may belong to someone else now
            continue
        for sig in server.signals:
            if not _alive(server.pid):
                break
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(server.pid, sig)
            deadline = time.monotonic() + SERVER_GRACE
            while _alive(server.pid) and time.monotonic() < deadline:
                time.sleep(0.02)
        shutil.rmtree(server.workdir, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # running as another user (PostgreSQL when we are root): it exists
        return True
    with contextlib.suppress(OSError), open(f"/proc/{pid}/stat", "rb") as stat:  # a zombie has ended
        return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    return True


def death(exitcode: int | None, progress: tuple[str, int] | None) -> str:
    """Why a worker sent fewer runs than fixtures, in one line: its signal or exit code, and where it was."""
    if exitcode is not None and exitcode < 0:
        how = f"died of {signal.Signals(-exitcode).name}"
    else:
        how = f"exited with code {exitcode}"
    where = " while opening the store"
    if progress:
        phase, done = progress
        where = f" during {phase}" + (f" ({done:,} {UNITS[phase]})" if done and phase in UNITS else "")
    return f"the backend's worker process {how}{where}; its results for this fixture are lost"


def failed(prepared: Prepared, backend: Resolved, reason: str) -> BackendRun:
    options = backend.options if isinstance(backend.options, dict) else backend.options.given()
    return BackendRun(backend.label, backend.spec.name, prepared.fixture.name, options, status="failed",
                      reason=reason)
