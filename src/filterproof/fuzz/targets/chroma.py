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
* ``$and``/``$or`` take two or more clauses, ``$in``/``$nin`` a non-empty list of one type, ranges
  a number: what breaks a rule is Unsupported (``strict``).
* ``$eq 1`` also selects ``1.0`` in 1.x (the neutral evaluator leaves int/float unknown).

Rendering and spellings are Chroma's own, written once in ``adapters.chroma.language`` (``Chroma``,
strict, with list operators where the installed chromadb has them); ``equivalent = (1,)``: the
``spelling`` oracle compares spelling 1 (the documented ``{key: v}`` shorthand) with 0.

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
from importlib.metadata import PackageNotFoundError, version
from typing import Any, ClassVar

from filterproof.adapters.chroma.language import Chroma
from filterproof.adapters.filterlang import Expr
from filterproof.fuzz.generate import Allows
from filterproof.fuzz.target import Docs, Script, Target


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
        # data, not text: every value is a Python literal
        return repr(Chroma(spelling=spelling, arrays=ARRAYS).render(expr))

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
