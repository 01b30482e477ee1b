"""Where the filter sits: rank_only, post_filter and pre_filter, over any adapter.

* ``rank_only``: the backend's top K, no filter at all.
* ``post_filter``: the backend's top C candidates unfiltered, then the client drops
  what the policy rejects and keeps the first K (C defaults to K: filter after top-K;
  a run may ask for several depths C at once).
* ``pre_filter``: the backend's native filter, top K of what it admits.

All three see hits through ``ranked_search``, which makes results identical across
backends that agree on scores: a hit of score <= 0 shares no term with the query
and is not a retrieval; ties (scores equal to ``TIE_DIGITS`` decimals) break by
fixture document order; and a tie straddling the cut is resolved by fetching
deeper, so that which of two equal documents is returned never depends on the
store's internal order.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from filterproof.adapters.base import Adapter, Hit, search_many
from filterproof.errors import AdapterError, UsageError
from filterproof.policy import PolicyFilter

STRATEGIES = ("rank_only", "post_filter", "pre_filter")
MAX_DEPTH = 100_000
"""Deepest unfiltered candidate list post_filter may ask for (per K with NK): beyond it, ask for pre_filter."""
TIE_DIGITS = 6
TIE_MARGIN = 8


@dataclass(frozen=True)
class CandidateDepth:
    """How many unfiltered candidates post_filter asks for at a given K.

    ``CandidateDepth.parse("1")``: at least 1, i.e. max(K, 1) (the default: top-K,
    then filter; top-1, then filter for decisions). ``"50"``: max(K, 50).
    ``"10k"``: 10 x K.
    """

    value: int = 1
    per_k: bool = False

    @classmethod
    def parse(cls, text: str) -> CandidateDepth:
        match = re.fullmatch(r"\s*(\d{1,9})\s*([kKxX]?)\s*", text)
        if not match or not 1 <= int(match.group(1)) <= MAX_DEPTH:
            raise UsageError(f"candidate depth {text!r}: expected N or NK (N times K), N from 1 to {MAX_DEPTH}")
        return cls(int(match.group(1)), bool(match.group(2)))

    def at(self, k: int) -> int:
        return self.value * k if self.per_k else max(k, self.value)

    def __str__(self) -> str:
        return f"{self.value}K" if self.per_k else str(self.value)


def tie_key(score: float) -> float:
    return round(score, TIE_DIGITS)


def _usable(hits: list[Hit], order: Mapping[str, int], backend: str, k: int) -> list[Hit]:
    """The hits scored above zero; a store that breaks the contract's answer (an id never written, more than
    ``k`` hits, an id twice: slices of a filter concatenated, not merged) is an error, not a result."""
    for hit in hits:
        if hit.id not in order:
            raise AdapterError(f"{backend} returned id {hit.id!r}, which was never upserted")
    if len(hits) > k or len({h.id for h in hits}) < len(hits):
        twice = sorted(i for i, n in Counter(h.id for h in hits).items() if n > 1)[:5]
        raise AdapterError(f"{backend} returned {len(hits)} hits for k={k}" + (f", these ids more than once: {twice}"
                                                                               if twice else "")
                           + ": a search returns at most k hits, each document once")
    return [h for h in hits if math.isfinite(h.score) and h.score > 0]


def _tie_open(raw: list[Hit], positive: list[Hit], fetched: int, depth: int) -> bool:
    """True when the store may hold more hits tied with the last one we keep."""
    return (
        len(raw) >= fetched
        and len(positive) > depth
        and tie_key(positive[depth - 1].score) == tie_key(positive[-1].score)
    )


def ranked_search(
    adapter: Adapter,
    vectors: np.ndarray,
    depth: int,
    wheres: Sequence[PolicyFilter | None],
    order: Mapping[str, int],
) -> list[list[Hit]]:
    """The first ``depth`` positive hits per query, in the deterministic order above."""
    if depth <= 0:
        return [[] for _ in wheres]
    fetched = depth + TIE_MARGIN
    raws = search_many(adapter, vectors, fetched, wheres)
    results = []
    for vector, where, raw in zip(vectors, wheres, raws, strict=True):
        fetch = fetched
        positive = _usable(raw, order, adapter.name, fetched)
        while _tie_open(raw, positive, fetch, depth):
            fetch *= 2
            raw = adapter.search(vector, fetch, where)
            positive = _usable(raw, order, adapter.name, fetch)
        positive.sort(key=lambda h: (-tie_key(h.score), order[h.id]))
        results.append(positive[:depth])
    return results


@dataclass(frozen=True)
class Strategy:
    """One placement of the filter: ``rank_only``, ``post_filter`` at a candidate depth C, or ``pre_filter``."""

    name: str
    depth: CandidateDepth | None = None

    @property
    def candidates(self) -> str | None:
        return str(self.depth) if self.depth is not None else None

    @property
    def label(self) -> str:
        return f"{self.name} C={self.depth}" if self.depth is not None else self.name

    @property
    def filtered(self) -> bool:
        """Whether the strategy promises to return only allowed documents (a leak is a failure)."""
        return self.name != "rank_only"

    def lists(self, unfiltered: list[Hit], filtered: list[Hit] | None, allowed: Callable[[str], bool],
              ks: Sequence[int]) -> dict[int, list[Hit]]:
        """The strategy's list at every K, from the unfiltered and the natively filtered rankings.

        * rank_only: the first K unfiltered hits;
        * post_filter: the first C(K) unfiltered hits, those the policy allows, the first K of them;
        * pre_filter: the first K hits of the native filter.
        """
        if self.name == "rank_only":
            return {k: unfiltered[:k] for k in ks}
        if self.name == "post_filter":
            assert self.depth is not None
            return {k: [h for h in unfiltered[: self.depth.at(k)] if allowed(h.id)][:k] for k in ks}
        if filtered is None:
            raise ValueError("pre_filter needs the natively filtered ranking")
        return {k: filtered[:k] for k in ks}


def plan(depths: Sequence[CandidateDepth], native_filter: bool) -> list[Strategy]:
    """The strategies to run: rank_only, post_filter at each depth, and pre_filter when the store filters."""
    found = [Strategy("rank_only"), *(Strategy("post_filter", d) for d in depths)]
    return [*found, Strategy("pre_filter")] if native_filter else found


def deepest(depths: Sequence[CandidateDepth], kmax: int) -> int:
    """How deep the unfiltered ranking must go to serve every post_filter depth at every K up to ``kmax``."""
    return max([kmax, *(d.at(kmax) for d in depths)])
