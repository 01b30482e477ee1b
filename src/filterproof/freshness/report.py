"""What ``filterproof freshness`` prints and writes: a table per run, problems, an HTML page with a CDF figure.

The JSON is the one results schema (``report.Results``, command ``freshness``): its
``freshness`` list holds one row per backend (``measure.run``), ``problems`` the
backends that leaked past their declared bound (kind ``stale_reader``) or failed.
"""

from __future__ import annotations

import base64
import html
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from filterproof.evaluation.congruence import Problem
from filterproof.report import Results

WORLD = "freshness world"


def problems(rows: list[dict[str, Any]]) -> list[Problem]:
    """A backend that leaked or missed past its bound, or whose readers failed, or that did not run."""
    found = []
    for row in rows:
        s = row.get("summary") or {}
        if row["status"] == "failed":
            found.append(Problem(WORLD, row["backend"], "failed", row["reason"]))
            continue
        bound = s.get("declared_bound_s")
        held = "no bound declared: held to 0" if bound is None else f"declared bound {bound:g} s"
        if s.get("leaks_beyond_bound"):
            found.append(Problem(WORLD, row["backend"], "stale_reader", (
                f"{s['leaks_beyond_bound']} queries started after the writer's call returned (and past the bound, "
                f"{held}) still returned a revoked, superseded or deleted document; {s['unresolved']} of "
                f"{s['vanishing']} such documents were still returned at the end of the run")))
        if s.get("misses_beyond_bound"):
            found.append(Problem(WORLD, row["backend"], "stale_reader", (
                f"{s['misses_beyond_bound']} queries past the bound ({held}) missed a published document; "
                f"{s['never_visible']} of {s['appearing']} never appeared")))
        if s.get("failed_queries"):
            found.append(Problem(WORLD, row["backend"], "reader_errors", (
                f"{s['failed_queries']} of {s['failed_queries'] + s['queries']} reader queries raised (first: "
                f"{s['reader_errors'][0]})")))
    return found


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def table(results: Results) -> Table:
    t = Table(title=f"Freshness under load: {results.settings['readers']} readers in "
                    f"{results.settings['readers_in']}, {results.settings['changes']} changes at "
                    f"{results.settings['rate']:g}/s")
    for column in ("backend", "bound s", "post-return leaks", "changes leaked", "unresolved",
                   "invisible ms p50/p99/max", "misses", "never seen", "errors", "qps", "resolution ms",
                   "write ms p50/p99"):
        t.add_column(column, justify="left" if column == "backend" else "right")
    for row in results.freshness:
        s = row.get("summary")
        if not s:
            t.add_row(Text(row["backend"]), "", Text(row["status"], style="red"), *[""] * 9)
            continue
        bound = s.get("declared_bound_s")
        bad = "red" if s["leaks_beyond_bound"] or s["misses_beyond_bound"] else "green"
        t.add_row(Text(row["backend"] + ("" if row["status"] == "ok" else f" ({row['status']})")),
                  "-" if bound is None else f"{bound:g}", Text(str(s["post_return_leaks"]), style=bad),
                  f"{s['changes_leaked']} of {s['vanishing']}", str(s["unresolved"]),
                  "/".join(_ms(s[k]) for k in ("invisible_p50_ms", "invisible_p99_ms", "invisible_max_ms")),
                  str(s["post_return_misses"]), f"{s['never_visible']}/{s['appearing']}",
                  Text(str(s.get("failed_queries", 0)), style="red" if s.get("failed_queries") else ""),
                  _ms(s["reader_qps"]),
                  _ms(s["resolution_ms"]), f"{_ms(s['writer_p50_ms'])}/{_ms(s['writer_p99_ms'])}")
    return t


def render(console: Console, results: Results) -> None:
    console.print(table(results))
    console.print("post-return leaks: queries that started after the writer's call returned and still returned "
                  "the document; invisible: from the return to the first query without it for good (0: none "
                  "leaked; resolution: the median gap between two queries of one principal); unresolved: still "
                  "returned at the end of the run; misses, never seen: the same for published documents; errors: "
                  "reader queries that raised.")
    for problem in results.problems:
        console.print(f"[bold red]{problem}[/bold red]", highlight=False)


ZERO_MS = 0.1
"""Where "0" (no query leaked after the return) sits on the log axis."""


def figure(results: Results, path: Path) -> Path:
    """The CDF of time to invisibility per backend, on a log axis with two labelled ends: "0" (no query after the
    return leaked) and "never" (still returned at the end of the run, at least ``settle_s`` after the return)."""
    from filterproof.report.figures import pyplot, save

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    rows = [r for r in results.freshness if r.get("summary") and r["summary"]["invisible_ms"]]
    finite = [v for r in rows for v in r["summary"]["invisible_ms"] if v]
    never = 3 * max([*finite, 1000 * float(results.settings.get("settle_s") or 1), 1.0])
    for row in rows:
        values = sorted(never if v is None else max(v, ZERO_MS) for v in row["summary"]["invisible_ms"])
        ys = [(n + 1) / len(values) for n in range(len(values))]
        label = row["backend"] + (" (all 0)" if values[-1] == ZERO_MS else " (all never)" if values[0] == never
                                  else "")
        ax.step([ZERO_MS / 2, *values, never * 1.5], [0.0, *ys, 1.0], where="post", label=label, linewidth=1.6)
    ax.set_xscale("log")
    ax.set_xlim(ZERO_MS / 2, never * 1.5)
    ticks = [t for t in (1, 10, 100, 1000, 10_000, 100_000) if ZERO_MS < t < never / 2]
    ax.set_xticks([ZERO_MS, *ticks, never], ["0", *(f"{t:g}" for t in ticks), "never"])
    ax.set_xlabel("ms from the writer's call returning to the first query without the document, for good")
    ax.set_ylabel("share of revoked, superseded, deleted")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8, loc="center right")
    return save(plt, fig, path)


def write_html(results: Results, path: Path, json_name: str | None = None) -> Path:
    from filterproof.report.html import STYLE, table_html

    with tempfile.TemporaryDirectory() as scratch:
        png = figure(results, Path(scratch) / "cdf.png").read_bytes()
    listed = "".join(f"<li class='bad'>{html.escape(str(p))}</li>" for p in results.problems)
    data = f" Data: <a href='{html.escape(json_name)}'>{html.escape(json_name)}</a>." if json_name else ""
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>filterproof freshness</title>"
             f"<style>{STYLE}</style></head><body><h1>filterproof freshness</h1>",
             f"<p>How long another client's reader still returns a document after the writer revoked, superseded "
             f"or deleted it.{data}</p>",
             f"<p class='bad'>Problems (exit code 1):</p><ul>{listed}</ul>" if listed else "",
             "" if results.complete else "<p class='bad'>Incomplete: stopped, or a backend failed.</p>",
             table_html(table(results)),
             f"<figure><img alt='CDF of time to invisibility' src='data:image/png;base64,"
             f"{base64.b64encode(png).decode()}'><figcaption>Time from the writer's call returning to the first "
             f"query that no longer returns the document (for good), per backend; documents still returned at "
             f"the end of the run at the right edge.</figcaption></figure></body></html>"]
    path.write_text("\n".join(parts), encoding="utf-8")
    return path
