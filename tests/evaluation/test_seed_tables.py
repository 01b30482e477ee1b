"""Both seed tables, reproduced by real runs of the reference backend.

The numbers below are the targets published with the two seeds; nothing in the
code path knows them.
"""

from __future__ import annotations

import pytest

from filterproof.evaluation.runner import Settings, run_backend
from filterproof.evaluation.scoring import by_strategy, selections
from filterproof.evaluation.truth import Prepared

POST = "post_filter C=1"
LAB_SELECTIONS = {
    # case: (rank_only, post_filter with C=1, pre_filter)
    "superseded": ("retry-v1", None, "retry-v2"),
    "restricted": ("keys-private-v1", None, "keys-public-v1"),
    "no-access": ("retry-v1", None, None),
    "not-yet-effective": ("refund-v2", None, None),
    "no-match": (None, None, None),
}
LAB_DECISIONS = {
    "rank_only": {"cases": 5, "correct": 1, "wrong_document": 4, "false_abstention": 0, "correct_abstention": 1},
    POST: {"cases": 5, "correct": 3, "wrong_document": 0, "false_abstention": 2, "correct_abstention": 3},
    "pre_filter": {"cases": 5, "correct": 5, "wrong_document": 0, "false_abstention": 0, "correct_abstention": 3},
}
# K: (Recall, ARecall post, ARecall pre, unusable in top-K, restricted post, restricted pre)
CORPUS_TABLE = {
    1: (0.200, 0.750, 0.750, 0.688, 0.200, 0.200),
    3: (0.483, 0.835, 0.863, 0.688, 0.473, 0.560),
    5: (0.867, 0.954, 0.988, 0.685, 0.853, 0.960),
    10: (1.000, 1.000, 1.000, 0.391, 1.000, 1.000),
}


def test_lab_decisions_and_selections(lab_prepared: Prepared) -> None:
    run = run_backend(lab_prepared, "reference", Settings())
    summary = by_strategy(run.rows, (1,))
    for strategy, expected in LAB_DECISIONS.items():
        row = summary[strategy][1]
        assert {k: row[k] for k in expected} == expected, strategy
    assert summary[POST][1]["leaks"] == summary["pre_filter"][1]["leaks"] == 0
    assert summary["rank_only"][1]["leaks"] > 0
    for i, strategy in enumerate(("rank_only", POST, "pre_filter")):
        assert selections(run.rows, strategy) == {case: row[i] for case, row in LAB_SELECTIONS.items()}, strategy


def test_lab_filtered_selections_score_like_the_shared_vectors(lab_prepared: Prepared) -> None:
    run = run_backend(lab_prepared, "reference", Settings())
    top = {r.case: r.score for r in run.rows if r.strategy == "rank_only"}
    assert top["superseded"] == pytest.approx(1.0, abs=1e-6)


def close(value: float | None, target: float) -> bool:
    """Equal to three decimals, as the seed prints them (0.8625 is 0.863)."""
    return value is not None and abs(value - target) <= 0.0005 + 1e-12


def test_authorized_recall_tables(corpus_prepared: Prepared) -> None:
    ks = (1, 3, 5, 10)
    run = run_backend(corpus_prepared, "reference", Settings(ks=ks))
    summary = by_strategy(run.rows, ks)
    rank, post, pre = summary["rank_only"], summary[POST], summary["pre_filter"]
    assert len(corpus_prepared.fixture.cases) == 96
    for k, (recall, a_post, a_pre, unusable, r_post, r_pre) in CORPUS_TABLE.items():
        assert close(rank[k]["recall"], recall), (k, rank[k]["recall"])
        assert close(post[k]["arecall"], a_post), (k, post[k]["arecall"])
        assert close(pre[k]["arecall"], a_pre), (k, pre[k]["arecall"])
        assert close(rank[k]["unusable"], unusable), (k, rank[k]["unusable"])
        assert close(post[k]["arecall_nonempty"], r_post), (k, post[k]["arecall_nonempty"])
        assert close(pre[k]["arecall_nonempty"], r_pre), (k, pre[k]["arecall_nonempty"])
        assert post[k]["n_nonempty"] == pre[k]["n_nonempty"] == 30
        assert f"{pre[k]['arecall']:.3f}" == f"{a_pre:.3f}", "printed as the seed prints it"
    assert rank[10]["mrr"] == pytest.approx(1.0)
    assert post[1]["leaks"] == pre[1]["leaks"] == 0
