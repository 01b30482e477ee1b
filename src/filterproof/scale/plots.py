"""Figures of a sweep report (matplotlib, Agg) as PNG files, and a self-contained HTML page embedding them.

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

import base64
import html
import math
from pathlib import Path
from typing import Any

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
    return sorted((r["selectivity"], r["_y"]) for r in rows if r["_y"] is not None)


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


def _depth_order(rep: dict[str, Any]) -> list[str]:
    return list(rep["settings"]["candidates"])


def arecall_vs_selectivity(rep: dict[str, Any], path: Path) -> Path:
    plt = pyplot()
    k = max(rep["settings"]["ks"])
    backends = [b["label"] for b in rep["backends"]]
    records = _with([r for r in rep["records"] if r["k"] == k], "arecall")
    fig, axes = _grid(plt, len(backends))
    depths = _depth_order(rep)
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
    docs = rep["corpus"]["documents"]
    fig.suptitle(f"Authorized recall@{k} vs selectivity, {docs:,} documents\nnative pre-filter (blue) against "
                 "post-filtering the top C unfiltered hits (orange)", fontsize=11)
    return save(plt, fig, path)


def false_abstention_vs_depth(rep: dict[str, Any], path: Path) -> Path:
    plt = pyplot()
    k = min(rep["settings"]["ks"])
    backends = [b["label"] for b in rep["backends"]]
    levels = sorted(float(level) for level in rep["levels"])
    cmap = plt.get_cmap("viridis")
    fig, axes = _grid(plt, len(backends))
    for ax, backend in zip(axes, backends, strict=True):
        for j, level in enumerate(levels):
            rows = [r for r in rep["records"] if r["backend"] == backend and r["k"] == k
                    and r["strategy"] == "post_filter" and r["selectivity"] == level]
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
    from filterproof.strategies import CandidateDepth

    return CandidateDepth.parse(label).at(k)


def latency_vs_selectivity(rep: dict[str, Any], path: Path) -> Path:
    plt = pyplot()
    deepest = _depth_order(rep)[-1] if _depth_order(rep) else None
    panels = [("pre_filter", None, "pre_filter (native filter, top K)"),
              ("post_filter", deepest, f"post_filter (unfiltered top C, C={deepest})")]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), squeeze=False)
    colors = plt.get_cmap("tab10")
    for ax, (strategy, depth, title) in zip(axes[0], panels, strict=True):
        for i, b in enumerate(rep["backends"]):
            rows = [r for r in rep["latency"] if r["backend"] == b["label"] and r["strategy"] == strategy
                    and r["candidates"] == depth and r["p50_ms"] is not None]
            rows.sort(key=lambda r: r["selectivity"])
            if rows:
                x = [r["selectivity"] for r in rows]
                ax.plot(x, [r["p50_ms"] for r in rows], "o-", color=colors(i % 10), label=f"{b['label']} p50")
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


def recall_vs_exact(rep: dict[str, Any], path: Path) -> Path:
    plt = pyplot()
    k = max(rep["settings"]["ks"])
    fig, ax = plt.subplots(figsize=(6.5, 4))
    records = _with([r for r in rep["records"] if r["k"] == k], "recall_exact")
    for b in rep["backends"]:
        pts = _series(records, backend=b["label"], strategy="pre_filter")
        if pts:
            ax.plot(*zip(*pts, strict=True), "o-", label=b["label"], ms=4)
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


def write_figures(rep: dict[str, Any], directory: Path) -> dict[str, Path]:
    """Every figure as ``<directory>/<name>.png``; none when no backend ran."""
    directory.mkdir(parents=True, exist_ok=True)
    if not rep["backends"]:
        return {}
    return {name: draw(rep, directory / f"{name}.png") for name, draw in FIGURES.items()}


# -- the self-contained HTML page: figures inline as base64 PNG, and the key tables

CAPTIONS = {
    "arecall_vs_selectivity": "ARecall@K against selectivity, one panel per backend. Blue: native pre-filtering; "
                              "orange, light to dark: post-filtering of the top C unfiltered candidates (C=1K is also "
                              "what an unfiltered top-K scores: ARecall ignores ineligible hits). The further a line "
                              "falls below 1 to the left, the more of what the principal may use that strategy loses "
                              "as the policy tightens.",
    "false_abstention_vs_depth": "post_filter at K=1 (the top-1 answer): the share of cases that abstain although "
                                 "an eligible answer exists, by how many unfiltered candidates were fetched.",
    "latency_vs_selectivity": "Single-query latency (p50 solid, p95 dashed) against selectivity.",
    "recall_vs_exact": "Each backend's native filtered search against the exact filtered top-K (tie-aware).",
}


def _img(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode("ascii")


def _table(rep: dict[str, Any], metric: str, k: int, strategies: tuple[str, ...], fmt: str) -> str:
    levels = sorted(float(level) for level in rep["levels"])
    head = "".join(f"<th>{level * 100:g}%</th>" for level in levels)
    rows: dict[tuple[str, str], dict[float, Any]] = {}
    for r in rep["records"]:
        if r["k"] == k and r["strategy"] in strategies:
            label = r["strategy"] + (f" C={r['candidates']}" if r["candidates"] else "")
            rows.setdefault((r["backend"], label), {})[r["selectivity"]] = r.get(metric)
    body = []
    for (backend, label), values in rows.items():
        cells = "".join(
            "<td>-</td>" if values.get(level) is None else
            f"<td class='{'bad' if values[level] < 0.9 and fmt == '.3f' else ''}'>{format(values[level], fmt)}</td>"
            for level in levels)
        body.append(f"<tr><td>{html.escape(backend)}</td><td>{html.escape(label)}</td>{cells}</tr>")
    return f"<table><tr><th>backend</th><th>strategy</th>{head}</tr>{''.join(body)}</table>"


def _backends(rep: dict[str, Any]) -> str:
    rows = []
    for b in rep["backends"]:
        qps = b["batched_qps"]
        over = "-" if b["overhead"] is None else f"{b['overhead']:.1%}"
        rows.append(f"<tr><td>{html.escape(b['label'])}</td><td>{b['ingest_s']:.1f}</td><td>{b['build_s']:.1f}</td>"
                    f"<td>{b['query_s']:.1f}</td><td>{(qps['unfiltered'] or 0):.0f}</td>"
                    f"<td>{(qps['filtered'] or 0):.0f}</td><td>{over}</td></tr>")
    skipped = "".join(f"<li>{html.escape(s['label'])}: {html.escape(s['reason'])}</li>" for s in rep["skipped"])
    return ("<table><tr><th>backend</th><th>ingest s</th><th>build s</th><th>queries s</th><th>QPS unfiltered</th>"
            f"<th>QPS filtered</th><th>harness overhead</th></tr>{''.join(rows)}</table>"
            + (f"<p>Skipped:</p><ul>{skipped}</ul>" if skipped else ""))


STYLE = """body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:13px}td,th{border:1px solid #ccc;padding:3px 7px;
text-align:right}td:first-child,td:nth-child(2){text-align:left}.bad{color:#b00;font-weight:600}
img{max-width:100%;border:1px solid #eee}figcaption{font-size:13px;color:#555;margin-bottom:2em}"""


def write_html(rep: dict[str, Any], figures: dict[str, Path], path: Path, json_name: str | None = None) -> Path:
    corpus, settings = rep["corpus"], rep["settings"]
    k = max(settings["ks"])
    leaks = sum(r["leaks"] for r in rep["records"] if r["strategy"] != "rank_only")
    harness = rep["harness"]
    over = "-" if harness["overhead"] is None else f"{harness['overhead']:.1%}"
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>filterproof sweep</title><style>{STYLE}</style>"
        "</head><body>",
        f"<h1>filterproof sweep: {corpus['documents']:,} documents, {corpus['cases']} cases</h1>",
        f"<p>Dense vectors: TF-IDF + TruncatedSVD, {settings['dim']} dimensions, shared by every backend. K = "
        f"{', '.join(map(str, settings['ks']))}; post_filter candidate depths {', '.join(settings['candidates'])}. "
        f"Leaks under filtered strategies: <b>{leaks}</b>. Harness overhead: {over}. Total "
        f"{rep['timings'].get('total_s', 0):.0f} s on {rep['machine']['cpus']} CPUs."
        + (f" Data: <a href='{html.escape(json_name)}'>{html.escape(json_name)}</a>." if json_name else "") + "</p>",
        "<h2>Backends</h2>", _backends(rep),
    ]
    for name, figure in figures.items():
        parts.append(f"<figure><img alt='{name}' src='data:image/png;base64,{_img(figure)}'>"
                     f"<figcaption>{html.escape(CAPTIONS.get(name, name))}</figcaption></figure>")
    parts += [f"<h2>ARecall@{k}</h2>", _table(rep, "arecall", k, ("rank_only", "post_filter", "pre_filter"), ".3f"),
              f"<h2>Recall@{k} against the exact filtered top-{k}</h2>",
              _table(rep, "recall_exact", k, ("post_filter", "pre_filter"), ".3f"),
              f"<h2>Short results at K={k}</h2>", _table(rep, "short_rate", k, ("post_filter", "pre_filter"), ".0%"),
              f"<h2>Empty results at K={min(settings['ks'])}</h2>",
              _table(rep, "empty_rate", min(settings["ks"]), ("post_filter", "pre_filter"), ".0%"),
              f"<h2>False abstentions at K={min(settings['ks'])}</h2>",
              _table(rep, "false_abstention_rate", min(settings["ks"]), ("post_filter", "pre_filter"), ".0%"),
              "</body></html>"]
    path.write_text("\n".join(parts), encoding="utf-8")
    return path
