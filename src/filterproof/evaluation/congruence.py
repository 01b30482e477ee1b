"""Congruence: the same operation on the reference and on another backend, compared.

Three questions, asked of every backend on the same prepared fixture:

* ``eligible_sets``: for each case, exactly which documents the store's native
  filter admits (asked for everything, with a probe vector every document scores
  against), to be equal to the policy's eligible set;
* ``differences``: for each (strategy, depth, case), the top-1 selection and
  decision and the list at every K, to be equal to the reference's;
* ``without_refused``: for a store that refused documents as past its engine's limits,
  the same comparison against the reference run without those documents;
* ``verdict``: what makes a run fail as a CI gate (``compare`` exit code 1): a leak
  under a filtered strategy, a backend that failed, pre_filter results shorter than
  min(K, eligible) (unless accepted: answers lost are not covered by a tolerance), or
  one that disagrees with the reference: any difference for a backend that declares itself exact, a mean
  ARecall@K or recall against the exact answer more than its declared
  ``recall_tolerance`` below the reference's for an approximate one, or documents the
  store refused (``not_indexable``: no user would find them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from filterproof.adapters.base import Adapter
from filterproof.evaluation.runner import SHOWN_DIFFERENCES, BackendRun, Settings, evaluate, index
from filterproof.evaluation.scoring import CaseRow, strategy_label
from filterproof.evaluation.truth import Prepared
from filterproof.policy import eligible_ids

REFERENCE = "reference"


def probe_vector(dim: int) -> np.ndarray:
    """A unit vector with every coordinate positive: any non-zero TF-IDF document scores > 0."""
    return np.full(dim, 1.0 / np.sqrt(dim), dtype=np.float32)


def eligible_sets(adapter: Adapter, prepared: Prepared) -> dict[str, set[str]]:
    """Case id -> ids the adapter's native filter returns when asked for every document."""
    probe = probe_vector(prepared.dim)
    everything = len(prepared.fixture.documents) + 1
    return {t.case.id: {hit.id for hit in adapter.search(probe, everything, t.filter)} for t in prepared.truths}


def policy_sets(prepared: Prepared) -> dict[str, set[str]]:
    """Case id -> the oracle's eligible set (``policy.eligible_ids``, not the vectorised truth)."""
    pairs = [(d.id, d.metadata) for d in prepared.fixture.documents]
    return {t.case.id: eligible_ids(pairs, t.filter) for t in prepared.truths}


@dataclass(frozen=True)
class Difference:
    strategy: str
    case: str
    what: str
    reference: object
    other: object

    def __str__(self) -> str:
        return f"{self.strategy}/{self.case}: {self.what}: reference {self.reference!r}, other {self.other!r}"


def _strategy(row: CaseRow) -> str:
    return strategy_label(row.strategy, row.candidates)


def differences(reference: Sequence[CaseRow], other: Sequence[CaseRow]) -> list[Difference]:
    """Every (strategy, depth, case) where the selection, the decision or a ranked list differs."""
    theirs = {(r.fixture, r.strategy, r.candidates, r.case): r for r in other}
    found = []
    for a in reference:
        b = theirs.get((a.fixture, a.strategy, a.candidates, a.case))
        if b is None:
            continue
        pairs = [("selected", a.selected, b.selected), ("decision", a.decision, b.decision)]
        pairs += [(f"top-{k}", a.k[k].ids, b.k[k].ids) for k in sorted(a.k) if k in b.k]
        found += [Difference(_strategy(a), a.case, what, x, y) for what, x, y in pairs if x != y]
    return found


def without_refused(prepared: Prepared, run: BackendRun, settings: Settings) -> dict[str, Any]:
    """How ``run`` differs from the reference over the fixture without the documents ``run``'s store refused
    (``Refusing``): 0 differences when the store answers exactly as if those documents did not exist."""
    from filterproof.adapters.reference import ReferenceAdapter

    reference = ReferenceAdapter()
    index(reference, prepared, settings.upsert_batch)
    reference.delete(list(run.not_indexable))
    rows = evaluate(reference, prepared, settings, label="reference")
    found = differences(rows, run.rows)
    return {"differences": len(found), "first": [str(d) for d in found[:SHOWN_DIFFERENCES]]}


# -- the verdict: what a CI gate fails on ------------------------------------------------


@dataclass(frozen=True)
class Problem:
    fixture: str
    backend: str
    kind: str
    """``leak``, ``short``, ``differs``, ``failed``, ``not_indexable`` (documents the store refused as beyond its
    limits)."""
    detail: str

    def __str__(self) -> str:
        return f"{self.backend} on {self.fixture}: {self.kind}: {self.detail}"


def leak_problems(rows: Iterable[CaseRow]) -> list[Problem]:
    found: dict[tuple[str, str, str], list[str]] = {}
    for r in rows:
        if r.strategy != "rank_only" and r.leaks:
            found.setdefault((r.fixture, r.backend, _strategy(r)), []).append(f"{r.case}: {', '.join(r.leaks[:5])}")
    return [Problem(fx, backend, "leak",
                    f"{strategy} returned documents the principal may not use ({'; '.join(v[:3])})")
            for (fx, backend, strategy), v in found.items()]


def tolerance_problems(reference: Sequence[dict[str, Any]], mine: Sequence[dict[str, Any]], tolerance: float,
                       fixture: str, backend: str) -> list[Problem]:
    """Summary rows (level None) of an approximate backend against the reference's."""
    ref = {(r["strategy"], r["candidates"], r["k"]): r for r in reference if r["level"] is None}
    out = []
    for row in mine:
        base = ref.get((row["strategy"], row["candidates"], row["k"]))
        if row["level"] is not None or base is None:
            continue
        for metric in ("arecall", "recall_exact"):
            want, got = base.get(metric), row.get(metric)
            if want is not None and got is not None and got < want - tolerance - 1e-9:
                out.append(Problem(fixture, backend, "differs",
                                   f"{row['strategy']} {metric}@{row['k']} {got:.3f} < reference {want:.3f} "
                                   f"- tolerance {tolerance}"))
    return out


def short_problems(rows: Iterable[CaseRow], fixture: str, backend: str) -> list[Problem]:
    """pre_filter lists shorter than min(K, eligible): answers lost, named before any recall line, whatever
    tolerance the backend declares (a tolerance covers the order of what comes back, not what does not)."""
    short = [(r.case, k, len(at.ids)) for r in rows if r.strategy == "pre_filter"
             for k, at in sorted(r.k.items()) if at.short]
    if not short:
        return []
    cases = len({case for case, _, _ in short})
    case, k, got = short[0]
    return [Problem(fixture, backend, "short",
                    f"pre_filter returned fewer than min(K, eligible) documents ({cases} case{'s' * (cases != 1)}, "
                    f"{len(short)} list{'s' * (len(short) != 1)}; first: {case} at K={k}, {got} returned): the "
                    "filter ran after the index's top-N candidates, or the search stopped before reaching them")]


def refusal_summary(refused: dict[str, Any]) -> str:
    """One line on a store's refused documents (``BackendRun.info()["not_indexable"]``) and what they cost."""
    count, (first, why) = refused["count"], next(iter(refused["documents"].items()))
    line = (f"{count} document{'s' if count != 1 else ''} the store cannot hold, refused before the write and "
            f"never returned (first: {first}: {why}); ")
    without = refused.get("differences_without_them") or {"differences": 0, "first": []}
    if not without["differences"]:
        return line + "otherwise identical to the reference without them"
    return line + f"{without['differences']} differences from the reference without them, first: {without['first'][0]}"


def verdict(backends: Sequence[dict[str, Any]], rows: Sequence[CaseRow], summary: Sequence[dict[str, Any]],
            against_reference: bool = True, accept_short: bool = False) -> list[Problem]:
    """Everything that should fail a CI job, per (fixture, backend); ``against_reference`` False: only
    leaks and failures (a sweep measures how far approximate search departs, it does not judge it).
    Short pre_filter results come first for their backend, unless ``accept_short``."""
    problems = leak_problems(rows)
    for info in backends:
        fixture, label = info["fixture"], info["label"]
        if info["status"] == "failed":
            problems.append(Problem(fixture, label, "failed", str(info["reason"])))
        if info["status"] != "ok" or info["backend"] == REFERENCE or not against_reference:
            continue
        reference = [r for r in rows if r.fixture == fixture and r.backend == REFERENCE]
        if not reference:
            continue
        if info.get("not_indexable"):  # judged against the reference without them instead
            problems.append(Problem(fixture, label, "not_indexable", refusal_summary(info["not_indexable"])))
            continue
        mine = [r for r in rows if r.fixture == fixture and r.backend == label]
        if not accept_short:
            problems += short_problems(mine, fixture, label)
        caps = info["capabilities"]
        if caps.get("exact", True):
            diffs = differences(reference, mine)
            if diffs:
                problems.append(Problem(fixture, label, "differs", f"{len(diffs)} differences, first: {diffs[0]}"))
        else:
            problems += tolerance_problems(
                [s for s in summary if s["fixture"] == fixture and s["backend"] == REFERENCE],
                [s for s in summary if s["fixture"] == fixture and s["backend"] == label],
                float(caps.get("recall_tolerance", 0.0)), fixture, label)
    return problems
