"""A self-contained HTML page of a run: the same tables as the console, and the figures inline.

The tables are built once, by ``report.console`` and ``report.levels``, and turned
into HTML here (``table_html``), so that the page and the terminal never disagree.
Figures (sweeps) are embedded as base64 PNGs, so the page is one file to share.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

from rich.table import Table
from rich.text import Text

from filterproof.report import Results
from filterproof.report import console as con
from filterproof.report import levels as lv

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

STYLE = """body{font-family:system-ui,sans-serif;max-width:1280px;margin:2em auto;color:#222;padding:0 1em}
table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:13px}td,th{border:1px solid #ccc;padding:3px 8px;
text-align:right}td.l,th.l{text-align:left}caption{text-align:left;font-weight:600;padding:4px 0}
.bad{color:#b00;font-weight:600}.ok{color:#070}.warn{color:#a60}tr.sep td{border-bottom:2px solid #888}
img{max-width:100%;border:1px solid #eee}figcaption{font-size:13px;color:#555;margin-bottom:2em}
code{background:#f4f4f4;padding:1px 4px}"""


def _class(style: object) -> str:
    text = str(style or "")
    return "bad" if "red" in text else "ok" if "green" in text else "warn" if "yellow" in text else ""


def _cell(value: object, tag: str, left: bool) -> str:
    text = value.plain if isinstance(value, Text) else str(value)
    classes = " ".join(c for c in (_class(value.style) if isinstance(value, Text) else "", "l" if left else "") if c)
    return f"<{tag}{f' class={chr(39)}{classes}{chr(39)}' if classes else ''}>{html.escape(text)}</{tag}>"


def table_html(table: Table) -> str:
    """A rich ``Table`` as an HTML table: same header, same cells, red cells marked ``bad``."""
    title = table.title.plain if isinstance(table.title, Text) else str(table.title or "")
    left = [c.justify in (None, "left", "default") for c in table.columns]
    head = "".join(_cell(c.header, "th", lf) for c, lf in zip(table.columns, left, strict=True))
    rows = []
    cells = [list(c._cells) for c in table.columns]  # rich keeps cells per column
    for i in range(table.row_count):
        sep = " class='sep'" if table.rows[i].end_section else ""
        rows.append(f"<tr{sep}>" + "".join(_cell(col[i], "td", lf) for col, lf in zip(cells, left, strict=True))
                    + "</tr>")
    return f"<table><caption>{html.escape(title)}</caption><tr>{head}</tr>{''.join(rows)}</table>"


def _line(text: Text) -> str:
    return f"<p class='{_class(text.style)}'>{html.escape(text.plain)}</p>"


def _figure(name: str, path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (f"<figure><img alt='{name}' src='data:image/png;base64,{data}'>"
            f"<figcaption>{html.escape(CAPTIONS.get(name, name))}</figcaption></figure>")


def compare_body(results: Results) -> list[str]:
    parts = []
    for info in results.fixtures:
        fixture = info["name"]
        parts.append(f"<h2>{html.escape(fixture)}</h2><p>{info['documents']} documents "
                     f"({len(info['malformed'])} malformed), {info['cases']} cases; <code>{html.escape(info['path'])}"
                     f"</code>, sha256 {info['sha256'][:12]}{html.escape(con.vectors_note(info))}</p>")
        parts += [_line(t) for t in con.status_lines(results, fixture)]
        labels = results.labels(fixture)
        if not labels:
            continue
        parts.append(table_html(con.side_by_side(results, fixture, labels, info["cases"])))
        lines = con.congruence_lines(results, fixture, labels)
        parts += [_line(line) for _, line, _ in lines]
        differing = {label for label, _, differs in lines if differs}
        for label in [lb for lb in labels if lb == labels[0] or lb in differing]:
            if info["cases"] <= con.CASE_TABLE_LIMIT:
                parts.append(table_html(con.cases_table(results, fixture, label)))
            parts += [table_html(t) for t in con.k_tables(results, fixture, label)]
        if info["malformed"]:
            items = "".join(f"<li><code>{html.escape(d)}</code>: {html.escape(w)}</li>"
                            for d, w in info["malformed"].items())
            parts.append(f"<details><summary>{len(info['malformed'])} malformed documents (never eligible)"
                         f"</summary><ul>{items}</ul></details>")
    return parts


def sweep_body(results: Results, figures: dict[str, Path]) -> list[str]:
    settings = results.settings
    k, k1 = max(settings["ks"]), min(settings["ks"])
    parts = [table_html(lv.backends_table(results))]
    parts += [_figure(name, path) for name, path in figures.items()]
    parts += [table_html(lv.metric_table(results, "arecall", k, f"ARecall@{k} by selectivity")),
              table_html(lv.metric_table(results, "recall_exact", k, f"Recall@{k} against the exact filtered top-{k}",
                                         strategies=("pre_filter", "post_filter"))),
              table_html(lv.metric_table(results, "short_rate", k, f"Short results at K={k}",
                                         strategies=("pre_filter", "post_filter"), fmt=".0%", bad=None)),
              table_html(lv.metric_table(results, "empty_rate", k1, f"Empty results at K={k1}",
                                         strategies=("pre_filter", "post_filter"), fmt=".0%", bad=None)),
              table_html(lv.metric_table(results, "false_abstention_rate", k1, f"False abstentions at K={k1}",
                                         strategies=("pre_filter", "post_filter"), fmt=".0%", bad=None))]
    if results.latency:
        parts.append(table_html(lv.latency_table(results)))
    return parts


def write_html(results: Results, path: Path, figures: dict[str, Path] | None = None,
               json_name: str | None = None) -> Path:
    """The page for ``results``; sweeps (runs with levels) get the figures and the per-level tables."""
    settings = results.settings
    leaks = sum(r["leaks"] for r in results.summary if r["strategy"] != "rank_only" and r["level"] is None)
    title = f"filterproof {results.command}"
    summary = (f"Backends: {', '.join(html.escape(b) for b in settings['backends'])}. K = "
               f"{', '.join(map(str, settings['ks']))}; post_filter candidate depths "
               f"{', '.join(settings['candidates'])}; vectors: {settings['embedding']}. Leaks under filtered "
               f"strategies: <b class='{'bad' if leaks else 'ok'}'>{leaks}</b>.")
    if json_name:
        summary += f" Data: <a href='{html.escape(json_name)}'>{html.escape(json_name)}</a>."
    problems = "".join(f"<li class='bad'>{html.escape(str(p))}</li>" for p in results.problems)
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title><style>{STYLE}</style>"
             f"</head><body><h1>{title}</h1><p>{summary}</p>",
             f"<p class='bad'>Problems (exit code 1):</p><ul>{problems}</ul>" if problems else "",
             "" if results.complete else "<p class='bad'>Incomplete: a backend failed.</p>"]
    parts += sweep_body(results, figures or {}) if results.command == "sweep" else compare_body(results)
    parts.append("</body></html>")
    path.write_text("\n".join(parts), encoding="utf-8")
    return path
