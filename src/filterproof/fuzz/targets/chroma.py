"""Chroma's ``where`` filter language over an in-process client (``chromadb.EphemeralClient``), chromadb 0.4 to 1.5.

Storage: each document is one record, its fields the record's metadata as given (``s``, ``t``,
``d`` as text, a date as its ISO string; ``n`` an integer; ``x`` a float; ``b`` a bool; ``tags``
and ``nums`` lists, from chromadb 1.5 on). Chroma holds no null (``add`` refuses ``None``), no
empty list, no list holding a null, and before 1.5 no list at all: ``allows`` says so, by the
installed version. A key may hold values of several kinds across records (``mixed``), and
text may hold U+0000. A record without metadata is added with ``None`` (Chroma refuses ``{}``).

Chroma's rules, written down once:

* A document *missing the key*: ``$eq $in $gt $gte $lt $lte $contains`` never select it. ``$ne``
  and ``$nin`` (and ``$not_contains``) select it from chromadb 0.5.12 on (the v0.5.12 update
  note; chroma-core/chroma#4316); before, "where filters only search embeddings where the key
  exists" (chroma-core/docs#71): ``$ne``/``$nin`` do not select it either. Likewise a value of
  another kind (0.4 compares ``$ne``/``$nin`` within the operand's own column; 1.x selects it).
* No ``$not``, no ``$exists``, no null test. NOT is pushed to the leaves (negation normal
  form): ``eq``/``ne``, ``in``/``nin``, ``contains``/``not_contains`` swap, a range becomes the
  opposite range, De Morgan for ``$and``/``$or``. That is faithful because each leaf and its
  swapped form never both select a document: where the neutral condition is unknown (a missing
  key, another kind) the pair selects at most one side, as Kleene's logic allows, and where it is
  defined they are complements. But a range and its opposite both leave out a document without
  a number there (and in 0.4 every pair leaves out a document without the key), so P and NOT P
  need not cover every document: ``two_valued = False``.
* ``is_null``, ``is_empty``, ``exists``: no faithful form (no presence test): Unsupported.
* ``$and``/``$or`` take two or more clauses: one child is rendered as itself; an empty AND or
  OR has no form (Unsupported). ``$in``/``$nin`` take a non-empty list of values of one type
  (an empty or mixed list: Unsupported); ``contains_any`` is an ``$or`` of ``$contains``.
* Ranges take a number (``$gt`` on text is refused; a date is stored as text: Unsupported).
* ``$eq 1`` also selects ``1.0`` in 1.x (the neutral evaluator leaves int/float unknown).

Spellings: 0 ``{key: {"$eq": v}}``; 1 the shorthand ``{key: v}``, which Chroma documents as the
same filter ("Using the $eq operator is equivalent to using the where filter").

Vias: ``search`` is ``collection.query`` with ``n_results`` = the collection size, ``get`` is
``collection.get(where=...)``; ``count`` takes no filter. No payload index (not ``indexable``).

``chroma-server`` (``chroma_server.ChromaServerTarget``) is the same language over HTTP (``chromadb.HttpClient``; the
server at ``$CHROMA_URL``, else a ``chroma run`` of its own, stopped on close): the filter and the metadata
go through the client's JSON and the server's parsing, so the pair is a differential oracle.
"""

from __future__ import annotations

import re
import tempfile
import uuid
from datetime import date
from importlib.metadata import PackageNotFoundError, version
from typing import Any, ClassVar

from filterproof.adapters.filterlang import RANGE_OPS, UNARY_OPS, And, Cond, Expr, Not, Or, Unsupported
from filterproof.fuzz.generate import Allows
from filterproof.fuzz.target import Docs, Script, Target

Where = dict[str, Any]


def _release() -> tuple[int, ...]:
    try:
        found = version("chromadb")
    except PackageNotFoundError:
        return (0,)
    return tuple(int(part) for part in re.findall(r"\d+", found)[:3])


RELEASE = _release()
ARRAYS = RELEASE >= (1, 5)
"""List metadata and ``$contains``/``$not_contains`` on it: chromadb 1.5.0 (February 2026)."""
REUSE = RELEASE >= (1,)
"""Empty the collection and refill it for the next world. chromadb 0.4's HNSW index, after a few hundred deletes,
fails filtered queries ("Cannot return the results in a contigious 2D array", chroma-core/chroma#997, hnswlib's
marked-deleted elements): there each world gets a fresh one, as the reproducer's store is."""

OPPOSITE = {"eq": "ne", "ne": "eq", "in": "nin", "nin": "in", "gt": "lte", "lte": "gt", "gte": "lt", "lt": "gte",
            "contains": "not_contains", "not_contains": "contains"}
"""Each leaf's negation (``not_contains`` is Chroma's own, not a neutral operator)."""


# -- one function per construct ------------------------------------------------------


def where(expr: Expr, negated: bool = False, spelling: int = 0) -> Where:
    """The ``where`` dict for ``expr`` (``NOT expr`` when ``negated``), negation pushed to the leaves."""
    match expr:
        case Cond():
            return leaf(expr, negated, spelling)
        case And(parts):
            clauses = [where(p, negated, spelling) for p in parts]
            return any_of(clauses) if negated else all_of(clauses)
        case Or(parts):
            clauses = [where(p, negated, spelling) for p in parts]
            return all_of(clauses) if negated else any_of(clauses)
        case Not(part):
            return where(part, not negated, spelling)
    raise TypeError(f"unknown expression {expr!r}")


def _join(operator: str, clauses: list[Where]) -> Where:
    if not clauses:
        raise Unsupported("chroma: no empty AND or OR ($and/$or take two or more clauses)")
    return clauses[0] if len(clauses) == 1 else {operator: clauses}


def all_of(clauses: list[Where]) -> Where:
    return _join("$and", clauses)


def any_of(clauses: list[Where]) -> Where:
    return _join("$or", clauses)


def leaf(c: Cond, negated: bool, spelling: int = 0) -> Where:
    if c.op in UNARY_OPS:
        raise Unsupported(f"chroma: no {c.op} (no $exists, no null in metadata)")
    if c.op == "contains_any":
        if not c.value:
            raise Unsupported("chroma: contains_any of no value has no form")
        clauses = [leaf(Cond("contains", c.key, v), negated) for v in c.value]
        return all_of(clauses) if negated else any_of(clauses)
    op = OPPOSITE[c.op] if negated else c.op
    if op in ("eq", "ne"):
        return compare(c.key, op, scalar(c.value), spelling)
    if op in ("in", "nin"):
        return compare(c.key, op, listed(c.value))
    if op in RANGE_OPS:
        return compare(c.key, op, number(c.value))
    if op in ("contains", "not_contains"):
        if not ARRAYS:
            raise Unsupported("chroma: no $contains on metadata before 1.5 (no list metadata)")
        return compare(c.key, op, scalar(c.value))
    raise TypeError(f"unknown operator {c.op!r}")


def compare(key: str, op: str, value: Any, spelling: int = 0) -> Where:
    """``{key: {"$op": value}}``; ``eq`` in spelling 1 as the documented shorthand ``{key: value}``."""
    if not isinstance(key, str):
        raise TypeError(f"a metadata key is text, got {key!r}")
    if op == "eq" and spelling == 1:
        return {key: value}
    return {key: {f"${op}": value}}


def scalar(value: Any) -> str | int | float | bool:
    if isinstance(value, date):
        raise Unsupported("chroma: no date type (a date is stored as text)")
    if isinstance(value, str | int | float):  # bool is an int
        return value
    raise TypeError(f"not a metadata value: {value!r}")


def number(value: Any) -> int | float:
    if isinstance(value, bool | str | date):
        raise Unsupported("chroma: a range takes a number (text and dates are not ordered)")
    if isinstance(value, int | float):
        return value
    raise TypeError(f"not a number: {value!r}")


def listed(values: Any) -> list[Any]:
    if not isinstance(values, tuple):
        raise TypeError(f"in/nin take a tuple, got {values!r}")
    items = [scalar(v) for v in values]
    if not items or len({type(v) for v in items}) > 1:
        raise Unsupported("chroma: $in/$nin take a non-empty list of one type")
    return items


def metadata(doc: Any) -> dict[str, Any] | None:
    """A document's metadata as Chroma takes it: None for none (``{}`` is refused)."""
    return dict(doc) or None


class ChromaTarget(Target):
    """chromadb's in-process client (``EphemeralClient``): SQLite metadata, HNSW vectors (1.x: its Rust core)."""

    engine_errors: ClassVar[tuple[type[BaseException], ...]] = (Exception,)  # as every built-in (Target)
    name = "chroma"
    packages = ("chromadb",)
    allows = Allows(nulls=False, lists=ARRAYS, empty_lists=False, null_in_lists=False)
    two_valued = False
    vias: ClassVar[tuple[str, ...]] = ("search", "get")
    spellings = 2
    equivalent = (1,)

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.client: Any = None
        self.collection: Any = None
        self._name = f"filterproof-fuzz-{uuid.uuid4().hex[:12]}"
        self._home: tempfile.TemporaryDirectory[str] | None = None

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return repr(where(expr, spelling=spelling))  # data, not text: every value is a Python literal

    def open_client(self) -> Any:
        import logging

        import chromadb
        from chromadb.config import Settings

        logging.getLogger("chromadb.telemetry").setLevel(logging.CRITICAL)  # 0.4 logs its disabled telemetry
        # A store of its own, not the process's shared EphemeralClient: chromadb 1.5.9 hands a dropped collection's
        # list values to the next collection's records (chroma-core/chroma#7594, test_fuzz_chroma.py), so another
        # test's collection would answer for this one's worlds.
        self._home = tempfile.TemporaryDirectory(prefix="filterproof-fuzz-chroma-", ignore_cleanup_errors=True)
        return chromadb.PersistentClient(self._home.name, Settings(anonymized_telemetry=False))

    def load(self, docs: Docs) -> None:
        if self.client is None:
            self.client = self.open_client()
        if self.collection is not None and REUSE:
            if self.ids:
                self.collection.delete(ids=self.ids)
        else:
            if self.collection is not None:
                self.client.delete_collection(self._name)
            self.collection = self.client.create_collection(self._name)
        self.ids = list(docs)
        if self.ids:
            self.collection.add(ids=self.ids, embeddings=[[1.0, 0.01 * (i + 1)] for i in range(len(self.ids))],
                                metadatas=[metadata(docs[i]) for i in self.ids])

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        native = self.native(source)
        if via == "get":
            return set(self.collection.get(where=native)["ids"])
        if via != "search":
            raise ValueError(f"unknown via {via!r}")
        found = self.collection.query(query_embeddings=[[1.0, 0.0]], n_results=max(len(self.ids), 1), where=native)
        return set(found["ids"][0])

    def script(self, docs: Docs) -> Script:
        return Script("import logging\nimport chromadb\nfrom chromadb.config import Settings", _SETUP, "ask_chroma")

    def close(self) -> None:
        if self.client is not None and self.collection is not None:
            self.client.delete_collection(self._name)
        self.collection = None
        if self._home is not None:
            self.client = None
            self._home.cleanup()
            self._home = None


_SETUP = """
logging.getLogger("chromadb.telemetry").setLevel(logging.CRITICAL)  # chromadb 0.4 logs its disabled telemetry
client = chromadb.EphemeralClient(Settings(anonymized_telemetry=False))
collection = client.create_collection("filterproof-fuzz")
chroma_ids = list(DOCS)
if chroma_ids:
    collection.add(ids=chroma_ids, embeddings=[[1.0, 0.01 * (i + 1)] for i in range(len(chroma_ids))],
                   metadatas=[dict(DOCS[d]) or None for d in chroma_ids])


def ask_chroma(native, via, indexed):
    if via == "get":
        return set(collection.get(where=native)["ids"])
    found = collection.query(query_embeddings=[[1.0, 0.0]], n_results=max(len(chroma_ids), 1), where=native)
    return set(found["ids"][0])
"""
