"""Score one backend's rankings: per strategy, candidate depth, selectivity level and K.

Works on row numbers and boolean masks rather than sets of ids, because at 100k
documents a single eligible set can hold 50,000 ids and the harness must stay a
small fraction of the backend's time. The strategies themselves are the shared
ones (``strategies.post_filter`` / ``pre_filter``), so the sweep measures exactly
what ``filterproof compare`` does.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from filterproof import metrics
from filterproof.adapters.base import Hit
from filterproof.scale.timing import percentile
from filterproof.scale.truth import ScaleData, recall_vs_exact
from filterproof.strategies import CandidateDepth, post_filter, pre_filter, rank_only

DEFAULT_MIN_SCORE = 0.8
FILTERED = ("post_filter", "pre_filter")
VALUES = ("arecall", "arecall_nonempty", "recall_exact", "short", "empty", "false_abstention",
          "wrong_document", "leaks")


STRATEGY_ORDER = {"rank_only": 0, "post_filter": 1, "pre_filter": 2}


def sort_key(strategy: str, depth: str, level: float, k: int | None) -> tuple:
    """Report order: strategy (rank_only, post_filter by increasing depth, pre_filter), then K, then level."""
    parsed = CandidateDepth.parse(depth) if depth else None
    return (STRATEGY_ORDER.get(strategy, 9), (parsed.per_k, parsed.value) if parsed else (False, 0), k or 0, level)


class Accumulator:
    """Collects per-case values; ``records`` turns them into one flat row per group."""

    def __init__(self, data: ScaleData, ks: Sequence[int], depths: Sequence[CandidateDepth],
                 min_score: float | None) -> None:
        self.data, self.ks, self.depths = data, sorted(ks), list(depths)
        fixture_min = data.fixture.min_score
        self.threshold = min_score if min_score is not None else (
            fixture_min if fixture_min is not None else DEFAULT_MIN_SCORE)
        self.values: dict[tuple[str, str, float, int], dict[str, list[float]]] = defaultdict(
            lambda: defaultdict(list))

    def add(self, i: int, unfiltered: list[Hit], filtered: list[Hit] | None) -> None:
        truth = self.data.truths[i]
        order, mask = self.data.fixture.order, truth.mask

        def allowed(doc_id: str) -> bool:
            return bool(mask[order[doc_id]])

        for k in self.ks:
            lists: list[tuple[str, str, list[Hit]]] = [("rank_only", "", rank_only(unfiltered, k))]
            lists += [("post_filter", str(d), post_filter(unfiltered, k, d, allowed)) for d in self.depths]
            if filtered is not None:
                lists.append(("pre_filter", "", pre_filter(filtered, k)))
            for strategy, depth, hits in lists:
                self._case(i, strategy, depth, k, hits)

    def _case(self, i: int, strategy: str, depth: str, k: int, hits: list[Hit]) -> None:
        truth = self.data.truths[i]
        rows = [self.data.fixture.order[h.id] for h in hits]
        bucket = self.values[(strategy, depth, truth.level, k)]
        ranked = set(rows)
        ra = truth.authorized
        arecall = len(ra & ranked) / len(ra) if ra else 1.0
        bucket["arecall"].append(arecall)
        if ra:
            bucket["arecall_nonempty"].append(arecall)
        exact = self.data.doc_vectors[rows] @ self.data.query_vectors[i] if rows else np.zeros(0)
        recall = recall_vs_exact(rows, np.round(exact.astype(np.float64), 6), truth, k)
        if recall is not None:
            bucket["recall_exact"].append(recall)
        ceiling = truth.positive if strategy == "rank_only" else truth.available
        bucket["short"].append(float(len(rows) < min(k, ceiling)))
        bucket["empty"].append(float(not rows and ceiling > 0))
        selected = hits[0].id if hits and hits[0].score >= self.threshold else None
        expected = [] if truth.expected is None else [self.data.fixture.documents[truth.expected].id]
        decision = metrics.decision(selected, expected)
        bucket["false_abstention"].append(float(decision == metrics.FALSE_ABSTENTION))
        bucket["wrong_document"].append(float(decision == metrics.WRONG_DOCUMENT))
        bucket["leaks"].append(float(sum(1 for r in rows if not truth.mask[r])))

    def records(self, label: str) -> list[dict[str, Any]]:
        out = []
        for (strategy, depth, level, k), bucket in sorted(self.values.items(), key=lambda item: sort_key(*item[0])):
            cases = len(bucket["arecall"])
            row: dict[str, Any] = {"backend": label, "strategy": strategy, "candidates": depth or None,
                                   "selectivity": level, "k": k, "cases": cases}
            for name in VALUES:
                values = bucket.get(name, [])
                if name == "leaks":
                    row[name] = int(sum(values))
                elif name in ("arecall", "arecall_nonempty", "recall_exact"):
                    row[name] = float(np.mean(values)) if values else None
                else:
                    row[f"{name}_rate"] = float(np.mean(values)) if values else None
            row["n_nonempty"] = len(bucket.get("arecall_nonempty", []))
            out.append(row)
        return out


def latency_records(label: str, samples: dict[tuple, list[float]]) -> list[dict[str, Any]]:
    """One row per (strategy, depth, level): p50/p95 in ms and single-query QPS."""
    out = []
    for (strategy, depth, level), times in sorted(samples.items(), key=lambda item: sort_key(*item[0], None)):
        mean = float(np.mean(times)) if times else None
        out.append({"backend": label, "strategy": strategy, "candidates": depth or None, "selectivity": level,
                    "k": None, "latency_samples": len(times),
                    "p50_ms": None if not times else 1000 * percentile(times, 50),  # type: ignore[operator]
                    "p95_ms": None if not times else 1000 * percentile(times, 95),  # type: ignore[operator]
                    "qps": 1.0 / mean if mean else None})
    return out
