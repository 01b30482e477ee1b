"""The empty-list family (``conformance.checks.empty``) names a call the store refused: an adapter that passes an
empty delete on to Chroma 1.5 (``ValueError: Expected IDs to be a non-empty list``) fails with that call named."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from filterproof.adapters.reference import ReferenceAdapter
from filterproof.conformance.checks.empty import EmptyInputChecks


class RefusesAnEmptyDelete(ReferenceAdapter):
    """Passes ``delete([])`` on to a store that refuses it, as Chroma 1.5 does."""

    def delete(self, ids: Sequence[str]) -> None:
        if not ids:
            raise ValueError("Expected IDs to be a non-empty list, got 0 IDs in delete.")
        super().delete(ids)


def test_a_refused_empty_call_is_named() -> None:
    with pytest.raises(AssertionError, match=r"^delete\(\[\]\) raised ValueError: Expected IDs to be a non-empty"):
        EmptyInputChecks().test_a_write_of_nothing_changes_nothing(RefusesAnEmptyDelete())


def test_the_reference_passes_both() -> None:
    checks = EmptyInputChecks()
    checks.test_a_write_of_nothing_changes_nothing(ReferenceAdapter())
    checks.test_an_active_map_with_nothing_authoritative_admits_nothing(ReferenceAdapter({"revision": "flag"}))
