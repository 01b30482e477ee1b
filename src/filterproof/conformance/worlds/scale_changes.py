"""Changes at scale: after the tier's first answers, the corpus changes under the store, near every query.

Stores switch structures at scale (a bitmap index past some thousand rows, sealed
segments, a planner's statistics), and a change that a small store applies at once may
reach such a structure late or not at all. So, once the scale corpus is indexed and
asked, for each query the documents nearest to it change:

* **granted**: the nearest documents the principal lacks only a group for get it (they
  must now come back, at the top);
* **revoked**: the nearest eligible ones lose their groups (they must go);
* **deleted**: the next one is deleted;
* **superseded**: the next one's pair moves to another revision in the active map (given
  to ``set_active_revisions``, and carried by every query after).

``changed`` returns what to do and the corpus as it must then be answered.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from filterproof.conformance.worlds.scale_corpus import ScaleCorpus
from filterproof.policy import ActiveRevisions, PolicyFilter, is_eligible
from filterproof.policy.columns import PolicyColumns

PER_QUERY = {"granted": 2, "revoked": 2, "deleted": 1, "superseded": 1}
REVOKED = ["revoked"]
SCANNED = 300
"""Nearest rows looked at per query for a document to grant (enough at every level of the default corpus)."""


@dataclass(frozen=True)
class Changes:
    updates: dict[int, dict[str, Any]]
    """Row -> its new metadata (``update_metadata``)."""
    deletes: list[int]
    active: ActiveRevisions
    """The active map after the changes."""
    corpus: ScaleCorpus
    """The corpus after them: updated metadata, every query under the new map, deleted rows never eligible."""
    counts: dict[str, int]


def grantable(meta: dict[str, Any], where: PolicyFilter) -> bool:
    """Eligible for the principal but for its groups (and well formed with them)."""
    groups = meta.get("groups")
    if not isinstance(groups, list) or not groups or where.principal.tenant != meta.get("tenant"):
        return False
    return is_eligible({**meta, "groups": [*groups, where.principal.groups[0]]}, where)


def changed(corpus: ScaleCorpus) -> Changes:
    """The changes near every query, and the corpus they leave."""
    metadata = [dict(m) for m in corpus.metadata]
    touched: set[int] = set()
    updates: dict[int, dict[str, Any]] = {}
    deletes: list[int] = []
    superseded: dict[tuple[str, str], int] = {}
    counts = dict.fromkeys(PER_QUERY, 0)
    for q, where in enumerate(corpus.wheres):
        order = np.argsort(-(corpus.vectors @ corpus.queries[q]), kind="stable")
        eligible = [int(r) for r in order if corpus.masks[q][r] and r not in touched]
        granted = [int(r) for r in order[:SCANNED] if not corpus.masks[q][r] and r not in touched
                   and grantable(metadata[r], where)][: PER_QUERY["granted"]]
        for row in granted:
            updates[row] = metadata[row] = {**metadata[row], "groups": [*metadata[row]["groups"],
                                                                        where.principal.groups[0]]}
        plan = iter(eligible)
        revoked = [next(plan) for _ in range(min(PER_QUERY["revoked"], len(eligible)))]
        for row in revoked:
            updates[row] = metadata[row] = {**metadata[row], "groups": REVOKED}
        gone = [row for row in plan][: PER_QUERY["deleted"] + PER_QUERY["superseded"]]
        deletes += gone[: PER_QUERY["deleted"]]
        for row in gone[PER_QUERY["deleted"]:]:
            superseded[(metadata[row]["tenant"], metadata[row]["logical_id"])] = metadata[row]["revision"] + 1
        touched |= {*granted, *revoked, *gone}
        for name, rows in (("granted", granted), ("revoked", revoked)):
            counts[name] += len(rows)
        counts["deleted"] += len(gone[: PER_QUERY["deleted"]])
        counts["superseded"] += len(gone[PER_QUERY["deleted"]:])
    active = ActiveRevisions.of({**corpus.wheres[0].active, **superseded})
    wheres = [PolicyFilter(w.principal, w.as_of, active) for w in corpus.wheres]
    columns = PolicyColumns(metadata)
    alive = np.ones(len(metadata), dtype=bool)
    alive[deletes] = False
    masks = np.stack([columns.mask(w) & alive for w in wheres])
    after = replace(corpus, metadata=metadata, wheres=wheres, masks=masks)
    return Changes(updates, deletes, active, after, counts)
