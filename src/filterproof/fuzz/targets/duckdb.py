"""DuckDB's filter language, SQL over typed columns (``duckdb-typed``), written by the shared SQL renderer.

Each field has a column of its kind, the same as ``pgvector-typed``'s (``s``, ``t`` ``text``; ``n`` ``bigint``;
``x`` ``double precision``; ``d`` ``date``; ``b`` ``boolean``; ``tags`` ``text[]``, ``nums`` ``bigint[]``, null
elements kept): a missing key or a null is NULL (``absent=False``), a value of another kind has no column
(``mixed=False``), and NUL is left out as for PostgreSQL (``nul=False``: DuckDB binds it, but the two SQL targets
are asked about the same worlds). The condition is ``adapters.duckdb.language``'s: the renderer PostgreSQL's
columns use, in DuckDB's dialect (``?`` placeholders, ``len`` for a list's length); every value is bound. SQL's
rule: three-valued logic (``two_valued = False``); ``(P) IS NULL`` selects the rows where a condition is unknown
(``says_unknown``).

The store: one in-memory database per target, two tables, ``docs`` and ``docs_indexed`` (the same rows, with an
ART index on every scalar column, which DuckDB uses for equality and ranges). ``ask`` runs a native filter through
three read paths: ``search`` (``ORDER BY`` the inner product with ``[1, 0]`` over every row), ``select`` and
``count``. The vector search of the ``duckdb`` backend's HNSW mode is the backend's and the suite's to judge, not
the filter language's.
"""

from __future__ import annotations

from typing import Any, ClassVar

from filterproof.adapters.duckdb.language import where
from filterproof.adapters.filterlang import Expr
from filterproof.adapters.pgvector.language import COLUMNS
from filterproof.fuzz.generate import BY_NAME, Allows
from filterproof.fuzz.target import Docs, Script, Target

KINDS = {name: field.kind for name, field in BY_NAME.items()}
FIELD_NAMES = tuple(BY_NAME)
TABLE = ("CREATE TABLE {t} (id VARCHAR PRIMARY KEY, embedding FLOAT[2] NOT NULL, "
         + ", ".join(f"{f.name} {COLUMNS[f.kind]}" for f in BY_NAME.values()) + ")")
INSERT = ("INSERT INTO {t} VALUES (?, ?, " + ", ".join(f"?::{COLUMNS[f.kind]}" for f in BY_NAME.values()) + ")")
INDEXES = tuple(f"CREATE INDEX {{t}}_{f.name} ON {{t}} ({f.name})" for f in BY_NAME.values()
                if not f.kind.endswith("list"))
ORDER = "ORDER BY array_inner_product(embedding, [1, 0]::FLOAT[2]) DESC"


def statement(via: str, table: str, condition: str) -> str:
    if via == "count":
        return f"SELECT count(*) FROM {table} WHERE {condition}"
    if via == "select":
        return f"SELECT id FROM {table} WHERE {condition}"
    if via == "search":
        return f"SELECT id FROM {table} WHERE {condition} {ORDER}"
    raise ValueError(f"unknown via {via!r}")


def rows(docs: Docs) -> list[tuple[Any, ...]]:
    """One row per document: its id, a vector with a distinct inner product with ``[1, 0]``, each field's value."""
    return [(doc_id, [1.0, 0.01 * (i + 1)], *(doc.get(name) for name in FIELD_NAMES))
            for i, (doc_id, doc) in enumerate(docs.items())]


class DuckDBTyped(Target):
    """A typed column per field, in DuckDB."""

    name = "duckdb-typed"
    packages = ("duckdb",)
    allows = Allows(absent=False, mixed=False, nul=False)
    two_valued = False
    says_unknown = True
    indexable = True
    vias: ClassVar[tuple[str, ...]] = ("search", "select", "count")
    engine_errors: ClassVar[tuple[type[BaseException], ...]] = (Exception,)  # as every built-in (Target)

    def __init__(self) -> None:
        self.conn: Any = None

    def namespace(self) -> dict[str, Any]:
        """Nothing: the source is plain literals. duckdb is imported here, so that ``installed()`` sees it missing."""
        import duckdb  # noqa: F401

        return {}

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return repr(where(expr, KINDS))

    def render_unknown(self, expr: Expr, spelling: int = 0) -> str:
        condition, params = self.native(self.render(expr, spelling))
        return repr((f"({condition}) IS NULL", params))

    def load(self, docs: Docs) -> None:
        import duckdb

        if self.conn is None:
            self.conn = duckdb.connect()
            for table, indexes in (("docs", ()), ("docs_indexed", INDEXES)):
                self.conn.execute(TABLE.format(t=table))
                for index in indexes:
                    self.conn.execute(index.format(t=table))
        for table in ("docs", "docs_indexed"):
            self.conn.execute(f"DELETE FROM {table}")
            if docs:
                self.conn.executemany(INSERT.format(t=table), rows(docs))

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        condition, params = self.native(source)
        found = self.conn.execute(statement(via, "docs_indexed" if indexed else "docs", condition), params)
        if via == "count":
            return {f"#{i}" for i in range(int(found.fetchone()[0]))}
        return {str(row[0]) for row in found.fetchall()}

    def script(self, docs: Docs) -> Script:
        p = self.slug
        setup = _SETUP.format(p=p, table=TABLE, insert=INSERT, indexes=INDEXES, fields=FIELD_NAMES, order=ORDER,
                              name=self.name)
        return Script("import duckdb", setup, f"ask_{p}")

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


_SETUP = '''
# {name}: DuckDB in memory, a typed column per field; "docs_indexed" holds the same rows with ART indexes.
{p}_conn = duckdb.connect()
{p}_rows = [(doc_id, [1.0, 0.01 * (i + 1)], *(doc.get(name) for name in {fields!r}))
            for i, (doc_id, doc) in enumerate(DOCS.items())]
for {p}_table, {p}_indexes in (("docs", ()), ("docs_indexed", {indexes!r})):
    {p}_conn.execute({table!r}.format(t={p}_table))
    for {p}_index in {p}_indexes:
        {p}_conn.execute({p}_index.format(t={p}_table))
    if {p}_rows:
        {p}_conn.executemany({insert!r}.format(t={p}_table), {p}_rows)


def ask_{p}(native, via, indexed):
    where, params = native
    table = "docs_indexed" if indexed else "docs"
    if via == "count":
        return {{f"#{{i}}" for i in range({p}_conn.execute(f"SELECT count(*) FROM {{table}} WHERE {{where}}",
                                                          params).fetchone()[0])}}
    order = "" if via == "select" else " {order}"
    found = {p}_conn.execute(f"SELECT id FROM {{table}} WHERE {{where}}{{order}}", params).fetchall()
    return {{row[0] for row in found}}
'''
