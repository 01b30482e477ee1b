"""The policy as typed PostgreSQL columns and one ``WHERE`` with bound parameters: the encoding and its compiler.

Filtering on the fixture's JSON as given would not be safe. JSONB is lax where the
policy is strict: ``'"eng"'::jsonb ? 'eng'`` is true (a groups *string* matches like
a list), ``'2026-02-30'::date`` raises and aborts the whole query, ``date`` accepts
year 0, and ``1.0 = 1``. So ``stored_row`` classifies each document once, at upsert,
with ``policy.structural_problem``, and writes typed columns:

============ =========== ============================================ =============================
column       type        stored value (well-formed documents)         clause
============ =========== ============================================ =============================
tenant       text        tenant                                       ``tenant = %s``
status       text        status                                       ``status = %s`` ('active')
revision_key text        ``tenant/logical_id#revision``               ``revision_key = ANY(%s)``
groups       text[]      the groups, non-empty                        ``groups && %s`` (overlap)
valid_from   date        valid_from                                   ``valid_from <= %s``
valid_until  date        valid_until, ``'infinity'`` when open-ended  ``valid_until > %s``
problem      text        NULL (malformed: why)                        never filtered on
metadata     json        the metadata as given (``adapters.raw``)     never filtered on
is_current   boolean     ``revision=flag`` only: the active revision  ``is_current IS TRUE``
logical_key  text        ``revision=flag`` only: tenant/logical_id    (rewrites the flags)
============ =========== ============================================ =============================

Fail closed: a malformed document gets NULL in every filtered column, and every
clause is a comparison that is NULL (not true) on a NULL column, so it can match no
principal. An open end is ``'infinity'``, not NULL, so the ``valid_until`` clause
needs no ``OR ... IS NULL`` that a malformed row could slip through. Revisions are only
compared inside the key, so ``True``/``1.0`` (malformed anyway) never equal ``1``.

PostgreSQL text cannot hold NUL, nor can UTF-8 hold a lone surrogate, both of which a
JSON string can. ``pg_text`` writes every stored and every compared string through one
injective escape (``adapters.textcodec``), so equality is preserved exactly and no value
is ever rejected by the server or the driver.

Every value reaches the server as a bound parameter; the SQL text holds only the
column names below and ``%s`` placeholders, whatever the metadata or the principal.
Each clause is a neutral condition (``adapters.filterlang``) written by PostgreSQL's one
renderer, ``language.typed_condition``, over the column kinds in ``FIELDS`` (a date is
bound as its ISO text and cast, ``%s::date``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from filterproof.adapters import revisions, textcodec
from filterproof.adapters.filterlang import Cond
from filterproof.adapters.pgvector.language import typed_condition
from filterproof.adapters.raw import raw_json
from filterproof.adapters.revisions import logical_key, revision_key
from filterproof.policy import ACTIVE_STATUS, ActiveRevisions, PolicyFilter, Principal, calendar_day, parse_date
from filterproof.policy import structural_problem as find_problem

TENANT, STATUS, KEY, GROUPS = "tenant", "status", "revision_key", "groups"
VALID_FROM, VALID_UNTIL, PROBLEM, METADATA = "valid_from", "valid_until", "problem", "metadata"
CURRENT, LID = "is_current", "logical_key"
"""``revision=flag`` only: whether the row is its tenant/logical_id's active revision (NULL in query mode
and on malformed rows), and ``tenant/logical_id``, by which ``set_active_revisions`` rewrites the flags."""
STORED_COLUMNS = (TENANT, STATUS, KEY, GROUPS, VALID_FROM, VALID_UNTIL, PROBLEM, METADATA, CURRENT, LID)
"""The columns ``stored_row`` fills, in order (beside ``id`` and ``embedding``)."""
COLUMN_TYPES = ("text", "text", "text", "text[]", "date", "date", "text", "json NOT NULL", "boolean", "text")
FIELDS = {TENANT: "text", STATUS: "text", KEY: "text", GROUPS: "text_list", VALID_FROM: "date", VALID_UNTIL: "date"}
"""The kind of each filtered column, by which ``typed_condition`` writes and binds a clause on it."""
OPEN_UNTIL = "infinity"
"""valid_until of an open-ended document: PostgreSQL's date after every date."""


@dataclass(frozen=True)
class Clause:
    """A fragment of SQL with ``%s`` placeholders and the values bound to them, in order."""

    sql: str
    params: tuple[Any, ...] = ()

    @classmethod
    def of(cls, condition: Cond) -> Clause:
        """The clause for one neutral condition on the columns in ``FIELDS``."""
        sql, params = typed_condition(condition, FIELDS)
        return cls(sql, tuple(params))


# -- values as PostgreSQL can hold them -------------------------------------------


def pg_text(value: str) -> str:
    """The string as stored and compared: injective, and free of NUL and lone surrogates."""
    return textcodec.escape(value, nul=True)


def from_pg_text(stored: str) -> str:
    """The string ``pg_text`` was given (ids come back from the table this way)."""
    return textcodec.unescape(stored)


def stored_row(meta: Mapping[str, Any], active: Mapping[tuple[str, str], int] | None = None) -> tuple[Any, ...]:
    """The values of ``STORED_COLUMNS`` for one document; raises nothing, whatever the metadata.

    ``active`` (``revision=flag`` only) fills the current-revision flag under that map.
    """
    problem = find_problem(meta)
    if problem:
        return (None, None, None, None, None, None, problem, raw_json(meta), None, None)
    until = parse_date(meta.get("valid_until"))
    pair = (meta["tenant"], meta["logical_id"])
    return (
        pg_text(meta["tenant"]),
        pg_text(meta["status"]),
        pg_text(revision_key(*pair, meta["revision"])),
        [pg_text(g) for g in meta["groups"]],
        parse_date(meta["valid_from"]),
        OPEN_UNTIL if until is None else until,
        None,
        raw_json(meta),
        None if active is None else active.get(pair) == meta["revision"],
        None if active is None else pg_text(logical_key(*pair)),
    )


# -- one function per clause ------------------------------------------------------


def tenant_clause(principal: Principal) -> Clause:
    return Clause.of(Cond("eq", TENANT, pg_text(principal.tenant)))


def status_clause() -> Clause:
    return Clause.of(Cond("eq", STATUS, ACTIVE_STATUS))


def active_keys(active: ActiveRevisions, tenant: str) -> list[str]:
    """The stored keys (``pg_text`` applied) of the revisions the map declares active, for one tenant, sorted."""
    return [pg_text(key) for key in revisions.active_keys(active, tenant)]


def revision_clause(keys: Sequence[str]) -> Clause:
    """The document is an active revision: its key is one of ``keys`` (a bound text[]; empty matches nothing).

    The only clause that depends on the active map; an encoding that stores a flag
    instead would replace this function alone.
    """
    return Clause.of(Cond("in", KEY, tuple(keys)))


def flag_clause() -> Clause:
    """``revision=flag``: the row is flagged current (NULL, in query mode or on malformed rows, is not true)."""
    return Clause(f"{CURRENT} IS TRUE")


def groups_clause(groups: Sequence[str]) -> Clause:
    """Shares a group with the principal (array overlap); no groups overlap nothing, so match nothing."""
    return Clause.of(Cond("contains_any", GROUPS, tuple(pg_text(g) for g in dict.fromkeys(groups))))


def valid_from_clause(as_of: date) -> Clause:
    return Clause.of(Cond("lte", VALID_FROM, as_of))


def valid_until_clause(as_of: date) -> Clause:
    return Clause.of(Cond("gt", VALID_UNTIL, as_of))


def all_of(clauses: Sequence[Clause]) -> Clause:
    if not clauses:
        raise ValueError("AND of no clauses")
    return Clause(" AND ".join(f"({c.sql})" for c in clauses), tuple(p for c in clauses for p in c.params))


def keys_of(where: PolicyFilter, keys: Sequence[str] | None, flag: bool) -> Sequence[str]:
    """The active keys a ``WHERE`` for ``where`` compares (``keys`` when given; none under ``flag``), after checking
    that ``where`` is a policy filter with a calendar date (a ``datetime`` is a date too, and compares otherwise)."""
    if not isinstance(where, PolicyFilter):
        raise TypeError(f"cannot compile {type(where).__name__} into SQL: expected a PolicyFilter")
    calendar_day(where.as_of)
    if flag:
        return ()
    return active_keys(where.active, where.principal.tenant) if keys is None else keys


def compile_where(where: PolicyFilter, keys: Sequence[str] | None = None, flag: bool = False) -> Clause:
    """The ``WHERE`` for ``where``; ``keys`` may pass a cached ``active_keys``; ``flag`` puts the stored
    current-revision flag in place of the active keys."""
    keys = keys_of(where, keys, flag)
    principal = where.principal
    return all_of([
        tenant_clause(principal),
        status_clause(),
        flag_clause() if flag else revision_clause(keys or []),
        groups_clause(principal.groups),
        valid_from_clause(where.as_of),
        valid_until_clause(where.as_of),
    ])
