"""The scale tier: a corpus larger than any window or page a store might filter inside.

Small scenarios cannot tell a store that filters the whole collection from one that
filters a bounded pool (the nearest few hundred neighbours, or one page of a
metadata query): on 40 documents both are exact. Here ``scale_corpus.build``
gives thousands of clustered documents (``--conformance-scale N``, default
``plugin.DEFAULT_SCALE``) and principals admitting about 0.1% to 10% of them, and
each query is judged against the exact filtered top-K computed with numpy:

* zero leaks, for every store: every hit is eligible, and no id comes twice;
* exact stores: no short result, and the exact top K (ties within ``SCORE_SLACK``);
* approximate stores: mean recall against the exact top K at least
  ``1 - recall_tolerance`` (recall only: a leak is never tolerated).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from filterproof.adapters.base import Adapter, Record, search_many, sync_active
from filterproof.conformance import scale_corpus
from filterproof.conformance.plugin import scale_size
from filterproof.conformance.scenarios import asked

K = 10
SCORE_SLACK = 1e-4
"""A hit counts for recall when its exact score is within this of the K-th best (float32 stores, ties)."""
BATCH = 512
SHOWN = 5


@dataclass(frozen=True)
class QueryVerdict:
    """One query of the tier: what came back, measured against the exact filtered ranking."""

    label: str
    eligible: int
    returned: int
    leaked: tuple[str, ...]
    duplicated: bool
    recall: float
    short: bool
    missing: tuple[str, ...]


def judge(corpus: scale_corpus.ScaleCorpus, q: int, hit_ids: list[str], row_of: dict[str, int]) -> QueryVerdict:
    """Compare one query's hits with the exact filtered top-K of the corpus."""
    mask, scores = corpus.masks[q], corpus.vectors.astype(np.float64) @ corpus.queries[q].astype(np.float64)
    eligible = np.flatnonzero(mask)
    want = min(K, len(eligible))
    best = eligible[np.argsort(-scores[eligible], kind="stable")[:want]]
    rows = [row_of[i] for i in hit_ids if i in row_of]
    leaked = tuple(i for i in hit_ids if i not in row_of or not mask[row_of[i]])
    cut = scores[best[-1]] - SCORE_SLACK if want else np.inf
    hits = len({r for r in rows if mask[r] and scores[r] >= cut})
    return QueryVerdict(
        label=asked(corpus.wheres[q]), eligible=len(eligible), returned=len(hit_ids), leaked=leaked,
        duplicated=len(set(hit_ids)) != len(hit_ids), recall=min(hits, want) / want if want else 1.0,
        short=len(set(hit_ids)) < want, missing=tuple(corpus.ids[r] for r in best if r not in set(rows)),
    )


def describe(verdicts: list[QueryVerdict]) -> str:
    return "; ".join(f"[{v.label}: {v.eligible} eligible, {v.returned} returned, recall {v.recall:.2f}, "
                     f"missing {list(v.missing[:3])}]" for v in verdicts[:SHOWN])


def index_corpus(adapter: Adapter, corpus: scale_corpus.ScaleCorpus) -> None:
    adapter.reset(scale_corpus.DIM)
    if corpus.wheres:  # the map every query carries, before the upserts (a revision=flag store writes from it)
        sync_active(adapter, corpus.wheres[0].active)
    for start in range(0, len(corpus.ids), BATCH):
        adapter.upsert([Record(i, v, m) for i, v, m in zip(corpus.ids[start:start + BATCH],
                                                            corpus.vectors[start:start + BATCH],
                                                            corpus.metadata[start:start + BATCH], strict=True)])


class ScaleChecks:
    """Thousands of documents, filters from 0.1% to 10%: no leak, no short result, recall within tolerance."""

    def test_scale_tier(self, native: Adapter, request: pytest.FixtureRequest) -> None:
        """On a seeded corpus of ``--conformance-scale`` documents (default 5000; env
        FILTERPROOF_CONFORMANCE_SCALE; 0 skips), every filtered query returns only eligible
        documents, and the exact filtered top K (approximate stores: within ``recall_tolerance``).

        If this fails: a leak names the documents (compare them with the eligible-set
        tests, which fail on the same clause). Short results or low recall while the
        small tests pass mean the store filters a bounded pool: the nearest few hundred
        neighbours (HNSW ``ef``/``k`` windows, pgvector without iterative scans), or one
        page of a metadata query (a filter resolved to the first 100 ids). Filter inside
        the search, or page until K eligible documents are found.
        """
        n = scale_size(request.config)
        if n == 0:
            pytest.skip("--conformance-scale 0: the scale tier is off")
        corpus = scale_corpus.build(n)
        index_corpus(native, corpus)
        answers = search_many(native, corpus.queries, K, list(corpus.wheres))
        row_of = {doc_id: row for row, doc_id in enumerate(corpus.ids)}
        verdicts = [judge(corpus, q, [h.id for h in hits], row_of) for q, hits in enumerate(answers)]
        leaks = [v for v in verdicts if v.leaked or v.duplicated]
        assert not leaks, "leaks or duplicate ids: " + "; ".join(
            f"[{v.label}: {[(i, corpus.metadata[row_of[i]] if i in row_of else 'never upserted') for i in v.leaked]}]"
            for v in leaks[:SHOWN])
        tolerance = native.capabilities.recall_tolerance
        if native.capabilities.exact:
            short = [v for v in verdicts if v.short]
            assert not short, f"{len(short)} of {len(verdicts)} queries short of min(K={K}, eligible): " + describe(
                short)
        recall = float(np.mean([v.recall for v in verdicts]))
        worst = sorted(verdicts, key=lambda v: v.recall)
        assert recall >= 1 - tolerance - 1e-9, (
            f"recall@{K} against the exact filtered top {K}: {recall:.3f} over {len(verdicts)} queries on {n} "
            f"documents (recall_tolerance {tolerance}); worst: " + describe(worst))
