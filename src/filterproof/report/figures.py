"""Figures of a run with selectivity levels (a sweep), as PNG files (matplotlib, Agg).

matplotlib is optional (the ``plots`` extra) and slow to import, so it is loaded
only here, only when a figure is asked for, with an error that says what to install.
Each figure answers one question a user has before choosing a filter placement:

* ``arecall_vs_selectivity``: where does each strategy lose the documents the
  principal may use? One panel per backend, selectivity on a log axis.
* ``false_abstention_vs_depth``: how many unfiltered candidates must post-filtering
  fetch before it stops abstaining when an answer exists?
* ``latency_vs_selectivity``: what does each placement cost per query?
* ``recall_vs_exact``: how close is each engine's native (pre-)filtered search to
  the exact filtered top-K?
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from filterproof.report import Results

PLOTS_EXTRA = "pip install 'filterproof[plots]'"


class PlotsUnavailable(RuntimeError):
    """matplotlib is not installed."""


def pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as error:
        raise PlotsUnavailable(f"figures need matplotlib: {PLOTS_EXTRA} (or pass --no-plots)") from error
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _series(records: list[dict[str, Any]], **match: Any) -> list[tuple[float, float]]:
    rows = [r for r in records if all(r.get(k) == v for k, v in match.items())]
    return sorted((r["level"], r["_y"]) for r in rows if r["_y"] is not None)


def _by_level(results: Results, k: int) -> list[dict[str, Any]]:
    return [r for r in results.summary if r["k"] == k and r["level"] is not None]


def save(plt: Any, fig: Any, path: Path) -> Path:
    """Lay out, write the PNG and free the figure (pyplot keeps every open figure alive)."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _with(records: list[dict[str, Any]], metric: str) -> list[dict[str, Any]]:
    return [{**r, "_y": r.get(metric)} for r in records]


def _percent_axis(plt: Any, ax: Any) -> None:
    """Selectivity on a log axis, labelled in percent (0.01%, 1%, 50%) rather than powers of ten."""
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(plt.matplotlib.ticker.FuncFormatter(lambda x, _: f"{x * 100:g}%"))


def _grid(plt: Any, count: int, width: float = 5.0, height: float = 3.8) -> tuple[Any, list[Any]]:
    cols = min(3, max(1, count))
    rows = math.ceil(count / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax in flat[count:]:
        ax.set_visible(False)
    return fig, flat[:count]


def _depth_order(results: Results) -> list[str]:
    return list(results.settings["candidates"])


def arecall_vs_selectivity(results: Results, path: Path) -> Path:
    plt = pyplot()
    k = max(results.settings["ks"])
    backends = results.labels()
    records = _with(_by_level(results, k), "arecall")
    fig, axes = _grid(plt, len(backends))
    depths = _depth_order(results)
    oranges = plt.get_cmap("Oranges")
    markers = "v^Dso"
    for ax, backend in zip(axes, backends, strict=True):
        mine = [r for r in records if r["backend"] == backend]
        pts = _series(mine, strategy="pre_filter")
        if pts:  # drawn first and wide, so post_filter lines that reach 1.0 stay visible on top
            ax.plot(*zip(*pts, strict=True), "-", color="tab:blue", label="pre_filter (native)", lw=6, alpha=0.45)
        for i, depth in enumerate(depths):
            pts = _series(mine, strategy="post_filter", candidates=depth)
            if pts:
                ax.plot(*zip(*pts, strict=True), "--", marker=markers[i % len(markers)], lw=1.5, ms=5,
                        color=oranges(0.35 + 0.6 * i / max(1, len(depths) - 1)), label=f"post_filter C={depth}")
        _percent_axis(plt, ax)
        ax.set_ylim(-0.03, 1.05)
        ax.set_title(backend, fontsize=10)
        ax.set_xlabel("selectivity: share of the corpus the principal may use")
        ax.set_ylabel(f"ARecall@{k}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7, loc="lower right")
    docs = results.fixtures[0]["documents"]
    fig.suptitle(f"Authorized recall@{k} vs selectivity, {docs:,} documents\nnative pre-filter (blue) against "
                 "post-filtering the top C unfiltered hits (orange)", fontsize=11)
    return save(plt, fig, path)


def false_abstention_vs_depth(results: Results, path: Path) -> Path:
    plt = pyplot()
    k = min(results.settings["ks"])
    backends = results.labels()
    levels = sorted({r["level"] for r in _by_level(results, k)})
    cmap = plt.get_cmap("viridis")
    fig, axes = _grid(plt, len(backends))
    for ax, backend in zip(axes, backends, strict=True):
        for j, level in enumerate(levels):
            rows = [r for r in _by_level(results, k) if r["backend"] == backend
                    and r["strategy"] == "post_filter" and r["level"] == level]
            pts = sorted((_depth_value(r["candidates"], k), r["false_abstention_rate"]) for r in rows)
            if pts:
                ax.plot(*zip(*pts, strict=True), "o-", color=cmap(j / max(1, len(levels) - 1)),
                        label=f"s={level * 100:g}%", ms=4)
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(plt.matplotlib.ticker.FormatStrFormatter("%g"))
        ax.set_ylim(-0.03, 1.05)
        ax.set_title(backend, fontsize=10)
        ax.set_xlabel(f"candidate depth C (unfiltered hits fetched, K={k})")
        ax.set_ylabel("false-abstention rate")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7, title="selectivity", title_fontsize=7)
    fig.suptitle("post_filter: abstaining although an eligible answer exists, by candidate depth", fontsize=11)
    return save(plt, fig, path)


def _depth_value(label: str, k: int) -> int:
    from filterproof.evaluation.strategies import CandidateDepth

    return CandidateDepth.parse(label).at(k)


def latency_vs_selectivity(results: Results, path: Path) -> Path:
    plt = pyplot()
    deepest = _depth_order(results)[-1] if _depth_order(results) else None
    panels = [("pre_filter", None, "pre_filter (native filter, top K)"),
              ("post_filter", deepest, f"post_filter (unfiltered top C, C={deepest})")]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), squeeze=False)
    colors = plt.get_cmap("tab10")
    for ax, (strategy, depth, title) in zip(axes[0], panels, strict=True):
        for i, label in enumerate(results.labels()):
            rows = [r for r in results.latency if r["backend"] == label and r["strategy"] == strategy
                    and r["candidates"] == depth and r["p50_ms"] is not None]
            rows.sort(key=lambda r: r["level"])
            if rows:
                x = [r["level"] for r in rows]
                ax.plot(x, [r["p50_ms"] for r in rows], "o-", color=colors(i % 10), label=f"{label} p50")
                ax.plot(x, [r["p95_ms"] for r in rows], "--", color=colors(i % 10), alpha=0.5)
        _percent_axis(plt, ax)
        ax.set_yscale("log")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("selectivity")
        ax.set_ylabel("ms per query (solid p50, dashed p95)")
        ax.yaxis.set_major_formatter(plt.matplotlib.ticker.FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(plt.matplotlib.ticker.NullFormatter())
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    return save(plt, fig, path)


def recall_vs_exact(results: Results, path: Path) -> Path:
    plt = pyplot()
    k = max(results.settings["ks"])
    fig, ax = plt.subplots(figsize=(6.5, 4))
    records = _with(_by_level(results, k), "recall_exact")
    for label in results.labels():
        pts = _series(records, backend=label, strategy="pre_filter")
        if pts:
            ax.plot(*zip(*pts, strict=True), "o-", label=label, ms=4)
    _percent_axis(plt, ax)
    ax.set_ylim(-0.03, 1.05)
    ax.set_xlabel("selectivity")
    ax.set_ylabel(f"recall@{k} vs exact filtered top-{k}")
    ax.set_title("Native pre-filtered search against the exact filtered answer", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return save(plt, fig, path)


FIGURES = {
    "arecall_vs_selectivity": arecall_vs_selectivity,
    "false_abstention_vs_depth": false_abstention_vs_depth,
    "latency_vs_selectivity": latency_vs_selectivity,
    "recall_vs_exact": recall_vs_exact,
}


def write_figures(results: Results, directory: Path) -> dict[str, Path]:
    """Every figure as ``<directory>/<name>.png``; none when no backend ran or the run has no levels."""
    directory.mkdir(parents=True, exist_ok=True)
    if not results.labels() or not any(r["level"] is not None for r in results.summary):
        return {}
    figures = {name: draw(results, directory / f"{name}.png") for name, draw in FIGURES.items()
               if name != "latency_vs_selectivity" or results.latency}
    return figures


