"""Run fixtures through backends and strategies; score every case.

``prepare`` fits the shared vectors and the policy oracle once per fixture;
``run_backend`` indexes them in one store and ``evaluate`` asks every case under
every strategy. Results are plain dataclasses; ``report`` renders them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from filterproof import metrics
from filterproof.adapters import Adapter
from filterproof.adapters.base import Hit, records_of
from filterproof.adapters.registry import Resolved, resolve
from filterproof.adapters.spec import BackendSpec
from filterproof.embedding import Embedding, TfidfSpace
from filterproof.fixtures import Case, Fixture
from filterproof.policy import PolicyFilter, eligible_ids
from filterproof.strategies import STRATEGIES, CandidateDepth, post_filter, ranked_search

DEFAULT_MIN_SCORE = 0.25
DEFAULT_KS = (1, 3, 5, 10)
UPSERT_BATCH = 512


@dataclass(frozen=True)
class Settings:
    ks: tuple[int, ...] = DEFAULT_KS
    candidates: CandidateDepth = field(default_factory=CandidateDepth)
    min_score: float | None = None
    """Overrides the fixture's ``min_score``; both absent: ``DEFAULT_MIN_SCORE``."""


@dataclass
class Prepared:
    """A fixture with its shared vectors and, per case, the policy's answer."""

    fixture: Fixture
    embedding: Embedding
    doc_vectors: np.ndarray
    query_vectors: np.ndarray
    filters: list[PolicyFilter]
    eligible: list[set[str]]
    positive: list[set[str]]
    """Per case, the documents whose exact score is positive (retrievable at all)."""


def prepare(fixture: Fixture, embedding: Embedding | None = None) -> Prepared:
    embedding = embedding or TfidfSpace([d.text for d in fixture.documents])
    docs = embedding.documents()
    queries = embedding.queries([c.query for c in fixture.cases])
    pairs = [(d.id, d.metadata) for d in fixture.documents]
    filters = [fixture.policy_filter(c) for c in fixture.cases]
    exact = queries.astype(np.float64) @ docs.astype(np.float64).T
    ids = np.array([d.id for d in fixture.documents], dtype=object)
    positive = [set(ids[np.round(row, 6) > 0]) for row in exact]
    return Prepared(fixture, embedding, docs, queries, filters,
                    [eligible_ids(pairs, f) for f in filters], positive)


@dataclass
class CaseOutcome:
    case: Case
    acceptable: list[str]
    selected: Hit | None
    decision: str
    leaks: list[str]
    lists: dict[int, list[str]]
    short: dict[int, bool]


@dataclass
class KSummary:
    recall: float | None
    arecall: float | None
    arecall_nonempty: float | None
    n_nonempty: int
    unusable: float | None
    precision: float | None
    ndcg: float | None
    short: int


@dataclass
class StrategyRun:
    fixture: Fixture
    backend: str
    strategy: str
    outcomes: list[CaseOutcome]
    k: dict[int, KSummary] = field(default_factory=dict)
    mrr: float | None = None

    def decisions(self) -> dict[str, int]:
        counts = {name: sum(o.decision == name for o in self.outcomes) for name in
                  (metrics.CORRECT, metrics.WRONG_DOCUMENT, metrics.FALSE_ABSTENTION, metrics.CORRECT_ABSTENTION)}
        return {
            "cases": len(self.outcomes),
            "correct": counts[metrics.CORRECT] + counts[metrics.CORRECT_ABSTENTION],
            "wrong_document": counts[metrics.WRONG_DOCUMENT],
            "false_abstention": counts[metrics.FALSE_ABSTENTION],
            "correct_abstention": counts[metrics.CORRECT_ABSTENTION],
            "leaks": sum(len(o.leaks) for o in self.outcomes),
        }


def summarize(outcomes: list[CaseOutcome], eligible: list[set[str]], k: int) -> KSummary:
    scored = [(o, e) for o, e in zip(outcomes, eligible, strict=True) if o.case.relevant is not None]
    columns: dict[str, list[float]] = {n: [] for n in ("recall", "arecall", "nonempty", "unusable", "p", "ndcg")}
    for outcome, allowed in scored:
        ranked, relevant = outcome.lists[k], outcome.case.relevant or ()
        columns["recall"].append(metrics.recall_at_k(ranked, relevant, k))
        columns["arecall"].append(metrics.authorized_recall_at_k(ranked, relevant, allowed, k))
        if metrics.has_authorized_relevant(relevant, allowed):
            columns["nonempty"].append(columns["arecall"][-1])
        columns["unusable"].append(metrics.unusable_at_k(ranked, allowed, k))
        columns["p"].append(metrics.precision_at_k(ranked, relevant, k))
        columns["ndcg"].append(metrics.ndcg_at_k(ranked, relevant, k))
    return KSummary(
        recall=metrics.mean(columns["recall"]), arecall=metrics.mean(columns["arecall"]),
        arecall_nonempty=metrics.mean(columns["nonempty"]), n_nonempty=len(columns["nonempty"]),
        unusable=metrics.mean(columns["unusable"]), precision=metrics.mean(columns["p"]),
        ndcg=metrics.mean(columns["ndcg"]), short=sum(o.short[k] for o in outcomes),
    )


def min_score(fixture: Fixture, settings: Settings) -> float:
    if settings.min_score is not None:
        return settings.min_score
    return fixture.min_score if fixture.min_score is not None else DEFAULT_MIN_SCORE


def strategy_lists(
    strategy: str, unfiltered: list[Hit], filtered: list[Hit] | None, allowed: set[str],
    ks: list[int], settings: Settings,
) -> dict[int, list[Hit]]:
    if strategy == "rank_only":
        return {k: unfiltered[:k] for k in ks}
    if strategy == "post_filter":
        return {k: post_filter(unfiltered, k, settings.candidates, allowed.__contains__) for k in ks}
    assert filtered is not None
    return {k: filtered[:k] for k in ks}


def outcome(
    prepared: Prepared, i: int, strategy: str, lists: dict[int, list[Hit]], threshold: float
) -> CaseOutcome:
    case, allowed = prepared.fixture.cases[i], prepared.eligible[i]
    top = lists[1]
    selected = top[0] if top and top[0].score >= threshold else None
    acceptable = prepared.fixture.acceptable(case, allowed)
    returned = [h.id for hits in lists.values() for h in hits]
    available = prepared.positive[i] if strategy == "rank_only" else prepared.positive[i] & allowed
    return CaseOutcome(
        case=case, acceptable=acceptable, selected=selected,
        decision=metrics.decision(selected.id if selected else None, acceptable),
        leaks=metrics.leaks(returned, allowed),
        lists={k: [h.id for h in hits] for k, hits in lists.items()},
        short={k: len(hits) < min(k, len(available)) for k, hits in lists.items()},
    )


def evaluate(adapter: Adapter, prepared: Prepared, settings: Settings) -> list[StrategyRun]:
    """Ask every case of the prepared fixture under every strategy the adapter supports."""
    fixture = prepared.fixture
    ks = sorted({1, *settings.ks})
    depth = max(max(ks), *(settings.candidates.at(k) for k in ks))
    n = len(fixture.cases)
    unfiltered = ranked_search(adapter, prepared.query_vectors, depth, [None] * n, fixture.order)
    strategies = list(STRATEGIES)
    filtered: list[list[Hit]] | None = None
    if adapter.capabilities.native_filter:
        filtered = ranked_search(adapter, prepared.query_vectors, max(ks), prepared.filters, fixture.order)
    else:
        strategies.remove("pre_filter")
    threshold = min_score(fixture, settings)
    runs = []
    for strategy in strategies:
        outcomes = [
            outcome(prepared, i, strategy, strategy_lists(
                strategy, unfiltered[i], filtered[i] if filtered else None,
                prepared.eligible[i], ks, settings), threshold)
            for i in range(n)
        ]
        run = StrategyRun(fixture, adapter.name, strategy, outcomes)
        run.k = {k: summarize(outcomes, prepared.eligible, k) for k in settings.ks}
        relevant = [(o.lists[max(ks)], o.case.relevant) for o in outcomes if o.case.relevant is not None]
        run.mrr = metrics.mean([metrics.reciprocal_rank(r, rel or ()) for r, rel in relevant])
        runs.append(run)
    return runs


def index(adapter: Adapter, prepared: Prepared) -> None:
    """Reset the adapter and upsert the fixture's documents with the shared vectors."""
    docs = prepared.fixture.documents
    adapter.reset(prepared.embedding.dim)
    for start in range(0, len(docs), UPSERT_BATCH):
        chunk = docs[start:start + UPSERT_BATCH]
        adapter.upsert(records_of([d.id for d in chunk], prepared.doc_vectors[start:start + UPSERT_BATCH],
                                  [d.metadata for d in chunk]))


def run_backend(prepared: Prepared, backend: Resolved | BackendSpec | str, settings: Settings) -> list[StrategyRun]:
    backend = backend if isinstance(backend, Resolved) else resolve(backend)
    adapter = backend.open()
    try:
        index(adapter, prepared)
        runs = evaluate(adapter, prepared, settings)
    finally:
        adapter.close()
    for run in runs:
        run.backend = backend.label
    return runs
