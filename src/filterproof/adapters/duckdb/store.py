"""DuckDB behind filterproof's adapter boundary: pgvector's typed policy columns, inner-product search in SQL.

The database. In memory, or the file ``path`` (created if missing; kept, and every
table in it that filterproof did not create left alone). Each adapter works in a table
of its own (``fp_<random>``, dropped on close) unless ``table`` names one; either
carries filterproof's marker as its ``COMMENT`` (``adapters.ownership``), and a named
table without it is the user's, refused before anything is written unless
``replace=true``.

The table. ``id VARCHAR PRIMARY KEY``, ``embedding FLOAT[dim]`` (the shared vectors
scaled to unit length, so the inner product is the cosine, and a zero vector scores 0
where ``array_cosine_distance`` would score it as opposite to everything) and the
columns of ``pgvector.sql`` (``sql``). A batch of writes is one Arrow table, inserted
with ``ON CONFLICT (id) DO UPDATE``.

Search. ``index=exact``: ``ORDER BY score DESC, rowid LIMIT k`` under the compiled
``WHERE`` (DuckDB pushes it into the scan); ties go to the row written first, as the
reference orders them. ``index=hnsw``: the vss extension's index serves only
``ORDER BY array_negative_inner_product(...) LIMIT n`` and the ``WHERE`` runs on those
n rows after (duckdb-vss #35: a tenant's query returns nothing), so the adapter asks a
window of ``window * k`` rows, filters it, and widens it fourfold until k rows pass; a
window as large as the table is an exact scan instead. The index is built on the first
search after writes, and no write runs while it exists (``_drop_index``): with it, a
vector rewritten in place or DELETE then INSERT leaves it missing rows (an unfiltered
LIMIT 100 over 3 rows returns 1), and an UPDATE or INSERT after deletes or updates can
kill the process.

Other clients (``open_reader``, ``open_writer``): a cursor, DuckDB's second connection to
the same database in this process, which reads what was committed. Two connections writing
one row at once: DuckDB refuses the later (optimistic concurrency), and the write is made
again (``retried``). With ``index=hnsw`` one client writes (``open_writer`` says why). A second process cannot
open a database file another process writes to (DuckDB locks it), and an in-memory
one is this process's: ``reader_spec`` says so.
"""

from __future__ import annotations

import contextlib
import glob
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from filterproof.adapters.base import AdapterBase, Capabilities, Hit, ReaderSpec, Record, checked_vector
from filterproof.adapters.duckdb import sql as dsql
from filterproof.adapters.duckdb.options import DuckDBOptions
from filterproof.adapters.duckdb.owned import mark, owned, table_mark
from filterproof.adapters.duckdb.sql import DATES
from filterproof.adapters.locking import locked
from filterproof.adapters.ownership import Marker, claim
from filterproof.adapters.readers import ReadOnly
from filterproof.adapters.revisions import KeyCache, flags_to_rewrite, logical_key, revision_key
from filterproof.adapters.searchpath import SearchPath
from filterproof.embedding.spaces import unit_rows
from filterproof.errors import BackendUnavailable, NoSecondClient
from filterproof.policy import ActiveRevisions, PolicyFilter

BATCH = "fp_batch"
"""The name a batch of writes (an Arrow table) is registered under for its one INSERT, this connection only."""
ARROW = dict(zip(dsql.STORED_COLUMNS, (pa.string(), pa.string(), pa.string(), pa.list_(pa.string()), pa.string(),
                                       pa.string(), pa.string(), pa.string(), pa.bool_(), pa.string()), strict=True))
"""The Arrow type of each stored column as written (dates as text, cast by the INSERT)."""
TOLERANCE = 0.02
"""Recall tolerance of ``index=hnsw``: the window holds the index's approximate top rows."""
GROWTH = 4


def vss_extension() -> str:
    """The vss extension's file in the ``duckdb-extension-vss`` wheel (``INSTALL vss`` needs DuckDB's
    repository, which an offline machine cannot reach)."""
    try:
        import duckdb_extension_vss
    except ImportError:
        raise BackendUnavailable("duckdb:index=hnsw needs the vss extension: pip install 'filterproof[duckdb]' "
                                 "(duckdb-extension-vss)") from None
    root = os.path.join(os.path.dirname(duckdb_extension_vss.__file__), "extensions")
    found = glob.glob(os.path.join(root, f"v{duckdb.__version__}", "vss.duckdb_extension"))
    if not found:
        raise BackendUnavailable(f"duckdb {duckdb.__version__}: duckdb-extension-vss holds no extension for it "
                                 f"({', '.join(sorted(os.listdir(root)))}); install the duckdb it pins")
    return found[0]


def capabilities_of(options: DuckDBOptions, persistent: bool) -> Capabilities:
    if options.index == "exact":
        return Capabilities(native_filter=True, exact=True, persistent=persistent, lifecycle=True,
                            staleness_bound_s=0.0, search_path="exact scan")
    return Capabilities(native_filter=True, exact=False, persistent=persistent, lifecycle=True,
                        recall_tolerance=TOLERANCE, staleness_bound_s=0.0, search_path="post-filter")


def path_of(plan: str, filtered: bool) -> SearchPath:
    """The path of an ``EXPLAIN``: the HNSW index scan (its window filtered after, when there is a filter), or an
    exact scan of what the filter admits."""
    if "HNSW_INDEX_SCAN" not in plan:
        return SearchPath("exact scan", plan)
    return SearchPath("post-filter" if filtered else "index", plan)


CONFLICT_RETRIES = 50


def retried(write: Callable[[], object]) -> None:
    """``write``, again while DuckDB refuses it for another connection's write to the same rows at the same moment
    (optimistic concurrency: ``TransactionException: ... Conflict on tuple deletion``, found by two clients of one
    database writing one document at once). Each attempt is whole (one statement, or one transaction rolled back),
    so the write that lands is this one made after the other's."""
    for attempt in range(CONFLICT_RETRIES):
        try:
            write()
            return
        except duckdb.TransactionException as error:
            if "Conflict" not in str(error) or attempt == CONFLICT_RETRIES - 1:
                raise
            time.sleep(0.001 * (attempt + 1))


class DuckDBAdapter(AdapterBase):
    name = "duckdb"
    Options = DuckDBOptions
    options: DuckDBOptions

    def __init__(self, options: DuckDBOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        opts = self.options
        self._lock = threading.RLock()  # one call at a time on the connection: it keeps the last result on itself
        try:
            self._conn = duckdb.connect(opts.path or ":memory:")
        except duckdb.Error as error:
            raise BackendUnavailable(f"duckdb: cannot open {opts.path}: {error}") from None
        if opts.index == "hnsw":
            self._conn.execute(f"LOAD '{vss_extension()}'")
            self._conn.execute(f"SET hnsw_ef_search = {int(opts.ef_search)}")
            if opts.path:  # an index in a file needs this; in memory it is rebuilt anyway
                self._conn.execute("SET hnsw_enable_experimental_persistence = true")
        self.capabilities = capabilities_of(opts, persistent=bool(opts.path))
        self._table = opts.table or f"fp_{uuid.uuid4().hex[:12]}"
        self._drop_on_close = not opts.table
        self._created = False
        self._dim, self._rows, self._indexed = 0, 0, False
        self._keys = KeyCache(dsql.pg_text)
        self._claim()

    def _claim(self) -> None:
        """Refuse a table of this name that filterproof did not create (``adapters.ownership``), before any write."""
        exists, comment = table_mark(self._conn, self._table)
        where = f"table {self._table!r} in {self.options.path or 'the in-memory database'}"
        claim(self.name, where, exists=exists and not self._created, mark=comment, replace=self.options.replace,
              instead="another table=NAME (or none: a fresh table, dropped after)")

    owned_objects = staticmethod(owned)
    """For ``filterproof clean``: every table of the database file that carries the marker."""

    @property
    def table(self) -> str:
        return self._table

    def _q(self, template: str) -> str:
        """``template`` with ``{t}`` our table's name, quoted (it matches ``[a-z_][a-z0-9_]*``)."""
        return template.format(t=f'"{self._table}"')

    # -- writes -----------------------------------------------------------------

    @locked
    def reset(self, dim: int) -> None:
        if dim < 1:
            raise ValueError(f"dimension must be positive, got {dim}")
        self._claim()
        columns = ", ".join(f"{name} {kind}" for name, kind in zip(dsql.STORED_COLUMNS, dsql.COLUMN_TYPES,
                                                                    strict=True))
        self._conn.execute(self._q("DROP TABLE IF EXISTS {t}"))
        self._conn.execute(self._q(f"CREATE TABLE {{t}} (id VARCHAR PRIMARY KEY, embedding FLOAT[{int(dim)}] "
                                   f"NOT NULL, {columns})"))
        mark(self._conn, self._table, Marker.new(temporary=self._drop_on_close))
        self._created = True
        self._dim, self._rows, self._indexed = dim, 0, False

    def _arrow(self, records: Sequence[Record]) -> pa.Table:
        """One batch as Arrow columns; dates as ISO text (``'infinity'`` has no Arrow date), cast on insert."""
        vectors = unit_rows(np.asarray([checked_vector(r.vector, self._dim, r.id) for r in records], dtype=np.float32))
        columns = list(zip(*(dsql.stored_row(r.metadata, self.flag_map) for r in records), strict=True))
        data = [pa.array([dsql.pg_text(r.id) for r in records], pa.string()),
                pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel(), pa.float32()), self._dim)]
        for name, values in zip(dsql.STORED_COLUMNS, columns, strict=True):
            data.append(pa.array(dsql.bound(name, values), ARROW[name]))
        return pa.Table.from_arrays(data, names=["id", "embedding", *dsql.STORED_COLUMNS])

    @locked
    def upsert(self, records: Sequence[Record]) -> None:
        latest = list({r.id: r for r in records}.values())  # the last of an id wins
        if not latest:
            return
        self._drop_index()
        names = ("id", "embedding", *dsql.STORED_COLUMNS)
        values = ", ".join(f"CAST({n} AS DATE)" if n in DATES else n for n in names)
        updates = ", ".join(f"{n} = EXCLUDED.{n}" for n in names[1:])
        self._conn.register(BATCH, self._arrow(latest))
        try:
            retried(lambda: self._conn.execute(self._q(f"INSERT INTO {{t}} SELECT {values} FROM {BATCH} "
                                                       f"ON CONFLICT (id) DO UPDATE SET {updates}")))
        finally:
            self._conn.unregister(BATCH)
        self._changed()

    def _changed(self) -> None:
        (self._rows,) = self._conn.execute(self._q("SELECT count(*) FROM {t}")).fetchone() or (0,)

    def _drop_index(self) -> None:
        """Before every write; the next search builds the index anew. With the index present a delete or a
        vector rewritten in place leaves it missing rows (``bench/repro/duckdb_vss_delete_insert_corrupts.py``),
        an UPDATE of a list column after a delete, a build and an insert kills the process
        (``duckdb_vss_update_segfault.py``), and so did an INSERT after updates made without it (the suite's
        generated sequences): duckdb-vss #81, whose reporters drop the index the same way, though for deletes
        and updates only."""
        if self._indexed:
            self._conn.execute(f'DROP INDEX IF EXISTS "{self._table}_embedding"')
            self._indexed = False

    @locked
    def delete(self, ids: Sequence[str]) -> None:
        self._drop_index()
        retried(lambda: self._conn.execute(self._q("DELETE FROM {t} WHERE id = ANY(?::VARCHAR[])"),
                                           [[dsql.pg_text(i) for i in ids]]))
        self._changed()

    @locked
    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        """Replace every policy column and the raw metadata; the vector stays; unknown ids are ignored."""
        self._drop_index()
        stored = dsql.stored_row(metadata, self.flag_map)
        assignments = ", ".join(f"{c} = CAST(? AS DATE)" if c in DATES else f"{c} = ?" for c in dsql.STORED_COLUMNS)
        params = [dsql.bound(c, [v])[0] for c, v in zip(dsql.STORED_COLUMNS, stored, strict=True)]
        retried(lambda: self._conn.execute(self._q(f"UPDATE {{t}} SET {assignments} WHERE id = ?"),
                                           [*params, dsql.pg_text(id)]))

    @locked
    def set_active_revisions(self, active: ActiveRevisions) -> None:
        """Under ``revision=flag``: rewrite the flags of every tenant/logical_id whose revision changed, in one
        transaction."""
        if self.revision_flags and self._dim:
            changed = flags_to_rewrite(self.active, active)
            lids = [dsql.pg_text(logical_key(*pair)) for pair in changed]
            keys = [dsql.pg_text(revision_key(*pair, active[pair])) for pair in changed if pair in active]
            self._drop_index()
            retried(lambda: self._rewrite_flags(lids, keys))
        self.active = active

    def _rewrite_flags(self, lids: list[str], keys: list[str]) -> None:
        self._conn.begin()
        try:
            self._conn.execute(self._q("UPDATE {t} SET is_current = false WHERE logical_key = ANY(?::VARCHAR[])"),
                               [lids])
            self._conn.execute(self._q("UPDATE {t} SET is_current = true WHERE revision_key = ANY(?::VARCHAR[])"),
                               [keys])
            self._conn.commit()
        except BaseException:
            self._conn.rollback()
            raise

    @locked
    def optimize(self) -> None:
        """Build the HNSW index (``index=hnsw``) over the rows written, if it is not built."""
        if self.options.index == "hnsw" and not self._indexed and self._rows:
            opts = self.options
            self._conn.execute(self._q(f'CREATE INDEX "{self._table}_embedding" ON {{t}} USING HNSW (embedding) '
                                       f"WITH (metric = 'ip', M = {int(opts.m)}, "
                                       f"ef_construction = {int(opts.ef_construction)})"))
            self._indexed = True

    # -- reads ------------------------------------------------------------------

    def compile(self, where: PolicyFilter) -> dsql.Sql:
        """The ``WHERE``, with the active keys cached per map object and tenant."""
        if self.revision_flags:
            return dsql.compile_where(where, flag=True)
        return dsql.compile_where(where, self._keys(where.active, where.principal.tenant))

    def _vector(self, vector: np.ndarray) -> list[float]:
        return unit_rows(checked_vector(vector, self._dim, "query")[None, :])[0].tolist()

    def _exact(self, clause: str, k: int) -> str:
        return self._q(f"SELECT id, array_inner_product(embedding, ?::FLOAT[{self._dim}]) AS score FROM {{t}} "
                       f"WHERE {clause} ORDER BY score DESC, rowid LIMIT {int(k)}")

    def _window(self, clause: str, k: int, n: int) -> str:
        """The index's n nearest rows (the only form its scan serves), then the filter on them."""
        return self._q(f"SELECT id, -nd AS score FROM (SELECT *, rowid AS r, array_negative_inner_product("
                       f"embedding, ?::FLOAT[{self._dim}]) AS nd FROM {{t}} ORDER BY nd LIMIT {int(n)}) "
                       f"WHERE {clause} ORDER BY nd, r LIMIT {int(k)}")

    def _queries(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> Iterable[tuple[str, list[Any]]]:
        """The queries a search may run, in order, made as they are asked for (the filter compiled once):
        widening windows, then an exact scan. (A window without the index, a reader's before the writer rebuilt
        it, is exact: its n nearest rows, filtered.) Each query binds the vector, then the filter's values."""
        clause, params = ("TRUE", []) if where is None else self.compile(where)
        bound = [self._vector(vector), *params]
        if self.options.index == "hnsw":
            n = k * self.options.window
            while n < self._rows:
                yield self._window(clause, k, n), bound
                n *= GROWTH
        yield self._exact(clause, k), bound

    def hits(self, conn: Any, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        """A search through ``conn`` (ours, or a reader's): the first query that finds k rows, else the last."""
        if k <= 0 or not self._dim:
            return []
        rows: list[Any] = []
        for text, params in self._queries(vector, k, where):
            rows = conn.execute(text, params).fetchall()
            if len(rows) >= k:
                break
        return [Hit(dsql.from_pg_text(i), float(s)) for i, s in rows]

    @locked
    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        self.optimize()
        return self.hits(self._conn, vector, k, where)

    @locked
    def explain(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> SearchPath:
        """The path of this search's first query, from DuckDB's plan (``EXPLAIN``, its text in ``detail``)."""
        self.optimize()
        text, params = next(iter(self._queries(vector, max(k, 1), where)))
        plan = "\n".join(str(row[1]) for row in self._conn.execute("EXPLAIN " + text, params).fetchall())
        return path_of(plan, where is not None)

    @locked
    def close(self) -> None:
        try:
            if self._drop_on_close and self._created:
                with contextlib.suppress(duckdb.Error):
                    self._conn.execute(self._q("DROP TABLE IF EXISTS {t}"))
        finally:
            self._conn.close()

    # -- other clients ----------------------------------------------------------

    @locked
    def open_reader(self) -> DuckDBReader:
        return DuckDBReader(self)

    @locked
    def open_writer(self) -> DuckDBWriter:
        if self.options.index == "hnsw":
            raise NoSecondClient(f"{self.name}: with index=hnsw one client writes: a write made while the vss index "
                                 "exists can lose rows or kill the process, and only the writer that built the "
                                 "index drops it before its writes (_drop_index)")
        if not self._dim:
            raise NoSecondClient(f"{self.name}: call reset(dim) before opening a second writer")
        return DuckDBWriter(self)

    def reader_spec(self) -> ReaderSpec:
        raise NoSecondClient(f"{self.name}: another process cannot open "
                             + (f"{self.options.path}, which this process holds open for writing (DuckDB locks the "
                                "file)" if self.options.path else "an in-memory database"))


class DuckDBReader(ReadOnly):
    """A second connection to the writer's database (``cursor``): it searches with the writer's queries."""

    name = "duckdb-reader"

    def __init__(self, store: DuckDBAdapter) -> None:
        self._store, self._conn = store, store._conn.cursor()
        self._lock = threading.RLock()  # its cursor is a connection of its own, shared by the reader's callers

    @locked
    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        """The writer's queries; the index is the writer's to build (a reader never writes)."""
        return self._store.hits(self._conn, vector, k, where)

    @locked
    def close(self) -> None:
        self._conn.close()


class DuckDBWriter(DuckDBAdapter):
    """A second connection (``cursor``) to the writer's database and table that writes (``open_writer``): the
    writer's statements on a connection of its own. It never resets the table, and closing it leaves it."""

    name = "duckdb-writer"

    def __init__(self, store: DuckDBAdapter) -> None:
        AdapterBase.__init__(self, store.options)
        self._lock = threading.RLock()  # its cursor is a connection of its own, shared by this client's callers
        self._conn = store._conn.cursor()
        self.capabilities = store.capabilities
        self._table, self._drop_on_close, self._created = store.table, False, False
        self._dim, self._rows, self._indexed = store._dim, 0, False
        self._keys = KeyCache(dsql.pg_text)

    def reset(self, dim: int) -> None:
        raise NoSecondClient(f"{self.name}: a second writer does not reset the table; the first one does")

    @locked
    def close(self) -> None:
        self._conn.close()
