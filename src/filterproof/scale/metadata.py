"""The documents' metadata as a fixture holds it (dicts), built for any range of rows from the columns.

The population (``population.py``) keeps every row as a few narrow integers. A
metadata dict costs about a kilobyte, so dicts are built only for the rows being
read (a chunk being embedded, ingested or written out) and dropped with them. The
same rows always give the same dicts, whatever the chunk boundaries: the only
random draws (each row's decoy groups) are made once for the whole corpus, in
``MetadataMaker.draw``, at the point of the seed's stream where the generator has
always made them.

Strings shared by many documents (group names, dates, tenants) are made once and
reused, so a store that keeps the dicts (the reference backend keeps a shallow
copy of each) holds one copy of each name, not one per document.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np

from filterproof.scale.population import CURRENT, DRAFT, MALFORMED_KINDS, OPEN, STALE, Population

STATUS = {CURRENT: "active", STALE: "active", DRAFT: "draft"}
DECOY_GROUPS = 16
"""``proj-*`` groups: principals never hold them, so they widen no one's eligible set."""


def _malform(meta: dict[str, Any], how: str) -> None:
    if how == "groups_empty":
        meta["groups"] = []
    elif how == "groups_string":
        meta["groups"] = meta["groups"][0]
    elif how == "bad_date":
        meta["valid_from"] = meta["valid_from"].replace("-", "/")
    elif how == "revision_string":
        meta["revision"] = str(meta["revision"])
    elif how == "missing_status":
        del meta["status"]
    elif how == "unmapped":
        meta["logical_id"] += "-orphan"


@dataclass
class MetadataMaker:
    """Builds the metadata dicts of any rows; holds two narrow columns of its own (the decoy draws)."""

    pop: Population
    levels: int
    as_of: date
    decoy_count: np.ndarray
    decoy_first: np.ndarray
    _dates: dict[int, str] = field(default_factory=dict, repr=False)
    _names: dict[tuple[int, int, int], str] = field(default_factory=dict, repr=False)
    _decoys: list[str] = field(default_factory=list, repr=False)
    _tenants: list[str] = field(default_factory=list, repr=False)

    @classmethod
    def draw(cls, rng: np.random.Generator, pop: Population, levels: int, as_of: date) -> MetadataMaker:
        """Make the metadata's random draws (how many decoy groups, and from where) for every row."""
        count = rng.integers(1, 3, size=pop.n).astype(np.int8)
        first = rng.integers(0, DECOY_GROUPS, size=pop.n).astype(np.int8)
        return cls(pop, levels, as_of, count, first)

    def __post_init__(self) -> None:
        self._decoys = [f"proj-{i:02d}" for i in range(DECOY_GROUPS)]
        self._tenants = [f"tenant-{t:02d}" for t in range(int(self.pop.tenant.max()) + 1)]

    def iso(self, offset: int) -> str:
        """The date ``offset`` days from as_of, ``YYYY-MM-DD`` (one string per distinct day)."""
        text = self._dates.get(offset)
        if text is None:
            text = self._dates[offset] = date.fromordinal(self.as_of.toordinal() + offset).isoformat()
        return text

    def _team(self, level: int, block: int, half: int) -> str:
        key = (level, block, half)
        name = self._names.get(key)
        if name is None:
            name = self._names[key] = f"team-{level}-{block}-{'ab'[half]}"
        return name

    def groups(self, rows: slice) -> list[list[str]]:
        """Each row's groups: one block group per level its tenant takes part in, then its decoys."""
        pop = self.pop
        per_level = [(li, pop.blocks[li][rows].tolist(), pop.halves[li][rows].tolist()) for li in range(self.levels)]
        count, first = self.decoy_count[rows].tolist(), self.decoy_first[rows].tolist()
        out = []
        for j in range(len(count)):
            mine = [self._team(li, blocks[j], halves[j]) for li, blocks, halves in per_level if blocks[j] >= 0]
            mine += [self._decoys[(first[j] + d) % DECOY_GROUPS] for d in range(count[j])]
            out.append(mine)
        return out

    def rows(self, start: int, stop: int) -> list[dict[str, Any]]:
        """The metadata dicts of rows ``start`` to ``stop``, malformed classes applied."""
        pop, part = self.pop, slice(start, stop)
        columns = zip(pop.tenant[part].tolist(), pop.logical[part].tolist(), pop.revision[part].tolist(),
                      pop.kind[part].tolist(), pop.start[part].tolist(), pop.end[part].tolist(),
                      pop.malformed[part].tolist(), self.groups(part), strict=True)
        out = []
        for tenant, logical, revision, kind, begin, end, bad, grp in columns:
            meta: dict[str, Any] = {
                "tenant": self._tenants[tenant], "logical_id": f"doc-{logical:07d}", "revision": revision,
                "status": STATUS.get(kind, "superseded"), "groups": grp, "valid_from": self.iso(begin),
            }
            if end != OPEN:
                meta["valid_until"] = self.iso(end)
            if bad >= 0:
                _malform(meta, MALFORMED_KINDS[bad])
            out.append(meta)
        return out

    def of(self, rows: Sequence[int]) -> list[dict[str, Any]]:
        """The metadata dicts of any rows (for a handful of rows; chunks use ``rows``)."""
        return [self.rows(r, r + 1)[0] for r in rows]
