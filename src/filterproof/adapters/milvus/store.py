"""Milvus behind filterproof's adapter boundary: Milvus Lite in process, or a server by URI; COSINE; one expression.

Where the store is: ``uri`` or ``$MILVUS_URI`` (``token`` / ``$MILVUS_TOKEN``) for a server
(``http://host:19530``) or a Milvus Lite file (``*.db``, kept); otherwise Milvus Lite in a
temporary directory, removed by ``close()``. Milvus Lite (milvus-lite 3.x) is a Python
reimplementation serving gRPC from a thread of this process, which ``close()`` releases
(``lite``). Each adapter works in a collection of its own (``fp_<random>``, dropped on
close) unless ``collection`` names one, shaped as ``collection`` says.

Writes are ``upsert`` (a re-upsert replaces the row); ``update_metadata``
and the flag rewrites of ``revision=flag`` read the row back (vector included) and
upsert it whole. Ids reach Milvus only through ``expr.id_filter``: pymilvus's
``ids=`` quotes text ids without escaping them (``bench/repro/milvus_ids.py``).

Search is ``client.search(data, limit=k, filter=expr, search_params=...)`` with the
options' consistency level; Milvus's COSINE "distance" is the similarity itself.
Queries sharing a filter go to Milvus as one multi-vector search.

Other clients (``open_reader``, ``reader_spec``, ``open_writer``): another ``MilvusClient`` of the same
server; for Milvus Lite, a client of the writer's gRPC server over ``http://127.0.0.1``
(the only way another process reaches a Lite file while its writer has it open). The
declared staleness bound is the consistency level's: Strong 0, Bounded 5 s (the
server's ``gracefulTime``), Session and Eventually none.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pymilvus import MilvusClient, MilvusException

from filterproof.adapters import textcodec
from filterproof.adapters.base import AdapterBase, Capabilities, Hit, Record, by_filter, check_batch, checked_vector
from filterproof.adapters.locking import writing
from filterproof.adapters.milvus import expr as mx
from filterproof.adapters.milvus.collection import index_params, schema, search_params
from filterproof.adapters.milvus.limits import refusal
from filterproof.adapters.milvus.lite import LiteDirectory, is_lite, lite_url, release_lite
from filterproof.adapters.milvus.options import BOUNDED_STALENESS_S, TOKEN_ENV, URI_ENV, MilvusOptions
from filterproof.adapters.milvus.owned import collection_mark, marked, owned
from filterproof.adapters.ownership import Marker, claim
from filterproof.adapters.readers import OpensReaders, StoreReader
from filterproof.adapters.refusals import Refusals
from filterproof.adapters.revisions import KeyCache, flags_to_rewrite, logical_key
from filterproof.adapters.searchpath import SearchPath
from filterproof.errors import BackendUnavailable
from filterproof.policy import ActiveRevisions, PolicyFilter

BATCH = 500
"""Rows per upsert call (a row may carry 64 KB of metadata; a gRPC message is bounded)."""
ID_BATCH = 1_000
SERVER_TOPK = 16_384
"""A Milvus server's largest ``limit`` (``quotaAndLimits.limits.topK``); Milvus Lite has none."""
RECALL_TOLERANCE = 0.02
STALENESS = {"Strong": 0.0, "Bounded": BOUNDED_STALENESS_S, "Session": None, "Eventually": None}


def capabilities_of(options: MilvusOptions, persistent: bool) -> Capabilities:
    exact = options.index == "flat"
    return Capabilities(native_filter=True, exact=exact, persistent=persistent, lifecycle=True,
                        recall_tolerance=0.0 if exact else RECALL_TOLERANCE,
                        staleness_bound_s=STALENESS[options.consistency_level],
                        search_path="exact scan" if exact else None)


def absent_row(error: MilvusException) -> bool:
    """Whether a partial upsert was refused for a row that is not there (its vector, required of a new row, is
    missing). Milvus Lite 3.2 (measured): ``vector field 'vector' missing or None``. A server (2.6 and 3.0) checks
    a new row's fields in schema order, the id given and the vector next: ``fieldSchema(vector) has no
    corresponding fieldData pass in`` (code 1100), the message Milvus's own partial-update tests expect (no
    server runs here)."""
    text = str(error)
    return f"'{mx.VECTOR}' missing" in text or f"fieldSchema({mx.VECTOR}) has no corresponding fieldData" in text


class MilvusAdapter(OpensReaders, AdapterBase):
    name = "milvus"
    Options = MilvusOptions
    options: MilvusOptions

    def __init__(self, options: MilvusOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        opts = self.options
        self._lite_path: str | None = None
        self._temporary: LiteDirectory | None = None
        self._stack = contextlib.ExitStack()
        self.uri = opts.uri or os.environ.get(URI_ENV) or ""
        if not self.uri and opts.server == "docker":
            from filterproof.servers.milvus_container import MilvusService

            self.uri = self._stack.enter_context(MilvusService().provide()).url
        if not self.uri:  # Milvus Lite in a temporary directory: released and removed by close(), or at exit
            self._temporary = LiteDirectory()
            self.uri = self._temporary.path
        if is_lite(self.uri):
            self._lite_path = os.path.abspath(self.uri)
        try:
            self.client = self._connect(self.uri, opts.token or os.environ.get(TOKEN_ENV) or "")
        except BaseException:
            self._stack.close()
            raise
        self._name = opts.collection or f"fp_{uuid.uuid4().hex[:12]}"
        self._drop_on_close = not opts.collection
        self.capabilities = capabilities_of(opts, persistent=bool(opts.collection) and self._temporary is None)
        self._created = False
        try:
            ours = self._claim()[1]
        except BaseException:
            self.close()
            raise
        self._dim = self._existing_dim(ours)
        self._keys = KeyCache(mx.text)
        self._refused = Refusals()

    def _connect(self, uri: str, token: str) -> MilvusClient:
        try:
            return MilvusClient(uri=uri, token=token)
        except MilvusException as error:
            where = "Milvus Lite file" if is_lite(uri) else "Milvus server"
            raise BackendUnavailable(f"milvus: cannot open the {where} at {uri}: {error}") from error

    owned_objects = staticmethod(owned)
    """For ``filterproof clean``: every collection of the Lite file or server that carries the marker."""

    def _claim(self) -> tuple[bool, bool]:
        """Refuse a collection of this name that filterproof did not create; whether one exists, and whether it
        is ours."""
        exists, mark = collection_mark(self.client, self._name)
        claim(self.name, f"collection {self._name!r} in {self.uri}", exists=exists and not self._created, mark=mark,
              replace=self.options.replace, instead="another collection=NAME (or none: a fresh one, dropped after)")
        return exists, exists and Marker.parse(mark) is not None

    def _existing_dim(self, ours: bool) -> int:
        """The dimension of a collection of ours of this name (0: none; a user's, replace=true, is not read)."""
        if not ours:
            return 0
        for field in self.client.describe_collection(self._name)["fields"]:
            if field["name"] == mx.VECTOR:
                self.client.load_collection(self._name)  # a reopened collection starts released
                return int(field["params"]["dim"])
        return 0

    @property
    def collection(self) -> str:
        return self._name

    @property
    def _topk(self) -> int | None:
        return None if self._lite_path else SERVER_TOPK

    # -- writes -----------------------------------------------------------------

    def reset(self, dim: int) -> None:
        if dim < 1:
            raise ValueError(f"dimension must be positive, got {dim}")
        opts, client = self.options, self.client
        if self._claim()[0]:
            client.drop_collection(self._name)
        extra = {"num_partitions": opts.num_partitions} if opts.tenant_mode == "partition_key" else {}
        client.create_collection(self._name, schema=schema(client, dim, opts),
                                 consistency_level=opts.consistency_level,
                                 properties=marked(temporary=self._drop_on_close), **extra)
        self._created = True
        # sync=False: pymilvus's own wait sleeps 0.5 s before its first look; an empty collection's index is ready
        client.create_index(self._name, index_params(client, opts), sync=False)
        self._wait_for_index()
        client.load_collection(self._name)
        self._dim = dim
        self._refused.clear()

    def _wait_for_index(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while self.client.describe_index(self._name, mx.VECTOR).get("state") != "Finished":
            if time.monotonic() > deadline:
                raise MilvusException(message=f"milvus: the index of {self._name} not built within {timeout:.0f} s")
            time.sleep(0.02)

    def _row(self, doc_id: str, vector: np.ndarray, metadata: Mapping[str, Any]) -> dict[str, Any]:
        row = checked_vector(vector, self._dim, doc_id)
        return {mx.ID: mx.text(doc_id), mx.VECTOR: row.tolist(), **mx.stored_fields(metadata, self.flag_map)}

    def _write(self, rows: Sequence[dict[str, Any]]) -> None:
        for start in range(0, len(rows), BATCH):
            self.client.upsert(self._name, list(rows[start:start + BATCH]))

    @writing
    def upsert(self, records: Sequence[Record]) -> None:
        """Write the rows Milvus can hold; refuse the rest (``limits``), deleting an earlier version."""
        rows, refused = [], []
        for record in {r.id: r for r in records}.values():  # the last of an id wins
            row = self._row(record.id, record.vector, record.metadata)
            why = refusal({k: v for k, v in row.items() if k != mx.VECTOR})
            if why:
                self._refused.refuse(record.id, np.asarray(record.vector, dtype=np.float32), why)
                refused.append(record.id)
            else:
                rows.append(row)
                self._refused.forget([record.id])
        if refused:
            self.delete(refused, forget=False)
        self._write(rows)

    def not_indexable(self) -> dict[str, str]:
        return dict(self._refused.reasons)

    @writing
    def delete(self, ids: Sequence[str], forget: bool = True) -> None:
        unique = list(dict.fromkeys(ids))
        for start in range(0, len(unique), ID_BATCH):
            self.client.delete(self._name, filter=mx.id_filter(unique[start:start + ID_BATCH]))
        if forget:
            self._refused.forget(unique)

    def _rows(self, flt: str) -> list[dict[str, Any]]:
        """Every stored row (vector included) matching ``flt``."""
        return list(self.client.query(self._name, filter=flt, output_fields=["*"],
                                      consistency_level="Strong"))

    @writing
    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        """Rewrite the row with its stored vector and the new metadata; unknown ids are ignored.

        Metadata Milvus cannot hold makes the document refused (its vector kept); a refused
        document is written again, with its vector, by an update that fits.
        """
        held = self._refused.vector(id)
        if held is not None:
            self.upsert([Record(id, held, metadata)])
            return
        fields = {mx.ID: mx.text(id), **mx.stored_fields(metadata, self.flag_map)}
        if refusal(fields):  # refused from now on: its vector is kept (read back) to write it again later
            found = self._rows(mx.id_filter([id]))
            if found:
                self.upsert([Record(id, np.asarray(found[0][mx.VECTOR], dtype=np.float32), metadata)])
            return
        # One partial upsert, not a read of the row and a write of it whole: a row another client deleted between
        # the two came back (the write lock holds this client's writes only). Without its vector, a row that is
        # not there is refused, not inserted: an unknown id is ignored.
        self._partial([fields])

    @writing
    def set_active_revisions(self, active: ActiveRevisions) -> None:
        """Under ``revision=flag``: rewrite the flags of every tenant/logical_id whose revision changed.

        Milvus has no update by filter: the changed documents' rows are found, and each one's flag under the new
        map is written by a partial upsert (its id, tenant and flag), before this returns. A row written whole
        from what was read undid an update another client made between the read and the write.
        """
        if self.revision_flags and self._dim:
            changed = flags_to_rewrite(self.active, active)
            for start in range(0, len(changed), ID_BATCH):
                part = changed[start:start + ID_BATCH]
                lids = ", ".join(mx.literal(logical_key(*pair)) for pair in part)
                rows = self.client.query(self._name, filter=f"{mx.LID} in [{lids}]", consistency_level="Strong",
                                         output_fields=[mx.ID, mx.TENANT, mx.LID, mx.KEY])
                self._partial([{mx.ID: row[mx.ID], mx.TENANT: row[mx.TENANT], mx.CURRENT: active.get(
                    tuple(textcodec.unescape(row[mx.LID]).split("/", 1))) == _revision_of(row[mx.KEY])}
                    for row in rows])
        self.active = active

    def _partial(self, rows: Sequence[dict[str, Any]]) -> None:
        """Partial upserts of ``rows`` (an id and the fields to change); a row that is no longer there (another
        client deleted it) is left out, never inserted."""
        for start in range(0, len(rows), BATCH):
            part = list(rows[start:start + BATCH])
            try:
                self.client.upsert(self._name, part, partial_update=True)
            except MilvusException as error:
                if not absent_row(error):
                    raise
                for row in part if len(part) > 1 else ():  # one at a time: only the absent are refused
                    self._partial([row])

    # -- reads ------------------------------------------------------------------

    def compile(self, where: PolicyFilter) -> str:
        """The expression, with the active keys cached per map object and tenant."""
        if self.revision_flags:
            return mx.compile_expr(where, flag=True)
        return mx.compile_expr(where, self._keys(where.active, where.principal.tenant))

    def explain(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> SearchPath:
        if self.options.index == "flat":
            return SearchPath("exact scan", "a FLAT index: every vector the filter's bitset admits is scored")
        return SearchPath("unknown", "Milvus does not explain a search")

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        return self.search_batch(np.asarray(vector, dtype=np.float32)[None, :], k, [where])[0]

    def search_batch(self, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]) -> list[list[Hit]]:
        check_batch(vectors, wheres)
        results: list[list[Hit]] = [[] for _ in wheres]
        if k <= 0 or not len(wheres):
            return results
        rows = [self._query_vector(v) for v in vectors]
        limit = k if self._topk is None else min(k, self._topk)
        for where, members in by_filter(wheres):
            expr = "" if where is None else self.compile(where)
            if expr == mx.NOTHING:
                continue
            answers = self.client.search(self._name, data=[rows[i] for i in members], limit=limit, filter=expr,
                                         output_fields=[], search_params=search_params(self.options),
                                         consistency_level=self.options.consistency_level)
            for position, answer in zip(members, answers, strict=True):
                results[position] = [Hit(textcodec.unescape(str(hit["id"])), _score(hit["distance"]))
                                     for hit in answer]
        return [sorted(hits, key=lambda h: -h.score)[:k] for hits in results]

    def _query_vector(self, vector: np.ndarray) -> list[float]:
        return checked_vector(vector, self._dim, "query").tolist()

    def close(self) -> None:
        try:
            if self._drop_on_close and self._created:
                with contextlib.suppress(MilvusException):  # a vanished server must not mask the caller's error
                    self.client.drop_collection(self._name)
        finally:
            self.client.close()
            if self._temporary is not None:
                self._temporary.remove()
            elif self._lite_path:
                release_lite(self._lite_path)
            self._stack.close()

    # -- other clients ----------------------------------------------------------

    reader = f"{__name__}:MilvusReader"

    def _reader_location(self) -> dict[str, Any] | None:
        if not self._dim:
            return None
        uri = lite_url(self._lite_path) if self._lite_path else self.uri
        return {"uri": uri, "collection": self._name}


class MilvusReader(StoreReader, MilvusAdapter):
    """Another client of the writer's server (for Milvus Lite, of its gRPC thread): it searches, never writes."""

    name = "milvus-reader"
    backend = "milvus"
    opening_errors = (BackendUnavailable,)

    def _missing(self) -> str | None:
        return None if self._dim else f"collection {self._name!r} at {self.uri}"

    def close(self) -> None:
        self.client.close()


def _revision_of(stored_key: str) -> int:
    return int(textcodec.unescape(stored_key).rsplit("#", 1)[1])


def _score(distance: float) -> float:
    """Milvus's COSINE distance is the similarity; a zero vector's NaN is no shared term (0)."""
    value = float(distance)
    return 0.0 if math.isnan(value) else value
