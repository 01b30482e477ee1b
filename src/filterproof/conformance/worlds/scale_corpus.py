"""The scale tier's corpus: seeded, clustered vectors, policy metadata, principals of known selectivity.

Built with numpy in well under a second at the default size, so the tier costs
what the store costs. Vectors are unit vectors around a few hundred cluster centres
(never two alike), so that a query has real nearest neighbours. Metadata follow the
policy's fields: documents in chunks of ``CHUNKS`` that share a logical id, its tenant
and its fate as a revision (as a document's passages do, and so that the active map
holds one entry per document, not per row: stores whose filter carries the map pay
per entry), a dominant tenant (shares 0.80 / 0.15 / 0.05), skewed small groups,
"band" groups held independently with the probability that makes each broad level,
and documents of every ineligible class (superseded revisions, drafts, expired and
future windows, a few malformed documents of every class) besides last-day ones,
which are eligible. Each query belongs to one level (``Level``):

* **random**: principals chosen by their exact eligible counts, two per level, closest
  to 0.1%, 0.3%, 1%, 3%, 10%, 20%, 35% and 50% of the corpus; metadata independent of
  the vectors, so the documents a principal may use are mostly *not* the query's
  nearest neighbours;
* **far**: the group ``gfar`` is held by exactly the documents outside the nearer half
  of the corpus for every one of the level's queries: at least half the corpus, all
  ineligible, sits between each query and its first eligible document, so a store
  that filters inside its nearest W candidates comes back empty for any W up to N/2;
* **written last**: one principal admitting at least half the corpus (the smallest
  such), whose eligible rows are reordered so that the top ``K_MAX`` eligible documents
  of each of its queries are its last eligible rows, the very nearest last (the tier
  upserts in row order, the last ``LATE_SHARE`` after the store built its index): a
  store that resolves a filter through one page of a metadata query, in insertion
  order, misses them for any page smaller than the admitted set, and so does one that
  skips what was written after its index was built.

The third query of every random-level principal asks on ``EARLIER`` instead of
``AS_OF``, so that one batch mixes days whose answers differ.

Only vectors move between rows (the written-last order) and only ``gfar`` is given by
position (the far level); every other field is drawn per row, independent of both.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np

from filterproof.policy import ActiveRevisions, PolicyFilter, Principal
from filterproof.policy.columns import PolicyColumns

DIM = 32
AS_OF = date(2026, 9, 8)
TENANTS = ("t0", "t1", "t2")
TENANT_SHARES = (0.80, 0.15, 0.05)
GROUPS = tuple(f"g{i:02d}" for i in range(40))
SELECTIVITIES = (0.001, 0.003, 0.01, 0.03, 0.1, 0.2, 0.35, 0.5)
CHUNKS = 8
"""Rows per logical id: they share its tenant and whether a newer revision supersedes it."""
SUPERSEDED = 0.03
"""The share of logical ids whose authoritative revision is a newer one (not in the corpus)."""
FATES = (("draft", 0.02), ("expired", 0.02), ("future", 0.02), ("last day", 0.02),
         ("malformed", 0.018))
"""Each row's fate beyond plain "active", with its probability; all but "last day" are never eligible."""
ELIGIBLE_SHARE = (1 - SUPERSEDED) * (1 - sum(p for fate, p in FATES if fate != "last day"))
BANDS = {f"b{round(level * 100)}": level / (TENANT_SHARES[0] * ELIGIBLE_SHARE) for level in SELECTIVITIES[5:]}
"""Broad groups, each held with the probability that makes (first tenant, that band) admit its level."""
FAR_GROUP = "gfar"
LATE_SHARE = 0.1
"""The share of the corpus (its last rows) that the tier writes after the store built its index and answered a
query; the written-last level's nearest documents are among these rows."""
EARLIER = date(2026, 5, 31)
"""The day the third query of each random-level principal asks on (expired documents are still in effect, so a
batch mixes days whose answers differ)."""
K_MAX = 100
"""The largest K the tier asks at: the written-last level writes each query's top ``K_MAX`` last."""
PRINCIPALS_PER_LEVEL = 2
QUERIES_PER_PRINCIPAL = 3
MALFORMED: tuple[tuple[str, Any], ...] = (
    ("groups", "g00"), ("revision", "1"), ("revision", 1.0), ("valid_from", "2026-02-30"),
    ("valid_from", "0000-01-01"), ("valid_until", ""), ("tenant", "t0\x00x"), ("status", None), ("groups", []),
)


@dataclass(frozen=True)
class Level:
    """Where a query's eligible documents sit: ``placement`` and their share of the corpus."""

    placement: str
    """``random``, ``far`` or ``written last``."""
    share: float
    """The level's target share of the corpus (random), or the principal's exact share (far, written last)."""

    def __str__(self) -> str:
        return f"{self.placement} {self.share * 100:.3g}%"


@dataclass(frozen=True)
class ScaleCorpus:
    ids: list[str]
    vectors: np.ndarray
    metadata: list[dict[str, Any]]
    queries: np.ndarray
    wheres: list[PolicyFilter]
    masks: np.ndarray
    """Per query, the policy's eligible rows (from ``PolicyColumns``, which agrees with ``policy.is_eligible``)."""
    levels: list[Level]
    """Per query, its level."""


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def clustered(rng: np.random.Generator, n: int, centres: np.ndarray, spread: float = 0.5) -> np.ndarray:
    """``n`` unit vectors, each a random centre plus noise of norm about ``spread``."""
    noise = rng.normal(0.0, spread / np.sqrt(centres.shape[1]), (n, centres.shape[1]))
    return unit(centres[rng.integers(0, len(centres), n)] + noise)


def identity(rng: np.random.Generator) -> tuple[str, int]:
    """A logical id's tenant and the revision the active map gives it (2: superseded, the corpus holds 1)."""
    return str(rng.choice(TENANTS, p=TENANT_SHARES)), 2 if rng.random() < SUPERSEDED else 1


def document_metadata(rng: np.random.Generator, row: int, tenant: str) -> dict[str, Any]:
    """One row's metadata, of logical id ``L{row // CHUNKS}`` owned by ``tenant``."""
    # Skewed group sizes: a few groups are large, most are small; then the bands, each held independently.
    groups = {GROUPS[min(int(rng.zipf(1.3)) - 1, len(GROUPS) - 1)] for _ in range(rng.integers(1, 3))}
    groups |= {band for band, p in BANDS.items() if rng.random() < p}
    meta: dict[str, Any] = {
        "tenant": tenant, "logical_id": f"L{row // CHUNKS}", "revision": 1,
        "status": "active", "valid_from": "2026-01-01", "groups": sorted(groups),
    }
    fate, draw = "active", rng.random()
    for name, p in FATES:
        if draw < p:
            fate = name
            break
        draw -= p
    if fate == "draft":
        meta["status"] = "draft"
    elif fate == "expired":
        meta["valid_until"] = "2026-06-01"
    elif fate == "future":
        meta["valid_from"] = "2027-01-01"  # not yet in effect
    elif fate == "last day":
        meta["valid_until"] = "2026-09-09"  # eligible: valid_until is exclusive
    elif fate == "malformed":
        field, value = MALFORMED[row % len(MALFORMED)]
        meta[field] = value
    return meta


def corpus_metadata(rng: np.random.Generator, n: int) -> tuple[list[dict[str, Any]], ActiveRevisions]:
    """``n`` rows' metadata, ``CHUNKS`` to a logical id, and the active map of their (tenant, logical id)s."""
    identities = [identity(rng) for _ in range(-(-n // CHUNKS))]
    metadata = [document_metadata(rng, row, identities[row // CHUNKS][0]) for row in range(n)]
    revisions = {(m["tenant"], m["logical_id"]): identities[row // CHUNKS][1]
                 for row, m in enumerate(metadata) if isinstance(m["tenant"], str)}
    return metadata, ActiveRevisions.of(revisions)


def candidate_principals(active: ActiveRevisions) -> list[PolicyFilter]:
    """Every tenant with one group, two or three of the larger groups, or a band with one of them."""
    sets = [(g,) for g in (*GROUPS, *BANDS)]
    sets += [gs for size in (2, 3) for gs in itertools.combinations(GROUPS[:12], size)]
    sets += [(band, g) for band in BANDS for g in GROUPS[:12]] + list(itertools.combinations(BANDS, 2))
    return [PolicyFilter(Principal(t, gs), AS_OF, active) for t in TENANTS for gs in sets]


def pick_principals(columns: PolicyColumns, active: ActiveRevisions, n: int
                    ) -> tuple[list[tuple[PolicyFilter, Level]], PolicyFilter]:
    """For each selectivity, the principals whose exact eligible counts lie closest to it; and the
    written-last principal: of the rest, the one admitting the fewest documents among those admitting
    at least half the corpus (the most, when none does)."""
    candidates = candidate_principals(active)
    counts = np.array([int(columns.mask(c).sum()) for c in candidates])
    chosen: list[tuple[PolicyFilter, Level]] = []
    taken: set[int] = set()
    for level in SELECTIVITIES:
        target = max(level * n, 3)
        order = np.argsort(np.abs(np.log(np.maximum(counts, 1) / target)), kind="stable")
        picks = [int(i) for i in order if counts[i] > 0 and i not in taken][:PRINCIPALS_PER_LEVEL]
        taken.update(picks)
        chosen += [(candidates[i], Level("random", level)) for i in picks]
    rest = [i for i in range(len(candidates)) if i not in taken]
    half = [i for i in rest if 2 * counts[i] >= n]
    last = min(half, key=lambda i: counts[i]) if half else max(rest, key=lambda i: counts[i])
    return chosen, candidates[last]


def write_last(vectors: np.ndarray, eligible: np.ndarray, queries: np.ndarray, k: int) -> None:
    """Reorder the vectors of the ``eligible`` rows, in place, so that each query's top ``k`` of them
    take the last eligible rows, ordered by their best score over the queries (the nearest last);
    the other eligible rows keep their vectors' order."""
    rows = np.flatnonzero(eligible)
    scores = vectors[rows].astype(np.float64) @ queries.astype(np.float64).T
    nearest = np.unique(np.concatenate([np.argsort(-scores[:, q], kind="stable")[:k] for q in range(len(queries))]))
    nearest = nearest[np.argsort(scores[nearest].max(axis=1), kind="stable")]
    others = np.setdiff1d(np.arange(len(rows)), nearest)
    vectors[rows] = vectors[rows[np.concatenate([others, nearest])]]


def far_rows(vectors: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """The rows outside the nearer half (the ``ceil(n/2)`` best scores) of every query."""
    scores = vectors.astype(np.float64) @ queries.astype(np.float64).T
    near = np.argsort(-scores, axis=0, kind="stable")[: (len(vectors) + 1) // 2]
    far = np.ones(len(vectors), dtype=bool)
    far[near.ravel()] = False
    return far


def build(n: int, seed: int = 20260908) -> ScaleCorpus:
    """The corpus of ``n`` documents for ``seed``: the same input gives the same corpus."""
    rng = np.random.default_rng(seed)
    centres = unit(rng.normal(size=(max(20, min(400, n // 25)), DIM)))
    vectors = clustered(rng, n, centres)
    metadata, active = corpus_metadata(rng, n)
    columns = PolicyColumns(metadata)
    chosen, last = pick_principals(columns, active, n)
    wheres = [where if q < QUERIES_PER_PRINCIPAL - 1 else PolicyFilter(where.principal, EARLIER, where.active)
              for where, _ in chosen for q in range(QUERIES_PER_PRINCIPAL)]
    levels = [level for _, level in chosen for _ in range(QUERIES_PER_PRINCIPAL)]
    queries = [clustered(rng, len(wheres), centres, spread=0.3)]

    # Written last: that principal's nearest eligible documents take its last eligible rows.
    last_queries = clustered(rng, QUERIES_PER_PRINCIPAL, centres, spread=0.3)
    last_mask = columns.mask(last)
    write_last(vectors, last_mask, last_queries, K_MAX)
    queries.append(last_queries)
    wheres += [last] * QUERIES_PER_PRINCIPAL
    levels += [Level("written last", int(last_mask.sum()) / n)] * QUERIES_PER_PRINCIPAL

    # Far: the group of the documents beyond the nearer half of every far query (given after the
    # reordering above, which moves vectors between rows), asked by the two larger tenants.
    far_centre = centres[rng.integers(len(centres))][None]
    far_queries = clustered(rng, PRINCIPALS_PER_LEVEL * QUERIES_PER_PRINCIPAL, far_centre, spread=0.3)
    for row in np.flatnonzero(far_rows(vectors, far_queries)):
        groups = metadata[row]["groups"]
        if isinstance(groups, list) and groups:  # malformed groups stay as they are
            metadata[row]["groups"] = sorted({*groups, FAR_GROUP})
    columns = PolicyColumns(metadata)
    far = [PolicyFilter(Principal(t, (FAR_GROUP,)), AS_OF, active) for t in TENANTS[:PRINCIPALS_PER_LEVEL]]
    queries.append(far_queries)
    wheres += [where for where in far for _ in range(QUERIES_PER_PRINCIPAL)]
    levels += [Level("far", int(columns.mask(where).sum()) / n) for where in far for _ in range(QUERIES_PER_PRINCIPAL)]

    masks = np.stack([columns.mask(w) for w in wheres])
    return ScaleCorpus([f"s{row:06d}" for row in range(n)], vectors, metadata, np.concatenate(queries), wheres, masks,
                       levels)
