"""The scale tier: a corpus larger than any window or page a store might filter inside.

Small scenarios cannot tell a store that filters the whole collection from one that
filters a bounded pool (the nearest few hundred neighbours, a candidate pool of fixed
size, or one page of a metadata query): on 40 documents both are exact. Here
``scale_corpus.build`` gives thousands of clustered documents (``--conformance-scale
N``, default ``plugin.DEFAULT_SCALE``) and queries at three kinds of level:

* **random**: principals admitting about 0.1%, 0.3%, 1%, 3%, 10%, 20%, 35% and 50% of
  the corpus, their documents placed independently of the vectors;
* **far**: the eligible documents are the ones farthest from the query, at least half
  the corpus (all ineligible) nearer than the first of them: a store filtering inside
  its nearest W candidates comes back empty for any W up to N/2;
* **written last**: a principal admitting at least half the corpus whose nearest
  eligible documents were upserted last, after the store had built its index
  (``optimize()``) and answered a query: a store resolving the filter through one
  page of a metadata query, in insertion order, misses them for any page smaller than
  the admitted set, and so does one whose filtered search skips what was written
  after its index was built.

Every query is asked at K = 10 and at K = 100 (two batches) and judged against the
exact filtered top K computed with numpy:

* zero leaks, for every store: every hit is eligible, and no id comes twice;
* no short result (fewer than min(K, eligible)): answers lost, which no recall tolerance
  covers (an approximate store's are accepted with ``--conformance-accept-short``);
* exact stores: the exact top K (ties within ``SCORE_SLACK``);
* approximate stores: mean recall against the exact top K, at each K, at least
  ``1 - recall_tolerance`` (recall only: a leak is never tolerated).

A message names each query's level (placement and share of the corpus), K and
principal, with its eligible and returned counts and the ids it missed.
"""

from __future__ import annotations

import itertools
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pytest

from filterproof.adapters import searchpath
from filterproof.adapters.base import Adapter, Record, optimize, search_many, sync_active, update_many
from filterproof.conformance.plugin import SCALE_ENV, Budgets, accept_short, budget_seconds
from filterproof.conformance.progress import OverBudget, Progress
from filterproof.conformance.worlds import scale_changes, scale_corpus
from filterproof.conformance.worlds.scenarios import asked

KS = (10, scale_corpus.K_MAX)
"""Each query is asked at every K (one batch per K)."""
SCORE_SLACK = 1e-4
"""A hit counts for recall when its exact score is within this of the K-th best (float32 stores, ties)."""
BATCH = 512
PROBE = 4
"""The first upsert's size: small, so that a store writing a document a second is timed within seconds."""
SHRINK = f"--conformance-scale N (or ${SCALE_ENV}) shrinks the tier, 0 turns it off"
SHOWN = 5
SHORT_APPROXIMATE = (" (answers lost: recall_tolerance covers ranking, not this; --conformance-accept-short "
                     "accepts it)")


@dataclass(frozen=True)
class QueryVerdict:
    """One query of the tier at one K: what came back, measured against the exact filtered ranking."""

    label: str
    level: str
    k: int
    eligible: int
    returned: int
    leaked: tuple[str, ...]
    duplicated: bool
    recall: float
    short: bool
    missing: tuple[str, ...]


def judge(corpus: scale_corpus.ScaleCorpus, q: int, k: int, hit_ids: list[str], row_of: dict[str, int],
          scores: np.ndarray) -> QueryVerdict:
    """Compare one query's hits at ``k`` with the exact filtered top K of the corpus (``scores``: the
    query's exact scores of every row)."""
    mask = corpus.masks[q]
    eligible = np.flatnonzero(mask)
    want = min(k, len(eligible))
    best = eligible[np.argsort(-scores[eligible], kind="stable")[:want]]
    rows = {row_of[i] for i in hit_ids if i in row_of}
    leaked = tuple(i for i in hit_ids if i not in row_of or not mask[row_of[i]])
    cut = scores[best[-1]] - SCORE_SLACK if want else np.inf
    hits = sum(1 for r in rows if mask[r] and scores[r] >= cut)
    level = str(corpus.levels[q])
    return QueryVerdict(
        label=f"{level}, K={k}, {asked(corpus.wheres[q])}", level=level, k=k, eligible=len(eligible),
        returned=len(hit_ids), leaked=leaked, duplicated=len(set(hit_ids)) != len(hit_ids),
        recall=min(hits, want) / want if want else 1.0, short=len(set(hit_ids)) < want,
        missing=tuple(corpus.ids[r] for r in best if r not in rows),
    )


def describe(verdicts: list[QueryVerdict]) -> str:
    return "; ".join(f"[{v.label}: {v.eligible} eligible, {v.returned} returned, recall {v.recall:.2f}, "
                     f"missing {list(v.missing[:3])}]" for v in verdicts[:SHOWN])


def by_level(verdicts: list[QueryVerdict]) -> str:
    """Mean recall per level, in the corpus's order of levels."""
    levels = dict.fromkeys(v.level for v in verdicts)
    return ", ".join(f"{level} {np.mean([v.recall for v in verdicts if v.level == level]):.2f}" for level in levels)


def index_corpus(adapter: Adapter, corpus: scale_corpus.ScaleCorpus, progress: Progress | None = None,
                 writes: int = 0) -> None:
    """Upsert the corpus in row order (the written-last level relies on it): twice ``PROBE`` rows alone, timed
    (``progress`` stops the tier when ``writes`` documents at the faster pace pass its budget: the first write
    may also create a table), then in batches of ``BATCH``; the last ``scale_corpus.LATE_SHARE`` of the rows
    after the store has built its index (``optimize()``) and answered a query, as documents keep arriving at a
    store that serves."""
    adapter.reset(scale_corpus.DIM)
    if corpus.wheres:  # the map every query carries, before the upserts (a revision=flag store writes from it)
        sync_active(adapter, corpus.wheres[0].active)
    n = len(corpus.ids)
    late = n - int(n * scale_corpus.LATE_SHARE)
    cuts = sorted({0, min(PROBE, late), min(2 * PROBE, late), *range(0, late, BATCH), *range(late, n, BATCH),
                   late, n})
    paces: list[float] = []
    for start, end in itertools.pairwise(cuts):
        if start == late:
            optimize(adapter)
            search_many(adapter, corpus.queries[:1], 10, [corpus.wheres[0] if corpus.wheres else None])
        began = time.monotonic()
        adapter.upsert([Record(i, v, m) for i, v, m in zip(corpus.ids[start:end], corpus.vectors[start:end],
                                                            corpus.metadata[start:end], strict=True)])
        if progress is not None:
            if end <= 2 * PROBE:
                paces.append((time.monotonic() - began) / (end - start))
            if end == min(2 * PROBE, n):
                progress.project("writing documents", min(paces) * PROBE, PROBE, writes or n, SHRINK)
            progress.note(f"wrote {end:,} of {n:,} documents")


class ScaleChecks(Budgets):
    """Thousands of documents, filters from 0.1% to 50%, far and written last, K = 10 and 100: no leak,
    no short result, recall within tolerance. ``scale_documents`` (``Budgets``) sets the corpus size."""

    def test_scale_tier(self, native: Adapter, request: pytest.FixtureRequest) -> None:
        """On a seeded corpus of ``--conformance-scale`` documents (default 5000; env
        FILTERPROOF_CONFORMANCE_SCALE; 0 skips), every filtered query, at K = 10 and K = 100,
        returns only eligible documents, and the exact filtered top K (approximate stores:
        within ``recall_tolerance``). Its levels: principals admitting 0.1% to 50% of the
        corpus at random places; "far", whose eligible documents lie beyond the nearer half
        of the corpus; "written last", admitting half the corpus or more, whose nearest
        eligible documents were upserted last.

        If this fails: a leak names the documents (compare them with the eligible-set
        tests, which fail on the same clause). Short results or low recall while the
        small tests pass mean the store searches a bounded pool; the level says which.
        "far" short or empty: the store filters inside its nearest W neighbours (HNSW
        ``ef``/``k`` windows, pgvector without iterative scans), for some W up to half the
        corpus. "written last" (or a broad random level) missing ids: it resolves the
        filter through one page of a metadata query (the first N ids in insertion order),
        then ranks that page. Right at K=10 but short at K=100: a candidate pool of fixed
        size (an ``ef`` not raised to K). Filter inside the search, page until K eligible
        documents are found, and size every pool from K.
        """
        n = self.scale_documents(request.config)
        if n == 0:
            pytest.skip("--conformance-scale 0: the scale tier is off")
        progress = Progress(request.config, f"scale tier, {n:,} documents", budget_seconds(request.config))
        progress.note("writing the corpus", force=True)
        corpus = scale_corpus.build(n)
        after = scale_changes.changed(corpus)
        try:
            index_corpus(native, corpus, progress, writes=n + len(after.updates))
            queries = len(corpus.queries) * len(KS) * 2  # every query at every K, before and after the changes
            began = time.monotonic()
            search_many(native, corpus.queries[:1], max(KS), list(corpus.wheres[:1]))
            progress.project("a filtered query", time.monotonic() - began, 1, queries, SHRINK)
        except OverBudget as stop:  # the message alone, not the exception it replaces (from None)
            raise pytest.fail.Exception(str(stop), pytrace=False) from None
        progress.note(f"filtered searches take: {report_paths(native, corpus)}", force=True)
        progress.note(f"asking {len(corpus.queries)} queries at K = {', '.join(map(str, KS))}", force=True)
        accepted = accept_short(request.config)
        failures = answers_failures(native, corpus, n, accepted)
        progress.note(f"changing the corpus ({describe_changes(after)})", force=True)
        apply_changes(native, corpus, after)
        progress.note("asking every query again", force=True)
        failures += [f"after the changes near every query ({describe_changes(after)}): {line}"
                     for line in answers_failures(native, after.corpus, n, accepted)]
        assert not failures, "\n".join(failures)


def report_paths(adapter: Adapter, corpus: scale_corpus.ScaleCorpus) -> str:
    """The path each level's first query takes at K=10 (``explain``), summed up; a ``SearchPathWarning`` when it
    is not the path the adapter declares (the run's verdict is then not about that path)."""
    first_of: dict[str, int] = {}
    for q, level in enumerate(corpus.levels):
        first_of.setdefault(str(level), q)
    firsts = list(first_of.values())
    taken = searchpath.paths_taken(adapter, corpus.queries[firsts], 10, [corpus.wheres[q] for q in firsts])
    off = searchpath.off_declared(adapter.name, adapter.capabilities.search_path, taken)
    if off:
        warnings.warn(searchpath.SearchPathWarning(f"scale tier: {off}"), stacklevel=2)
    return searchpath.summary(taken)


def apply_changes(adapter: Adapter, corpus: scale_corpus.ScaleCorpus, changes: scale_changes.Changes) -> None:
    """Grant and revoke in one ``update_many`` (a permissions job's bulk change: ``update_metadata_batch`` where
    the adapter has it, else ``update_metadata`` per document), delete, and give the store the new map."""
    update_many(adapter, {corpus.ids[row]: meta for row, meta in changes.updates.items()})
    adapter.delete([corpus.ids[row] for row in changes.deletes])
    sync_active(adapter, changes.active)


def describe_changes(changes: scale_changes.Changes) -> str:
    return ", ".join(f"{count} {name}" for name, count in changes.counts.items())


def answers_failures(adapter: Adapter, corpus: scale_corpus.ScaleCorpus, n: int, accepted: bool = False) -> list[str]:
    """Every query at every K, judged; one line per way the answers fall short (leaks first); ``accepted``: an
    approximate store's short results are accepted (``--conformance-accept-short``)."""
    row_of = {doc_id: row for row, doc_id in enumerate(corpus.ids)}
    scores = corpus.vectors.astype(np.float64) @ corpus.queries.astype(np.float64).T
    verdicts: dict[int, list[QueryVerdict]] = {}
    for k in KS:
        answers = search_many(adapter, corpus.queries, k, list(corpus.wheres))
        verdicts[k] = [judge(corpus, q, k, [h.id for h in hits], row_of, scores[:, q])
                       for q, hits in enumerate(answers)]
    leaks = [v for k in KS for v in verdicts[k] if v.leaked or v.duplicated]
    if leaks:
        return ["leaks or duplicate ids: " + "; ".join(
            f"[{v.label}: {[(i, corpus.metadata[row_of[i]] if i in row_of else 'never upserted') for i in v.leaked]}"
            f"{', an id twice' if v.duplicated else ''}]" for v in leaks[:SHOWN])]
    tolerance = adapter.capabilities.recall_tolerance
    failures = []
    for k in KS:
        # Short is lost answers, never within a recall tolerance (which covers ranking among what is returned):
        # an approximate store's short results fail too, unless the run accepts them. The emptiest first, and of
        # those the one that should have held the most (a far level's K).
        short = sorted((v for v in verdicts[k] if v.short),
                       key=lambda v: (v.returned / min(v.k, v.eligible), -min(v.k, v.eligible)))
        if short and (adapter.capabilities.exact or not accepted):
            failures.append(f"{len(short)} of {len(verdicts[k])} queries short of min(K={k}, eligible)"
                            + ("" if adapter.capabilities.exact else SHORT_APPROXIMATE) + ": " + describe(short))
        recall = float(np.mean([v.recall for v in verdicts[k]]))
        if recall < 1 - tolerance - 1e-9:
            worst = sorted(verdicts[k], key=lambda v: v.recall)
            failures.append(
                f"recall@{k} against the exact filtered top {k}: {recall:.3f} over {len(verdicts[k])} queries on "
                f"{n} documents (recall_tolerance {tolerance}); by level: {by_level(verdicts[k])}; worst: "
                + describe(worst))
    return failures
