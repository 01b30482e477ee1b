"""Standalone reproducers (``bench/repro/*.py``, or the ones a test writes) run the way a user runs one, but many in
one child interpreter: each importing llama_index, langchain, lancedb or pymilvus afresh cost 5 to 15 s, nearly all
of a reproducer's time (issue #43).

The child (``sys.executable -c DRIVER``) runs the scripts one after another, each as ``python script.py`` would:
``runpy.run_path(path, run_name="__main__")`` with ``sys.argv == [path]`` and the script's folder first on
``sys.path``; its exit code from ``SystemExit`` (``None`` is 0, a message is printed to stderr and is 1), an uncaught
exception's traceback printed from the script's own frame on and exit code 1; and the ``atexit`` callbacks the
script itself registered (a reproducer's own cleanup, deleting its table) run when it ends, as they would at its
interpreter's exit, while the ones its libraries registered stay with the child. Its output is captured at the file
descriptors 1 and 2, not only ``sys.stdout``/``sys.stderr``: a Rust or C library writes its warnings to fd 2 (lance's
``WARN`` lines), and a logging handler made while an earlier script ran keeps the stream object it was given.

``filterproof`` must not be in ``sys.modules`` before the first script nor after any (a reproducer imports only the
library whose bug it shows): each result says whether it was. A script that runs longer than ``timeout`` seconds
is killed with the child (and whatever the child started, in its own session), its result says it timed out, and
the scripts after it run in a new child.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Collection, Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

K = TypeVar("K", bound=Hashable)

DRIVER = r'''
import atexit, json, os, runpy, sys, traceback

plan = json.loads(sys.argv[1])
log = open(plan["log"], "a", buffering=1)
if "filterproof" in sys.modules:
    log.write(json.dumps({"error": "filterproof imported before any reproducer ran"}) + "\n")
    sys.exit(3)
register = atexit.register
for number, script in enumerate(plan["scripts"]):
    out_path, err_path = (os.path.join(plan["work"], f"{number}.{fd}") for fd in ("out", "err"))
    log.write(json.dumps({"start": script}) + "\n")
    sys.stdout.flush(); sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        os.dup2(out.fileno(), 1); os.dup2(err.fileno(), 2)
    own = []

    def register_own(function, *args, _script=script, **kwargs):
        # The script's own exit handlers (called from its top level or its functions) end with it.
        caller = sys._getframe(1).f_code.co_filename
        if caller == _script:
            own.append((function, args, kwargs))
            return function
        return register(function, *args, **kwargs)

    atexit.register = register_own
    argv, path0, cwd = sys.argv[:], sys.path[0], os.getcwd()
    sys.argv, sys.path[0] = [script], os.path.dirname(script)
    code = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as stop:
        if stop.code is None:
            code = 0
        elif isinstance(stop.code, int):
            code = stop.code
        else:
            print(stop.code, file=sys.stderr)
            code = 1
    except BaseException as error:
        tb = error.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != script:
            tb = tb.tb_next
        traceback.print_exception(type(error), error, tb or error.__traceback__)
        code = 1
    finally:
        atexit.register = register
        sys.argv, sys.path[0] = argv, path0
    for function, args, kwargs in reversed(own):
        try:
            function(*args, **kwargs)
        except SystemExit:
            pass
        except BaseException:
            print("Exception ignored in atexit callback:", repr(function), file=sys.stderr)
            traceback.print_exc()
    os.chdir(cwd)
    sys.stdout.flush(); sys.stderr.flush()
    os.dup2(saved[0], 1); os.dup2(saved[1], 2)
    os.close(saved[0]); os.close(saved[1])
    imported = "filterproof" in sys.modules
    for name in [name for name in sys.modules if name == "filterproof" or name.startswith("filterproof.")]:
        del sys.modules[name]  # so that the next script is judged on its own imports
    log.write(json.dumps({"done": script, "returncode": code, "filterproof": imported}) + "\n")
'''


@dataclass(frozen=True)
class Result:
    """One reproducer's run, as ``subprocess.run`` would have given it (``returncode`` None: it timed out)."""

    returncode: int | None
    stdout: str
    stderr: str
    filterproof: bool | None
    """Whether ``filterproof`` was in ``sys.modules`` once the script ended (it must not be; None: it never ended)."""

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def run_scripts(scripts: Mapping[K, Path], env: Mapping[str, str] | None = None, timeout: float = 120,
                cwd: Path | None = None, alone: Collection[K] = ()) -> dict[K, Result]:
    """Each of ``scripts`` (its key, its path) run in one child interpreter (``os.environ`` with ``env``), in order;
    a new child takes over after one that hung or died. A script of ``alone`` (one that finds what an earlier one
    left in the process, or leaves something for a later one) gets a child of its own."""
    paths = {key: Path(path).resolve() for key, path in scripts.items()}
    assert len(set(paths.values())) == len(paths), "a script twice"
    groups = [[path for key, path in paths.items() if key not in alone],
              *([path] for key, path in paths.items() if key in alone)]
    results: dict[Path, Result] = {}
    for group in groups:
        remaining = group
        while remaining:
            results.update(_child(remaining, {**os.environ, **(env or {})}, timeout, cwd))
            remaining = [s for s in remaining if s not in results]
    return {key: results[path] for key, path in paths.items()}


def _child(scripts: list[Path], env: dict[str, str], timeout: float, cwd: Path | None) -> dict[Path, Result]:
    """Runs ``scripts`` in one child until they are done, one hangs, or the child dies: the results it got to."""
    with tempfile.TemporaryDirectory(prefix="reproducers-") as work:
        log = Path(work) / "log.jsonl"
        log.touch()
        plan = {"scripts": [str(s) for s in scripts], "work": work, "log": str(log)}
        with open(Path(work) / "child.out", "wb") as out, open(Path(work) / "child.err", "wb") as err:
            child = subprocess.Popen([sys.executable, "-c", DRIVER, json.dumps(plan)], stdout=out, stderr=err,
                                     stdin=subprocess.DEVNULL, env=env, cwd=cwd, start_new_session=True)
        results: dict[Path, Result] = {}
        current: str | None = None
        since = time.monotonic()
        hung = False
        try:
            while True:
                ended = child.poll() is not None
                results, running = _events(log, work, scripts)
                if running != current:
                    current, since = running, time.monotonic()
                if ended:
                    break
                if current is not None and time.monotonic() - since > timeout:
                    hung = True
                    break
                time.sleep(0.1)
        finally:
            _kill(child)
        results, current = _events(log, work, scripts)
        if current is not None:
            out_text, err_text = _read(work, len(results))
            why = (f"did not end within {timeout:g} s: killed, with the child interpreter" if hung
                   else f"the child interpreter died with exit code {child.returncode} while it ran")
            results[Path(current)] = Result(None if hung else child.returncode, out_text,
                                            f"{err_text}\n[{current} {why}]", None)
        elif len(results) < len(scripts):
            child_err = (Path(work) / "child.err").read_text(errors="replace")
            pytest.fail(f"the reproducer child ended with exit code {child.returncode} before running "
                        f"{scripts[len(results)]}:\n{child_err}")
        return results


def _events(log: Path, work: str, scripts: list[Path]) -> tuple[dict[Path, Result], str | None]:
    """The scripts the child has run (from its log), and the one it is running (None: none)."""
    results: dict[Path, Result] = {}
    running = None
    for line in log.read_text().splitlines():
        if not line.endswith("}"):
            break  # a line still being written
        event = json.loads(line)
        if "error" in event:
            pytest.fail(f"{event['error']}: the child of {', '.join(s.name for s in scripts)}")
        if "start" in event:
            running = event["start"]
        if "done" in event:
            results[Path(event["done"])] = Result(event["returncode"], *_read(work, len(results)),
                                                  event["filterproof"])
            running = None
    return results, running


def _read(work: str, number: int) -> tuple[str, str]:
    texts = []
    for fd in ("out", "err"):
        path = Path(work) / f"{number}.{fd}"
        texts.append(path.read_text(errors="replace") if path.exists() else "")
    return texts[0], texts[1]


def _kill(child: subprocess.Popen[bytes]) -> None:
    """The child, if still running, with whatever it started in its session (a Milvus Lite server)."""
    if child.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()


def selected(request: pytest.FixtureRequest, test: str, argname: str | None = None) -> list[Any]:
    """This module's items of the function ``test`` in this run (all, or those ``-k`` kept): their ``argname``
    parameters, or (``argname`` None) their ids."""
    items = [item for item in request.session.items
             if getattr(item, "module", None) is request.module and getattr(item, "originalname", None) == test]
    return [item.callspec.params[argname] if argname else item.nodeid for item in items]
