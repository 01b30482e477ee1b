"""pgvector behind filterproof's adapter boundary: one table of typed policy columns, cosine search in SQL.

The server. ``dsn`` or ``$PGVECTOR_DSN`` when given (the server is the caller's; the
extension is created if missing and must be 0.8 or newer, for iterative scans);
otherwise the process's throwaway server (``servers.postgres.shared_server``), or a
``pgvector/pgvector`` container with ``server=docker``. Each adapter works in a table
of its own (``fp_<random>``, dropped on close) unless ``table`` names one. Either carries
filterproof's marker as its ``COMMENT`` (``owned``); a named table without it is the
user's, refused before anything is written unless ``replace=true``.

The table. ``id text PRIMARY KEY``, ``embedding vector(dim)`` (the shared vectors,
scaled to unit length: cosine is unchanged and pgvector's float sums lose less), the
typed policy columns of ``sql.STORED_COLUMNS`` and a btree index on ``tenant``, as a
company's table would have one. Writes go through COPY into a staging table and one
``INSERT ... ON CONFLICT (id) DO UPDATE``: a re-upsert replaces the row.

The vector index (``index=hnsw|ivfflat``) is built on the first search after the
first ingest (or by ``optimize()``), after the rows are in: an HNSW graph built row by
row is slower to build, and IVFFlat centroids need the data. Later writes are added
to it by PostgreSQL. The planner decides per query whether to use it (``plan=auto``);
``plan=index`` disables sequential scans, bitmap scans and explicit sorts for the
session, which leaves the ordered index scan as the only plan without a disabled node.
Statistics come from an ANALYZE after the build and after large writes.

Search is ``ORDER BY embedding <=> q LIMIT k`` under the compiled ``WHERE``; the score
is ``1 - distance`` (a zero vector's NaN distance becomes score 0: no shared term).

Other clients (``open_reader``, ``reader_spec``, ``open_writer``): a new connection to the same server and
table, in autocommit like the writer's, so every statement reads what was committed
before it began; every write of ours commits before it returns (``staleness_bound_s=0``).
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import psycopg
from psycopg import sql

from filterproof.adapters.base import AdapterBase, Capabilities, Hit, Record, checked_vector
from filterproof.adapters.locking import writing
from filterproof.adapters.ownership import Marker, claim
from filterproof.adapters.pgvector import sql as pgsql
from filterproof.adapters.pgvector.limits import refusal
from filterproof.adapters.pgvector.options import ROWS_PER_LIST, PgvectorOptions
from filterproof.adapters.pgvector.owned import CONNECT_TIMEOUT, DSN_ENV, mark, owned, table_mark
from filterproof.adapters.readers import OpensReaders, StoreReader
from filterproof.adapters.refusals import Refusals
from filterproof.adapters.revisions import KeyCache, flags_to_rewrite, logical_key, revision_key
from filterproof.adapters.searchpath import SearchPath
from filterproof.errors import BackendUnavailable, UsageError
from filterproof.policy import ActiveRevisions, PolicyFilter

MIN_PGVECTOR = (0, 8, 0)
"""Iterative index scans (``hnsw.iterative_scan``) arrived in pgvector 0.8.0."""
ANALYZE_AFTER = 0.2
"""Re-ANALYZE before a search once this share of the analyzed row count was written since."""
TOLERANCE = {("hnsw", "strict_order"): 0.01, ("hnsw", "relaxed_order"): 0.01, ("ivfflat", "relaxed_order"): 0.05}
"""Recall tolerance of the approximate settings that keep scanning until k rows pass the filter.
Without iterative scans pgvector filters a fixed candidate list (ef_search rows, or the probed
lists): under a selective filter it comes back short by design, so it promises nothing (1.0)."""


def capabilities_of(options: PgvectorOptions, persistent: bool) -> Capabilities:
    if options.index == "exact" or options.plan == "seqscan":
        return Capabilities(native_filter=True, exact=True, persistent=persistent, lifecycle=True,
                            staleness_bound_s=0.0, search_path="exact scan")
    tolerance = TOLERANCE.get((options.index, options.iterative_scan), 1.0)
    declared = None if options.plan == "auto" else "post-filter" if options.iterative_scan == "off" else "index"
    return Capabilities(native_filter=True, exact=False, persistent=persistent, lifecycle=True,
                        recall_tolerance=tolerance, staleness_bound_s=0.0, search_path=declared)


def path_of(plan: str, index: str, filtered: bool, iterative_scan: str) -> SearchPath:
    """The path of an ``EXPLAIN``: the vector index (``{table}_embedding``) scanned, with the filter applied to
    its fixed candidate list (no iterative scan) or inside it; else an exact scan of what the filter admits (a
    sequential scan, or the tenant's btree, then a sort)."""
    if f"{index}_embedding" not in plan:
        return SearchPath("exact scan", plan)
    if filtered and iterative_scan == "off":
        return SearchPath("post-filter", plan)
    return SearchPath("index", plan)


def vector_text(vector: np.ndarray) -> str:
    """pgvector's text form; Python's float repr of a float32 parses back to the same float32."""
    return "[" + ",".join(map(repr, vector.tolist())) + "]"


def session_settings(options: PgvectorOptions) -> dict[str, str]:
    """GUCs for this adapter's connection (session level: another client of the server is not affected)."""
    settings = {
        "hnsw.ef_search": str(options.ef_search), "hnsw.max_scan_tuples": str(options.max_scan_tuples),
        "ivfflat.probes": str(options.probes),
        "hnsw.iterative_scan": options.iterative_scan if options.index == "hnsw" else "off",
        "ivfflat.iterative_scan": options.iterative_scan if options.index == "ivfflat" else "off",
    }
    if options.plan == "index":
        settings |= {"enable_seqscan": "off", "enable_bitmapscan": "off", "enable_sort": "off"}
    if options.plan == "seqscan":
        settings |= {"enable_indexscan": "off", "enable_bitmapscan": "off", "enable_indexonlyscan": "off"}
    return settings


class PgvectorAdapter(OpensReaders, AdapterBase):
    name = "pgvector"
    Options = PgvectorOptions
    options: PgvectorOptions

    def __init__(self, options: PgvectorOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        opts = self.options
        self._stack = contextlib.ExitStack()
        try:
            self.dsn = opts.dsn or os.environ.get(DSN_ENV) or self._provide(opts.server)
            try:
                connection = psycopg.connect(self.dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT)
            except psycopg.OperationalError as error:  # the DSN may hold a password: not repeated here
                raise BackendUnavailable(f"pgvector: cannot connect to the server of the DSN: {error}") from None
            except psycopg.Error as error:  # not a connection string at all
                raise UsageError(f"pgvector: the DSN (dsn= or ${DSN_ENV}) cannot be read: {error}") from None
            self._conn = self._stack.enter_context(connection)
            self.pgvector_version = self._prepare_session()
        except BaseException:
            self._stack.close()
            raise
        self.capabilities = capabilities_of(opts, persistent=bool(opts.table))
        self._table = opts.table or f"fp_{uuid.uuid4().hex[:12]}"
        self._drop_on_close = not opts.table
        self._created = False
        self._dim, self._indexed = self._existing(ours=self._claim())
        self._analyzed_rows, self._written = 0, 0
        self._preparing = threading.RLock()
        """Held while the index is built and the statistics refreshed: the first searches after a write, from
        several threads of one client, would each build it (``DuplicateTable``)."""
        self._keys = KeyCache(pgsql.pg_text)
        self._refused = Refusals()

    def _provide(self, kind: str) -> str:
        if kind == "docker":
            from filterproof.servers.pgvector_container import PgvectorService

            return self._stack.enter_context(PgvectorService().provide()).url
        from filterproof.servers.postgres import shared_server

        return shared_server().dsn

    def _prepare_session(self) -> str:
        with contextlib.suppress(psycopg.errors.UniqueViolation):  # two clients creating it at once
            self._conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        row = self._conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
        version = str(row[0]) if row else "0"
        if tuple(int(p) for p in version.split(".")[:3] if p.isdigit()) < MIN_PGVECTOR:
            raise BackendUnavailable(f"pgvector {version} on the server: filterproof needs 0.8.0 or newer "
                                     "(iterative index scans); ALTER EXTENSION vector UPDATE")
        self._conn.execute("SELECT '[1]'::vector")  # loads the library, so that its settings are known
        for key, value in session_settings(self.options).items():
            self._conn.execute("SELECT set_config(%s, %s, false)", (key, value))
        return version

    def _claim(self) -> bool:
        """Refuse a table of this name that filterproof did not create (``adapters.ownership``), before any write;
        whether a table of ours exists."""
        exists, comment = table_mark(self._conn, self._table)
        claim(self.name, f"table {self._table!r} on the server", exists=exists and not self._created, mark=comment,
              replace=self.options.replace, instead="another table=NAME (or none: a fresh table, dropped after)")
        return exists and Marker.parse(comment) is not None

    owned_objects = staticmethod(owned)
    """For ``filterproof clean``: every table, schema and database on the server that carries the marker."""

    def _existing(self, ours: bool) -> tuple[int, bool]:
        """The dimension of a table of ours of this name that exists already (0: none, or the user's, which
        replace=true lets reset drop), and whether it has a vector index."""
        if not ours:
            return 0, False
        row = self._conn.execute("SELECT a.atttypmod FROM pg_attribute a WHERE a.attrelid = to_regclass(%s) "
                                 "AND a.attname = 'embedding'", (self._table,)).fetchone()
        if row is None:
            return 0, False
        found = self._conn.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", (f"{self._table}_embedding",))
        return int(row[0]), found.fetchone() is not None

    # -- names ------------------------------------------------------------------

    def _sql(self, template: str, **names: str) -> sql.Composed:
        """``template`` with ``{t}`` (our table) and other identifiers quoted by psycopg."""
        idents = {key: sql.Identifier(value) for key, value in {"t": self._table, **names}.items()}
        return sql.SQL(template).format(**idents)

    @property
    def table(self) -> str:
        return self._table

    # -- writes -----------------------------------------------------------------

    def reset(self, dim: int) -> None:
        if dim < 1:
            raise ValueError(f"dimension must be positive, got {dim}")
        columns = ", ".join(f"{name} {kind}" for name, kind in zip(pgsql.STORED_COLUMNS, pgsql.COLUMN_TYPES,
                                                                    strict=True))
        self._claim()
        with self._conn.transaction():
            self._conn.execute(self._sql("DROP TABLE IF EXISTS {t}"))
            self._conn.execute(self._sql(
                f"CREATE TABLE {{t}} (id text PRIMARY KEY, embedding vector({int(dim)}) NOT NULL, {columns})"))
            mark(self._conn, "TABLE", self._table, Marker.new(temporary=self._drop_on_close))
            self._conn.execute(self._sql("CREATE INDEX {i} ON {t} (tenant)", i=f"{self._table}_tenant"))
            if self.revision_flags:  # the flag rewrite finds the revisions of a changed tenant/logical_id by this
                self._conn.execute(self._sql("CREATE INDEX {i} ON {t} (logical_key)", i=f"{self._table}_lkey"))
            self._conn.execute(self._sql("DROP TABLE IF EXISTS pg_temp.{s}", s=self._staging))  # the old dimension
        self._created = True
        self._dim, self._indexed, self._analyzed_rows, self._written = dim, False, 0, 0
        self._refused.clear()

    @property
    def _staging(self) -> str:
        return f"{self._table}_staging"

    def _row(self, record: Record) -> tuple[Any, ...]:
        vector = checked_vector(record.vector, self._dim, record.id)
        norm = float(np.linalg.norm(vector))
        unit = vector / norm if norm > 0 else vector
        return (pgsql.pg_text(record.id), vector_text(unit), *pgsql.stored_row(record.metadata, self.flag_map))

    @writing
    def upsert(self, records: Sequence[Record]) -> None:
        """Write the rows PostgreSQL can index; refuse the rest (``limits``), deleting an earlier version."""
        rows, refused = [], []
        for record in {r.id: r for r in records}.values():  # the last of an id wins
            row = self._row(record)
            why = refusal(self._index_values(row))
            if why:
                self._refused.refuse(record.id, np.asarray(record.vector, dtype=np.float32), why)
                refused.append(record.id)
            else:
                rows.append(row)
                self._refused.forget([record.id])
        if refused:
            self.delete(refused, forget=False)
        if not rows:
            return
        columns = ", ".join(("id", "embedding", *pgsql.STORED_COLUMNS))
        updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in ("embedding", *pgsql.STORED_COLUMNS))
        with self._conn.transaction():
            # pg_temp. always: never a table of the same name in the user's schemas.
            self._conn.execute(self._sql("CREATE TEMP TABLE IF NOT EXISTS pg_temp.{s} (LIKE {t})", s=self._staging))
            self._conn.execute(self._sql("TRUNCATE pg_temp.{s}", s=self._staging))
            with self._conn.cursor().copy(self._sql(f"COPY pg_temp.{{s}} ({columns}) FROM STDIN",
                                                    s=self._staging)) as copy:
                for row in rows:
                    copy.write_row(row)
            self._conn.execute(self._sql(f"INSERT INTO {{t}} ({columns}) SELECT {columns} FROM pg_temp.{{s}} "
                                         f"ON CONFLICT (id) DO UPDATE SET {updates}", s=self._staging))
        self._written += len(rows)

    @staticmethod
    def _index_values(row: tuple[Any, ...]) -> dict[str, Any]:
        """The values of a row (``_row``) that go into a btree index: the id, the tenant, the logical key."""
        stored = dict(zip(pgsql.STORED_COLUMNS, row[2:], strict=True))
        return {"id": row[0], "tenant": stored[pgsql.TENANT], "logical_key": stored[pgsql.LID]}

    def not_indexable(self) -> dict[str, str]:
        return dict(self._refused.reasons)

    @writing
    def delete(self, ids: Sequence[str], forget: bool = True) -> None:
        self._conn.execute(self._sql("DELETE FROM {t} WHERE id = ANY(%s::text[])"),
                           ([pgsql.pg_text(i) for i in ids],))
        self._written += len(ids)
        if forget:
            self._refused.forget(ids)

    @writing
    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        """Replace every policy column and the raw metadata; the vector stays; unknown ids are ignored.

        Metadata PostgreSQL cannot index makes the document refused (its vector kept); a refused
        document is written again, with its vector, by an update that fits.
        """
        held = self._refused.vector(id)
        if held is not None:
            self.upsert([Record(id, held, metadata)])
            return
        stored = pgsql.stored_row(metadata, self.flag_map)
        why = refusal(self._index_values((pgsql.pg_text(id), None, *stored)))
        if why:
            found = self._conn.execute(self._sql("SELECT embedding::text FROM {t} WHERE id = %s"),
                                       (pgsql.pg_text(id),)).fetchone()
            if found is not None:
                self._refused.refuse(id, np.array(found[0].strip("[]").split(","), dtype=np.float32), why)
                self.delete([id], forget=False)
            return
        assignments = ", ".join(f"{c} = %s" for c in pgsql.STORED_COLUMNS)
        self._conn.execute(self._sql(f"UPDATE {{t}} SET {assignments} WHERE id = %s"),
                           (*stored, pgsql.pg_text(id)))
        self._written += 1

    @writing
    def set_active_revisions(self, active: ActiveRevisions) -> None:
        """Under ``revision=flag``: rewrite the flags of every tenant/logical_id whose revision changed.

        One transaction (committed before this returns): the changed documents' revisions
        all lose the flag, then each new active revision gets it.
        """
        if self.revision_flags and self._dim:
            changed = flags_to_rewrite(self.active, active)
            lids = [pgsql.pg_text(logical_key(*pair)) for pair in changed]
            keys = [pgsql.pg_text(revision_key(*pair, active[pair])) for pair in changed if pair in active]
            with self._conn.transaction():
                self._conn.execute(self._sql("UPDATE {t} SET is_current = false WHERE logical_key = ANY(%s::text[])"),
                                   (lids,))
                self._conn.execute(self._sql("UPDATE {t} SET is_current = true WHERE revision_key = ANY(%s::text[])"),
                                   (keys,))
            self._written += len(changed)
        self.active = active

    def optimize(self) -> None:
        """Build the vector index (if any and not yet built) and refresh the planner's statistics."""
        with self._preparing:
            if self.options.index != "exact" and not self._indexed:
                self._build_index()
            self._conn.execute(self._sql("ANALYZE {t}"))
            (self._analyzed_rows,) = self._conn.execute(self._sql("SELECT count(*) FROM {t}")).fetchone() or (0,)
            self._written = 0

    def _build_index(self) -> None:
        opts, name = self.options, f"{self._table}_embedding"
        if opts.index == "hnsw":
            params = f"m = {int(opts.m)}, ef_construction = {int(opts.ef_construction)}"
        else:
            (rows,) = self._conn.execute(self._sql("SELECT count(*) FROM {t}")).fetchone() or (0,)
            params = f"lists = {int(opts.lists or max(1, rows // ROWS_PER_LIST))}"
        # Another client of the table may build it at the same moment (its searches prepare the table as ours do):
        # one at a time (a lock of the server's, held to the commit), and the later one finds it built.
        with self._conn.transaction():
            self._conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (name,))
            self._conn.execute(self._sql(f"CREATE INDEX IF NOT EXISTS {{i}} ON {{t}} USING {opts.index} "
                                         f"(embedding vector_cosine_ops) WITH ({params})", i=name))
        self._indexed = True

    def _before_search(self) -> None:
        if self._unprepared():
            with self._preparing:
                if self._unprepared():  # another thread's search may have prepared it meanwhile
                    self.optimize()

    def _unprepared(self) -> bool:
        stale = self._written > max(1.0, ANALYZE_AFTER * self._analyzed_rows)
        return (self.options.index != "exact" and not self._indexed) or bool(stale and self._analyzed_rows)

    # -- reads ------------------------------------------------------------------

    def compile(self, where: PolicyFilter) -> pgsql.Clause:
        """The ``WHERE``, with the active keys cached per map object and tenant."""
        if self.revision_flags:
            return pgsql.compile_where(where, flag=True)
        return pgsql.compile_where(where, self._keys(where.active, where.principal.tenant))

    def explain(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> SearchPath:
        """The path of this search, from PostgreSQL's plan (``EXPLAIN``, its text in ``detail``)."""
        self._before_search()
        query, params = self._query(vector, k, where)
        rows = self._conn.execute(sql.SQL("EXPLAIN ") + query, params).fetchall()
        return path_of("\n".join(str(r[0]) for r in rows), self._table, where is not None,
                       self.options.iterative_scan)

    def _query(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> tuple[sql.Composed, tuple[Any, ...]]:
        row = checked_vector(vector, self._dim, "query")
        clause = pgsql.Clause("TRUE") if where is None else self.compile(where)
        text = vector_text(row)
        query = self._sql(f"SELECT id, embedding <=> %s::vector FROM {{t}} WHERE {clause.sql} "
                          "ORDER BY embedding <=> %s::vector LIMIT %s")
        return query, (text, *clause.params, text, k)

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        if k <= 0:
            return []
        self._before_search()
        query, params = self._query(vector, k, where)
        rows = self._conn.execute(query, params).fetchall()
        hits = [Hit(pgsql.from_pg_text(i), 0.0 if math.isnan(d) else 1.0 - float(d)) for i, d in rows]
        return sorted(hits, key=lambda h: -h.score)  # relaxed_order may return rows slightly out of order

    def close(self) -> None:
        try:
            if self._drop_on_close and self._created and not self._conn.closed:
                with contextlib.suppress(psycopg.Error):  # a vanished server must not mask the caller's error
                    self._conn.execute(self._sql("DROP TABLE IF EXISTS {t}"))
        finally:
            self._stack.close()

    # -- other clients ----------------------------------------------------------

    reader = f"{__name__}:PgvectorReader"

    def _reader_location(self) -> dict[str, Any] | None:
        return {"dsn": self.dsn, "table": self._table} if self._dim else None


class PgvectorReader(StoreReader, PgvectorAdapter):
    """Another connection to the writer's server and table: it searches, and never writes, analyzes or indexes."""

    name = "pgvector-reader"
    backend = "pgvector"
    opening_errors = (BackendUnavailable,)

    def _missing(self) -> str | None:
        return None if self._dim else f"table {self._table!r} on the server"

    def _before_search(self) -> None:
        """The writer analyzes and builds the index; the reader uses what it finds."""
