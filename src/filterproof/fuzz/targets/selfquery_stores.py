"""The ``selfquery-*`` fuzz targets: ``SelfQueryRetriever`` over LangChain's Qdrant and Chroma stores (``selfquery``
says what is rendered and how it is asked).

A finding here is the retriever's parser (a ``spelling`` finding: the model's text selects otherwise than the same
structured query built directly), the translator (langchain-community's ``QdrantTranslator``, ``ChromaTranslator``)
or the integration's search; the ``qdrant-local`` and ``chroma`` targets fuzz the engines alone. Each document is
stored with its id as its text, so a returned ``Document`` names itself by ``page_content``.

* ``selfquery-qdrant``: ``QdrantVectorStore`` over qdrant-client's local mode; the translator admits ``eq lt lte
  gt gte like`` under ``and or not`` and prefixes each attribute with the store's ``metadata_payload_key``. NOT is
  Qdrant's ``must_not``, the complement: ``two_valued``.
* ``selfquery-chroma``: langchain-chroma's ``Chroma`` over a Chroma store of its own (a ``PersistentClient`` in a
  temporary directory, as the ``chroma`` target's, for chroma-core/chroma#7594); the translator admits ``eq ne gt
  gte lt lte`` under ``and or``: no NOT, so negation is pushed to the leaves.
* ``selfquery-milvus``: langchain-milvus's ``Milvus`` over a Milvus Lite file of its own, the metadata in the
  dynamic JSON field as given (langchain-milvus would type a field per key of the first batch and drop the rest);
  the translator admits ``eq gt gte lt lte in like`` under ``and or not`` and writes a Milvus expression
  (``( s == "a" )``). Milvus is three-valued on a missing key: not ``two_valued``.
* ``selfquery-pgvector``: langchain-postgres's ``PGVector`` (JSONB) on the pgvector backend's server (or
  ``$PGVECTOR_DSN``), the store the ``langchain-pgvector`` target opens; the retriever's translator for it is
  langchain-postgres's own ``PGVectorTranslator``: ``eq ne gt lt in nin contain like`` under ``and or``.
"""

from __future__ import annotations

import contextlib
import logging
import tempfile
import uuid
import warnings
from collections.abc import Iterator
from typing import Any

from filterproof.fuzz.generate import Allows
from filterproof.fuzz.target import Docs, Script
from filterproof.fuzz.targets.chroma import ChromaTarget
from filterproof.fuzz.targets.langchain import LangChainPgvector
from filterproof.fuzz.targets.selfquery import SAYABLE, SQ_IMPORTS, SelfQueryTarget

QUERY = [1.0, 0.0]


def vectors(ids: list[str]) -> dict[str, list[float]]:
    """Document i's vector (a distinct positive cosine to ``QUERY`` each), and the query's, by text."""
    return {**{d: [1.0, 0.01 * (i + 1)] for i, d in enumerate(ids)}, "q": QUERY}


def _embeddings(table: dict[str, list[float]]) -> Any:
    from filterproof.adapters.bridges.langchain_stores import ShimEmbeddings

    return ShimEmbeddings(lambda text: table.get(text, QUERY))  # QdrantVectorStore probes the width


class SelfQueryQdrant(SelfQueryTarget):
    """``SelfQueryRetriever`` over ``langchain_qdrant.QdrantVectorStore`` on ``QdrantClient(":memory:")``."""

    name = "selfquery-qdrant"
    packages = ("langchain-classic", "langchain-community", "langchain-qdrant", "lark", "qdrant-client")
    translator = "langchain_community.query_constructors.qdrant:QdrantTranslator"
    store_module = "langchain_qdrant"
    allows = Allows(ops=SAYABLE)
    two_valued = True

    def make_translator(self) -> Any:
        return self.translator_class()(metadata_key=self.store.metadata_payload_key)

    def __init__(self) -> None:
        self.ids = []
        self.client: Any = None

    def load(self, docs: Docs) -> None:
        from langchain_qdrant import QdrantVectorStore
        from qdrant_client import QdrantClient, models

        if self.client is not None:
            self.client.close()
        self.client = QdrantClient(":memory:")
        self.client.create_collection("fuzz", vectors_config=models.VectorParams(size=2,
                                                                                 distance=models.Distance.COSINE))
        self.ids = list(docs)
        self.table = vectors(self.ids)
        self.store = QdrantVectorStore(self.client, "fuzz", _embeddings(self.table))
        if self.ids:
            self.store.add_texts(self.ids, [dict(d) for d in docs.values()],
                                 ids=[str(uuid.uuid5(uuid.NAMESPACE_URL, d)) for d in self.ids])

    def script(self, docs: Docs) -> Script:
        return Script(f"{SQ_IMPORTS}\nimport uuid\nfrom langchain_core.embeddings import Embeddings\n"
                      "from langchain_community.query_constructors.qdrant import QdrantTranslator\n"
                      "from langchain_qdrant import QdrantVectorStore\nfrom qdrant_client import QdrantClient, models",
                      _shared_setup(self) + _QDRANT_SETUP, "ask_selfquery")

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
        self.store, self.ids = None, []


class SelfQueryChroma(SelfQueryTarget):
    """``SelfQueryRetriever`` over ``langchain_chroma.Chroma`` on a ``PersistentClient`` of its own."""

    name = "selfquery-chroma"
    packages = ("langchain-classic", "langchain-community", "langchain-chroma", "lark", "chromadb")
    translator = "langchain_community.query_constructors.chroma:ChromaTranslator"
    store_module = "langchain_chroma"
    allows = ChromaTarget.allows & Allows(ops=SAYABLE)
    two_valued = False  # as Chroma's: a range and its pushed-down opposite both leave out a non-number

    def __init__(self) -> None:
        self.ids = []
        self.client: Any = None
        self.table: dict[str, list[float]] = {}
        self._home: tempfile.TemporaryDirectory[str] | None = None

    def load(self, docs: Docs) -> None:
        from langchain_chroma import Chroma

        if self.client is None:
            import chromadb
            from chromadb.config import Settings

            self._home = tempfile.TemporaryDirectory(prefix="filterproof-fuzz-sq-chroma-", ignore_cleanup_errors=True)
            self.client = chromadb.PersistentClient(self._home.name, Settings(anonymized_telemetry=False))
            self.store = Chroma("fuzz", _embeddings(self.table), client=self.client)
        if self.ids:
            self.store.delete(ids=self.ids)
        self.ids = list(docs)
        self.table.clear()
        self.table.update(vectors(self.ids))
        if self.ids:
            self.store.add_texts(self.ids, [dict(d) for d in docs.values()], ids=self.ids)

    def script(self, docs: Docs) -> Script:
        return Script(f"{SQ_IMPORTS}\nimport chromadb\nfrom langchain_chroma import Chroma\n"
                      "from langchain_community.query_constructors.chroma import ChromaTranslator\n"
                      "from langchain_core.embeddings import Embeddings", _shared_setup(self) + _CHROMA_SETUP,
                      "ask_selfquery")

    def close(self) -> None:
        self.store, self.ids, self.client = None, [], None
        if self._home is not None:
            self._home.cleanup()
            self._home = None


class SelfQueryMilvus(SelfQueryTarget):
    """``SelfQueryRetriever`` over ``langchain_milvus.Milvus`` on Milvus Lite (the dynamic field, FLAT, COSINE)."""

    name = "selfquery-milvus"
    packages = ("langchain-classic", "langchain-community", "langchain-milvus", "lark", "pymilvus", "milvus-lite")
    translator = "langchain_community.query_constructors.milvus:MilvusTranslator"
    store_module = "langchain_milvus"
    allows = Allows(ops=SAYABLE)
    two_valued = False

    def __init__(self) -> None:
        self.ids = []
        self.table: dict[str, list[float]] = {}
        self.lite: Any = None

    def load(self, docs: Docs) -> None:
        with _quiet_milvus():
            if self.store is None:
                self._open()
            elif self.ids:
                self.store.delete(expr='pk != ""')
            self.ids = list(docs)
            self.table.clear()
            self.table.update(vectors(self.ids))
            if self.ids:
                self.store.add_texts(self.ids, [dict(d) for d in docs.values()], ids=self.ids)

    def _open(self) -> None:
        from langchain_milvus import Milvus
        from pymilvus import connections

        from filterproof.adapters.milvus.lite import LiteDirectory

        self.lite = LiteDirectory(prefix="filterproof-fuzz-sq-milvus-")
        self.store = Milvus(_embeddings(self.table), collection_name="fuzz", connection_args={"uri": self.lite.path},
                            auto_id=False, enable_dynamic_field=True, consistency_level="Strong",
                            index_params={"index_type": "FLAT", "metric_type": "COSINE"})
        # pymilvus >= 2.6.10 registers no ORM alias for the store's client (langchain-milvus #130): as the bridge does.
        connections.connect(alias=self.store.alias, uri=self.lite.path)

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        with _quiet_milvus():
            return super().ask(source, via, indexed)

    def script(self, docs: Docs) -> Script:
        imports = ("import tempfile\nfrom langchain_community.query_constructors.milvus import MilvusTranslator\n"
                   "from langchain_core.embeddings import Embeddings\nfrom langchain_milvus import Milvus\n"
                   "from pymilvus import connections")
        return Script(f"{SQ_IMPORTS}\n{imports}", _shared_setup(self) + _MILVUS_SETUP, "ask_selfquery")

    def close(self) -> None:
        if self.store is not None:
            with contextlib.suppress(Exception), _quiet_milvus():
                from pymilvus import connections

                connections.disconnect(self.store.alias)
                self.store.client.close()
        self.store, self.ids = None, []
        if self.lite is not None:
            self.lite.remove()
            self.lite = None


class SelfQueryPgvector(SelfQueryTarget, LangChainPgvector):
    """``SelfQueryRetriever`` over ``langchain_postgres.PGVector``: the store, world and versions of the
    ``langchain-pgvector`` target, the retriever's rendering and search."""

    name = "selfquery-pgvector"
    packages = ("langchain-classic", "langchain-postgres", "lark", "sqlalchemy", "psycopg")
    translator = "langchain_postgres.translator:PGVectorTranslator"
    store_module = "langchain_postgres"
    # The translator admits contain, but PGVector refuses every $contain (a recorded finding, replayed from its
    # world): the generator leaves it out, so that the cases go to what the store answers.
    allows = LangChainPgvector.allows & Allows(ops=SAYABLE)

    def script(self, docs: Docs) -> Script:
        base = LangChainPgvector.script(self, docs)
        store = base.setup.split("\n\n\ndef ask_langchain", 1)[0].replace("lc_store", "store")
        store = store.replace("FakeEmbeddings(size=2)", "TableEmbeddings()")
        imports = base.imports.replace("from langchain_core.embeddings import FakeEmbeddings",
                                       "from langchain_core.embeddings import Embeddings")
        return Script(f"{SQ_IMPORTS}\n{imports}\nfrom langchain_postgres import PGVectorTranslator",
                      _shared_setup(self) + store + "\nTRANSLATOR = PGVectorTranslator()  # as SelfQueryRetriever "
                      "would pick it\n", "ask_selfquery")


@contextlib.contextmanager
def _quiet_milvus() -> Iterator[None]:
    """langchain-milvus's calls without pymilvus's ORM deprecation warnings and Lite's log lines."""
    for logger in ("pymilvus", "milvus_lite", "grpc._server"):
        logging.getLogger(logger).setLevel(logging.CRITICAL)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*ORM-style PyMilvus API")
        yield


def _shared_setup(target: SelfQueryTarget) -> str:
    comparators, operators = target.grammar()
    allowed_comparators = ", ".join(f"sq.Comparator.{c.upper()}" for c in sorted(comparators))
    allowed_operators = ", ".join(f"sq.Operator.{o.upper()}" for o in sorted(operators))
    return f'''
# The parser SelfQueryRetriever.from_llm builds for this store's translator (its allowed comparators and operators).
parser = StructuredQueryOutputParser.from_components(
    allowed_comparators=[{allowed_comparators}], allowed_operators=[{allowed_operators}])
VECTORS = {{**{{d: [1.0, 0.01 * (i + 1)] for i, d in enumerate(DOCS)}}, "q": [1.0, 0.0]}}


class TableEmbeddings(Embeddings):  # our vectors, no model
    def embed_documents(self, texts):
        return [VECTORS.get(t, [1.0, 0.0]) for t in texts]

    def embed_query(self, text):
        return VECTORS.get(text, [1.0, 0.0])


def ask_selfquery(query, via, indexed):
    """What SelfQueryRetriever returns when the model's answer is `query`, with k = every document."""
    if not DOCS:
        return set()
    k = len(DOCS)
    retriever = SelfQueryRetriever(query_constructor=RunnableLambda(lambda _: query), vectorstore=store,
                                   structured_query_translator=TRANSLATOR,
                                   search_type="mmr" if via == "mmr" else "similarity",
                                   search_kwargs={{"k": k, "fetch_k": k}} if via == "mmr" else {{"k": k}})
    return {{doc.page_content for doc in retriever.invoke("q")}}
'''


_QDRANT_SETUP = """

client = QdrantClient(":memory:")
client.create_collection("fuzz", vectors_config=models.VectorParams(size=2, distance=models.Distance.COSINE))
store = QdrantVectorStore(client, "fuzz", TableEmbeddings())
TRANSLATOR = QdrantTranslator(metadata_key=store.metadata_payload_key)  # as SelfQueryRetriever would pick it
if DOCS:
    store.add_texts(list(DOCS), [dict(d) for d in DOCS.values()],
                    ids=[str(uuid.uuid5(uuid.NAMESPACE_URL, d)) for d in DOCS])
"""

_CHROMA_SETUP = """

store = Chroma("fuzz", TableEmbeddings(), client=chromadb.EphemeralClient())
TRANSLATOR = ChromaTranslator()  # as SelfQueryRetriever would pick it
if DOCS:
    store.add_texts(list(DOCS), [dict(d) for d in DOCS.values()], ids=list(DOCS))
"""

_MILVUS_SETUP = """

store = Milvus(TableEmbeddings(), collection_name="fuzz", connection_args={"uri": tempfile.mkdtemp() + "/fuzz.db"},
               auto_id=False, enable_dynamic_field=True, consistency_level="Strong",
               index_params={"index_type": "FLAT", "metric_type": "COSINE"})
connections.connect(alias=store.alias, uri=store._connection_args["uri"])  # langchain-milvus #130
TRANSLATOR = MilvusTranslator()  # as SelfQueryRetriever would pick it
if DOCS:
    store.add_texts(list(DOCS), [dict(d) for d in DOCS.values()], ids=list(DOCS))
"""
