"""``haystack-pgvector``: Haystack's filter dicts through pgvector-haystack's ``PgvectorDocumentStore``, on a
PostgreSQL server with pgvector, in a database of its own: what an application built on Haystack hands its Postgres
store, turned into SQL over the ``meta`` JSONB column by the integration's ``filters.py``.

A finding here is the integration's translation (``pgvector-jsonb`` fuzzes SQL over a JSON document directly); in
the ``haystack`` family the fuzzer diffs it with ``haystack-memory``, Haystack's own semantics. What
pgvector-haystack 8.1.2 does, read from its ``filters.py`` and measured, written down once:

* a comparison reads the key as text, ``meta->>'k'``, cast by the *Python type of the compared value* (of an
  ``in`` list's first element): ``::integer`` (int4) for an int, ``::real`` (float4) for a float, ``::boolean`` for
  a bool, no cast for a string; the value is a bound parameter (no quoting problem). So the cast runs on every row:
  one document whose field holds what the type cannot read (an integer past 2^31, a float in an integer
  comparison, a text, 1e300 as a real) fails the whole query, a float is compared rounded to float4 (``x > 0.1``
  selects x = 0.1), and a string value compares the field's text (``n == "7"`` selects n = 7);
* ``==`` is ``=``, ``!=`` is ``IS DISTINCT FROM``, ``in`` is ``= ANY(%s)``, ``not in`` is ``(IS NULL OR != ALL(%s))``:
  a missing or null field is selected by ``!=`` and ``not in``, as Haystack reads it (None); an empty ``in`` selects
  nothing and an empty ``not in`` everything, as Haystack's;
* AND and OR are SQL's; NOT is no operator of its (``FilterError: Unknown logical operator 'NOT'``), so negation is
  pushed to the leaves as a user of this store must write it, where Haystack's semantics make that exact: ``not ==``
  is ``!=`` and ``not in`` is ``not in`` (``haystack.utils.filters`` defines each as the other's ``not``), AND and OR
  swap (De Morgan, two-valued); a negated range has no form (``not x > 1`` selects a document without ``x``,
  ``x <= 1`` does not);
* it refuses an AND or OR of no conditions (``'conditions' must not be empty``; Haystack reads them as all/any) and
  psycopg a list of values of more than one Python type (``cannot dump lists of mixed types``; int and float
  too): neither has a form here.

PostgreSQL's JSONB refuses U+0000 (``Allows(nul=False)``). With negation at the leaves and ``!=``/``not in``
selecting a missing field, the target is two-valued. Vias: ``search`` (``PgvectorEmbeddingRetriever``, exact
nearest neighbours, top_k = every document), ``filter`` and ``count`` (``count_documents_by_filter``).
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

from filterproof.adapters.bridges.options import DSN_ENV
from filterproof.adapters.filterlang import And, Cond, Expr, Or, Unsupported
from filterproof.fuzz.generate import Allows
from filterproof.fuzz.target import Docs, Script
from filterproof.fuzz.targets.haystack import ASK_SCRIPT, DOCUMENTS_SCRIPT, HaystackTarget
from filterproof.fuzz.targets.haystack_dicts import COMPARISONS, Filter, condition, logic, pushed

NAME = "haystack-pgvector"


def pgvector_filter(expr: Expr) -> Filter:
    """``expr`` as a Haystack filter dict pgvector-haystack accepts: no NOT, no empty AND/OR, lists of one type."""
    return _node(pushed(expr, NAME, "pgvector-haystack"))


def pgvector_source(expr: Expr) -> str:
    return repr(pgvector_filter(expr))


def _node(expr: Expr) -> Filter:
    if isinstance(expr, Cond):
        return leaf(expr)
    if not isinstance(expr, And | Or):
        raise TypeError(f"{NAME}: not in negation normal form: {expr!r}")
    if not expr.parts:  # Haystack reads them as all([]) / any([]); the integration raises FilterError
        raise Unsupported(f"{NAME}: pgvector-haystack refuses an AND or OR of no conditions")
    return logic("AND" if isinstance(expr, And) else "OR", [_node(p) for p in expr.parts])


def leaf(c: Cond) -> Filter:
    # psycopg adapts a list as an array of one type: [1, 0.5] and [1, True] are refused before the query runs
    if c.op in ("in", "nin") and len({type(v) for v in c.value}) > 1:
        raise Unsupported(f"{NAME}: psycopg sends an in/not in list of one Python type only")
    return condition(c, NAME)


class HaystackPgvector(HaystackTarget):
    """``PgvectorDocumentStore`` and ``PgvectorEmbeddingRetriever`` on the ``pgvector`` backend's server (or
    ``$PGVECTOR_DSN``), in a database of its own (``bridges.pgvector.Database``), dropped on close."""

    name = NAME
    packages = ("haystack-ai", "pgvector-haystack", "psycopg")
    allows = Allows(nul=False, ops=tuple(COMPARISONS))  # JSONB refuses U+0000
    spellings = 1  # no NOT to spell two ways
    equivalent: ClassVar[tuple[int, ...]] = ()

    def __init__(self) -> None:
        super().__init__()
        self.database: Any = None

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return pgvector_source(expr)

    def namespace(self) -> dict[str, Any]:
        """Nothing: the source is a dict literal. The integration is imported and, without ``$PGVECTOR_DSN``, the
        bundled PostgreSQL looked for, so that ``installed()`` leaves the target out where it cannot run."""
        from haystack_integrations.document_stores.pgvector import PgvectorDocumentStore  # noqa: F401

        if not os.environ.get(DSN_ENV):
            from filterproof.errors import BackendUnavailable
            from filterproof.servers.postgres import pg_bin

            try:
                pg_bin()
            except BackendUnavailable as error:
                raise ImportError(str(error)) from error
        return {}

    def open_store(self) -> tuple[Any, Any]:
        from haystack.utils import Secret
        from haystack_integrations.components.retrievers.pgvector import PgvectorEmbeddingRetriever
        from haystack_integrations.document_stores.pgvector import PgvectorDocumentStore

        from filterproof.adapters.bridges.pgvector import Database, libpq_dsn

        self.database = Database(libpq_dsn(None))  # BackendUnavailable (a UsageError) when no server can be had
        store = PgvectorDocumentStore(connection_string=Secret.from_token(self.database.dsn), table_name="fuzz",
                                      embedding_dimension=2, vector_function="cosine_similarity",
                                      search_strategy="exact_nearest_neighbor")
        return store, PgvectorEmbeddingRetriever(document_store=store)

    def empty(self) -> None:
        self.store.delete_all_documents()

    def versions(self) -> dict[str, str]:
        """The packages, and the server's PostgreSQL and pgvector (once a world was loaded)."""
        found = super().versions()
        return found if self.database is None else {**found, **self.database.versions()}

    def script(self, docs: Docs) -> Script:
        return Script("import atexit\nimport os\nimport sys\nimport uuid", _SETUP, "ask_haystack_pgvector")

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
        if self.database is not None:
            self.database.drop()
            self.database = None
        self.store = self.retriever = None
        self.ids = []


_SETUP = f"""
# {NAME}: PostgreSQL with pgvector at $PGVECTOR_DSN (a libpq connection string or URI), a table of its own,
# dropped at exit.
if not os.environ.get("PGVECTOR_DSN"):
    print("set PGVECTOR_DSN to a PostgreSQL server with pgvector", file=sys.stderr)
    sys.exit(2)
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no network: read when haystack is first imported
from haystack import Document  # noqa: E402
from haystack.utils import Secret  # noqa: E402
from haystack_integrations.components.retrievers.pgvector import PgvectorEmbeddingRetriever  # noqa: E402
from haystack_integrations.document_stores.pgvector import PgvectorDocumentStore  # noqa: E402

hs_pgvector = PgvectorDocumentStore(connection_string=Secret.from_token(os.environ["PGVECTOR_DSN"]),
                                    table_name="repro_" + uuid.uuid4().hex[:12], embedding_dimension=2,
                                    vector_function="cosine_similarity", search_strategy="exact_nearest_neighbor")
{DOCUMENTS_SCRIPT}
hs_pgvector.write_documents(hs_documents)
atexit.register(hs_pgvector.delete_table)
hs_pgvector_retriever = PgvectorEmbeddingRetriever(document_store=hs_pgvector)
""" + ASK_SCRIPT.format(name="haystack_pgvector", store="hs_pgvector", retriever="hs_pgvector_retriever")
