"""The sweep report: one JSON document, and rich tables that show the collapse at a glance.

The tables put selectivity on the columns because that is the axis along which
filter placement fails: reading a row left to right shows where a strategy's
ARecall@K drops, and where a backend's pre-filter recall departs from exact.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from filterproof import __version__

SCHEMA = "filterproof-sweep/1"


def report(corpus: dict[str, Any], settings: dict[str, Any], levels: dict[float, dict[str, float]],
           timings: dict[str, float], result: dict[str, Any]) -> dict[str, Any]:
    return {
        "schema": SCHEMA, "filterproof": __version__, "corpus": corpus, "settings": settings,
        "levels": {f"{level:g}": info for level, info in levels.items()}, "timings": timings,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                    "load_average_at_end": list(os.getloadavg())},
        **result,
    }


def strategy_label(record: dict[str, Any]) -> str:
    if record["strategy"] == "post_filter":
        return f"post_filter C={record['candidates']}"
    return str(record["strategy"])


def _cell(value: float | None, fmt: str = ".3f", bad: float | None = None) -> str:
    if value is None:
        return "-"
    text = format(value, fmt)
    return f"[red]{text}[/]" if bad is not None and value < bad else text


def _level_header(level: float) -> str:
    return f"{level * 100:g}%"


def by_level_table(rep: dict[str, Any], title: str) -> tuple[list[float], Table]:
    """The report's selectivity levels, and an empty table: backend, strategy, one column per level."""
    levels = sorted(float(level) for level in rep["levels"])
    table = Table(title=title, title_justify="left")
    table.add_column("backend")
    table.add_column("strategy")
    for level in levels:
        table.add_column(_level_header(level), justify="right")
    return levels, table


def metric_table(rep: dict[str, Any], metric: str, k: int, title: str, strategies: Sequence[str] | None = None,
                 fmt: str = ".3f", bad: float | None = 0.9) -> Table:
    """Rows (backend, strategy and depth) x columns (selectivity levels), one metric at one K."""
    levels, table = by_level_table(rep, title)
    rows: dict[tuple[str, str], dict[float, Any]] = {}
    for r in rep["records"]:
        if r["k"] != k or (strategies and r["strategy"] not in strategies):
            continue
        rows.setdefault((r["backend"], strategy_label(r)), {})[r["selectivity"]] = r.get(metric)
    for (backend, label), values in rows.items():
        table.add_row(backend, label, *(_cell(values.get(level), fmt, bad) for level in levels))
    return table


def latency_table(rep: dict[str, Any]) -> Table:
    levels, table = by_level_table(rep, "Single-query latency p50 / p95 (ms)")
    rows: dict[tuple[str, str], dict[float, str]] = {}
    for r in rep["latency"]:
        cell = "-" if r["p50_ms"] is None else f"{r['p50_ms']:.1f} / {r['p95_ms']:.1f}"
        rows.setdefault((r["backend"], strategy_label(r)), {})[r["selectivity"]] = cell
    for (backend, label), values in rows.items():
        table.add_row(backend, label, *(values.get(level, "-") for level in levels))
    return table


def backends_table(rep: dict[str, Any]) -> Table:
    table = Table(title="Backends: build, queries and the harness's own overhead", title_justify="left")
    for col in ("backend", "ingest s", "of which build s", "queries s", "latency pass s", "QPS unfiltered",
                "QPS filtered", "inside s", "overhead"):
        table.add_column(col, justify="left" if col == "backend" else "right")
    for b in rep["backends"]:
        qps = b["batched_qps"]
        table.add_row(b["label"], f"{b['ingest_s']:.1f}", f"{b['build_s']:.1f}", f"{b['query_s']:.1f}",
                      f"{b['latency_s']:.1f}", _cell(qps["unfiltered"], ".0f"), _cell(qps["filtered"], ".0f"),
                      f"{b['inside_s']:.1f}", _cell(b["overhead"], ".1%"))
    return table


def leak_lines(rep: dict[str, Any]) -> list[str]:
    """Every leak under a filtered strategy: the one number that must be zero."""
    bad = [r for r in rep["records"] if r["strategy"] != "rank_only" and r["leaks"]]
    return [f"[bold red]LEAK[/] {r['backend']} {strategy_label(r)} s={r['selectivity']:g} K={r['k']}: "
            f"{r['leaks']} ineligible documents returned" for r in bad]


def render(console: Console, rep: dict[str, Any]) -> None:
    corpus, settings = rep["corpus"], rep["settings"]
    k = max(settings["ks"])
    console.rule(f"[bold]filterproof sweep[/]  {corpus['documents']} documents, {corpus['cases']} cases, "
                 f"dim {settings['dim']}")
    measured = ", ".join(f"{float(lv) * 100:g}%→{info['measured'] * 100:.3g}%" for lv, info in rep["levels"].items())
    console.print(f"selectivity requested→measured: {measured}")
    for skip in rep["skipped"]:
        console.print(f"[yellow]skipped[/] {skip['label']}: {skip['reason']}", highlight=False)
    console.print(backends_table(rep))
    console.print(metric_table(rep, "arecall", k, f"ARecall@{k} by selectivity (red: below 0.9)"))
    console.print(metric_table(rep, "recall_exact", k, f"Recall@{k} against the exact filtered top-{k}",
                               strategies=("pre_filter", "post_filter")))
    console.print(metric_table(rep, "short_rate", k, f"Short-result rate at K={k} (fewer than K though more exist)",
                               strategies=("pre_filter", "post_filter"), fmt=".0%", bad=None))
    k1 = min(settings["ks"])
    console.print(metric_table(rep, "empty_rate", k1, f"Empty-result rate at K={k1} (nothing returned though "
                               "something eligible exists)", strategies=("pre_filter", "post_filter"), fmt=".0%",
                               bad=None))
    console.print(metric_table(rep, "false_abstention_rate", k1,
                               f"False abstentions at K={k1}: no top-1 answer (or one below min_score "
                               f"{rep['corpus'].get('min_score')}) although an eligible answer exists",
                               strategies=("pre_filter", "post_filter"), fmt=".0%", bad=None))
    console.print(latency_table(rep))
    leaks = leak_lines(rep)
    for line in leaks:
        console.print(line)
    if not leaks:
        console.print("leaks under post_filter and pre_filter: [green]0[/] for every backend, level and K")
    harness, timings = rep["harness"], rep["timings"]
    if harness["overhead"] is not None:
        outside = harness["wall_s"] - harness["inside_s"]
        console.print(f"harness overhead: {harness['overhead']:.1%} (outside {outside:.1f} s / inside backends "
                      f"{harness['inside_s']:.1f} s); corpus {timings.get('generate_s', 0):.1f} s, embedding "
                      f"{timings.get('embed_s', 0):.1f} s, ground truth {timings.get('truth_s', 0):.1f} s, "
                      f"total {timings.get('total_s', 0):.1f} s")
