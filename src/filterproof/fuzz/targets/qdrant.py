"""Qdrant's filter language, twice: qdrant-client's local mode (``qdrant_client.models``) and Qdrant's engine in
process (``qdrant_edge``). One renderer writes both, so the pair is a differential oracle.

Spellings (``Target.spellings``):

0. ``MatchValue``/``MatchAny`` (``ne``/``nin`` as ``must_not``), ``IsNullCondition``,
   ``IsEmptyCondition``, ``should`` for OR;
1. what Qdrant documents as the same filter: ``FieldCondition(is_null=True)`` and
   ``FieldCondition(is_empty=True)``, ``min_should`` with ``min_count=1`` for OR, one
   ``MatchAny`` of one value for ``eq`` (the ``spelling`` oracle compares it with 0);
2. ``MatchExcept`` for ``ne``/``nin`` (Qdrant's own "none of these" match, which its
   documentation does not make equal to ``must_not``: judged by the other oracles).

Qdrant's rules, written down once: NOT is ``must_not``, the complement (two-valued); a
``MatchValue`` on a list matches an element; an empty ``should`` is no constraint (so
an empty OR has no faithful form); ``exists`` is ``must_not IsEmpty``, which is only
"present, not null" for scalars (an empty list is empty), so it is rendered for scalar
fields alone; no float equality (``MatchValue`` takes text, integers and booleans).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any, ClassVar

from filterproof.fuzz.generate import BY_NAME
from filterproof.fuzz.lang import And, Cond, Expr, Not, Or
from filterproof.fuzz.target import Docs, Script, Target, Unsupported

INDEXES = {"text": "keyword", "int": "integer", "float": "float", "date": "datetime", "bool": "bool",
           "text_list": "keyword", "int_list": "integer"}
"""The payload index of each kind of field, on the indexed copy of the world."""


class Spelling:
    """How one model family writes each construct (client: keyword arguments; edge: positional)."""

    def __init__(self, m: str, edge: bool) -> None:
        self.m, self.edge = m, edge

    def field(self, key: str, **part: str) -> str:
        head = repr(key) if self.edge else f"key={key!r}"
        return f"{self.m}.FieldCondition({head}, " + ", ".join(f"{k}={v}" for k, v in part.items()) + ")"

    def match(self, kind: str, values: Any) -> str:
        cls = {"value": "MatchValue", "any": "MatchAny", "except": "MatchExcept"}[kind]
        if self.edge:
            return f"{self.m}.{cls}({values!r})"
        return f"{self.m}.{cls}(**{{{kind!r}: {values!r}}})"  # MatchExcept's field is "except", a keyword

    def range(self, op: str, value: Any) -> str:
        if isinstance(value, date):
            cls = "RangeDateTime" if self.edge else "DatetimeRange"
            return f"{self.m}.{cls}({op}={value.isoformat()!r})"
        cls = "RangeFloat" if self.edge else "Range"
        return f"{self.m}.{cls}({op}={value!r})"

    def unary(self, cls: str, key: str) -> str:
        """``IsNullCondition`` / ``IsEmptyCondition`` on ``key``."""
        if self.edge:
            return f"{self.m}.{cls}({key!r})"
        name = "is_null" if cls == "IsNullCondition" else "is_empty"
        return f"{self.m}.{cls}({name}={self.m}.PayloadField(key={key!r}))"

    def filter(self, **parts: list[str]) -> str:
        return f"{self.m}.Filter(" + ", ".join(f"{k}=[{', '.join(v)}]" for k, v in parts.items()) + ")"

    def min_should(self, conditions: list[str], count: int) -> str:
        inner = f"[{', '.join(conditions)}], {count}" if self.edge else \
            f"conditions=[{', '.join(conditions)}], min_count={count}"
        return f"{self.m}.Filter(min_should={self.m}.MinShould({inner}))"


def render(expr: Expr, w: Spelling, spelling: int) -> str:
    """A ``Filter`` (or a condition) as source; the root is always wrapped in a ``Filter`` by ``as_filter``."""
    match expr:
        case Cond():
            return _condition(expr, w, spelling)
        case And(parts):
            return w.filter(must=[render(p, w, spelling) for p in parts])
        case Or(parts):
            if not parts:
                raise Unsupported("qdrant: an empty should is no constraint (an empty OR has no faithful form)")
            children = [render(p, w, spelling) for p in parts]
            return w.min_should(children, 1) if spelling == 1 else w.filter(should=children)
        case Not(part):
            return w.filter(must_not=[render(part, w, spelling)])
    raise TypeError(f"unknown expression {expr!r}")


def _condition(c: Cond, w: Spelling, spelling: int) -> str:
    kind = BY_NAME[c.key].kind
    values = c.value if isinstance(c.value, tuple) else (c.value,)
    if c.op in ("eq", "ne", "in", "nin", "contains", "contains_any") and any(
            isinstance(v, float | date) for v in values):
        raise Unsupported("qdrant: no match on a float or a date (MatchValue takes text, integers, booleans)")
    if c.op in ("in", "nin", "contains_any") and (len({type(v) for v in values}) > 1 or any(
            isinstance(v, bool) for v in values)):
        raise Unsupported("qdrant: MatchAny takes a list of text or of integers")
    match c.op:
        case "eq" | "contains":
            if spelling == 1 and not isinstance(c.value, bool):
                return w.field(c.key, match=w.match("any", [c.value]))
            return w.field(c.key, match=w.match("value", c.value))
        case "in" | "contains_any":
            return w.field(c.key, match=w.match("any", list(c.value)))
        case "ne" | "nin":
            listed = list(values)
            if spelling == 2 and not any(isinstance(v, bool) for v in listed):
                return w.field(c.key, match=w.match("except", listed))
            positive = "value" if c.op == "ne" else "any"
            return w.filter(must_not=[w.field(c.key, match=w.match(positive, c.value if c.op == "ne" else listed))])
        case "gt" | "gte" | "lt" | "lte":
            if isinstance(c.value, bool | str):
                raise Unsupported("qdrant: a range takes a number or a datetime")
            return w.field(c.key, range=w.range(c.op, c.value))
        case "is_null":
            return w.field(c.key, is_null="True") if spelling == 1 else w.unary("IsNullCondition", c.key)
        case "is_empty":
            return w.field(c.key, is_empty="True") if spelling == 1 else w.unary("IsEmptyCondition", c.key)
        case "exists":
            if kind.endswith("list"):
                raise Unsupported("qdrant: no test for 'present' on a list field (must_not IsEmpty drops [])")
            return w.filter(must_not=[w.unary("IsEmptyCondition", c.key)])
    raise ValueError(f"unknown operator {c.op!r}")


def as_filter(source: str, w: Spelling) -> str:
    return source if source.startswith(f"{w.m}.Filter(") else w.filter(must=[source])


def points(docs: Docs) -> list[tuple[int, list[float], dict[str, Any]]]:
    """Point i holds document i (ids are Qdrant's integers; ``ids`` maps them back), a distinct positive cosine."""
    return [(i, [1.0, 0.01 * (i + 1)], dict(doc)) for i, doc in enumerate(docs.values())]


class QdrantTarget(Target):
    spellings = 3
    equivalent = (1,)
    vias: ClassVar[tuple[str, ...]] = ("search", "scroll", "count")
    indexable = True
    model: ClassVar[str]
    edge: ClassVar[bool]

    def __init__(self) -> None:
        self.w = Spelling(self.model, self.edge)
        self.ids: list[str] = []

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return as_filter(render(expr, self.w, spelling), self.w)

    def _ids(self, found: list[Any]) -> set[str]:
        return {self.ids[int(p.id)] for p in found}

    def _answer(self, via: str, count: Callable[[], int], scroll: Callable[[], list[Any]],
                search: Callable[[], list[Any]]) -> set[str]:
        if via == "count":
            return {f"#{i}" for i in range(count())}
        return self._ids(scroll() if via == "scroll" else search())




class QdrantLocal(QdrantTarget):
    """qdrant-client's local mode (``QdrantClient(":memory:")``), a Python implementation of Qdrant's filters."""

    name = "qdrant-local"
    packages = ("qdrant-client",)
    model, edge = "models", False

    def namespace(self) -> dict[str, Any]:
        from qdrant_client import models

        return {"models": models}

    def load(self, docs: Docs) -> None:
        from qdrant_client import QdrantClient, models

        self.client = QdrantClient(":memory:")
        self.ids = list(docs)
        for name in ("plain", "indexed"):
            self.client.create_collection(name, vectors_config=models.VectorParams(size=2,
                                                                                   distance=models.Distance.COSINE))
            self.client.upsert(name, [models.PointStruct(id=i, vector=v, payload=p) for i, v, p in points(docs)])
        for field in BY_NAME.values():  # local mode ignores payload indexes: what they must not change
            self.client.create_payload_index("indexed", field.name, INDEXES[field.kind])

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        native, name, n = self.native(source), "indexed" if indexed else "plain", max(len(self.ids), 1)
        return self._answer(
            via, lambda: self.client.count(name, count_filter=native, exact=True).count,
            lambda: self.client.scroll(name, scroll_filter=native, limit=n)[0],
            lambda: self.client.query_points(name, query=[1.0, 0.0], query_filter=native, limit=n).points)

    def script(self, docs: Docs) -> Script:
        return Script("from qdrant_client import QdrantClient, models", _CLIENT_SETUP, "ask_local")

    def close(self) -> None:
        if getattr(self, "client", None) is not None:
            self.client.close()


class QdrantEdge(QdrantTarget):
    """Qdrant's engine in process (``qdrant_edge.EdgeShard``), the Rust code a Qdrant server runs."""

    name = "qdrant-edge"
    packages = ("qdrant-edge-py",)
    model, edge = "qe", True

    def namespace(self) -> dict[str, Any]:
        import qdrant_edge

        return {"qe": qdrant_edge}

    def load(self, docs: Docs) -> None:
        import qdrant_edge as qe

        if not getattr(self, "shards", None):
            self._create()
        self.ids = list(docs)
        for shard in self.shards.values():  # emptied, not created again: a shard on disk costs 0.2-1 s
            shard.update(qe.UpdateOperation.delete_points_by_filter(qe.Filter()))
            shard.update(qe.UpdateOperation.upsert_points([qe.Point(i, v, p) for i, v, p in points(docs)]))

    def _create(self) -> None:
        import tempfile

        import qdrant_edge as qe

        self._dir = tempfile.TemporaryDirectory(prefix="filterproof-fuzz-edge-")
        self.shards = {}
        config = qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=2, distance=qe.Distance.Cosine))
        for name in ("plain", "indexed"):
            Path(self._dir.name, name).mkdir()  # qdrant-edge-py 0.8 creates no parent directory
            shard = self.shards[name] = qe.EdgeShard.create(f"{self._dir.name}/{name}", config)
            if name == "indexed":
                for field in BY_NAME.values():
                    schema = getattr(qe.PayloadSchemaType, INDEXES[field.kind].capitalize())
                    shard.update(qe.UpdateOperation.create_field_index(field.name, schema))

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        import qdrant_edge as qe

        native, n = self.native(source), max(len(self.ids), 1)
        shard = self.shards["indexed" if indexed else "plain"]
        return self._answer(
            via, lambda: shard.count(qe.CountRequest(exact=True, filter=native)),
            lambda: shard.scroll(qe.ScrollRequest(limit=n, filter=native))[0],
            lambda: shard.query(qe.QueryRequest(limit=n, query=qe.Query.Nearest([1.0, 0.0]), filter=native)))

    def script(self, docs: Docs) -> Script:
        return Script("import os\nimport tempfile\nimport qdrant_edge as qe", _EDGE_SETUP, "ask_edge")

    def close(self) -> None:
        for shard in getattr(self, "shards", {}).values():
            shard.close()
        self.shards = {}
        if getattr(self, "_dir", None) is not None:
            self._dir.cleanup()
            self._dir = None


_CLIENT_SETUP = f"""
INDEXES = {{key: kind for key, kind in {dict((f.name, INDEXES[f.kind]) for f in BY_NAME.values())!r}.items()}}
client = QdrantClient(":memory:")
ids = list(DOCS)
for name in ("plain", "indexed"):
    client.create_collection(name, vectors_config=models.VectorParams(size=2, distance=models.Distance.COSINE))
    client.upsert(name, [models.PointStruct(id=i, vector=[1.0, 0.01 * (i + 1)], payload=DOCS[d])
                         for i, d in enumerate(ids)])
for key, kind in INDEXES.items():
    client.create_payload_index("indexed", key, kind)


def ask_local(native, via, indexed):
    name = "indexed" if indexed else "plain"
    if via == "count":
        return {{f"#{{i}}" for i in range(client.count(name, count_filter=native, exact=True).count)}}
    if via == "scroll":
        found = client.scroll(name, scroll_filter=native, limit=len(ids))[0]
    else:
        found = client.query_points(name, query=[1.0, 0.0], query_filter=native, limit=len(ids)).points
    return {{ids[int(p.id)] for p in found}}
"""

_EDGE_SETUP = f"""
EDGE_INDEXES = {dict((f.name, INDEXES[f.kind].capitalize()) for f in BY_NAME.values())!r}
edge_dir = tempfile.mkdtemp(prefix="edge-")
edge_ids = list(DOCS)
shards = {{}}
for name in ("plain", "indexed"):
    os.makedirs(f"{{edge_dir}}/{{name}}")
    config = qe.EdgeConfig(vectors=qe.EdgeVectorParams(size=2, distance=qe.Distance.Cosine))
    shard = shards[name] = qe.EdgeShard.create(f"{{edge_dir}}/{{name}}", config)
    if name == "indexed":
        for key, kind in EDGE_INDEXES.items():
            shard.update(qe.UpdateOperation.create_field_index(key, getattr(qe.PayloadSchemaType, kind)))
    shard.update(qe.UpdateOperation.upsert_points(
        [qe.Point(i, [1.0, 0.01 * (i + 1)], DOCS[d]) for i, d in enumerate(edge_ids)]))


def ask_edge(native, via, indexed):
    shard = shards["indexed" if indexed else "plain"]
    if via == "count":
        return {{f"#{{i}}" for i in range(shard.count(qe.CountRequest(exact=True, filter=native)))}}
    if via == "scroll":
        found = shard.scroll(qe.ScrollRequest(limit=len(edge_ids), filter=native))[0]
    else:
        found = shard.query(qe.QueryRequest(limit=len(edge_ids), query=qe.Query.Nearest([1.0, 0.0]), filter=native))
    return {{edge_ids[int(p.id)] for p in found}}
"""
