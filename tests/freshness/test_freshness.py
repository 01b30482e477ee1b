"""``filterproof freshness``: the judging of each change, the command on real stores, readers that fail, stops."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from filterproof.adapters import open_backend
from filterproof.adapters.base import Record
from filterproof.adapters.readers import ChildReader, ReaderDied, reader_spec
from filterproof.adapters.readers.load import Observations
from filterproof.cli import app
from filterproof.freshness.analysis import Timed, judge, summary
from filterproof.freshness.world import Change, build
from support.processes import default_sigint, descendants, wait_for

FP = [sys.executable, "-m", "filterproof.cli"]
SMALL = ["--documents", "80", "--principals", "4", "--changes", "8", "--rate", "20", "--settle", "0.5",
         "--readers", "2"]


def observations(rows: list[tuple[float, int, tuple[str, ...]]]) -> Observations:
    seen = Observations()
    for started, principal, ids in rows:
        seen.started.append(started)
        seen.ended.append(started + 0.001)
        seen.principal.append(principal)
        seen.seen.append(ids)
    return seen


def test_each_change_is_judged_from_queries_that_started_after_the_return() -> None:
    """In flight during the call: not judged. Started after: a leak, beyond the bound when past it; the time to
    invisibility runs to the first clean query after the last leak; a document returned to the end is unresolved."""
    revoked, deleted, published = (Change("revoke", 0, "a", "a"), Change("delete", 1, "b", "b"),
                                   Change("publish", 0, "c", "c"))
    timed = [Timed(revoked, 9.0, 10.0), Timed(deleted, 9.0, 10.0), Timed(published, 9.0, 10.0)]
    seen = observations([(9.5, 0, ("a",)), (10.1, 0, ("a",)), (10.3, 0, ("a", "c")), (10.4, 0, ("c",)),
                         (10.5, 0, ("c",)), (10.2, 1, ("b",)), (11.0, 1, ("b",))])
    a, b, c = judge(timed, [seen], bound=0.25)
    assert (a.stale_queries, a.beyond_bound, a.settle_s) == (2, 1, pytest.approx(0.4))
    assert (b.stale_queries, b.beyond_bound, b.settle_s) == (2, 1, None)
    assert (c.stale_queries, c.beyond_bound, c.settle_s) == (1, 0, pytest.approx(0.3))
    row = summary([a, b, c], [seen], 1.0, 0.25)
    assert (row["post_return_leaks"], row["leaks_beyond_bound"], row["unresolved"], row["changes_leaked"]) == (
        4, 2, 1, 2)
    assert row["invisible_ms"] == [pytest.approx(400.0), None]
    assert (row["post_return_misses"], row["never_visible"], row["queries"]) == (1, 0, 7)


def test_the_world_watches_what_it_changes() -> None:
    world = build(40, 4, 8, seed=1)
    assert [c.kind for c in world.changes] == ["revoke", "supersede", "delete", "publish"] * 2
    assert all(c.target in world.watch()[c.principal] for c in world.changes)
    assert world.depth() > max(sum(1 for o in world.owner.values() if o == p) for p in range(4)) - 1


def test_lancedb_at_its_defaults_leaks_after_return_and_fails_the_run(tmp_path: Path) -> None:
    """The done-when in small: LanceDB's default reader never sees a change (exit 1, a stale_reader problem);
    read_consistency_s=0 and the reference leak nothing. JSON in the one schema, and the HTML page."""
    out, page = tmp_path / "fresh.json", tmp_path / "fresh.html"
    result = CliRunner().invoke(app, ["freshness", "-b", "reference", "-b", "lancedb", "-b",
                                      "lancedb:read_consistency_s=0", *SMALL, "--json", str(out),
                                      "--html", str(page)])
    assert result.exit_code == 1, result.output
    doc = json.loads(out.read_text())
    assert (doc["schema"], doc["command"], doc["complete"]) == ("filterproof/2", "freshness", True)
    rows = {r["backend"]: r["summary"] for r in doc["freshness"]}
    assert rows["reference"]["post_return_leaks"] == rows["lancedb:read_consistency_s=0"]["post_return_leaks"] == 0
    assert rows["lancedb"]["post_return_leaks"] > 0 and rows["lancedb"]["unresolved"] == rows["lancedb"]["vanishing"]
    assert [(p["backend"], p["kind"]) for p in doc["problems"]] == [("lancedb", "stale_reader")] * 2
    assert "no bound declared: held to 0" in result.output
    assert "data:image/png;base64," in page.read_text()


@pytest.mark.slow  # about 40 s: every reader a child process importing its store
def test_readers_in_processes_see_each_change_on_pgvector_and_lancedb(tmp_path: Path) -> None:
    out = tmp_path / "fresh.json"
    result = CliRunner().invoke(app, ["freshness", "-b", "pgvector", "-b", "lancedb:read_consistency_s=0",
                                      "--readers-in", "processes", *SMALL, "--readers", "1", "--json", str(out)])
    assert result.exit_code == 0, result.output
    rows = json.loads(out.read_text())["freshness"]
    assert [r["summary"]["post_return_leaks"] for r in rows] == [0, 0]
    assert all(r["summary"]["queries"] > 0 and r["readers_in"] == "processes" for r in rows)


@pytest.mark.parametrize(("spec", "readers_in", "why"), [
    ("chroma", "processes", "chroma without path keeps the store in this process's memory"),
    ("qdrant-local", "threads", "qdrant-local: local mode holds its storage for one client"),
])
def test_a_backend_without_that_reader_is_one_error_naming_it(spec: str, readers_in: str, why: str) -> None:
    result = CliRunner().invoke(app, ["freshness", "-b", spec, "--readers-in", readers_in, *SMALL])
    assert result.exit_code == 1, result.output
    assert f"{spec} failed: NoSecondClient: {why}" in " ".join(result.output.split())


def test_a_killed_reader_process_is_named_and_leaves_nothing() -> None:
    with open_backend("lancedb", {"read_consistency_s": "0"}) as store:
        store.reset(2)
        store.upsert([Record("a", np.array([1.0, 0.0], dtype=np.float32), {})])
        reader = ChildReader(reader_spec(store))
        log = Path(reader._log.name)
        reader.process.send_signal(signal.SIGKILL)
        reader.process.wait(10)
        with pytest.raises(ReaderDied, match=r"^lancedb: the reader process died of SIGKILL"):
            reader.search(np.array([1.0, 0.0], dtype=np.float32), 1, None)
        reader.kill()
        assert not log.exists()


@pytest.mark.slow  # about 15 s
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_writes_what_was_measured_and_leaves_no_reader(tmp_path: Path, sig: signal.Signals) -> None:
    """Stopped while readers in child processes query: ended within 2 s, 143 / 130, the partial row written with
    complete false, no process of the run left."""
    out = tmp_path / "fresh.json"
    run = subprocess.Popen([*FP, "freshness", "-b", "pgvector", "--readers-in", "processes", "--readers", "2",
                            "--changes", "200", "--rate", "5", "--json", str(out)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    assert run.stderr is not None
    while "making the changes" not in (line := run.stderr.readline()):
        assert line, "the run ended before making changes"
    time.sleep(1.0)  # a few changes made
    below = set(descendants(run.pid))
    sent = time.monotonic()
    run.send_signal(sig)
    _, err = run.communicate(timeout=60)
    took = time.monotonic() - sent
    assert run.returncode == (143 if sig == signal.SIGTERM else 130), err
    assert took < 2.0, f"freshness took {took:.2f} s to end after {sig.name}"
    doc = json.loads(out.read_text())
    assert doc["complete"] is False and doc["stopped"] == run.returncode
    [row] = doc["freshness"]
    assert row["status"] == "stopped" and row["summary"]["changes"] > 0
    wait_for("the run's processes to end", lambda: not [p for p in below if Path(f"/proc/{p}").exists()], 10)
