"""The scale tier's corpus: seeded, clustered vectors, policy metadata, principals of known selectivity.

Built with numpy in well under a second at the default size, so the tier costs
what the store costs. Vectors are unit vectors around a few hundred cluster centres
(never two alike), so that a query has real nearest neighbours and the documents a
principal may use are mostly *not* among them: a store that takes a fixed window of
nearest neighbours and filters inside it comes back short. Metadata follow the
policy's fields, independent of the clusters: skewed tenants and groups, superseded
revisions, drafts, expired and future windows, and a few malformed documents of
every class. Principals are chosen by their exact eligible counts, from about 0.1%
to 10% of the corpus, the broadest admitting several hundred documents (past the
common page sizes of metadata queries).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np

from filterproof.columns import PolicyColumns
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal

DIM = 32
AS_OF = date(2026, 9, 8)
TENANTS = ("t0", "t1", "t2")
TENANT_SHARES = (0.55, 0.30, 0.15)
GROUPS = tuple(f"g{i:02d}" for i in range(40))
SELECTIVITIES = (0.001, 0.003, 0.01, 0.03, 0.1)
PRINCIPALS_PER_LEVEL = 2
QUERIES_PER_PRINCIPAL = 3
MALFORMED: tuple[tuple[str, Any], ...] = (
    ("groups", "g00"), ("revision", "1"), ("revision", 1.0), ("valid_from", "2026-02-30"),
    ("valid_from", "0000-01-01"), ("valid_until", ""), ("tenant", "t0\x00x"), ("status", None), ("groups", []),
)


@dataclass(frozen=True)
class ScaleCorpus:
    ids: list[str]
    vectors: np.ndarray
    metadata: list[dict[str, Any]]
    queries: np.ndarray
    wheres: list[PolicyFilter]
    masks: np.ndarray
    """Per query, the policy's eligible rows (from ``PolicyColumns``, which agrees with ``policy.is_eligible``)."""


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def clustered(rng: np.random.Generator, n: int, centres: np.ndarray, spread: float = 0.5) -> np.ndarray:
    """``n`` unit vectors, each a random centre plus noise of norm about ``spread``."""
    noise = rng.normal(0.0, spread / np.sqrt(centres.shape[1]), (n, centres.shape[1]))
    return unit(centres[rng.integers(0, len(centres), n)] + noise)


def document_metadata(rng: np.random.Generator, row: int) -> tuple[dict[str, Any], int]:
    """One document's metadata and the revision the active map gives its logical id."""
    meta: dict[str, Any] = {
        "tenant": str(rng.choice(TENANTS, p=TENANT_SHARES)), "logical_id": f"L{row}", "revision": 1,
        "status": "active", "valid_from": "2026-01-01",
        # Skewed group sizes: a few groups are large, most are small.
        "groups": sorted({GROUPS[min(int(rng.zipf(1.3)) - 1, len(GROUPS) - 1)] for _ in range(rng.integers(1, 3))}),
    }
    active, fate = 1, rng.random()
    if fate < 0.08:
        active = 2  # superseded: a newer revision (not in the corpus) is the authoritative one
    elif fate < 0.12:
        meta["status"] = "draft"
    elif fate < 0.16:
        meta["valid_until"] = "2026-06-01"  # expired
    elif fate < 0.20:
        meta["valid_from"] = "2027-01-01"  # not yet in effect
    elif fate < 0.24:
        meta["valid_until"] = "2026-09-09"  # its last day
    elif fate < 0.26:
        field, value = MALFORMED[row % len(MALFORMED)]
        meta[field] = value
    return meta, active


def pick_principals(columns: PolicyColumns, active: ActiveRevisions, n: int) -> list[PolicyFilter]:
    """For each selectivity, the principals whose exact eligible counts lie closest to it."""
    sets = [(g,) for g in GROUPS] + [gs for size in (2, 3) for gs in itertools.combinations(GROUPS[:12], size)]
    candidates = [PolicyFilter(Principal(t, gs), AS_OF, active) for t in TENANTS for gs in sets]
    counts = np.array([int(columns.mask(c).sum()) for c in candidates])
    chosen: list[PolicyFilter] = []
    for level in SELECTIVITIES:
        target = max(level * n, 3)
        order = np.argsort(np.abs(np.log(np.maximum(counts, 1) / target)), kind="stable")
        chosen += [candidates[i] for i in order if counts[i] > 0 and candidates[i] not in chosen][
            :PRINCIPALS_PER_LEVEL]
    return chosen


def build(n: int, seed: int = 20260908) -> ScaleCorpus:
    """The corpus of ``n`` documents for ``seed``: the same input gives the same corpus."""
    rng = np.random.default_rng(seed)
    centres = unit(rng.normal(size=(max(20, min(400, n // 25)), DIM)))
    vectors = clustered(rng, n, centres)
    rows = [document_metadata(rng, row) for row in range(n)]
    metadata = [meta for meta, _ in rows]
    keyed = [(m["tenant"], m["logical_id"], rev) for m, rev in rows if isinstance(m["tenant"], str)]
    active = ActiveRevisions.of({(tenant, logical_id): rev for tenant, logical_id, rev in keyed})
    columns = PolicyColumns(metadata)
    wheres = [w for w in pick_principals(columns, active, n) for _ in range(QUERIES_PER_PRINCIPAL)]
    queries = clustered(rng, len(wheres), centres, spread=0.3)
    masks = np.stack([columns.mask(w) for w in wheres])
    return ScaleCorpus([f"s{row:06d}" for row in range(n)], vectors, metadata, queries, wheres, masks)
