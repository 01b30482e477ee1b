"""A SQLite store as a company might have one: rows of JSON metadata and vector blobs.

The policy is compiled into one SQL ``WHERE`` over the raw JSON, with SQLite's JSON
functions (SQLite 3.38 or later, for ``->``). The interesting part is that SQL is
permissive where the policy is strict: ``1.0 = 1`` is true in SQL; ``date()`` takes
``'2026-02-30'`` and ``'0000-01-01'`` as they are (only a modifier makes it roll the
first over to ``'2026-03-02'``); a missing key reads as NULL; and ``json_extract``
stops at a NUL character, so ``"acme\\u0000evil"`` reads as ``'acme'``. So every
clause checks the JSON type first, dates must survive ``date(value, '+0 days')``
unchanged and lie in years 0001-9999 (as Python's ``date`` does), identity strings are
checked for an escaped NUL in their JSON text, and groups must be a non-empty array of
strings. ``json.dumps`` writes an emoji as the escaped surrogate pair ``\\ud83d\\ude00``, the
same text as two lone surrogates (malformed), which ``json_extract`` decodes into the
emoji: metadata is written with every valid character as itself, and an identity whose
JSON text holds an escaped surrogate is malformed. Vectors are scored with numpy over the rows the filter admits.

The database is a file (``sqlite_path``, or a temporary one removed by ``close()``), so
that the store has a second client. A file given may be a company's own: the adapter writes
only into a ``docs`` table it created, which its marker row in ``filterproof_owned`` says
(``filterproof.adapters.ownership``); another ``docs`` is refused before anything is written,
unless ``replace=true``. ``open_reader()`` is another connection to the file,
``reader_spec()`` what a child process opens to do the same. SQLite commits each write
before it returns and every statement of another connection reads what was committed
before it began, so the adapter declares ``staleness_bound_s=0``. ``open_writer()`` is
another connection that writes; a search ends its transaction, whose lock on the file
would hold off the other connection's writes. Each connection
keeps its own TEMP tables of the active map and the asked groups, so each call holds the
adapter's lock (``@locked``): threads that share one client take turns.

    filterproof compare fixtures/freshness-lab.json --backend sqlite-example
    pytest --pyargs filterproof.conformance --backend sqlite-example
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
import threading
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from filterproof.adapters.base import Capabilities, Hit, ReaderSpec, Record
from filterproof.adapters.locking import locked
from filterproof.adapters.ownership import Marker, claim
from filterproof.errors import NoSecondClient, UsageError
from filterproof.policy import PolicyFilter, calendar_day, matchable

OWNED = "CREATE TABLE IF NOT EXISTS filterproof_owned (tbl TEXT PRIMARY KEY, marker TEXT NOT NULL)"
"""Where the marker of each table this adapter created is kept (SQLite has no table comments)."""
SCHEMA = """
CREATE TABLE docs (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE NOT NULL,
                   vector BLOB NOT NULL, meta TEXT NOT NULL);
CREATE TEMP TABLE active (tenant TEXT, logical_id TEXT, revision INTEGER,
                          PRIMARY KEY (tenant, logical_id));
CREATE TEMP TABLE asked (grp TEXT PRIMARY KEY);
"""

ISO_DATE = "'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'"


def text_field(name: str) -> str:
    return f"json_type(meta, '$.{name}') = 'text'"


def strict_date(name: str) -> str:
    """A YYYY-MM-DD string that a date modifier gives back unchanged (so 2026-02-30 is rejected), year 0001+."""
    value = f"json_extract(meta, '$.{name}')"
    return (f"({text_field(name)} AND {value} GLOB {ISO_DATE} AND date({value}, '+0 days') = {value}"
            f" AND {value} >= '0001-01-01')")


def no_nul(name: str) -> str:
    """The field's JSON text holds no escaped NUL (``\\u0000``); escaped backslashes are dropped first,
    so a literal backslash followed by ``u0000`` is not mistaken for one."""
    return rf"instr(replace(meta -> '$.{name}', '\\', ''), '\u0000') = 0"


def no_surrogate(name: str) -> str:
    """The field's JSON text holds no escaped surrogate (``\\ud83d``): ``stored_json`` writes every valid
    character as itself, so an escaped surrogate is a lone one, and malformed, even where two of them make a pair
    that ``json_extract`` decodes into an emoji."""
    return rf"NOT (lower(replace(meta -> '$.{name}', '\\', '')) GLOB '*\ud[89abcdef]*')"


def stored_json(metadata: Mapping[str, Any]) -> str:
    """Metadata as JSON text with every valid character written as itself (``json.dumps``' default writes an emoji
    as the surrogate pair ``\\ud83d\\ude00``, the same text as two lone surrogates, which are malformed) and
    each lone surrogate escaped (it cannot be encoded as UTF-8)."""
    return json.dumps(dict(metadata), ensure_ascii=False).encode("utf-8", "backslashreplace").decode("utf-8")


POLICY_WHERE = f"""
    {text_field('tenant')} AND json_extract(meta, '$.tenant') = :tenant
    AND instr(json_extract(meta, '$.tenant'), '/') = 0
    AND {text_field('status')} AND json_extract(meta, '$.status') = 'active'
    AND {text_field('logical_id')}
    AND {no_nul('tenant')} AND {no_nul('status')} AND {no_nul('logical_id')} AND {no_nul('groups')}
    AND {no_surrogate('tenant')} AND {no_surrogate('status')} AND {no_surrogate('logical_id')}
    AND {no_surrogate('groups')}
    AND json_type(meta, '$.revision') = 'integer'
    AND EXISTS (SELECT 1 FROM active a WHERE a.tenant = json_extract(meta, '$.tenant')
                AND a.logical_id = json_extract(meta, '$.logical_id')
                AND a.revision = json_extract(meta, '$.revision'))
    AND json_type(meta, '$.groups') = 'array' AND json_array_length(meta, '$.groups') > 0
    AND NOT EXISTS (SELECT 1 FROM json_each(meta, '$.groups') g WHERE g.type != 'text')
    AND EXISTS (SELECT 1 FROM json_each(meta, '$.groups') g JOIN asked q ON q.grp = g.value)
    AND {strict_date('valid_from')} AND json_extract(meta, '$.valid_from') <= :as_of
    AND (json_type(meta, '$.valid_until') IS NULL OR json_type(meta, '$.valid_until') = 'null'
         OR ({strict_date('valid_until')} AND :as_of < json_extract(meta, '$.valid_until')))
"""


class SqliteAdapter:
    name = "sqlite-example"
    capabilities = Capabilities(native_filter=True, exact=True, persistent=False, lifecycle=True,
                                staleness_bound_s=0.0)

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        self.path = (options or {}).get("sqlite_path")
        if self.path is None:  # a file of our own, so that other connections (readers) can open it
            directory = tempfile.mkdtemp(prefix="filterproof-sqlite-")
            weakref.finalize(self, shutil.rmtree, directory, True)
            self.path = f"{directory}/store.db"
        self._replace = str((options or {}).get("replace", "false")).lower() == "true"
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        # One call at a time: a search loads the asked groups into a TEMP table of the connection, then queries;
        # two threads sharing this client would each query with the other's groups.
        self._lock = threading.RLock()
        self._dim = 0
        self._active_digest: str | None = None
        try:
            self._claim()
        except sqlite3.DatabaseError as error:  # the file is not a SQLite database
            self._db.close()
            raise UsageError(f"{self.name}: {self.path} cannot be used: {error}") from None

    def _claim(self) -> None:
        """Refuse a ``docs`` table of the file that this adapter's marker row does not name."""
        exists = self._db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'docs'").fetchone()
        owned = self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'filterproof_owned'").fetchone()
        mark = owned and self._db.execute("SELECT marker FROM filterproof_owned WHERE tbl = 'docs'").fetchone()
        claim(self.name, f"table 'docs' in {self.path}", exists=bool(exists), mark=mark[0] if mark else None,
              replace=self._replace, instead="another sqlite_path")

    @locked
    def reset(self, dim: int) -> None:
        self._claim()
        self._db.executescript("DROP TABLE IF EXISTS docs; DROP TABLE IF EXISTS temp.active;"
                               " DROP TABLE IF EXISTS temp.asked;" + SCHEMA + ";" + OWNED)
        self._db.execute("INSERT OR REPLACE INTO filterproof_owned VALUES ('docs', ?)",
                         (Marker.new(temporary=False).text(),))
        self._db.commit()
        self._dim, self._active_digest = dim, None

    @locked
    def upsert(self, records: Sequence[Record]) -> None:
        for r in records:
            if np.shape(r.vector) != (self._dim,):
                raise ValueError(f"{r.id}: vector of shape {np.shape(r.vector)}, the index takes ({self._dim},)")
        rows = [(r.id, np.asarray(r.vector, dtype=np.float32).tobytes(), stored_json(r.metadata))
                for r in records]
        # Replace in place, keeping the row's insertion sequence for tie order.
        self._db.executemany("INSERT INTO docs (id, vector, meta) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE "
                             "SET vector = excluded.vector, meta = excluded.meta", rows)
        self._db.commit()

    @locked
    def delete(self, ids: Sequence[str]) -> None:
        self._db.executemany("DELETE FROM docs WHERE id = ?", [(i,) for i in ids])
        self._db.commit()

    @locked
    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        self._db.execute("UPDATE docs SET meta = ? WHERE id = ?", (stored_json(metadata), id))
        self._db.commit()

    def _load_policy(self, where: PolicyFilter) -> None:
        if self._active_digest != where.active.digest:
            self._db.execute("DELETE FROM active")
            # Entries no document can hold (a NUL, a lone surrogate, which SQLite cannot even take) match nothing.
            self._db.executemany("INSERT INTO active VALUES (?, ?, ?)",
                                 [(t, logical, rev) for (t, logical), rev in where.active.items()
                                  if matchable(t) and matchable(logical)])
            self._active_digest = where.active.digest
        self._db.execute("DELETE FROM asked")
        self._db.executemany("INSERT OR IGNORE INTO asked VALUES (?)",
                             [(g,) for g in where.principal.groups if matchable(g)])

    @locked
    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        if where is not None:
            calendar_day(where.as_of)  # a datetime, ISO text or a number raises TypeError, as the policy does
        if where is None:
            rows = self._db.execute("SELECT id, vector FROM docs ORDER BY seq").fetchall()
        elif not matchable(where.principal.tenant):
            return []  # a tenant no document can hold
        else:
            self._load_policy(where)
            rows = self._db.execute(f"SELECT id, vector FROM docs WHERE {POLICY_WHERE} ORDER BY seq",
                                    {"tenant": where.principal.tenant, "as_of": where.as_of.isoformat()}).fetchall()
            # End the transaction the TEMP writes began: open, it holds the file's shared lock, and another
            # connection's next write waits on it until "database is locked" (found by the two-clients check).
            self._db.commit()
        if not rows or k <= 0:
            return []
        matrix = np.frombuffer(b"".join(v for _, v in rows), dtype=np.float32).reshape(len(rows), self._dim)
        norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(vector) or 1.0)
        # Row by row, not `matrix @ vector`: OpenBLAS's small float32 products can raise a spurious "invalid value"
        # flag (numpy#24067), a RuntimeWarning now and then on finite vectors.
        products = (matrix * np.asarray(vector, np.float32)).sum(axis=1)
        scores = np.divide(products, norms, out=np.zeros(len(rows)), where=norms > 0)
        best = np.lexsort((np.arange(len(rows)), -scores))[:k]
        return [Hit(rows[i][0], float(scores[i])) for i in best]

    @locked
    def close(self) -> None:
        self._db.close()

    def reader_spec(self) -> ReaderSpec:
        if not self._dim:
            raise NoSecondClient("sqlite-example: call reset(dim) before opening a reader")
        return ReaderSpec(self.name, f"{__name__}:SqliteReader", {"sqlite_path": self.path, "dim": self._dim})

    def open_reader(self) -> SqliteReader:
        return SqliteReader(self.reader_spec().options)

    def open_writer(self) -> SqliteWriter:
        return SqliteWriter(self.reader_spec().options)

    def writer_spec(self) -> ReaderSpec:
        """The same writer, opened in another process: SQLite's file lock serializes its writes with ours."""
        return ReaderSpec(self.name, f"{__name__}:SqliteWriter", self.reader_spec().options)


class SqliteReader(SqliteAdapter):
    """Another connection to the writer's file: the same ``search``, its own TEMP tables; it never writes."""

    name = "sqlite-example-reader"

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.path, self._dim, self._active_digest = options["sqlite_path"], int(options["dim"]), None
        # Autocommit: the writes to its TEMP tables would otherwise open a transaction that keeps a read lock
        # on the file until the next commit, and the writer's next commit fails ("database is locked").
        self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False,
                                   isolation_level=None)
        self._lock = threading.RLock()
        self._db.executescript(SCHEMA.split(";", 1)[1])  # the TEMP tables only

    def reset(self, dim: int) -> None:
        raise NoSecondClient("a reader does not write")

    upsert = delete = update_metadata = reset  # type: ignore[assignment]


class SqliteWriter(SqliteAdapter):
    """Another connection to the writer's file that writes (``open_writer``): the same writes and ``search``, its
    own TEMP tables. It never resets the table, and closing it leaves the file."""

    name = "sqlite-example-writer"

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.path, self._dim, self._active_digest = options["sqlite_path"], int(options["dim"]), None
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        self._lock = threading.RLock()
        self._db.executescript(SCHEMA.split(";", 1)[1])  # the TEMP tables only

    def reset(self, dim: int) -> None:
        raise NoSecondClient("a second writer does not reset the table; the first one does")
