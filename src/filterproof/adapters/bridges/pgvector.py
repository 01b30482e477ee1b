"""What ``langchain-pgvector`` and ``llamaindex-pgvector`` share: a database, its URLs, a PGVector filter.

``langchain_postgres.PGVector`` (JSONB ``cmetadata``, its ``$``-operator filter dict)
and LlamaIndex's ``PGVectorStore`` (``metadata_`` JSON, ``MetadataFilters`` rendered as
SQL text), each on a database of the ``pgvector`` backend's kind: option ``dsn`` or
``$PGVECTOR_DSN`` (libpq ``key=value`` form), else the throwaway server of
``filterproof.servers.postgres`` (the ``pgvector`` backend, issue 11: until it is
installed, these bridges need a DSN and say so). Each adapter works in a collection
or table of its own, dropped on close.

The adapters live with their framework's others (``langchain_stores``, ``llamaindex_stores``),
so that each needs only its own extra. Both store the flat encoding (``flat.node_metadata``:
dates as integers, our id in ``fp_id``); groups differ: ``PGVector`` has no operator that looks inside a
JSON list (its ``$in`` compares the field's text) and takes only identifiers as keys,
so one key per group, ``fp_group_<hex of the UTF-8 name>``, and an OR of equalities;
``PGVectorStore`` has ANY (``?|`` on the JSON array), so a list.
Scores: both return the cosine distance (cosine = 1 - distance; LlamaIndex already
reports 1 - distance), and LangChain's relevance function for COSINE is 1 - distance.
"""

from __future__ import annotations

import os
import uuid
from typing import Any
from urllib.parse import quote

from filterproof.adapters.bridges.flat import group_key
from filterproof.adapters.bridges.options import DSN_ENV
from filterproof.adapters.chroma.limits import KEYS_PER_FILTER
from filterproof.adapters.chroma.where import (
    KEY,
    NEVER,
    STATUS,
    TENANT,
    VALID_FROM,
    VALID_UNTIL,
)
from filterproof.adapters.datecodec import date_int
from filterproof.adapters.encoding import slices
from filterproof.adapters.pgvector.limits import refusal
from filterproof.adapters.revisions import active_keys
from filterproof.errors import BackendUnavailable
from filterproof.policy import ACTIVE_STATUS, PolicyFilter, matchable


def libpq_dsn(given: str | None) -> str:
    """The DSN to use: the option, the environment, or the ``pgvector`` backend's shared server."""
    dsn = given or os.environ.get(DSN_ENV)
    if dsn:
        return dsn
    try:
        from filterproof.servers.postgres import shared_server  # the pgvector backend (issue 11)
    except ImportError:
        raise BackendUnavailable(f"the pgvector bridges need a server: set {DSN_ENV} or -o dsn=... "
                                 "(or install filterproof with the pgvector backend)") from None
    return shared_server().dsn


class Database:
    """A database of our own on the server (a fresh name, marked as filterproof's), dropped on close.

    langchain-postgres keeps every collection in one table whose vector width is fixed by
    the first collection, with the document id as the primary key across collections (a
    document re-added under the same id in another collection overwrites the first one's
    row and stays in the first collection: langchain-postgres #139, langchain #31613), and
    LlamaIndex's tables are per name: a database per adapter keeps runs apart.
    """

    def __init__(self, dsn: str) -> None:
        import psycopg

        from filterproof.adapters.ownership import Marker
        from filterproof.adapters.pgvector.owned import mark

        self.name = f"fp_{uuid.uuid4().hex[:16]}"
        self._admin = dsn
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{self.name}"')
            mark(connection, "DATABASE", self.name, Marker.new(temporary=True))  # what `filterproof clean` finds
        self.dsn = " ".join(item for item in dsn.split() if not item.startswith("dbname=")) + f" dbname={self.name}"
        with psycopg.connect(self.dsn, autocommit=True) as connection:
            connection.execute("CREATE EXTENSION IF NOT EXISTS vector")

    def drop(self) -> None:
        import psycopg

        with psycopg.connect(self._admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')

    def versions(self) -> dict[str, str]:
        """The server's PostgreSQL and pgvector versions, for a fuzz report."""
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as connection:
            server = str(connection.execute("SHOW server_version").fetchone()[0])  # type: ignore[index]
            row = connection.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
        return {"postgresql": server, "pgvector": str(row[0]) if row else "not created"}


class OwnDatabase:
    """What the bridges over PostgreSQL share: a database of their own per store (``Database``), on the server their
    ``dsn`` option, ``$PGVECTOR_DSN`` or the throwaway one names (``libpq_dsn``), dropped when the store is."""

    options: Any

    def _open_server(self) -> None:
        self._dsn = libpq_dsn(self.options.dsn)
        self._database: Database | None = None

    def _new_database(self) -> Database:
        """A fresh database, the previous one dropped."""
        self._drop_database()
        self._database = Database(self._dsn)
        return self._database

    def _drop_database(self) -> None:
        if self._database is not None:
            self._database.drop()
            self._database = None


def close_pgvectorstore(store: Any) -> None:
    """Close LlamaIndex's ``PGVectorStore``: its ``close`` is a coroutine (it disposes the sync and async engines),
    which, called bare, never runs and leaves the pool's connections open."""
    import asyncio
    import inspect

    closing = store.close()
    if inspect.isawaitable(closing):
        asyncio.run(closing)  # type: ignore[arg-type]


def sqlalchemy_url(dsn: str, driver: str) -> str:
    """``host=h port=p user=u dbname=d password=w`` -> ``postgresql+driver://u:w@h:p/d`` (Unix socket: ``?host=``)."""
    parts = dict(item.split("=", 1) for item in dsn.split())
    user, password = parts.get("user", "postgres"), parts.get("password")
    # quoted: a password holding @, / or : would otherwise end the credentials early (SQLAlchemy unquotes them)
    credentials = quote(user, safe="") + (f":{quote(password, safe='')}" if password else "")
    host, port, database = parts.get("host", "localhost"), parts.get("port", "5432"), parts.get("dbname", user)
    if host.startswith("/"):
        return f"postgresql+{driver}://{credentials}@/{database}?host={host}&port={port}"
    return f"postgresql+{driver}://{credentials}@{host}:{port}/{database}"


# -- the policy as langchain-postgres's filter dict (pure) ---------------------------


def id_refusal(doc_id: str) -> str | None:
    """Why the frameworks' PostgreSQL tables cannot hold this document id (they store it as given, as a
    ``VARCHAR`` key): a NUL, which PostgreSQL text cannot hold (the write fails, with its batch), or a btree
    entry too long. None: it can."""
    if "\x00" in doc_id:
        return "its id holds NUL, which PostgreSQL text cannot hold (the write would fail with its batch)"
    return refusal({"id": doc_id})


def _eq(key: str, value: Any) -> dict[str, Any]:
    return {key: {"$eq": value}}


def _join(operator: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    return parts[0] if len(parts) == 1 else {operator: parts}


def pgvector_filters(where: PolicyFilter) -> list[dict[str, Any]]:
    """The policy as ``PGVector`` filters, one per slice of ``KEYS_PER_FILTER`` active keys (langchain-postgres binds
    each value as a parameter, and PostgreSQL takes at most 65,535 a statement); the bridge merges the answers."""
    keys = active_keys(where.active, where.principal.tenant)
    return [pgvector_filter(where, part) for part in slices(keys, KEYS_PER_FILTER) or [[]]]


def pgvector_filter(where: PolicyFilter, keys: list[str]) -> dict[str, Any]:
    """The whole policy, with these active ``keys``, as one ``PGVector`` filter; never an empty ``$in`` or ``$or``
    (a key nobody has instead)."""
    tenant = where.principal.tenant
    if len(keys) > KEYS_PER_FILTER:
        raise ValueError(f"{len(keys)} active keys: langchain-pgvector takes at most {KEYS_PER_FILTER} in one filter")
    groups = [g for g in dict.fromkeys(where.principal.groups) if matchable(g)]
    return {"$and": [
        _eq(TENANT, tenant) if matchable(tenant) else _eq(NEVER, 1), _eq(STATUS, ACTIVE_STATUS),
        {KEY: {"$in": keys}} if keys else _eq(NEVER, 1),
        _join("$or", [_eq(group_key(g), 1) for g in groups]) if groups else _eq(NEVER, 1),
        {VALID_FROM: {"$lte": date_int(where.as_of)}}, {VALID_UNTIL: {"$gt": date_int(where.as_of)}},
    ]}
