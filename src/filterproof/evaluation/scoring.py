"""One scorer: a strategy's lists for one case become one flat row; rows aggregate into summaries.

``score_case`` turns the lists a strategy returned for a case (one per K) into a
``CaseRow``: the top-1 selection and its decision, the leaks, and every metric at
every K. ``summarize`` averages case rows into one summary row per (fixture,
backend, strategy, candidate depth, K), over all cases and, for sweeps, per
selectivity level. ``compare`` and ``sweep`` both score through here, so the same
fixture is judged the same way by both.

Definitions used everywhere (docs/concepts/metrics.md):

* a **leak** is a document the principal may not use that a strategy returned; per
  case, the distinct leaked documents over all its lists (``leaks``), and per K the
  distinct ones in ``L_K`` (``leaks_at_k``);
* a **short** result at K returns fewer than min(K, available) documents, where
  available counts the documents with a positive score that the strategy may return
  (eligible ones for filtered strategies, all for rank_only); **empty** returns none
  of them although some exist;
* the **top-1 decision** takes the first document of ``L_1`` when its score reaches
  the threshold, and classifies it against the case's acceptable answers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from filterproof.adapters.base import Hit
from filterproof.evaluation import metrics
from filterproof.evaluation.strategies import TIE_DIGITS, Strategy
from filterproof.evaluation.truth import CaseTruth, Prepared, recall_vs_exact, rescore

DECISIONS = (metrics.CORRECT, metrics.WRONG_DOCUMENT, metrics.FALSE_ABSTENTION, metrics.CORRECT_ABSTENTION)
RANKING_METRICS = ("recall", "arecall", "unusable", "precision", "ndcg")


@dataclass
class AtK:
    """One case's list at one K, and what it scores."""

    ids: list[str]
    short: bool
    empty: bool
    leaks: int
    recall_exact: float | None
    recall: float | None = None
    arecall: float | None = None
    unusable: float | None = None
    precision: float | None = None
    ndcg: float | None = None


@dataclass
class CaseRow:
    """One (fixture, backend, strategy, depth, case): its top-1 decision and its lists at every K."""

    fixture: str
    backend: str
    strategy: str
    candidates: str | None
    case: str
    level: float
    selected: str | None
    score: float | None
    decision: str
    acceptable: list[str]
    leaks: list[str]
    k: dict[int, AtK] = field(default_factory=dict)
    rr: float | None = None
    nonempty: bool = False
    """Whether something relevant is authorized (the case counts in the restricted ARecall mean)."""

    def to_json(self) -> dict[str, Any]:
        """The row as JSON values: its fields, ``k`` keyed by strings. Shallow (the lists are this row's own), not
        ``dataclasses.asdict``, which deep-copies every value: 10,800 rows took 1.8 s of a stop's two seconds."""
        row = dict(vars(self))  # the fields, in their order (a dataclass's __init__ sets them so)
        row["k"] = {str(k): dict(vars(at)) for k, at in self.k.items()}
        return row

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> CaseRow:
        data = dict(row)
        data["k"] = {int(k): AtK(**v) for k, v in row["k"].items()}
        return cls(**data)


def _at_k(prepared: Prepared, truth: CaseTruth, query: int, hits: list[Hit], k: int, ceiling: int) -> AtK:
    order = prepared.fixture.order
    rows = [order[h.id] for h in hits]
    ids = [h.id for h in hits]
    at = AtK(ids=ids, short=len(ids) < min(k, ceiling), empty=not ids and ceiling > 0,
             leaks=sum(1 for r in rows if not truth.mask[r]),
             recall_exact=recall_vs_exact(rows, rescore(prepared, query, rows), truth, k))
    if truth.case.relevant is not None:
        relevant = truth.case.relevant
        allowed = {i for i, r in zip(ids, rows, strict=True) if truth.mask[r]} | truth.authorized_ids
        at.recall = metrics.recall_at_k(ids, relevant, k)
        at.arecall = metrics.authorized_recall_at_k(ids, relevant, allowed, k)
        at.unusable = metrics.unusable_at_k(ids, allowed, k)
        at.precision = metrics.precision_at_k(ids, relevant, k)
        at.ndcg = metrics.ndcg_at_k(ids, relevant, k)
    return at


def score_case(prepared: Prepared, i: int, backend: str, strategy: Strategy, lists: dict[int, list[Hit]],
               threshold: float) -> CaseRow:
    """Score the lists (K -> hits, K = 1 included) one strategy returned for case ``i``."""
    truth = prepared.truths[i]
    top = lists[1][0] if lists.get(1) else None
    selected = top if top is not None and top.score >= threshold else None
    ceiling = truth.positive if strategy.name == "rank_only" else truth.available
    returned = [h.id for hits in lists.values() for h in hits]
    leaked = list(dict.fromkeys(d for d in returned if not truth.mask[prepared.fixture.order[d]]))
    row = CaseRow(
        fixture=prepared.fixture.name, backend=backend, strategy=strategy.name, candidates=strategy.candidates,
        case=truth.case.id, level=truth.level, selected=selected.id if selected else None,
        score=round(selected.score, TIE_DIGITS) if selected else None,
        decision=metrics.decision(selected.id if selected else None, truth.acceptable),
        acceptable=list(truth.acceptable), leaks=leaked, nonempty=bool(truth.authorized),
    )
    row.k = {k: _at_k(prepared, truth, i, hits, k, ceiling) for k, hits in sorted(lists.items())}
    if truth.case.relevant is not None:
        row.rr = metrics.reciprocal_rank(row.k[max(row.k)].ids, truth.case.relevant)
    return row


# -- aggregation -------------------------------------------------------------------

GroupKey = tuple[str, str, str, str | None, float | None]


def _mean(values: Iterable[float | None]) -> float | None:
    return metrics.mean([v for v in values if v is not None] or [])


def summary_row(key: GroupKey, k: int, rows: Sequence[CaseRow]) -> dict[str, Any]:
    """Means and counts over ``rows`` (one group) at one K."""
    fixture, backend, strategy, candidates, level = key
    at = [r.k[k] for r in rows]
    decisions = {name: sum(r.decision == name for r in rows) for name in DECISIONS}
    n = len(rows)
    out: dict[str, Any] = {
        "fixture": fixture, "backend": backend, "strategy": strategy, "candidates": candidates, "level": level,
        "k": k, "cases": n,
        "correct": decisions[metrics.CORRECT] + decisions[metrics.CORRECT_ABSTENTION],
        "wrong_document": decisions[metrics.WRONG_DOCUMENT],
        "false_abstention": decisions[metrics.FALSE_ABSTENTION],
        "correct_abstention": decisions[metrics.CORRECT_ABSTENTION],
        "leaks": sum(len(r.leaks) for r in rows), "leaks_at_k": sum(a.leaks for a in at),
        "short": sum(a.short for a in at), "empty": sum(a.empty for a in at),
    }
    for name in RANKING_METRICS:
        out[name] = _mean(getattr(a, name) for a in at)
    out["arecall_nonempty"] = _mean(a.arecall for r, a in zip(rows, at, strict=True) if r.nonempty)
    out["n_nonempty"] = sum(1 for r in rows if r.nonempty and r.k[k].arecall is not None)
    out["mrr"] = _mean(r.rr for r in rows)
    out["recall_exact"] = _mean(a.recall_exact for a in at)
    for name in ("short", "empty", "false_abstention", "wrong_document"):
        out[f"{name}_rate"] = out[name] / n if n else None
    return out


def summarize(rows: Sequence[CaseRow], ks: Sequence[int], by_level: bool = False) -> list[dict[str, Any]]:
    """Summary rows per (fixture, backend, strategy, depth) and K: over all cases (level None), and per level."""
    groups: dict[GroupKey, list[CaseRow]] = defaultdict(list)
    for row in rows:
        base = (row.fixture, row.backend, row.strategy, row.candidates)
        groups[(*base, None)].append(row)
        if by_level:
            groups[(*base, row.level)].append(row)
    return [summary_row(key, k, members) for key, members in groups.items() for k in ks]


def strategy_label(strategy: str, candidates: str | None) -> str:
    """``post_filter C=10K``; the other strategies by name."""
    return f"{strategy} C={candidates}" if candidates else strategy


def by_strategy(rows: Sequence[CaseRow], ks: Sequence[int]) -> dict[str, dict[int, dict[str, Any]]]:
    """Strategy label -> K -> the summary row over all cases (one fixture, one backend)."""
    out: dict[str, dict[int, dict[str, Any]]] = {}
    for row in summarize(rows, ks):
        out.setdefault(strategy_label(row["strategy"], row["candidates"]), {})[row["k"]] = row
    return out


def selections(rows: Sequence[CaseRow], strategy: str) -> dict[str, str | None]:
    """Case id -> the top-1 selection of one strategy (by label)."""
    return {r.case: r.selected for r in rows if strategy_label(r.strategy, r.candidates) == strategy}
