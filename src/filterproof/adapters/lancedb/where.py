"""The policy as LanceDB columns and one SQL filter string: the encoding and its compiler.

LanceDB takes a filter as a SQL string (DataFusion syntax). Its type-safe
``lancedb.expr`` binds literals, but (0.40) knows no list function, so the groups
clause cannot be written with it; the filter is therefore a string. Each clause is a
neutral condition (``adapters.filterlang``) on the columns below, written by LanceDB's
one renderer, ``language.LanceDB``, whose string literal (``language.quoted``, also
behind ``literal``) is single-quoted with ``'`` doubled, the only escape DataFusion's
string literals have (a backslash is an ordinary character there; ``' OR 1=1 --``,
``\\'``, NUL and newlines stay inside the literal: see the tests). Numbers enter as
``int``. Column names are the constants below, each of the kind ``FIELDS`` gives the
renderer.

``stored_columns`` classifies each document once, at upsert, with
``policy.structural_problem``, and fills:

============ ============== ========================================== ===============================
column       Arrow type     stored value (well-formed documents)       clause
============ ============== ========================================== ===============================
tenant       string         tenant                                     ``tenant = '...'``
status       string         status                                     ``status = 'active'``
revision_key string         ``tenant/logical_id#revision``             ``revision_key IN ('...', ...)``
groups       list<string>   the groups, non-empty                      ``array_has_any(groups, [...])``
valid_from   int32          YYYYMMDD                                   ``valid_from <= YYYYMMDD``
valid_until  int32          YYYYMMDD, ``OPEN_UNTIL`` when open-ended   ``valid_until > YYYYMMDD``
problem      string         null (malformed: why)                      never filtered on
metadata     string         the metadata as JSON (every document)      never filtered on
============ ============== ========================================== ===============================

Fail closed: a malformed document has null in every filtered column; a comparison,
``IN`` or ``array_has_any`` with a null operand is null, which a filter treats as
false. The open end is a sentinel, not null, so no ``OR ... IS NULL`` is needed. An
empty key list or group list compiles to ``FALSE`` (an OR of no clauses). Strings go through
``textcodec.escape`` (Arrow cannot hold a lone surrogate; NUL is fine).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from filterproof.adapters import textcodec
from filterproof.adapters.datecodec import OPEN_UNTIL, date_int
from filterproof.adapters.filterlang import And, Cond, Expr, Or
from filterproof.adapters.lancedb.language import LanceDB, quoted
from filterproof.adapters.raw import raw_json
from filterproof.adapters.revisions import active_keys, logical_key, revision_key
from filterproof.policy import ACTIVE_STATUS, PolicyFilter, Principal, parse_date
from filterproof.policy import structural_problem as find_problem

TENANT, STATUS, KEY, GROUPS = "tenant", "status", "revision_key", "groups"
VALID_FROM, VALID_UNTIL, PROBLEM, METADATA = "valid_from", "valid_until", "problem", "metadata"
CURRENT, LID = "is_current", "logical_key"
"""``revision=flag`` only: the row is its tenant/logical_id's active revision (null in query mode and on
malformed rows), and ``tenant/logical_id``, by which ``set_active_revisions`` rewrites the flags."""
STORED_COLUMNS = (TENANT, STATUS, KEY, GROUPS, VALID_FROM, VALID_UNTIL, PROBLEM, METADATA, CURRENT, LID)
FIELDS = {**dict.fromkeys(("id", TENANT, STATUS, KEY, PROBLEM, METADATA, LID), "text"), GROUPS: "text_list",
          VALID_FROM: "int", VALID_UNTIL: "int", CURRENT: "bool"}
"""The kind of each column, which the renderer holds every value to."""
RENDER = LanceDB(FIELDS)
NONE_OF = Or(())
"""A clause no row can meet (an empty OR, ``FALSE``): a principal without a group or a revision."""


def text(value: str) -> str:
    """A string as stored and compared (injective; Arrow-safe)."""
    return textcodec.escape(value, nul=False)


def literal(value: str) -> str:
    """A SQL string literal that holds ``value`` exactly, whatever it contains."""
    return quoted(text(value))


def stored_columns(meta: Mapping[str, Any], active: Mapping[tuple[str, str], int] | None = None) -> dict[str, Any]:
    """The values of ``STORED_COLUMNS`` for one document; raises nothing, whatever the metadata.

    ``active`` (``revision=flag`` only) fills the current-revision flag under that map.
    """
    raw = raw_json(meta)
    problem = find_problem(meta)
    if problem:
        return {**dict.fromkeys(STORED_COLUMNS), PROBLEM: problem, METADATA: raw}
    until = parse_date(meta.get("valid_until"))
    pair = (meta["tenant"], meta["logical_id"])
    return {
        TENANT: text(meta["tenant"]),
        STATUS: text(meta["status"]),
        KEY: text(revision_key(meta["tenant"], meta["logical_id"], meta["revision"])),
        GROUPS: [text(g) for g in meta["groups"]],
        VALID_FROM: date_int(parse_date(meta["valid_from"])),  # type: ignore[arg-type]
        VALID_UNTIL: OPEN_UNTIL if until is None else date_int(until),
        PROBLEM: None,
        METADATA: raw,
        CURRENT: None if active is None else active.get(pair) == meta["revision"],
        LID: None if active is None else text(logical_key(*pair)),
    }


# -- one function per clause: each a neutral condition on the stored columns -------------


def tenant_clause(principal: Principal) -> Expr:
    return Cond("eq", TENANT, text(principal.tenant))


def status_clause() -> Expr:
    return Cond("eq", STATUS, text(ACTIVE_STATUS))


def revision_clause(keys: Sequence[str]) -> Expr:
    """The document is an active revision: its key is in the list (none: nothing matches).

    The only clause that depends on the active map; an encoding that stores a flag
    instead would replace this function alone.
    """
    return Cond("in", KEY, tuple(text(k) for k in keys)) if keys else NONE_OF


def flag_clause() -> Expr:
    """``revision=flag``: the row is flagged current (null, in query mode or on malformed rows, is not true)."""
    return Cond("eq", CURRENT, True)


def groups_clause(groups: Sequence[str]) -> Expr:
    """Shares a group with the principal; a principal without groups matches nothing."""
    distinct = tuple(text(g) for g in dict.fromkeys(groups))
    return Cond("contains_any", GROUPS, distinct) if distinct else NONE_OF


def valid_from_clause(as_of: date) -> Expr:
    return Cond("lte", VALID_FROM, date_int(as_of))


def valid_until_clause(as_of: date) -> Expr:
    return Cond("gt", VALID_UNTIL, date_int(as_of))


def compile_where(where: PolicyFilter, keys: Sequence[str] | None = None, flag: bool = False) -> str:
    """The LanceDB filter for ``where``; ``keys`` may pass a cached ``active_keys``; ``flag`` puts the
    stored current-revision flag in place of the active keys."""
    if not isinstance(where, PolicyFilter):
        raise TypeError(f"cannot compile {type(where).__name__} into a LanceDB filter: expected a PolicyFilter")
    principal = where.principal
    if keys is None and not flag:
        keys = active_keys(where.active, principal.tenant)
    revision = flag_clause() if flag else revision_clause(keys or [])
    return RENDER.render(And((tenant_clause(principal), status_clause(), revision, groups_clause(principal.groups),
                              valid_from_clause(where.as_of), valid_until_clause(where.as_of))))
