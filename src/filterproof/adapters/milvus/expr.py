"""The policy as typed Milvus fields and one boolean expression: the encoding and its compiler.

Milvus takes a filter as a text expression. Milvus Lite has no parameter templating
(``filter_params`` is refused: milvus-lite#327), so every value is written into the
expression: the policy is built as a neutral filter (``adapters.filterlang``) over the
fields below and written by Milvus's one renderer, ``language.Milvus``, whose string
literal (``language.quoted``) escapes ``\\\\``, ``\\"``, newline and carriage return. Every
stored and compared string first goes through ``text`` (``textcodec.escape`` with NUL,
surrogates and every other control character as ``\\xHHHH``), so what this compiler
quotes never holds a line break or a control character at all: the stored text is
plain, and both Milvus Lite and a server read it back as written. No tenant, group, key or
id can end the literal or change the expression's structure (``' OR 1 == 1``,
``") or (id != "``: see the tests). Numbers enter through ``int``; field names are the
constants below, each of the kind ``FIELDS`` gives the renderer.

``stored_fields`` classifies each document once, at upsert, with
``policy.structural_problem``, and fills:

============ ============== ========================================== ================================
field        Milvus type    stored value (well-formed documents)       clause
============ ============== ========================================== ================================
problem      VARCHAR        "" (malformed: why)                        ``problem == ""`` (first)
tenant       VARCHAR        tenant (may be the partition key)          ``tenant == "..."``
status       VARCHAR        status                                     ``status == "active"``
valid_from   INT64          YYYYMMDD                                   ``valid_from <= YYYYMMDD``
valid_until  INT64          YYYYMMDD, ``OPEN_UNTIL`` when open-ended   ``valid_until > YYYYMMDD``
groups       ARRAY<VARCHAR> the distinct groups                        ``ARRAY_CONTAINS_ANY(groups, [...])``
revision_key VARCHAR        ``tenant/logical_id#revision``             ``revision_key in [...]`` (last)
is_current   BOOL           ``revision=flag``: the active revision     ``is_current == true``
logical_key  VARCHAR        ``tenant/logical_id`` (flag rewrites)      never filtered on
metadata     VARCHAR        the metadata as JSON                       never filtered on
============ ============== ========================================== ================================

Fail closed without nulls: Milvus Lite's null handling is not SQL's (``n not in [1]``
matches a row whose ``n`` is null, where ``not (n == 1)`` does not), and a partition key
cannot be nullable. A malformed document holds ``""``, ``0``, ``[]`` and ``false`` in its
policy fields and the reason in ``problem``; every compiled expression starts with
``problem == ""``, and ``""`` is no well-formed tenant either. An empty key or group list
compiles to ``false``. The clause order is the cost order: Milvus Lite evaluates an
expression holding ``ARRAY_CONTAINS_ANY`` row by row, and a long ``in`` list costs most
when it comes first (``bench/repro/milvus_evaluator_cost.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from filterproof.adapters import textcodec
from filterproof.adapters.datecodec import OPEN_UNTIL, date_int
from filterproof.adapters.filterlang import And, Cond, Expr, Or
from filterproof.adapters.milvus.language import Milvus, quoted
from filterproof.adapters.milvus.limits import MAX_LENGTH
from filterproof.adapters.raw import raw_json
from filterproof.adapters.revisions import active_keys, logical_key, revision_key
from filterproof.policy import ACTIVE_STATUS, PolicyFilter, Principal, matchable, parse_date
from filterproof.policy import structural_problem as find_problem

ID, VECTOR = "id", "vector"
TENANT, STATUS, KEY, GROUPS = "tenant", "status", "revision_key", "groups"
VALID_FROM, VALID_UNTIL, PROBLEM, METADATA = "valid_from", "valid_until", "problem", "metadata"
CURRENT, LID = "is_current", "logical_key"
TEXT_FIELDS = (TENANT, STATUS, KEY, PROBLEM, METADATA, LID)
INT_FIELDS = (VALID_FROM, VALID_UNTIL)
STORED_FIELDS = (*TEXT_FIELDS, *INT_FIELDS, GROUPS, CURRENT)
NOTHING = "false"
FIELDS = {**dict.fromkeys((ID, *TEXT_FIELDS), "text"), **dict.fromkeys(INT_FIELDS, "int"), GROUPS: "text_list",
          CURRENT: "bool"}
"""The kind of each filtered field, which the renderer holds every value to."""
RENDER = Milvus(FIELDS)
NONE_OF = Or(())
"""A clause no row can meet (an empty OR, ``false``): a principal without a tenant, a group or a revision."""
METADATA_KEPT = MAX_LENGTH - 1_000
"""Characters of the JSON metadata kept (ASCII: one byte each), under the VARCHAR limit: what is kept of metadata
no clause reads never decides whether a document is held (``test_sizes``' large metadata world)."""


def text(value: str) -> str:
    """A string as stored and compared: injective, with no control character left (``textcodec``)."""
    return textcodec.escape(value, nul=True, controls=True)


def literal(value: str) -> str:
    """A Milvus string literal that compares equal to ``text(value)``, whatever ``value`` holds."""
    return quoted(text(value))


def stored_fields(meta: Mapping[str, Any], active: Mapping[tuple[str, str], int] | None = None) -> dict[str, Any]:
    """The values of ``STORED_FIELDS`` for one document; raises nothing, whatever the metadata.

    ``active`` (``revision=flag`` only) fills the current-revision flag under that map.
    """
    raw = raw_json(meta, limit=METADATA_KEPT)
    problem = find_problem(meta)
    if problem:
        return {**dict.fromkeys(TEXT_FIELDS, ""), **dict.fromkeys(INT_FIELDS, 0), GROUPS: [], CURRENT: False,
                PROBLEM: text(problem) or "malformed", METADATA: raw}
    until = parse_date(meta.get("valid_until"))
    pair = (meta["tenant"], meta["logical_id"])
    return {
        TENANT: text(meta["tenant"]),
        STATUS: text(meta["status"]),
        KEY: text(revision_key(meta["tenant"], meta["logical_id"], meta["revision"])),
        PROBLEM: "",
        METADATA: raw,
        LID: text(logical_key(*pair)) if active is not None else "",
        VALID_FROM: date_int(parse_date(meta["valid_from"])),  # type: ignore[arg-type]
        VALID_UNTIL: OPEN_UNTIL if until is None else date_int(until),
        GROUPS: [text(g) for g in dict.fromkeys(meta["groups"])],
        CURRENT: active is not None and active.get(pair) == meta["revision"],
    }


# -- one function per clause: each a neutral condition on the stored fields ---------------


def well_formed_clause() -> Expr:
    return Cond("eq", PROBLEM, "")


def tenant_clause(principal: Principal) -> Expr:
    return Cond("eq", TENANT, text(principal.tenant)) if matchable(principal.tenant) else NONE_OF


def status_clause() -> Expr:
    return Cond("eq", STATUS, text(ACTIVE_STATUS))


def valid_from_clause(as_of: date) -> Expr:
    return Cond("lte", VALID_FROM, date_int(as_of))


def valid_until_clause(as_of: date) -> Expr:
    return Cond("gt", VALID_UNTIL, date_int(as_of))


def groups_clause(groups: Sequence[str]) -> Expr:
    """Shares a group with the principal; a principal without a matchable group matches nothing."""
    distinct = tuple(text(g) for g in dict.fromkeys(groups) if matchable(g))
    return Cond("contains_any", GROUPS, distinct) if distinct else NONE_OF


def revision_clause(keys: Sequence[str]) -> Expr:
    """The document is an active revision: its key (as stored, ``text``) is in the list; none: nothing."""
    return Cond("in", KEY, tuple(keys)) if keys else NONE_OF


def flag_clause() -> Expr:
    """``revision=flag``: the row is flagged current (malformed rows hold false)."""
    return Cond("eq", CURRENT, True)


def compile_expr(where: PolicyFilter, keys: Sequence[str] | None = None, flag: bool = False) -> str:
    """The Milvus expression for ``where``; ``keys`` may pass cached stored keys (``text`` of ``active_keys``);
    ``flag`` puts the stored current-revision flag in place of the active keys."""
    if not isinstance(where, PolicyFilter):
        raise TypeError(f"cannot compile {type(where).__name__} into a Milvus expression: expected a PolicyFilter")
    principal = where.principal
    if keys is None and not flag:
        keys = [text(k) for k in active_keys(where.active, principal.tenant)]
    revision = flag_clause() if flag else revision_clause(keys or [])
    clauses = (well_formed_clause(), tenant_clause(principal), status_clause(), valid_from_clause(where.as_of),
               valid_until_clause(where.as_of), groups_clause(principal.groups), revision)
    if NONE_OF in clauses:  # the whole expression is false: say so at once (the store skips the query)
        return NOTHING
    return RENDER.render(And(clauses))


def id_filter(ids: Sequence[str]) -> str:
    """``id in [...]`` with each id escaped (pymilvus's ``ids=`` quotes text ids without escaping them)."""
    return RENDER.render(Cond("in", ID, tuple(text(i) for i in ids))) if ids else NOTHING
