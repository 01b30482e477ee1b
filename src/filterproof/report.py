"""Render runs: rich tables for people, one stable JSON document for machines.

JSON layout (``SCHEMA_VERSION`` 1)::

    {"schema": 1, "filterproof": "<version>", "settings": {...},
     "fixtures": {"<name>": {"path", "sha256", "documents", "cases", "malformed": {id: why}}},
     "records": [{"fixture", "fixture_sha256", "backend", "strategy",
                  "decisions": {cases, correct, wrong_document, false_abstention, correct_abstention, leaks},
                  "cases": [{id, expected, selected, score, decision, leaks}],
                  "k": {"1": {recall, arecall, arecall_nonempty, n_nonempty, unusable, precision, ndcg, short}},
                  "mrr"}]}

``expected`` is the fixture's id or null; for a case that accepts any authorized
relevant document it is the list of those ids (empty: must abstain).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from filterproof import __version__
from filterproof.runner import Prepared, Settings, StrategyRun

SCHEMA_VERSION = 1
CASE_TABLE_LIMIT = 20
DECISION_COLUMNS = ("cases", "correct", "wrong_document", "false_abstention", "correct_abstention", "leaks")


def _num(value: float | None, fmt: str = ".3f") -> str:
    return "-" if value is None else format(value, fmt)


def _by(runs: Sequence[StrategyRun], backend: str, strategy: str) -> StrategyRun | None:
    return next((r for r in runs if r.backend == backend and r.strategy == strategy), None)


def fixture_header(console: Console, prepared: Prepared, settings: Settings) -> None:
    fx = prepared.fixture
    malformed = fx.malformed()
    console.rule(f"[bold]{fx.name}[/]  {fx.path}")
    console.print(f"{len(fx.documents)} documents ({len(malformed)} malformed), {len(fx.cases)} cases, "
                  f"post_filter candidates {settings.candidates}, sha256 {fx.sha256[:12]}")
    for doc_id, why in malformed.items():
        console.print(f"  malformed [yellow]{doc_id}[/]: {why} (never eligible)")


def decisions_table(runs: Sequence[StrategyRun]) -> Table:
    table = Table(title="Top-1 decisions", title_justify="left")
    for col in ("backend", "strategy", *DECISION_COLUMNS):
        table.add_column(col.replace("_", " "), justify="left" if col in ("backend", "strategy") else "right")
    for run in runs:
        d = run.decisions()
        leaks = f"[red]{d['leaks']}[/]" if d["leaks"] and run.strategy != "rank_only" else str(d["leaks"])
        table.add_row(run.backend, run.strategy, *(str(d[c]) for c in DECISION_COLUMNS[:-1]), leaks)
    return table


def cases_table(runs: Sequence[StrategyRun], backend: str) -> Table:
    mine = [r for r in runs if r.backend == backend]
    table = Table(title=f"Per-case selections ({backend})", title_justify="left")
    for col in ("case", "expected", *(run.strategy for run in mine)):
        table.add_column(col, no_wrap=True)
    for i, first in enumerate(mine[0].outcomes):
        expected = first.acceptable[0] if len(first.acceptable) == 1 else (
            "abstain" if not first.acceptable else f"any of {len(first.acceptable)}")
        cells = []
        for run in mine:
            o = run.outcomes[i]
            text = f"{o.selected.id} ({o.selected.score:.3f})" if o.selected else "abstain"
            cells.append(text if o.decision.startswith("correct") else f"[red]{text}[/]")
        table.add_row(first.case.id, expected, *cells)
    return table


def _gap(pre: float | None, post: float | None) -> float | None:
    return pre - post if pre is not None and post is not None else None


def k_tables(runs: Sequence[StrategyRun], backend: str, ks: Sequence[int]) -> list[Table]:
    """The authorized-recall layout: all cases, then the cases with something relevant allowed."""
    rank, post, pre = (_by(runs, backend, s) for s in ("rank_only", "post_filter", "pre_filter"))
    if rank is None or rank.k[ks[0]].recall is None:
        return []
    full = Table(title=f"Ranking at K ({backend}): Recall, U@K, P@K, nDCG of rank_only; ARecall per strategy",
                 title_justify="left")
    columns = ("K", "Recall", "ARecall post", "ARecall pre", "gap", "unusable", "P@K", "nDCG",
               "short post", "short pre")
    for col in columns:
        full.add_column(col, justify="right")
    n = rank.k[ks[0]].n_nonempty
    restricted = Table(title=f"Restricted to the {n} cases where something relevant is allowed ({backend})",
                       title_justify="left")
    for col in ("K", "ARecall post", "ARecall pre", "gap"):
        restricted.add_column(col, justify="right")
    for k in ks:
        r = rank.k[k]
        po, pr = (run.k[k] if run else None for run in (post, pre))
        apo, apr = (s.arecall if s else None for s in (po, pr))
        full.add_row(str(k), _num(r.recall), _num(apo), _num(apr), _num(_gap(apr, apo), "+.3f"),
                     _num(r.unusable, ".1%"), _num(r.precision), _num(r.ndcg),
                     str(po.short) if po else "-", str(pr.short) if pr else "-")
        npo, npr = (s.arecall_nonempty if s else None for s in (po, pr))
        restricted.add_row(str(k), _num(npo), _num(npr), _num(_gap(npr, npo), "+.3f"))
    return [full, restricted]


def congruence_lines(runs: Sequence[StrategyRun]) -> list[str]:
    """One line per backend: does it select and rank exactly as the reference does?"""
    from filterproof.congruence import differences

    reference = [r for r in runs if r.backend == "reference"]
    lines = []
    for backend in dict.fromkeys(r.backend for r in runs if r.backend != "reference"):
        diffs = differences(reference, [r for r in runs if r.backend == backend]) if reference else None
        if diffs is None:
            continue
        if not diffs:
            lines.append(f"[green]{backend}: identical to reference[/] (every selection, decision and top-K list)")
        else:
            lines.append(f"[red]{backend}: {len(diffs)} differences from reference[/], first: {diffs[0]}")
    return lines


def render(console: Console, results: Sequence[tuple[Prepared, list[StrategyRun]]], settings: Settings,
           show_cases: bool | None = None) -> None:
    for prepared, runs in results:
        fixture_header(console, prepared, settings)
        console.print(decisions_table(runs))
        for line in congruence_lines(runs):
            console.print(line)
        backends = list(dict.fromkeys(r.backend for r in runs))
        wants_cases = show_cases if show_cases is not None else len(prepared.fixture.cases) <= CASE_TABLE_LIMIT
        for backend in backends:
            if wants_cases:
                console.print(cases_table(runs, backend))
            for table in k_tables(runs, backend, settings.ks):
                console.print(table)


def record(run: StrategyRun) -> dict[str, Any]:
    cases = []
    for o in run.outcomes:
        expected: Any = o.case.expected if o.case.expected_given else o.acceptable
        cases.append({"id": o.case.id, "expected": expected, "selected": o.selected.id if o.selected else None,
                      "score": round(o.selected.score, 6) if o.selected else None,
                      "decision": o.decision, "leaks": o.leaks})
    return {
        "fixture": run.fixture.name, "fixture_sha256": run.fixture.sha256,
        "backend": run.backend, "strategy": run.strategy, "decisions": run.decisions(), "cases": cases,
        "k": {str(k): vars(s).copy() for k, s in run.k.items()}, "mrr": run.mrr,
    }


def to_json(results: Sequence[tuple[Prepared, list[StrategyRun]]], settings: Settings,
            backend_settings: dict[str, Any] | None = None) -> dict[str, Any]:
    fixtures = {
        p.fixture.name: {"path": str(p.fixture.path), "sha256": p.fixture.sha256,
                         "documents": len(p.fixture.documents), "cases": len(p.fixture.cases),
                         "malformed": p.fixture.malformed()}
        for p, _ in results
    }
    return {
        "schema": SCHEMA_VERSION, "filterproof": __version__,
        "settings": {"ks": list(settings.ks), "candidates": str(settings.candidates),
                     "min_score": settings.min_score, "backends": backend_settings or {}},
        "fixtures": fixtures,
        "records": [record(run) for _, runs in results for run in runs],
    }
