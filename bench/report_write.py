"""What writing the JSON report costs, and what it takes of a stop (issue 25 promised two seconds).

    .venv/bin/python bench/report_write.py            # results: bench/results/report_write.txt

1. The write alone: the freshness lab's case rows (a real ``compare`` on the reference), repeated to N rows,
   written the way ``report.write`` did before (each row through ``dataclasses.asdict``, which deep-copies, then
   ``json.dumps(indent=1)``: the pure-Python encoder, since the C encoder runs only without ``indent``) and the way
   it does now (``report.write``: shallow rows, a row per line, no garbage collection meanwhile).
2. A real stop: ``compare`` on a generated corpus with many cases, SIGTERM once a worker is in its queries
   (``fp queries`` in ``/proc/PID/comm``), the time to exit; its report holds every completed case.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path

from filterproof.report import Results, load, write

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from support.processes import descendants, processes  # noqa: E402  (the tests' reading of /proc, not a copy)

FP = [sys.executable, "-m", "filterproof.cli"]


def real_results(tmp: Path) -> Results:
    out = tmp / "lab.json"
    subprocess.run([*FP, "compare", str(ROOT / "fixtures" / "freshness-lab.json"), "-b", "reference", "--json",
                    str(out)], check=True, capture_output=True)
    return load(out)


def before(results: Results, path: Path) -> None:
    """``report.write`` before this benchmark: ``asdict`` per row, an indented document."""
    doc = results.to_json()
    doc["cases"] = [{**asdict(row), "k": {str(k): asdict(at) for k, at in row.k.items()}} for row in results.cases]
    path.write_text(json.dumps(doc, indent=1, allow_nan=False) + "\n", encoding="utf-8")


def timed(how: Callable[[Results, Path], None], results: Results, path: Path) -> tuple[float, float]:
    start = time.perf_counter()
    how(results, path)
    return time.perf_counter() - start, path.stat().st_size / 1e6


def in_queries(root: int) -> bool:
    """A worker below ``root`` is in its queries (as ``tests/cli/test_stops.py`` asks it)."""
    below = descendants(root)
    return any(comm == "fp queries" for pid, _, comm in processes() if pid in below)


def stop(tmp: Path, per_level: int) -> str:
    corpus = tmp / f"corpus-{per_level}.json"
    subprocess.run([*FP, "generate", "-n", "1000", "--cases-per-level", str(per_level), "--seed", "3", str(corpus)],
                   check=True, capture_output=True)
    out = tmp / f"out-{per_level}.json"
    run = subprocess.Popen([*FP, "compare", str(corpus), "-b", "reference", "-b", "qdrant-edge", "--no-cases",
                            "--json", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not in_queries(run.pid):
        if run.poll() is not None:
            return f"stop   {per_level} cases per level: the run ended before its queries were seen"
        time.sleep(0.02)
    start = time.perf_counter()
    run.send_signal(signal.SIGTERM)
    code = run.wait()
    took = time.perf_counter() - start
    doc = json.loads(out.read_text())
    return (f"stop   {len(doc['cases']):>6} case rows written  {out.stat().st_size / 1e6:5.1f} MB  exit {code}  "
            f"{took:.2f} s from SIGTERM to exit")


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        results = real_results(tmp)
        rows = results.cases
        print(f"# {' '.join(sys.argv)}  ({time.strftime('%Y-%m-%d')}, load average {os.getloadavg()[0]:.2f})")
        for n in (800, 3200, 12800):
            results.cases = [replace(row) for row in (rows * (n // len(rows) + 1))[:n]]
            then, size = timed(before, results, tmp / "before.json")
            now, size_now = timed(write, results, tmp / "now.json")
            same = [{k: v for k, v in json.loads((tmp / name).read_text()).items() if k != "machine"}
                    for name in ("before.json", "now.json")]
            assert same[0] == same[1]  # the same document (the machine's load average aside)
            print(f"write  {n:>6} case rows   before {then:.2f} s ({size:4.1f} MB)   now {now:.2f} s "
                  f"({size_now:4.1f} MB)   {then / now:.1f}x")
        for per_level in (60, 400):
            print(stop(tmp, per_level))


if __name__ == "__main__":
    main()
