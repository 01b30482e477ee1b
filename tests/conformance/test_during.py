"""A reader during a change (``conformance.checks.during``) on real engines: it catches a write of several steps
where the steps are real statements, not only in the reference's seeded defects (``defects.steps``).

Each engine below is the built-in adapter with one write split the way hand-written adapters split it: LanceDB's and
Chroma's flag rewrites with their two writes swapped (the new revision flagged before the old one is cleared), and a
document's fields written one ``update_metadata`` at a time on pgvector, Chroma and DuckDB. The unchanged
adapters pass the same check in the conformance matrix (``test_conformance_builtin.py``, both encodings) and at
LanceDB's read consistency of 0 (``test_across_clients.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from filterproof.adapters import Adapter, open_backend
from filterproof.adapters.base import Hit
from filterproof.adapters.chroma.limits import KEYS_PER_FILTER
from filterproof.adapters.chroma.store import ChromaAdapter
from filterproof.adapters.chroma.where import KEY, LID
from filterproof.adapters.encoding import slices
from filterproof.adapters.lancedb import where as lw
from filterproof.adapters.lancedb.store import LanceDBAdapter
from filterproof.adapters.readers import open_reader
from filterproof.adapters.revisions import flags_to_rewrite, logical_key, revision_key
from filterproof.conformance.checks import during
from filterproof.conformance.defects.steps import field_by_field
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import ActiveRevisions


class AdmitsFirstLanceDB(LanceDBAdapter):
    """LanceDB's ``set_active_revisions`` with its two updates in the other order: the new revision's flag is set
    first, then the other revisions' are cleared."""

    def set_active_revisions(self, active: ActiveRevisions) -> None:
        changed = flags_to_rewrite(self.active, active)
        if self.revision_flags and self._table is not None and changed:
            keys = ", ".join(lw.literal(revision_key(*p, active[p])) for p in changed if p in active)
            lids = ", ".join(lw.literal(logical_key(*p)) for p in changed)
            if keys:
                self.table.update(where=f"{lw.KEY} IN ({keys})", values={lw.CURRENT: True})
            self.table.update(where=f"{lw.LID} IN ({lids})" + (f" AND {lw.KEY} NOT IN ({keys})" if keys else ""),
                              values={lw.CURRENT: False})
        self.active = active


class AdmitsFirstChroma(ChromaAdapter):
    """Chroma's ``set_active_revisions`` with its two writes in the other order (each a ``get`` of the ids, then an
    ``update``): the new revision's flag set first, then cleared on the pair's other revisions."""

    def set_active_revisions(self, active: ActiveRevisions) -> None:
        if self.revision_flags and self._collection is not None:
            for part in slices(flags_to_rewrite(self.active, active), KEYS_PER_FILTER):
                keys = [revision_key(*p, active[p]) for p in part if p in active]
                others: dict[str, Any] = {LID: {"$in": [logical_key(*p) for p in part]}}
                if keys:
                    self._write_flag_where({KEY: {"$in": keys}}, "yes")
                    others = {"$and": [others, {KEY: {"$nin": keys}}]}
                self._write_flag_where(others, "no")
        self.active = active


def written_field_by_field(adapter: Adapter) -> Adapter:
    """``adapter`` with ``update_metadata`` made one call per field, in the order of their names (each a statement
    the store commits), as ``defects.WritesFieldByField`` makes the reference's."""
    written: dict[str, Mapping[str, Any]] = {}
    whole = adapter.update_metadata

    def update_metadata(id: str, metadata: Mapping[str, Any]) -> None:
        for step in field_by_field(written.get(id, during.HOME), metadata):
            whole(id, step)
        written[id] = dict(metadata)

    adapter.update_metadata = update_metadata  # type: ignore[method-assign]
    return adapter


def mixes_on(writer: Adapter) -> tuple[int, int]:
    """How many of the reader's answers no single state admits, of how many it read."""
    s = sc.Scenario.build(writer, during.DOCS)
    s.sync(during.active_map(1))
    reader = open_reader(writer)
    try:
        states, seen = during.change_while_reading(reader, s)
    finally:
        reader.close()
    return during.mixes(states, seen).total(), len(seen)


@pytest.fixture()
def closing() -> Iterator[list[Adapter]]:
    opened: list[Adapter] = []
    yield opened
    for adapter in opened:
        adapter.close()


@pytest.mark.parametrize("admits_first", [
    pytest.param(lambda: AdmitsFirstLanceDB({"revision": "flag", "read_consistency_s": 0}), id="lancedb"),
    pytest.param(lambda: AdmitsFirstChroma({"revision": "flag"}), id="chroma")])
def test_flagging_the_new_revision_first_shows_both(admits_first: Callable[[], Adapter],
                                                   closing: list[Adapter]) -> None:
    """Between the two writes acme/p has two current revisions, and the principal who reads it gets both: LanceDB at
    read consistency 0 sees each update as it commits (measured: 8 to 19 such answers of 52 to 72 in each of ten
    runs); Chroma's reader shares the writer's client (6 to 12 of 32 to 38 in each of ten, and 0 of ten unswapped)."""
    writer = admits_first()
    closing.append(writer)
    found, read = mixes_on(writer)
    assert found > 0, f"none of {read} answers mixed two states"


@pytest.mark.parametrize("spec", ["pgvector", "chroma", "duckdb"])
def test_fields_written_one_by_one_show_a_document_half_moved(spec: str, closing: list[Adapter]) -> None:
    """A document moved between tenants and groups one field at a time is, between two of the writes, in the old
    tenant under the new groups (or the other way), which a principal of neither place reads."""
    writer = written_field_by_field(open_backend(spec))
    closing.append(writer)
    found, read = mixes_on(writer)
    assert found > 0, f"none of {read} answers mixed two states"


class FailingReader:
    name = "failing-reader"

    def __init__(self) -> None:
        self.calls = 0

    def search(self, *args: Any) -> list[Hit]:
        self.calls += 1
        raise ConnectionError("the replica went away")

    def close(self) -> None:
        """Nothing to release."""


def test_a_reader_that_raises_is_one_assertion_naming_its_error() -> None:
    from filterproof.adapters.reference import ReferenceAdapter

    s = sc.Scenario.build(ReferenceAdapter(), during.DOCS)
    with pytest.raises(AssertionError, match="the reader's query raised ConnectionError while the writer changed the "
                                             "store: the replica went away"):
        during.change_while_reading(FailingReader(), s)  # type: ignore[arg-type]
