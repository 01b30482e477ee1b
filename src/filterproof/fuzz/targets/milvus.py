"""Milvus's filter language over Milvus Lite: ``milvus_expr``'s expression strings asked of a Lite file in a
temporary directory (``MilvusClient("<dir>/fuzz.db")``).

The store: two collections, ``plain`` and ``indexed``, created once (a creation costs ~0.5 s) and emptied
(``delete(filter='id != ""')``) and refilled by ``load``. Each row is ``id`` (VARCHAR primary key: the document's
id), a 2-d ``FLOAT_VECTOR`` (COSINE, FLAT: exact, so a search with k = the collection size returns every match;
row i holds ``[1, 0.01 (i + 1)]``) and one typed, ``nullable=True`` field per FIELD:

Read paths (``vias``): ``search`` (``client.search(..., limit=<rows>, filter=expr)``), ``query``
(``client.query(filter=expr, output_fields=["id"])``) and ``count`` (``client.query(filter=expr,
output_fields=["count(*)"])``).

"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from filterproof.adapters.filterlang import Expr
from filterproof.fuzz.generate import Allows
from filterproof.fuzz.semantics import unknown_under_null_rule
from filterproof.fuzz.target import Docs, Script, Target
from filterproof.fuzz.targets.milvus_expr import SCHEMA, expression

COLLECTIONS = ("plain", "indexed")
INDEXED = ("s", "t", "n", "x", "d", "b")
"""The fields of the ``indexed`` collection with an INVERTED index (Lite has no index on an ARRAY)."""
EVERYTHING = 'id != ""'
"""Every row (ids are never empty): what ``load`` deletes."""



def rows(docs: Docs) -> list[dict[str, Any]]:
    """Row i: the document's id, ``[1, 0.01 (i + 1)]``, every field (a missing key: null)."""
    return [{"id": doc_id, "vector": [1.0, 0.01 * (i + 1)], **{k: doc.get(k) for k in SCHEMA}}
            for i, (doc_id, doc) in enumerate(docs.items())]


def create(client: Any, name: str, indexed: bool) -> None:
    """A collection of the schema above (FLAT vectors; on the indexed copy an INVERTED index on each of
    ``INDEXED``), strongly consistent: a query reads every insert before it; marked as filterproof's."""
    from pymilvus import DataType

    from filterproof.adapters.milvus.owned import marked

    schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=64)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=2)
    for key, (kind, params) in SCHEMA.items():
        typed = {k: getattr(DataType, v) if k == "element_type" else v for k, v in params.items()}
        schema.add_field(key, getattr(DataType, kind), nullable=True, **typed)
    index = client.prepare_index_params()
    index.add_index("vector", index_type="FLAT", metric_type="COSINE")
    for key in INDEXED if indexed else ():
        index.add_index(key, index_type="INVERTED")
    client.create_collection(name, schema=schema, index_params=index, consistency_level="Strong",
                             properties=marked(temporary=True))


def release_lite(path: str) -> None:
    """Stop this process's Milvus Lite server for ``path``: ``MilvusClient.close()`` leaves it running, the file
    locked (``bench/repro/milvus_close_lock.py``; the ``milvus`` backend's ``release_lite``)."""
    with contextlib.suppress(ImportError):
        from milvus_lite.server_manager import server_manager_instance

        server_manager_instance.release_server(path)


def settle(path: str, name: str) -> None:
    """Wait for Lite's background worker (compaction, scalar index builds) on ``name``: after ``flush`` a new
    segment's index is built asynchronously, and a query before it is done reads the rows instead (the ``index``
    oracle would then compare nothing, now and then). Milvus Lite has no public call for it; this reaches the
    in-process server (``server_manager``), and does nothing where that is not there."""
    with contextlib.suppress(ImportError, AttributeError, KeyError, TypeError):
        from milvus_lite.server_manager import server_manager_instance

        entry = server_manager_instance._servers.get(os.path.abspath(path))
        if entry is not None:
            entry[1].get_collection(name)._wait_for_bg()


class MilvusTarget(Target):
    engine_errors: ClassVar[tuple[type[BaseException], ...]] = (Exception,)  # as every built-in (Target)
    name = "milvus"
    packages = ("pymilvus", "milvus-lite")
    allows = Allows(nulls=True, absent=False, lists=True, empty_lists=True, null_in_lists=False, mixed=False,
                    nul=True)
    two_valued = False
    says_unknown = True  # by the documented null rule (milvus_expr), in Milvus's own words: no (P) IS NULL
    vias: ClassVar[tuple[str, ...]] = ("search", "query", "count")
    indexable = True
    spellings = 3
    equivalent = (1, 2)

    def __init__(self) -> None:
        self.client: Any = None
        self.ids: list[str] = []
        self._dir: str | None = None

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return repr(expression(expr, spelling))

    def render_unknown(self, expr: Expr, spelling: int = 0) -> str:
        """Milvus has ``k is null`` but no ``(P) is null``: P-unknown by its documented null rule, with ``is not
        null`` guards (``semantics.unknown_under_null_rule``)."""
        return self.render(unknown_under_null_rule(expr), spelling)

    def _open(self) -> None:
        from pymilvus import MilvusClient

        for logger in ("pymilvus", "milvus_lite"):  # each refused filter would log a traceback, client and server
            logging.getLogger(logger).setLevel(logging.CRITICAL)
        self._dir = tempfile.mkdtemp(prefix="filterproof-fuzz-milvus-")
        self._path = str(Path(self._dir) / "fuzz.db")
        self.client = MilvusClient(self._path)
        for name in COLLECTIONS:
            create(self.client, name, indexed=name == "indexed")

    def load(self, docs: Docs) -> None:
        if self.client is None:
            self._open()
        self.ids = list(docs)
        for name in COLLECTIONS:  # emptied and refilled, not created again (a creation costs ~0.5 s)
            self.client.delete(name, filter=EVERYTHING)
            if docs:
                self.client.insert(name, rows(docs))
            self.client.flush(name)  # a sealed segment: where Lite builds and reads its scalar indexes
            settle(self._path, name)

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        native, name, n = self.native(source), "indexed" if indexed else "plain", max(len(self.ids), 1)
        answer: dict[str, Callable[[], set[str]]] = {
            "search": lambda: {h["id"] for h in self.client.search(name, [[1.0, 0.0]], limit=n, filter=native)[0]},
            "query": lambda: {r["id"] for r in self.client.query(name, filter=native, output_fields=["id"])},
            "count": lambda: {f"#{i}" for i in range(
                self.client.query(name, filter=native, output_fields=["count(*)"])[0]["count(*)"])},
        }
        return answer[via]()

    def script(self, docs: Docs) -> Script:
        imports = ("import contextlib", "import logging", "import os", "import tempfile",
                   "from pymilvus import DataType, MilvusClient")
        return Script("\n".join(imports), _SETUP, "ask_milvus")

    def close(self) -> None:
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.close()
            release_lite(self._path)
            self.client = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


def collection_script(client: str, collection: str) -> str:
    """The reproducer's statements, in the body of ``for name in ("plain", "indexed"):``, that create ``collection``
    (an expression) with ``client``, fill it with ``DOCS`` and flush it: one text for Lite and a server alike."""
    return f"""    schema = {client}.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=64)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=2)
    for key, (kind, params) in SCHEMA.items():
        typed = {{k: getattr(DataType, v) if k == "element_type" else v for k, v in params.items()}}
        schema.add_field(key, getattr(DataType, kind), nullable=True, **typed)
    index = {client}.prepare_index_params()
    index.add_index("vector", index_type="FLAT", metric_type="COSINE")
    if name == "indexed":
        for key in INDEXED:
            index.add_index(key, index_type="INVERTED")
    {client}.create_collection({collection}, schema=schema, index_params=index, consistency_level="Strong")
    milvus_rows = [{{"id": doc_id, "vector": [1.0, 0.01 * (i + 1)], **{{k: doc.get(k) for k in SCHEMA}}}}
                   for i, (doc_id, doc) in enumerate(DOCS.items())]
    {client}.insert({collection}, milvus_rows)
    {client}.flush({collection})  # a sealed segment: the one a scalar index is built on (Lite: only there)
"""


_SETUP = f"""
for logger in ("pymilvus", "milvus_lite"):
    logging.getLogger(logger).setLevel(logging.CRITICAL)
SCHEMA = {SCHEMA!r}
INDEXED = {INDEXED!r}
path = tempfile.mkdtemp(prefix="milvus-") + "/fuzz.db"
client = MilvusClient(path)
for name in ("plain", "indexed"):
{collection_script("client", "name")}\
    with contextlib.suppress(Exception):  # wait for the index build on it (Lite's own, private, worker queue)
        from milvus_lite.server_manager import server_manager_instance
        server_manager_instance._servers[os.path.abspath(path)][1].get_collection(name)._wait_for_bg()


def ask_milvus(native, via, indexed):
    name = "indexed" if indexed else "plain"
    if via == "count":
        counted = client.query(name, filter=native, output_fields=["count(*)"])[0]["count(*)"]
        return {{f"#{{i}}" for i in range(counted)}}
    if via == "query":
        return {{row["id"] for row in client.query(name, filter=native, output_fields=["id"])}}
    return {{hit["id"] for hit in client.search(name, [[1.0, 0.0]], limit=max(len(DOCS), 1), filter=native)[0]}}
"""
