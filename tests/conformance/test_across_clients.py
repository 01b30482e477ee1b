"""The across-clients tier (``conformance.checks.clients``, and ``checks.during``) on the built-in stores' settings
that govern it, and on seeded defects of a second client.

The full conformance classes run the tier too (``test_conformance_builtin.py``), at each
backend's defaults; here are the settings that change what another client sees:
LanceDB's ``read_consistency_s`` (0, and a bound of 1 s), Chroma with a path (a reader in
another process), and Chroma's server. What a store gets wrong is a strict xfail
naming the finding, so that a release that fixes it turns the run red.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from filterproof.adapters import Adapter, open_backend
from filterproof.adapters.base import Capabilities, ReaderSpec, Record, update_many
from filterproof.adapters.lancedb.store import LanceDBAdapter
from filterproof.adapters.readers import (
    ChildReader,
    ChildWriter,
    ReaderDied,
    open_reader,
    open_writer,
    reader_spec,
    writer_spec,
)
from filterproof.conformance.checks.clients import AcrossClientChecks, follow
from filterproof.conformance.checks.during import DuringChangeChecks
from filterproof.conformance.checks.two_writers import TwoClientWritersChecks
from filterproof.conformance.defects import ReaderCachesResults, ReaderRefreshesLate
from filterproof.conformance.suite import AdapterFixtures
from filterproof.errors import NoSecondClient
from support.processes import descendants

CHROMA_SNAPSHOT = ("finding: chromadb 1.5.9, a PersistentClient in another process reads metadata fresh but its "
                   "vector index as loaded: a deleted document still returned unfiltered, and after the writer adds "
                   "a document every query fails with 'Error finding id' (bench/repro/chroma_second_process.py)")


class Tier(AcrossClientChecks, DuringChangeChecks, AdapterFixtures):
    """Only the across-clients tier and a reader during a change, on the adapter of ``spec``."""

    spec: tuple[str, dict[str, str]]

    @pytest.fixture()
    def adapter(self) -> Iterator[Adapter]:
        name, options = self.spec
        store = open_backend(name, options)
        yield store
        store.close()


class TestLanceDBReadConsistencyZero(Tier):
    spec = ("lancedb", {"read_consistency_s": "0"})


class TestLanceDBReadConsistencyZeroFlags(Tier):
    spec = ("lancedb", {"read_consistency_s": "0", "revision": "flag"})


class WritersTier(TwoClientWritersChecks, Tier):
    """The tier, and two clients writing at once (``open_writer``)."""


class TestLanceDBTwoWritersReadConsistencyZero(WritersTier):
    """Two connections writing at once, each seeing the other's commits: an update of a row the other deleted
    stays a delete (merge_insert without an insert), and the indexes both build at once are built once."""

    spec = ("lancedb", {"read_consistency_s": "0", "index_scalar": "true"})


class TestLanceDBTwoWritersReadConsistencyZeroFlags(WritersTier):
    spec = ("lancedb", {"read_consistency_s": "0", "revision": "flag"})


class TestLanceDBBoundedByOneSecond(Tier):
    """A reader checks for a newer version at most once a second: each change is seen within the declared 1 s."""

    spec = ("lancedb", {"read_consistency_s": "1"})


class TestChromaWithPath(WritersTier):
    @pytest.fixture()
    def adapter(self, tmp_path: Path) -> Iterator[Adapter]:
        store = open_backend("chroma", {"path": str(tmp_path / "chroma")})
        yield store
        store.close()

    @pytest.mark.xfail(raises=AssertionError, strict=True, reason=CHROMA_SNAPSHOT)
    def test_a_reader_in_another_process_sees_each_change(self, second_client: Adapter) -> None:
        """See ``AcrossClientChecks``; fails on Chroma's vector index in another process (``CHROMA_SNAPSHOT``)."""
        super().test_a_reader_in_another_process_sees_each_change(second_client)


def test_chroma_with_a_path_does_not_declare_a_bound() -> None:
    """A reader in another process can be stale for good: the store declares no bound (held to 0, and failed)."""
    with open_backend("chroma", {"path": tempfile.mkdtemp(prefix="fp-chroma-")}) as store:
        assert store.capabilities.staleness_bound_s is None


@pytest.mark.parametrize("defect", [ReaderCachesResults, ReaderRefreshesLate])
def test_a_seeded_reader_defect_fails_the_tier(defect: type[Adapter]) -> None:
    """A reader that caches answers, and one that refreshes every 3 s under a declared bound of 0, fail on the
    first change, named."""
    store = defect()
    with pytest.raises(AssertionError, match=r"after the writer's 'revoke a group' returned, a query the reader "
                                             r"started 0\.\d+ s later \(staleness_bound_s=0\) answered as before: "
                                             r"filtered .*\(a leak\): revoked"):
        follow(store, lambda: open_reader(store), "a reader in this process")


class LateLanceDB(LanceDBAdapter):
    """LanceDB whose readers check for a new version every 3 s, declared as if they saw each change at once."""

    name = "late-lancedb"

    def __init__(self, options: Any = None) -> None:
        super().__init__(options)
        self.capabilities = Capabilities(native_filter=True, exact=True, staleness_bound_s=0.0)

    def reader_spec(self) -> ReaderSpec:
        spec = super().reader_spec()
        return ReaderSpec(spec.backend, spec.factory, {**spec.options, "read_consistency_s": 3.0})


def test_a_reader_in_another_process_refreshing_late_fails_the_tier() -> None:
    """The second seeded defect across processes, on LanceDB's real reader: a 3 s refresh declared as 0."""
    store = LateLanceDB()
    try:
        with pytest.raises(AssertionError, match=r"\[a reader in another process\] after the writer's 'revoke a "
                                                 r"group' returned, .* \(staleness_bound_s=0\) answered as before"):
            follow(store, lambda: ChildReader(reader_spec(store)), "a reader in another process")
    finally:
        store.close()


def test_a_reader_whose_store_is_gone_is_one_error_naming_the_backend(tmp_path: Path) -> None:
    """A reader opened on a directory that no longer holds the table fails at once, naming the backend."""
    from filterproof.errors import ReaderFailed

    store = open_backend("lancedb", {"path": str(tmp_path / "db")})
    store.reset(4)
    spec = reader_spec(store)
    store.close()
    import shutil

    shutil.rmtree(tmp_path / "db")
    before = set(descendants(os.getpid()))
    with pytest.raises(ReaderFailed, match=r"^lancedb: the reader could not open: ReaderFailed: lancedb: no table"):
        ChildReader(spec)
    assert set(descendants(os.getpid())) - before == set(), "the failed reader's process was left behind"


@pytest.mark.parametrize("spec", ["lancedb", "milvus", "pgvector", "duckdb"])
def test_a_store_with_a_second_client_offers_it_once_reset(spec: str) -> None:
    """Once reset, a built-in store that has a second client gives a reader that answers what the writer wrote. An
    adapter that lost its reader (``NoSecondClient`` after reset) turns the across-clients checks into skips, which
    no run reports as a failure: found by the mutation run of ``lancedb/store.py``."""
    store = open_backend(spec)
    try:
        store.reset(2)
        store.upsert([Record("a", np.array([1.0, 0.0], np.float32), {"tenant": "acme"})])
        reader = open_reader(store)
        try:
            assert [h.id for h in reader.search(np.array([1.0, 0.0], np.float32), 5, None)] == ["a"]
        finally:
            reader.close()
    finally:
        store.close()


@pytest.mark.parametrize("spec", ["lancedb", "milvus", "pgvector", "duckdb", "chroma"])
def test_a_reader_refuses_every_write_the_batch_update_too(spec: str, tmp_path: Path) -> None:
    """A reader never writes (a reader that wrote would hide what it misses): reset, upsert, delete, update_metadata
    and update_metadata_batch each raise NoSecondClient, and the writer's document is as it was."""
    options = {"path": str(tmp_path)} if spec == "chroma" else {}
    store = open_backend(spec, options)
    try:
        store.reset(2)
        store.upsert([Record("a", np.array([1.0, 0.0], np.float32), {"tenant": "acme"})])
        reader = open_reader(store)
        try:
            for write in (lambda: reader.reset(2), lambda: reader.upsert([]), lambda: reader.delete(["a"]),
                          lambda: reader.update_metadata("a", {"tenant": "beta"}),
                          lambda: update_many(reader, {"a": {"tenant": "beta"}})):
                with pytest.raises(NoSecondClient):
                    write()
        finally:
            reader.close()
        assert [h.id for h in store.search(np.array([1.0, 0.0], np.float32), 5, None)] == ["a"]
    finally:
        store.close()


def test_a_child_writer_writes_in_its_own_process_and_its_failures_name_the_backend(tmp_path: Path) -> None:
    """A ``ChildWriter`` is the adapter's own class in a child process: what it writes the writer reads; a write
    it cannot make comes back as one error naming the backend and the writer; its ``close`` leaves the store."""
    store = open_backend("lancedb", {"path": str(tmp_path / "db"), "read_consistency_s": "0"})
    store.reset(2)
    vector = np.array([1.0, 0.0], np.float32)
    try:
        writer = ChildWriter(writer_spec(store))
        assert writer.name.startswith("lancedb (writer in pid ") and str(os.getpid()) not in writer.name
        try:
            writer.upsert([Record("a", vector, {"tenant": "acme"}), Record("b", vector, {"tenant": "acme"})])
            writer.delete(["b"])
            writer.update_metadata("gone", {"tenant": "beta"})  # an unknown id is ignored, as by the reference
            assert [h.id for h in store.search(vector, 5, None)] == ["a"]
            with pytest.raises(ReaderDied, match=r"^lancedb: the writer failed on upsert: ValueError: c: vector has "
                                                 r"shape \(3,\)"):
                writer.upsert([Record("c", np.ones(3, np.float32), {"tenant": "acme"})])
        finally:
            writer.close()
        assert [h.id for h in store.search(vector, 5, None)] == ["a"]
    finally:
        store.close()


def test_a_store_in_this_process_s_memory_has_no_writer_in_another(tmp_path: Path) -> None:
    """``writer_spec`` says why there is none: DuckDB locks its file, Chroma's other process reads a stale index."""
    for spec, options, why in (("reference", {}, "in this process's memory"),
                               ("duckdb", {"path": str(tmp_path / "d.db")}, "another process cannot open"),
                               ("chroma", {"path": str(tmp_path / "c")}, "use chroma-server")):
        store = open_backend(spec, options)
        try:
            store.reset(2)
            with pytest.raises(NoSecondClient, match=why):
                writer_spec(store)
        finally:
            store.close()


def test_a_child_reader_lets_its_reader_close_before_it_ends(tmp_path: Path) -> None:
    """``ChildReader.close`` waits for the child to close its reader and exit: killed as soon as it answered, it
    cut its store's connections (and lost what it wrote at exit) instead of closing them."""
    closed = tmp_path / "closed"
    reader = ChildReader(ReaderSpec("closing", "support.closing_reader:ClosingReader", {"path": str(closed)}))
    assert reader.search(np.ones(2, dtype=np.float32), 1, None) == []
    reader.close()
    assert closed.read_text() == "closed" and reader.process.returncode == 0


def test_a_child_reader_imports_its_factory_from_the_working_directory(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The child puts our import path before its own and keeps its own: a reader factory in the working
    directory (a user's adapter module next to the run) opens there as here."""
    (tmp_path / "cwd_reader.py").write_text("from support.closing_reader import ClosingReader as Reader\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    reader = ChildReader(ReaderSpec("cwd", "cwd_reader:Reader", {"path": str(tmp_path / "closed")}))
    reader.close()
    assert (tmp_path / "closed").read_text() == "closed"


REFUSED_IN_ONE_CLIENT = ("our adapters over Chroma and Milvus keep a document the engine cannot hold (over its limits) "
                         "in the refusing client's memory (_refused), with its vector: another client's update that "
                         "fits finds no row and is ignored, so the document is never returned again, through either "
                         "client (fail closed: no leak, a false abstention); storing it fail-closed in the engine "
                         "would let any client update it")


@pytest.mark.parametrize("spec", ["reference", pytest.param("chroma", marks=pytest.mark.xfail(
    raises=AssertionError, strict=True, reason=REFUSED_IN_ONE_CLIENT)), pytest.param("milvus", marks=pytest.mark.xfail(
        raises=AssertionError, strict=True, reason=REFUSED_IN_ONE_CLIENT))])
def test_a_document_one_client_refused_is_brought_back_by_another_clients_update(spec: str) -> None:
    """A document written through one client with more groups than the engine holds (refused, never returned), then
    updated through another client to one group: the store holds it as updated, and both clients return it."""
    from filterproof.conformance.worlds import scenarios as sc
    from filterproof.policy import ActiveRevisions, PolicyFilter

    store = open_backend(spec)
    vector = np.array([1.0, 0.0], np.float32)
    active = ActiveRevisions.of({(sc.TENANT, "d"): 1})
    store.reset(2)
    try:
        store.upsert([Record("d", vector, sc.meta(logical_id="d", groups=[f"g{i}" for i in range(6_000)]))])
        other = open_writer(store)
        try:
            other.update_metadata("d", sc.meta(logical_id="d"))
            asked = PolicyFilter(sc.principal(), sc.AS_OF, active)
            assert [[h.id for h in client.search(vector, 5, asked)] for client in (store, other)] == [["d"], ["d"]]
        finally:
            other.close()
    finally:
        store.close()
