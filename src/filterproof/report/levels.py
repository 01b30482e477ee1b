"""Rich tables of a ``sweep``: selectivity on the columns, where filter placement fails.

Reading a row left to right shows where a strategy's ARecall@K drops as the policy
tightens, and where a backend's native filtered search departs from the exact answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from filterproof.report import Results
from filterproof.report.console import render_problems, status_lines, strategy_label


def _cell(value: float | None, fmt: str = ".3f", bad: float | None = None) -> Text:
    if value is None:
        return Text("-")
    return Text(format(value, fmt), style="red" if bad is not None and value < bad else "")


def levels_of(results: Results) -> list[float]:
    return sorted({float(r["level"]) for r in results.summary if r["level"] is not None})


def by_level_table(results: Results, title: str) -> tuple[list[float], Table]:
    """The report's selectivity levels, and an empty table: backend, strategy, one column per level."""
    levels = levels_of(results)
    table = Table(title=title, title_justify="left")
    table.add_column("backend")
    table.add_column("strategy")
    for level in levels:
        table.add_column(f"{level * 100:g}%", justify="right")
    return levels, table


def metric_table(results: Results, metric: str, k: int, title: str, strategies: Sequence[str] | None = None,
                 fmt: str = ".3f", bad: float | None = 0.9) -> Table:
    """Rows (backend, strategy and depth) x columns (selectivity levels), one metric at one K."""
    levels, table = by_level_table(results, title)
    rows: dict[tuple[str, str], dict[float, Any]] = {}
    for r in results.summary:
        if r["k"] != k or r["level"] is None or (strategies and r["strategy"] not in strategies):
            continue
        rows.setdefault((r["backend"], strategy_label(r)), {})[r["level"]] = r.get(metric)
    for (backend, label), values in rows.items():
        table.add_row(Text(backend), label, *(_cell(values.get(level), fmt, bad) for level in levels))
    return table


def latency_table(results: Results) -> Table:
    levels, table = by_level_table(results, "Single-query latency p50 / p95 (ms)")
    rows: dict[tuple[str, str], dict[float, str]] = {}
    for r in results.latency:
        cell = "-" if r["p50_ms"] is None else f"{r['p50_ms']:.1f} / {r['p95_ms']:.1f}"
        rows.setdefault((r["backend"], strategy_label(r)), {})[r["level"]] = cell
    for (backend, label), values in rows.items():
        table.add_row(Text(backend), label, *(values.get(level, "-") for level in levels))
    return table


def backends_table(results: Results) -> Table:
    table = Table(title="Backends: build, queries and the harness's own overhead", title_justify="left")
    for col in ("backend", "ingest s", "of which build s", "queries s", "latency pass s", "QPS unfiltered",
                "QPS filtered", "inside s", "overhead"):
        table.add_column(col, justify="left" if col == "backend" else "right")
    for b in results.backends:
        t = b["timings"]
        if b["status"] != "ok":
            continue
        qps = t.get("batched_qps", {})
        table.add_row(Text(b["label"]), f"{t['ingest_s']:.1f}", f"{t['build_s']:.1f}", f"{t['query_s']:.1f}",
                      f"{t.get('latency_s', 0.0):.1f}", _cell(qps.get("unfiltered"), ".0f"),
                      _cell(qps.get("filtered"), ".0f"), f"{t['inside_s']:.1f}", _cell(t.get("overhead"), ".1%"))
    return table


def harness_overhead(results: Results) -> tuple[float, float, float | None]:
    """(outside, inside, overhead) over every backend run plus the ground truth."""
    ok = [b["timings"] for b in results.backends if b["status"] == "ok"]
    inside = sum(t["inside_s"] for t in ok)
    truth = sum(f.get("timings", {}).get("truth_s", 0.0) for f in results.fixtures)
    wall = sum(t["wall_s"] for t in ok) + truth
    return wall - inside, inside, (wall - inside) / inside if inside > 0 else None


def render_sweep(console: Console, results: Results) -> None:
    info, settings = results.fixtures[0], results.settings
    k, k1 = max(settings["ks"]), min(settings["ks"])
    console.rule(Text.assemble(("filterproof sweep", "bold"), f"  {info['documents']} documents, {info['cases']} "
                               f"cases, {info['embedding']} {info['dim']}-d"))
    measured = ", ".join(f"{float(lv) * 100:g}%→{v['measured'] * 100:.3g}%" for lv, v in info["levels"].items())
    console.print(f"selectivity requested→measured: {measured}")
    for line in status_lines(results, info["name"]):
        console.print(line)
    console.print(backends_table(results))
    console.print(metric_table(results, "arecall", k, f"ARecall@{k} by selectivity (red: below 0.9)"))
    console.print(metric_table(results, "recall_exact", k, f"Recall@{k} against the exact filtered top-{k}",
                               strategies=("pre_filter", "post_filter")))
    console.print(metric_table(results, "short_rate", k, f"Short-result rate at K={k} (fewer than K though more "
                               "exist)", strategies=("pre_filter", "post_filter"), fmt=".0%", bad=None))
    console.print(metric_table(results, "empty_rate", k1, f"Empty-result rate at K={k1} (nothing returned though "
                               "something eligible exists)", strategies=("pre_filter", "post_filter"), fmt=".0%",
                               bad=None))
    console.print(metric_table(results, "false_abstention_rate", k1,
                               f"False abstentions at K={k1}: no top-1 answer (or one below min_score "
                               f"{info.get('min_score')}) although an eligible answer exists",
                               strategies=("pre_filter", "post_filter"), fmt=".0%", bad=None))
    if results.latency:
        console.print(latency_table(results))
    leaks = [r for r in results.summary if r["strategy"] != "rank_only" and r["level"] is None and r["leaks"]]
    for r in leaks:
        console.print(Text(f"LEAK {r['backend']} {strategy_label(r)} K={r['k']}: {r['leaks']} ineligible documents "
                           "returned", style="bold red"))
    if not leaks:
        console.print(Text.assemble("leaks under post_filter and pre_filter: ", ("0", "green"),
                                    " for every backend, level and K"))
    outside, inside, over = harness_overhead(results)
    t = results.timings
    if over is not None:
        console.print(f"harness overhead: {over:.1%} (outside {outside:.1f} s / inside backends {inside:.1f} s); "
                      f"corpus {t.get('generate_s', 0):.1f} s, embedding {info['timings'].get('embed_s', 0):.1f} s, "
                      f"ground truth {info['timings'].get('truth_s', 0):.1f} s, total {t.get('total_s', 0):.1f} s")
    render_problems(console, results)
