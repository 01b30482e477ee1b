"""Defects of a write aimed at one id: the selection reaches other documents. ``AimedWriteChecks`` fails each; no
other check does (measured: the ids world writes to one original and one twin, whose selections these miss)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from filterproof.adapters.reference import ReferenceAdapter


def like(pattern: str, value: str) -> bool:
    """SQL's ``value LIKE pattern`` with no ESCAPE clause: ``_`` any one character, ``%`` any run."""
    parts = (".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)
    return re.fullmatch("".join(parts), value, re.DOTALL) is not None


class DeletesByLike(ReferenceAdapter):
    """Renders ``delete(ids)`` as ``DELETE ... WHERE id LIKE ?`` per id, its ``_`` and ``%`` not escaped: a delete
    of ``a_c`` deletes ``abc`` too, one of ``%`` the whole collection."""

    name = "defect-deletes-by-like"

    def delete(self, ids: Sequence[str]) -> None:
        named = list(ids)
        super().delete([i for i in self._ids if any(like(x, i) for x in named)])


class DeletesByPrefix(ReferenceAdapter):
    """Deletes an id and every id it begins (``id LIKE 'x%'``: a document and its chunks ``x#0``, ``x#1``): a
    delete of ``doc1`` deletes ``doc10``."""

    name = "defect-deletes-by-prefix"

    def delete(self, ids: Sequence[str]) -> None:
        named = list(ids)
        super().delete([i for i in self._ids if any(i.startswith(x) for x in named)])


class UpdatesByLike(ReferenceAdapter):
    """Renders ``update_metadata(id, ...)`` as ``UPDATE ... WHERE id LIKE ?``, unescaped: an update of ``a_c``
    rewrites ``abc`` too (a revoke that revokes documents nobody named, or a grant that grants them)."""

    name = "defect-updates-by-like"

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        for other in [i for i in self._ids if like(id, i)]:
            super().update_metadata(other, metadata)
