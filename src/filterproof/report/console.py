"""Rich tables of a ``compare``: the backends side by side, detail only where one differs.

Per fixture: a header with the malformed documents; one table with a column per
backend (top-1 decisions, leaks, ARecall@K post and pre, short results), each cell
red where it departs from the reference or where a filtered strategy leaked; one
line per backend saying whether it is identical to the reference; then the
reference's per-case selections (small fixtures) and its ranking tables in the
authorized-recall layout. A backend that differs gets its own detail tables (all do
with ``verbose``). Every value from a fixture is printed as plain text, never as
markup, so ids like ``[/]`` print as they are.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from filterproof.adapters.searchpath import off_declared, summary
from filterproof.evaluation.congruence import REFERENCE, differences, refusal_summary
from filterproof.evaluation.scoring import CaseRow
from filterproof.evaluation.scoring import strategy_label as label_of
from filterproof.report import Results

CASE_TABLE_LIMIT = 20
DECISION_ROWS = (("correct", "correct"), ("wrong document", "wrong_document"),
                 ("false abstention", "false_abstention"), ("correct abstention", "correct_abstention"),
                 ("leaks", "leaks"))


def num(value: float | None, fmt: str = ".3f") -> str:
    return "-" if value is None else format(value, fmt)


def strategy_label(row: dict[str, Any] | CaseRow) -> str:
    if isinstance(row, dict):
        return label_of(row["strategy"], row["candidates"])
    return label_of(row.strategy, row.candidates)


def overall(results: Results, fixture: str, backend: str, k: int) -> dict[str, dict[str, Any]]:
    """Strategy label -> the summary row over all cases, at K."""
    return {strategy_label(r): r for r in results.summary
            if r["fixture"] == fixture and r["backend"] == backend and r["level"] is None and r["k"] == k}


def vectors_note(info: dict[str, Any]) -> str:
    """``, vectors fixture (384-d)`` when the vectors are not filterproof's TF-IDF (the default: nothing)."""
    vectors = info.get("vectors", "tfidf")
    return "" if vectors == "tfidf" else f", vectors {vectors} ({info['dim']}-d)"


def fixture_header(console: Console, results: Results, info: dict[str, Any]) -> None:
    console.rule(Text.assemble((info["name"], "bold"), f"  {info['path']}"))
    depths = ", ".join(results.settings["candidates"])
    console.print(Text(f"{info['documents']} documents ({len(info['malformed'])} malformed), {info['cases']} cases, "
                       f"post_filter candidates {depths}, sha256 {info['sha256'][:12]}{vectors_note(info)}"))
    for doc_id, why in info["malformed"].items():
        console.print(Text.assemble("  malformed ", (doc_id, "yellow"), f": {why} (never eligible)"))


def _cell(value: str, reference: str | None, bad: bool = False) -> Text:
    differs = reference is not None and value != reference
    return Text(value, style="bold red" if bad or differs else "")


def side_by_side(results: Results, fixture: str, labels: list[str], cases: int) -> Table:
    """One row per (strategy, measure), one column per backend; red where it departs from the reference."""
    ks = results.settings["ks"]
    table = Table(title=f"{fixture}: backends side by side ({cases} cases)", title_justify="left")
    table.add_column("strategy")
    table.add_column("measure")
    for label in labels:
        table.add_column(Text(label), justify="right")
    per_k = {k: {label: overall(results, fixture, label, k) for label in labels} for k in ks}
    first = per_k[ks[0]]
    ref = REFERENCE if REFERENCE in labels else None
    strategies = list(dict.fromkeys(s for label in labels for s in first[label]))
    for strategy in strategies:
        rows: list[tuple[str, dict[str, str], bool]] = []
        for title, key in DECISION_ROWS:
            values = {lb: str(first[lb][strategy][key]) if strategy in first[lb] else "-" for lb in labels}
            if key == "correct":
                values = {lb: f"{v}/{cases}" if v != "-" else v for lb, v in values.items()}
            rows.append((title, values, key == "leaks" and strategy != "rank_only"))
        for k in ks:
            values = {lb: num(per_k[k][lb][strategy]["arecall"]) if strategy in per_k[k][lb] else "-" for lb in labels}
            if any(v != "-" for v in values.values()):
                rows.append((f"ARecall@{k}", values, False))
        kmax = max(ks)
        values = {lb: str(per_k[kmax][lb][strategy]["short"]) if strategy in per_k[kmax][lb] else "-" for lb in labels}
        rows.append((f"short results @{kmax}", values, False))
        for i, (title, values, must_be_zero) in enumerate(rows):
            cells = [_cell(values[lb], values.get(ref) if ref else None, must_be_zero and values[lb] not in ("0", "-"))
                     for lb in labels]
            table.add_row(strategy if i == 0 else "", title, *cells, end_section=i == len(rows) - 1)
    return table


def congruence_lines(results: Results, fixture: str, labels: list[str]) -> list[tuple[str, Text, bool]]:
    """Per backend: (label, a line saying whether it selects and ranks exactly as the reference, differs)."""
    reference = [r for r in results.cases if r.fixture == fixture and r.backend == REFERENCE]
    refusals = {b["label"]: b["not_indexable"] for b in results.backends
                if b["fixture"] == fixture and b.get("not_indexable")}
    lines = []
    for label in labels:
        if label == REFERENCE or not reference:
            continue
        if label in refusals:
            lines.append((label, Text(f"{label}: {refusal_summary(refusals[label])}", style="yellow"), True))
            continue
        diffs = differences(reference, [r for r in results.cases if r.fixture == fixture and r.backend == label])
        if not diffs:
            lines.append((label, Text(f"{label}: identical to reference (every selection, decision and top-K list)",
                                      style="green"), False))
        else:
            lines.append((label, Text(f"{label}: {len(diffs)} differences from reference, first: {diffs[0]}",
                                      style="red"), True))
    return lines


def cases_table(results: Results, fixture: str, label: str) -> Table:
    mine = [r for r in results.cases if r.fixture == fixture and r.backend == label]
    strategies = list(dict.fromkeys(strategy_label(r) for r in mine))
    table = Table(title=Text(f"Per-case selections ({label})"), title_justify="left")
    for col in ("case", "expected", *strategies):
        table.add_column(col, no_wrap=True)
    by_case: dict[str, dict[str, CaseRow]] = {}
    for r in mine:
        by_case.setdefault(r.case, {})[strategy_label(r)] = r
    for case, rows in by_case.items():
        acceptable = next(iter(rows.values())).acceptable
        expected = (acceptable[0] if len(acceptable) == 1 else
                    "abstain" if not acceptable else f"any of {len(acceptable)}")
        cells = []
        for strategy in strategies:
            r = rows[strategy]
            text = f"{r.selected} ({r.score:.3f})" if r.selected is not None and r.score is not None else "abstain"
            cells.append(Text(text, style="" if r.decision.startswith("correct") else "red"))
        table.add_row(Text(case), Text(expected), *cells)
    return table


def k_tables(results: Results, fixture: str, label: str) -> list[Table]:
    """The authorized-recall layout: all cases, then the cases where something relevant is allowed."""
    ks = results.settings["ks"]
    rows = {k: overall(results, fixture, label, k) for k in ks}
    rank = {k: rows[k].get("rank_only") for k in ks}
    if rank[ks[0]] is None or rank[ks[0]]["recall"] is None:
        return []
    posts = [s for s in rows[ks[0]] if s.startswith("post_filter")]
    post_name = posts[0] if posts else None
    full = Table(title=Text(f"Ranking at K ({label}): Recall, U@K, P@K, nDCG of rank_only; ARecall per strategy"
                            + (f" ({post_name})" if post_name else "")), title_justify="left")
    for col in ("K", "Recall", "ARecall post", "ARecall pre", "gap", "unusable", "P@K", "nDCG", "short post",
                "short pre"):
        full.add_column(col, justify="right")
    n = rank[ks[0]]["n_nonempty"]
    restricted = Table(title=Text(f"Restricted to the {n} cases where something relevant is allowed ({label})"),
                       title_justify="left")
    for col in ("K", "ARecall post", "ARecall pre", "gap"):
        restricted.add_column(col, justify="right")
    for k in ks:
        r, post, pre = rank[k], rows[k].get(post_name or ""), rows[k].get("pre_filter")
        apo, apr = (s["arecall"] if s else None for s in (post, pre))
        gap = apr - apo if apo is not None and apr is not None else None
        full.add_row(str(k), num(r["recall"]), num(apo), num(apr), num(gap, "+.3f"), num(r["unusable"], ".1%"),
                     num(r["precision"]), num(r["ndcg"]), str(post["short"]) if post else "-",
                     str(pre["short"]) if pre else "-")
        npo, npr = (s["arecall_nonempty"] if s else None for s in (post, pre))
        restricted.add_row(str(k), num(npo), num(npr), num(npr - npo if npo is not None and npr is not None else None,
                                                           "+.3f"))
    return [full, restricted]


def status_lines(results: Results, fixture: str) -> list[Text]:
    lines = []
    for b in results.backends:
        if b["fixture"] == fixture and b["status"] != "ok":
            style = "yellow" if b["status"] == "unavailable" else "bold red"
            lines.append(Text(f"{b['label']}: {b['status']}: {b['reason']}", style=style))
    return lines


def path_lines(results: Results, fixture: str) -> list[Text]:
    """Per backend: the paths its sampled filtered searches took (``explain``), in yellow when another than the
    path it declares."""
    lines = []
    for b in results.backends:
        if b["fixture"] == fixture and b["status"] == "ok" and b.get("paths"):
            declared = b.get("capabilities", {}).get("search_path")
            off = off_declared(b["label"], declared, b["paths"])
            lines.append(Text(off, style="yellow") if off else
                         Text(f"{b['label']}: filtered searches took {summary(b['paths'])}", style="dim"))
    return lines


def render_compare(console: Console, results: Results, show_cases: bool | None = None,
                   verbose: bool = False) -> None:
    for info in results.fixtures:
        fixture = info["name"]
        fixture_header(console, results, info)
        for line in status_lines(results, fixture):
            console.print(line)
        labels = results.labels(fixture)
        if not labels:
            continue
        console.print(side_by_side(results, fixture, labels, info["cases"]))
        lines = congruence_lines(results, fixture, labels)
        for _, line, _ in lines:
            console.print(line)
        for line in path_lines(results, fixture):
            console.print(line)
        differing = {label for label, _, differs in lines if differs}
        shown = [lb for lb in labels if verbose or lb == labels[0] or lb in differing]
        wants_cases = show_cases if show_cases is not None else info["cases"] <= CASE_TABLE_LIMIT
        for label in shown:
            if wants_cases:
                console.print(cases_table(results, fixture, label))
            for table in k_tables(results, fixture, label):
                console.print(table)
    render_problems(console, results)


def render_problems(console: Console, results: Results) -> None:
    if results.problems:
        console.print(Text(f"{len(results.problems)} problem(s): exit code 1", style="bold red"))
        for problem in results.problems:
            console.print(Text(f"  {problem}", style="red"))
    if not results.complete:
        console.print(Text("results are incomplete: a backend failed (see above)", style="bold red"))
