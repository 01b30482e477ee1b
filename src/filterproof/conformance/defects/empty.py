"""Defects of an empty list: a clause built from a list is left out when the list is empty, and the call reaches
every row. ``EmptyInputChecks`` fails each; no other check calls with nothing, and the generated sequences reach an
empty active map only by chance."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from filterproof.adapters.reference import ReferenceAdapter
from filterproof.conformance.defects.clauses import RowPredicate
from filterproof.conformance.defects.lifecycle import pair
from filterproof.policy import ActiveRevisions, PolicyFilter, is_eligible


class DeletesAllOnNoIds(ReferenceAdapter):
    """Renders ``delete(ids)`` as ``DELETE ... WHERE id IN (...)`` and leaves the ``WHERE`` out when there is no id:
    a delete of nothing deletes every document (Chroma 0.3 and 0.4's ``delete(ids=[])``)."""

    name = "defect-deletes-all-on-no-ids"

    def delete(self, ids: Sequence[str]) -> None:
        super().delete(list(ids) or list(self._ids))


class NoRevisionClauseForEmptyMap(RowPredicate):
    """Builds the revision clause from the active map's keys (``key IN (...)``) and leaves it out when the map is
    empty: with nothing authoritative, every revision is admitted, superseded ones included."""

    name = "defect-no-revision-clause-for-empty-map"

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        key = pair(meta)
        if key is not None and not len(where.active):
            where = PolicyFilter(where.principal, where.as_of, ActiveRevisions.of({key: meta["revision"]}))
        return is_eligible(meta, where)
