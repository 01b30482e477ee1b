"""The documents' metadata at scale, as numpy columns: tenants, revisions, windows, groups.

Everything here is vectorised because it must stay quick at a million documents.
The one idea that makes selectivity *controlled* rather than hoped for: for every
selectivity level L with target count t (= s x N eligible documents), each tenant
that has at least t *live* documents (current revision, active status, in window,
well formed) shuffles them once into a rank order and cuts it into blocks of t.
A document's group for level L names its block (``team-L-block-half``). A principal
of level L holds exactly the two halves of one block of one tenant, so its eligible
set is that block: exactly t documents, whatever else the policy checks. Documents
that are not live receive the same kind of group (drawn from the same blocks), so
they are the near misses that only the freshness clauses exclude.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from filterproof.errors import UsageError

CURRENT, SUPERSEDED, STALE, DRAFT = 0, 1, 2, 3
"""Row kinds: the map's revision; an older one; an older one still marked active; a newer draft."""
MALFORMED_KINDS = ("groups_empty", "groups_string", "bad_date", "revision_string", "missing_status", "unmapped")


class GeneratorError(UsageError):
    """The requested corpus cannot be built (e.g. a selectivity no tenant is large enough for)."""


@dataclass
class Population:
    """Per-row columns (row = document in fixture order) and the per-level block structure."""

    n: int
    tenant: np.ndarray
    logical: np.ndarray
    revision: np.ndarray
    kind: np.ndarray
    start: np.ndarray
    """valid_from as days relative to as_of (negative: in the past)."""
    end: np.ndarray
    """valid_until in days relative to as_of; ``OPEN`` for none."""
    malformed: np.ndarray
    """Index into ``MALFORMED_KINDS`` or -1."""
    domain: np.ndarray
    active_revision: np.ndarray
    """Per logical document: its authoritative active revision."""
    logical_tenant: np.ndarray
    live: np.ndarray = field(init=False)
    blocks: dict[int, np.ndarray] = field(default_factory=dict)
    halves: dict[int, np.ndarray] = field(default_factory=dict)
    order: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)
    """(level, tenant) -> that tenant's live rows in rank order (block b = order[b*t:(b+1)*t])."""

    def __post_init__(self) -> None:
        self.live = (self.kind == CURRENT) & (self.malformed < 0) & (self.start <= 0) & (self.end > 0)

    def live_count(self, tenant: int) -> int:
        return int(np.count_nonzero(self.live & (self.tenant == tenant)))


OPEN = np.iinfo(np.int32).max


def tenant_shares(tenants: int, skew: float) -> np.ndarray:
    """Zipf-like tenant sizes: tenant i holds a share proportional to 1 / (i + 1) ** skew."""
    weights = 1.0 / np.arange(1, tenants + 1) ** skew
    return weights / weights.sum()


def families(rng: np.random.Generator, n: int, tenants: int, skew: float) -> tuple[np.ndarray, ...]:
    """Logical documents with 1-3 revisions, some with a stale duplicate or a draft, cut at n rows."""
    m = int(n / 1.2) + 64
    revs = rng.choice([1, 2, 3], size=m, p=[0.80, 0.14, 0.06])
    draft = rng.random(m) < 0.05
    stale = (rng.random(m) < 0.25) & (revs >= 2)
    sizes = revs + draft
    while sizes.sum() < n:  # never for sane n; keeps the function total
        revs, draft, stale = (np.concatenate([a, a]) for a in (revs, draft, stale))
        sizes = revs + draft
    cum = np.cumsum(sizes)
    last = int(np.searchsorted(cum, n))
    revs, draft, stale, sizes = (a[:last + 1].copy() for a in (revs, draft, stale, sizes))
    remaining = n - (int(cum[last - 1]) if last else 0)
    revs[last], draft[last], stale[last], sizes[last] = remaining, False, False, remaining
    logical_tenant = rng.choice(tenants, size=len(revs), p=tenant_shares(tenants, skew))
    logical = np.repeat(np.arange(len(revs)), sizes)
    position = np.arange(n) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    rev_of = revs[logical]
    kind = np.full(n, SUPERSEDED, dtype=np.int8)
    kind[position == rev_of - 1] = CURRENT
    kind[position == rev_of] = DRAFT
    kind[stale[logical] & (position == rev_of - 2)] = STALE
    return logical, logical_tenant, (position + 1).astype(np.int64), kind, revs


def windows(rng: np.random.Generator, kind: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """valid_from / valid_until in days around as_of; a few current rows not yet or no longer effective."""
    n = len(kind)
    u = rng.random(n)
    start = -rng.integers(1, 900, size=n)
    end = np.full(n, OPEN, dtype=np.int64)
    bounded = u < 0.20
    end[bounded] = rng.integers(1, 400, size=int(bounded.sum()))
    future = (u >= 0.20) & (u < 0.23)
    start[future] = rng.integers(1, 120, size=int(future.sum()))
    expired = (u >= 0.23) & (u < 0.26)
    end[expired] = -rng.integers(1, 60, size=int(expired.sum()))
    start[expired] = end[expired] - rng.integers(30, 600, size=int(expired.sum()))
    old = kind == SUPERSEDED
    start[old] = -rng.integers(300, 1500, size=int(old.sum()))
    closed = old & (rng.random(n) < 0.5)
    end[closed] = start[closed] + rng.integers(30, 290, size=int(closed.sum()))
    end[old & ~closed] = OPEN
    stale = kind == STALE
    start[stale], end[stale] = -rng.integers(30, 900, size=int(stale.sum())), OPEN
    draft = kind == DRAFT
    start[draft] = rng.integers(-30, 60, size=int(draft.sum()))
    end[draft] = OPEN
    return start, end


def malformations(rng: np.random.Generator, kind: np.ndarray, fraction: float) -> np.ndarray:
    """A few current rows made malformed (one class each, in turn): they must never match."""
    malformed = np.full(len(kind), -1, dtype=np.int8)
    current = np.flatnonzero(kind == CURRENT)
    # At least one of every class, so that even a small corpus exercises each fail-closed rule.
    wanted = max(len(MALFORMED_KINDS), math.ceil(fraction * len(kind))) if fraction > 0 else 0
    count = min(len(current), wanted)
    chosen = np.sort(rng.choice(current, size=count, replace=False))
    malformed[chosen] = np.arange(count) % len(MALFORMED_KINDS)
    return malformed


def populate(rng: np.random.Generator, n: int, tenants: int, skew: float, malformed: float,
             domains: int) -> Population:
    """Draw every row's columns; stored in the narrowest integer types that hold them.

    The draws are made in int64 as before (the seed gives the same corpus); only the
    stored columns are narrowed, because the population is the one part of a
    generated corpus held for every row while the sweep runs (about 100 bytes per
    document instead of 250).
    """
    logical, logical_tenant, revision, kind, revs = families(rng, n, tenants, skew)
    start, end = windows(rng, kind)
    bad = malformations(rng, kind, malformed)
    domain_of_logical = rng.integers(0, domains, size=len(revs))
    small = np.int16 if max(tenants, domains) < 2**15 else np.int32
    return Population(
        n=n, tenant=logical_tenant[logical].astype(small), logical=logical.astype(np.int32),
        revision=revision.astype(np.int32), kind=kind, start=start.astype(np.int32), end=end.astype(np.int32),
        malformed=bad, domain=domain_of_logical[logical].astype(small), active_revision=revs.astype(np.int32),
        logical_tenant=logical_tenant.astype(small),
    )


def target_count(selectivity: float, n: int) -> int:
    """How many documents a principal of this selectivity may use (at least one)."""
    return max(1, round(selectivity * n))


def build_blocks(rng: np.random.Generator, pop: Population, levels: list[float], tenants: int) -> None:
    """Rank every feasible tenant's live rows per level and assign every row of it a block."""
    live_by_tenant = {t: np.flatnonzero(pop.live & (pop.tenant == t)) for t in range(tenants)}
    rows_by_tenant = {t: np.flatnonzero(pop.tenant == t) for t in range(tenants)}
    for li, s in enumerate(levels):
        t = target_count(s, pop.n)
        feasible = [k for k in range(tenants) if len(live_by_tenant[k]) >= t]
        if not feasible:
            most = max(len(v) for v in live_by_tenant.values())
            raise GeneratorError(
                f"selectivity {s:g} needs {t} eligible documents in one tenant, but the largest tenant has "
                f"{most} live documents: lower the selectivity, raise the document count or the tenant skew")
        block = np.full(pop.n, -1, dtype=np.int32)
        half = np.zeros(pop.n, dtype=np.int8)
        for k in feasible:
            live = live_by_tenant[k]
            order = rng.permutation(live)
            pop.order[(li, k)] = order.astype(np.int32)
            rank = np.empty(pop.n, dtype=np.int64)
            rank[order] = np.arange(len(order))
            rows = rows_by_tenant[k]
            others = rows[~pop.live[rows]]
            rank[others] = rng.integers(0, len(live), size=len(others))
            block[rows] = rank[rows] // t
            half[rows] = ((rank[rows] % t) * 2 // t).astype(np.int8)
        pop.blocks[li], pop.halves[li] = block, half
