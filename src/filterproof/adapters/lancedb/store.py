"""LanceDB behind filterproof's adapter boundary: embedded, cosine, LanceDB's own pre- or post-filter.

The database is a directory: a temporary one, removed by ``close()`` (or when the
adapter is collected, or at exit), or ``path`` (kept). One table, ``filterproof`` or
``table``: ``id``, ``vector`` (fixed-size float32 list) and the policy columns of
``where.STORED_COLUMNS``. Writes are ``merge_insert`` on ``id``: a re-upsert replaces
the row, and ``update_metadata`` rewrites the row with its stored vector.

Search is ``tbl.search(vectors).distance_type("cosine").where(sql, prefilter=...)``;
``_distance`` is the cosine distance, the score ``1 - _distance``. Queries sharing a
filter go to LanceDB as one multi-vector search, so a long filter (tens of thousands
of active keys) is planned once per group rather than once per query.

Indexes are built on the first search after an ingest (or by ``optimize()``): the
vector index (``index``) only from ``index_min_rows`` rows on (IVF training needs
data; smaller tables are searched flat, exactly), scalar indexes (``index_scalar``)
always: BTree on tenant, revision key and dates, Bitmap on status, LabelList on groups.
Rows written later are searched unindexed until ``optimize()`` folds them in.

Other clients (``open_reader``, ``reader_spec``, ``open_writer``): a new connection to the same directory.
LanceDB's ``read_consistency_interval`` decides what it sees of the writer's changes:
by default (None) nothing after it opened the table, ever (measured: a revoked and a
deleted document still returned seconds later); ``read_consistency_s=0`` checks for a
newer version on every read; a number, at most that often. So the declared
``staleness_bound_s`` is that option (None by default: held to 0, and failed).

Measured (lancedb 0.40, 2 CPUs, 100k rows): a filter holding 58k revision keys costs
about 1 s per search (0.5 s of it planning the IN list, however few rows it is
applied to) with or without a BTree on the key; 1k keys cost 35-140 ms.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.index import Bitmap, BTree, IvfFlat, IvfHnswSq, IvfPq, LabelList

from filterproof.adapters import textcodec
from filterproof.adapters.base import AdapterBase, Capabilities, Hit, Record, by_filter, check_batch, checked_vector
from filterproof.adapters.lancedb import where as lw
from filterproof.adapters.lancedb.options import LanceDBOptions
from filterproof.adapters.lancedb.owned import mark_of, marked, owned
from filterproof.adapters.locking import writing
from filterproof.adapters.ownership import claim
from filterproof.adapters.readers import OpensReaders, StoreReader
from filterproof.adapters.revisions import KeyCache, flags_to_rewrite, logical_key, revision_key
from filterproof.adapters.searchpath import SearchPath
from filterproof.policy import ActiveRevisions, PolicyFilter

DEFAULT_TABLE = "filterproof"
DELETE_BATCH = 1000
RECALL_TOLERANCE = 0.02
VECTOR_INDEXES = {"ivf_flat": IvfFlat, "ivf_pq": IvfPq, "ivf_hnsw_sq": IvfHnswSq}
FLAG_BATCH = 4096
"""Changed tenant/logical_ids per flag rewrite (each is a literal in one ``IN`` list)."""
SCALAR_INDEXES = {lw.TENANT: BTree, lw.STATUS: Bitmap, lw.KEY: BTree, lw.GROUPS: LabelList,
                  lw.VALID_FROM: BTree, lw.VALID_UNTIL: BTree}


def capabilities_of(options: LanceDBOptions) -> Capabilities:
    """What the options give, the staleness bound of another connection (``read_consistency_s``) included."""
    return replace(_capabilities(options), staleness_bound_s=options.read_consistency_s)


def _capabilities(options: LanceDBOptions) -> Capabilities:
    persistent = options.path is not None
    if not options.prefilter:  # filters the nearest rows only: short under any selective filter, by design
        return Capabilities(native_filter=True, exact=False, persistent=persistent, recall_tolerance=1.0,
                            search_path="post-filter")
    if options.index == "flat":
        return Capabilities(native_filter=True, exact=True, persistent=persistent, search_path="exact scan")
    # An index serves a table from index_min_rows rows on: the path depends on the table, and is not declared.
    return Capabilities(native_filter=True, exact=False, persistent=persistent, recall_tolerance=RECALL_TOLERANCE)


def path_of(plan: str) -> SearchPath:
    """The path of a LanceDB plan (``explain_plan``): a ``FilterExec`` of the policy above the vector node is a
    post-filter of its top K; ``ANNSubIndex`` is the vector index, ``KNNVectorDistance`` a flat scan."""
    lines = plan.splitlines()
    vector = next((n for n, line in enumerate(lines) if "ANNSubIndex" in line or "KNNVectorDistance" in line), None)
    if vector is None:
        return SearchPath("unknown", plan)
    if any("FilterExec" in line and "_distance" not in line for line in lines[:vector]):
        return SearchPath("post-filter", plan)
    return SearchPath("index" if "ANNSubIndex" in plan else "exact scan", plan)


def schema(dim: int, metadata: dict[bytes, bytes] | None = None) -> pa.Schema:
    return pa.schema([
        pa.field("id", pa.string(), nullable=False), pa.field("vector", pa.list_(pa.float32(), dim)),
        pa.field(lw.TENANT, pa.string()), pa.field(lw.STATUS, pa.string()), pa.field(lw.KEY, pa.string()),
        pa.field(lw.GROUPS, pa.list_(pa.string())), pa.field(lw.VALID_FROM, pa.int32()),
        pa.field(lw.VALID_UNTIL, pa.int32()), pa.field(lw.PROBLEM, pa.string()), pa.field(lw.METADATA, pa.string()),
        pa.field(lw.CURRENT, pa.bool_()), pa.field(lw.LID, pa.string()),
    ], metadata=metadata)


def ids_in(ids: Sequence[str]) -> str:
    """The filter selecting the rows of ``ids`` (as stored: escaped)."""
    return f"id IN ({', '.join(lw.literal(i) for i in ids)})"


def connect(root: Path, options: LanceDBOptions) -> Any:
    interval = options.read_consistency_s
    return lancedb.connect(str(root), read_consistency_interval=None if interval is None else timedelta(
        seconds=interval))


class LanceDBAdapter(OpensReaders, AdapterBase):
    name = "lancedb"
    Options = LanceDBOptions
    options: LanceDBOptions

    def __init__(self, options: LanceDBOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self.capabilities = capabilities_of(self.options)
        if self.options.path:
            self._root = Path(self.options.path)
            self._cleanup: weakref.finalize[Any, Any] | None = None
        else:  # removed by close(), or when the adapter is collected, or at exit: never left behind
            self._root = Path(tempfile.mkdtemp(prefix="filterproof-lancedb-"))
            self._cleanup = weakref.finalize(self, shutil.rmtree, str(self._root), True)
        self._db = connect(self._root, self.options)
        self._name = self.options.table or DEFAULT_TABLE
        self._table: Any = self._db.open_table(self._name) if self._exists() else None
        self._created = False
        self._claim()
        if self._table is not None and mark_of(self._table) is None:  # replace=true: the user's, dropped by reset
            self._table = None
        self._dim = 0 if self._table is None else self._table.schema.field("vector").type.list_size
        self._vector_indexed = self._scalar_indexed = False
        self._building = threading.RLock()
        """Held while the indexes are built: the first searches after a write, from several threads of one client,
        would each build them, and LanceDB refuses the second commit (``Retryable commit conflict``)."""
        self._keys = KeyCache()

    def _exists(self) -> bool:
        return self._name in self._db.list_tables().tables

    owned_objects = staticmethod(owned)
    """For ``filterproof clean``: every table of the directory that carries the marker."""

    def _claim(self) -> None:
        """Refuse a table of this name that filterproof did not create (``adapters.ownership``), before any write."""
        claim(self.name, f"table {self._name!r} in {self._root}", exists=self._table is not None and not self._created,
              mark=None if self._table is None else mark_of(self._table), replace=self.options.replace,
              instead="another table=NAME or another path")

    @property
    def table(self) -> Any:
        """The open LanceDB table (for inspection: ``list_indices()``, ``explain_plan``)."""
        if self._table is None:
            raise RuntimeError("lancedb: call reset(dim) first")
        return self._table

    # -- writes -----------------------------------------------------------------

    def reset(self, dim: int) -> None:
        if dim < 1:
            raise ValueError(f"dimension must be positive, got {dim}")
        self._table = self._db.open_table(self._name) if self._exists() else None
        self._claim()
        if self._table is not None:
            self._db.drop_table(self._name)
        temporary = self._cleanup is not None
        self._table = self._db.create_table(self._name, schema=schema(dim, marked(temporary)))
        self._created = True
        self._dim, self._vector_indexed, self._scalar_indexed = dim, False, False

    def _vector(self, vector: np.ndarray, what: str) -> np.ndarray:
        return checked_vector(vector, self._dim, what)

    def _batch(self, ids: Sequence[str], vectors: np.ndarray, metadata: Sequence[Mapping[str, Any]]) -> pa.Table:
        columns: dict[str, list[Any]] = {c: [] for c in lw.STORED_COLUMNS}
        for meta in metadata:
            for column, value in lw.stored_columns(meta, self.flag_map).items():
                columns[column].append(value)
        flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).ravel())
        return pa.table({"id": [lw.text(i) for i in ids], "vector": pa.FixedSizeListArray.from_arrays(flat, self._dim),
                         **columns}, schema=schema(self._dim))

    def _merge(self, data: pa.Table, insert: bool = True) -> None:
        """Replace the rows of ``data``'s ids, and (``insert``) add the others, in one commit."""
        merge = self.table.merge_insert("id").when_matched_update_all()
        (merge.when_not_matched_insert_all() if insert else merge).execute(data)

    @writing
    def upsert(self, records: Sequence[Record]) -> None:
        latest = list({r.id: r for r in records}.values())  # merge_insert refuses an id twice in one call
        if latest:
            vectors = np.stack([self._vector(r.vector, r.id) for r in latest])
            self._merge(self._batch([r.id for r in latest], vectors, [r.metadata for r in latest]))

    @writing
    def delete(self, ids: Sequence[str]) -> None:
        unique = list(dict.fromkeys(ids))
        for start in range(0, len(unique), DELETE_BATCH):
            chunk = unique[start:start + DELETE_BATCH]
            self.table.delete(ids_in(chunk))

    @writing
    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        """Rewrite the row with its stored vector and the new metadata; an unknown id is ignored."""
        self.update_metadata_batch({id: metadata})

    @writing
    def update_metadata_batch(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """Every row rewritten with its stored vector, in one ``merge_insert``: one commit (LanceDB commits per
        call, and every commit leaves a fragment each later search visits until ``optimize()``: 222 single-row
        updates of 5,000 rows made a filtered search 10 times slower, ``bench/lancedb_fragments.py``). Unknown
        ids are ignored."""
        vectors = self._stored_vectors(list(updates))
        known = [id for id in updates if lw.text(id) in vectors]
        if known:
            stacked = np.stack([vectors[lw.text(id)] for id in known])
            # Matched rows only: a row another client deleted since it was read stays deleted (an insert would
            # bring it back; the write lock holds this client's writes only).
            self._merge(self._batch(known, stacked, [updates[id] for id in known]), insert=False)

    def _stored_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vector of each of ``ids`` that the table holds, by stored id."""
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(ids), DELETE_BATCH):
            chunk = ids[start:start + DELETE_BATCH]
            rows = (self.table.search().where(ids_in(chunk))
                    .select(["id", "vector"]).limit(len(chunk)).to_arrow())
            vectors = rows.column("vector").combine_chunks().flatten().to_numpy().reshape(-1, self._dim)
            found.update(zip(rows.column("id").to_pylist(), vectors.astype(np.float32), strict=True))
        return found

    @writing
    def set_active_revisions(self, active: ActiveRevisions) -> None:
        """Under ``revision=flag``: rewrite the flags of every tenant/logical_id whose revision changed.

        Every revision of a changed document loses its flag first, then the new active one
        gets it (an interruption between the two excludes, never admits). LanceDB's
        ``update`` is committed when it returns.
        """
        if self.revision_flags and self._table is not None:
            changed = flags_to_rewrite(self.active, active)
            for start in range(0, len(changed), FLAG_BATCH):
                part = changed[start:start + FLAG_BATCH]
                lids = ", ".join(lw.literal(logical_key(*p)) for p in part)
                self.table.update(where=f"{lw.LID} IN ({lids})", values={lw.CURRENT: False})
                keys = [lw.literal(revision_key(*p, active[p])) for p in part if p in active]
                if keys:
                    self.table.update(where=f"{lw.KEY} IN ({', '.join(keys)})", values={lw.CURRENT: True})
        self.active = active

    def optimize(self) -> None:
        """Compact the table, build the indexes asked for, and fold later rows into them."""
        self._build_indexes()
        self.table.optimize()

    def _build_indexes(self) -> None:
        with self._building:
            attempts = len(SCALAR_INDEXES) + 2  # each refusal is another index built: at most one per index
            for attempt in range(1, attempts + 1):
                try:
                    self._build_missing()
                    return
                except RuntimeError as error:
                    if "commit conflict" not in str(error) or attempt == attempts:
                        raise
                    # Another client of the table built an index at the same moment, and LanceDB refused the later
                    # commit: what it built is in the latest version, and the rest is built again.
                    self.table.checkout_latest()

    def _build_missing(self) -> None:
        """The indexes asked for that the table does not have yet (another client of it may have built some)."""
        table, opts = self.table, self.options
        wanted_scalar = opts.index_scalar and not self._scalar_indexed
        wanted_vector = opts.index != "flat" and not self._vector_indexed
        if not (wanted_scalar or wanted_vector):
            return
        built = {column for index in table.list_indices() for column in index.columns}
        if wanted_scalar:
            for column, config in SCALAR_INDEXES.items():
                if column not in built:
                    table.create_index(column, config=config())
            self._scalar_indexed = True
        if wanted_vector and ("vector" in built or table.count_rows() >= opts.index_min_rows):
            if "vector" not in built:
                config = VECTOR_INDEXES[opts.index](distance_type="cosine", num_partitions=opts.num_partitions)
                table.create_index("vector", config=config)
            self._vector_indexed = True

    # -- reads ------------------------------------------------------------------

    def compile(self, where: PolicyFilter) -> str:
        """The filter string, with the active keys cached per map object and tenant."""
        if self.revision_flags:
            return lw.compile_where(where, flag=True)
        return lw.compile_where(where, self._keys(where.active, where.principal.tenant))

    def query(self, vectors: np.ndarray, k: int, where: PolicyFilter | None) -> Any:
        """The LanceDB query for these vectors (one, or several sharing the filter)."""
        opts = self.options
        rows = [self._vector(v, "query") for v in vectors]
        # The vector column named: LanceDB otherwise reads the schema to find it, on every query.
        query = self.table.search(rows[0] if len(rows) == 1 else rows, vector_column_name="vector").distance_type(
            "cosine")
        if where is not None:
            query = query.where(self.compile(where), prefilter=opts.prefilter)
        if opts.nprobes is not None:
            query = query.nprobes(opts.nprobes)
        if opts.refine_factor is not None:
            query = query.refine_factor(opts.refine_factor)
        if opts.ef is not None:
            query = query.ef(opts.ef)
        return query.select(["id", "_distance"]).limit(k)

    def _before_search(self) -> None:
        """The indexes the options ask for, built before the first search that uses them (none for a flat table
        without scalar indexes)."""
        if self.options.index_scalar or self.options.index != "flat":
            self._build_indexes()

    def explain(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> SearchPath:
        """The path of this search, from LanceDB's physical plan (its text in ``detail``)."""
        self._before_search()
        return path_of(self.query(np.asarray(vector, dtype=np.float32)[None, :], k, where).explain_plan(True))

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        return self.search_batch(np.asarray(vector, dtype=np.float32)[None, :], k, [where])[0]

    def search_batch(self, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]) -> list[list[Hit]]:
        check_batch(vectors, wheres)
        results: list[list[Hit]] = [[] for _ in wheres]
        if k <= 0 or not len(wheres):
            return results
        self._before_search()
        for where, rows in by_filter(wheres):
            answer = self.query(np.asarray(vectors)[rows], k, where).to_arrow()
            which = answer.column("query_index").to_pylist() if "query_index" in answer.column_names else [0] * len(
                answer)
            for position, doc, distance in zip(which, answer.column("id").to_pylist(),
                                               answer.column("_distance").to_pylist(), strict=True):
                score = 0.0 if distance is None or np.isnan(distance) else 1.0 - float(distance)
                results[rows[position]].append(Hit(textcodec.unescape(doc), score))
        return [sorted(hits, key=lambda h: -h.score)[:k] for hits in results]

    def close(self) -> None:
        self._table = None
        if self._cleanup is not None:
            self._cleanup()

    # -- other clients ----------------------------------------------------------

    reader = f"{__name__}:LanceDBReader"

    def _reader_location(self) -> dict[str, Any] | None:
        return None if self._table is None else {"path": str(self._root), "table": self._name}


class LanceDBReader(StoreReader, LanceDBAdapter):
    """Another connection to the writer's directory and table: it searches and never writes or indexes."""

    name = "lancedb-reader"
    backend = "lancedb"
    opening_errors = (Exception,)  # lancedb raises what its Rust core raises (OSError, ValueError, RuntimeError)

    def _of(self, options: Mapping[str, Any]) -> str:
        return f" of {options.get('path')}"

    def _missing(self) -> str | None:
        return None if self._table is not None else f"table {self._name!r} in {self._root}"

    def _build_indexes(self) -> None:
        """The writer builds the indexes; the reader finds them when it sees the writer's version."""
