"""The policy as Chroma metadata and a native Chroma ``where``: the encoding and its compiler.

Chroma's filter language is small (``$eq $ne $gt $gte $lt $lte $in $nin $contains
$not_contains``, ``$and``/``$or`` of two or more clauses): no ``$exists``, no null,
ranges on numbers only, no empty lists, and ``$eq 1`` also matches ``1.0``. So the
fixture's metadata is never filtered on as given. ``stored_metadata`` derives
policy fields from it once, at upsert time, in a form where each clause of the
policy is one native comparison, built as a neutral condition (``adapters.filterlang``)
and written by Chroma's one renderer, ``language.Chroma`` (strict: a clause Chroma
would refuse cannot be written):

========== ============================================ =================================
field      stored value                                 clause
========== ============================================ =================================
fp_tenant  tenant (exact string)                        ``$eq`` principal's tenant
fp_status  status                                       ``$eq "active"``
fp_key     ``"tenant/logical_id#revision"``             ``$in`` the active map's keys
fp_groups  list of the groups                           ``$contains`` g, ``$or`` over g
fp_from    valid_from as int YYYYMMDD                   ``$lte`` as_of
fp_until   valid_until as int, ``OPEN_UNTIL`` if open   ``$gt`` as_of
========== ============================================ =================================

Fail closed: a document with a structural problem (``policy.structural_problem``)
gets *none* of these fields, only ``fp_raw`` (its metadata as JSON, never filtered
on) and ``fp_problem``. Every compiled filter requires ``$eq``/``$in``/``$contains``/range
on those fields, and all of them exclude a document lacking the key, so a malformed
document can match no principal. The filter never uses ``$ne``/``$nin`` (they match
documents lacking the key). The revision is only ever compared inside the key
string, so ``True``/``1.0`` (malformed anyway) can never equal ``1``; the key is
unambiguous because tenants hold no ``/`` and a revision's digits hold no ``#``.

The active map reaches Chroma as an ``$in`` over the keys of the principal's
tenant, compiled per query: a changed map is a new filter, visible on the next
query, and a tenant/logical_id absent from the map has no key in the list. Chroma
evaluates a filter as one SQLite statement, which takes at most 32766 variables
(one per ``$in`` value: 32760 keys plus three clauses already fail). So a tenant
with more than ``KEYS_PER_FILTER`` active keys gets several filters, one per slice
of its keys (``compile_partitions``); they admit disjoint sets whose union is the
policy's, and the adapter merges their top-k (see ``ChromaAdapter``). Likewise a principal's
groups: SQLite parses an ``$or`` of about 990 ``$contains`` clauses as an expression tree too
deep (maximum depth 1000; measured on Chroma 1.5.9), and over 10,000 the process dies. So
each filter holds at most ``GROUPS_PER_FILTER`` groups, one filter per slice; a document in
groups of two slices is admitted by both, and the merge keeps it once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from filterproof.adapters.chroma.language import Chroma, Where
from filterproof.adapters.chroma.limits import GROUPS_PER_FILTER, KEYS_PER_FILTER
from filterproof.adapters.datecodec import OPEN_UNTIL, date_int
from filterproof.adapters.encoding import principal_slices, slices
from filterproof.adapters.filterlang import And, Cond, Expr
from filterproof.adapters.raw import raw_json
from filterproof.adapters.revisions import active_keys, logical_key, revision_key
from filterproof.policy import (
    ACTIVE_STATUS,
    PolicyFilter,
    Principal,
    calendar_day,
    matchable,
    parse_date,
    structural_problem,
)

TENANT, STATUS, KEY, GROUPS = "fp_tenant", "fp_status", "fp_key", "fp_groups"
VALID_FROM, VALID_UNTIL = "fp_from", "fp_until"
RAW, PROBLEM = "fp_raw", "fp_problem"
CURRENT, LID = "fp_current", "fp_lid"
"""``revision=flag`` only: ``"yes"``/``"no"``, and ``tenant/logical_id`` (by which the flags are rewritten)."""
POLICY_FIELDS = (TENANT, STATUS, KEY, GROUPS, VALID_FROM, VALID_UNTIL, CURRENT, LID)
STORED_FIELDS = (*POLICY_FIELDS, RAW, PROBLEM)

NEVER = "fp_never"
"""A key no document ever has: ``{NEVER: {"$eq": 1}}`` matches nothing, where Chroma refuses ``$in: []``."""
NONE_OF = Cond("eq", NEVER, 1)
"""A clause no document meets: a principal without a tenant, a group or a revision."""
RENDER = Chroma()
MATCH_NOTHING: Where = RENDER.render(NONE_OF)


# -- stored metadata ------------------------------------------------------------


def stored_metadata(meta: Mapping[str, Any], active: Mapping[tuple[str, str], int] | None = None) -> dict[str, Any]:
    """The Chroma metadata for a fixture document: every stored field, None where absent.

    Chroma's upsert and update *merge* metadata, and None deletes a key; giving every
    field (None for the ones this document must not have) replaces it as a whole.
    ``active`` (``revision=flag`` only) adds the current-revision flag under that map.
    """
    problem = structural_problem(meta)
    stored: dict[str, Any] = dict.fromkeys(STORED_FIELDS)
    stored[RAW] = raw_json(meta)
    if problem:
        stored[PROBLEM] = problem
        return stored
    until = meta.get("valid_until")
    stored.update({
        TENANT: meta["tenant"],
        STATUS: meta["status"],
        KEY: revision_key(meta["tenant"], meta["logical_id"], meta["revision"]),
        GROUPS: list(meta["groups"]),
        VALID_FROM: date_int(parse_date(meta["valid_from"])),  # type: ignore[arg-type]
        VALID_UNTIL: OPEN_UNTIL if until is None else date_int(parse_date(until)),  # type: ignore[arg-type]
    })
    if active is not None:
        pair = (meta["tenant"], meta["logical_id"])
        stored[LID] = logical_key(*pair)
        stored[CURRENT] = "yes" if active.get(pair) == meta["revision"] else "no"
    return stored


# -- one function per clause: each a neutral condition on the stored fields ---------------


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, got {type(value).__name__}: {value!r}")
    return value


def tenant_clause(principal: Principal) -> Expr:
    tenant = _text(principal.tenant, "principal tenant")
    return Cond("eq", TENANT, tenant) if matchable(tenant) else NONE_OF


def status_clause() -> Expr:
    return Cond("eq", STATUS, ACTIVE_STATUS)


def revision_clause(keys: Sequence[str]) -> Expr:
    """The document is the active revision: its key is one of ``keys`` (none: nothing matches)."""
    if not keys:
        return NONE_OF
    if len(keys) > KEYS_PER_FILTER:
        raise ValueError(f"{len(keys)} revision keys in one filter: at most {KEYS_PER_FILTER} "
                         f"(use compile_partitions)")
    return Cond("in", KEY, tuple(_text(k, "revision key") for k in keys))


def groups_clause(groups: Sequence[str]) -> Expr:
    """Shares a group with the principal; a principal without groups matches nothing."""
    distinct = tuple(g for g in dict.fromkeys(_text(g, "principal group") for g in groups) if matchable(g))
    return Cond("contains_any", GROUPS, distinct) if distinct else NONE_OF  # an $or of $contains


def valid_from_clause(as_of: date) -> Expr:
    return Cond("lte", VALID_FROM, date_int(as_of))


def valid_until_clause(as_of: date) -> Expr:
    return Cond("gt", VALID_UNTIL, date_int(as_of))


def flag_clause() -> Expr:
    """``revision=flag``: the document is flagged current (by ``set_active_revisions``)."""
    return Cond("eq", CURRENT, "yes")


def compile_where(where: PolicyFilter, keys: Sequence[str] | None = None, flag: bool = False) -> Where:
    """The native Chroma filter for ``where``; ``keys`` may pass a cached ``active_keys``; ``flag``
    puts the stored current-revision flag in place of the active keys."""
    if not isinstance(where, PolicyFilter):
        raise TypeError(f"cannot compile {type(where).__name__} into a Chroma where: expected a PolicyFilter")
    calendar_day(where.as_of)
    principal = where.principal
    tenant = _text(principal.tenant, "principal tenant")
    if keys is None and not flag:
        keys = active_keys(where.active, tenant)
    return RENDER.render(And((
        tenant_clause(principal),
        status_clause(),
        flag_clause() if flag else revision_clause(keys or []),
        groups_clause(principal.groups),
        valid_from_clause(where.as_of),
        valid_until_clause(where.as_of),
    )))


def compile_partitions(where: PolicyFilter, keys: Sequence[str] | None = None, flag: bool = False) -> list[Where]:
    """Filters that together admit exactly what the policy does, each within SQLite's limits.

    One filter unless the tenant has more than ``KEYS_PER_FILTER`` active keys or the principal more than
    ``GROUPS_PER_FILTER`` groups; then one per slice of the keys (disjoint: a document has one key) and of
    the groups (a document in two slices' groups is admitted twice). ``flag`` as in ``compile_where``.
    """
    if flag:
        return [compile_where(part, flag=True) for part in group_slices(where)]
    return [compile_where(part, key_slice) for part, key_slice in partitions(where, keys)]


def partitions(where: PolicyFilter, keys: Sequence[str] | None = None,
               by_groups: bool = True) -> list[tuple[PolicyFilter, list[str]]]:
    """The (principal's slice, active keys' slice) pairs that together ask what ``where`` asks within SQLite's
    limits: each slice of ``KEYS_PER_FILTER`` keys (``keys``, else the principal's tenant's) with each slice of the
    principal's groups (``group_slices``; ``by_groups=False``: the whole principal). Chroma's compiler and the
    bridges over Chroma (LlamaIndex's, Haystack's) build one filter a pair."""
    if keys is None:
        keys = active_keys(where.active, _text(where.principal.tenant, "principal tenant"))
    asked = group_slices(where) if by_groups else [where]
    return [(part, key_slice) for key_slice in slices(keys, KEYS_PER_FILTER) or [[]] for part in asked]


def group_slices(where: PolicyFilter) -> list[PolicyFilter]:
    """``where`` once per slice of at most ``GROUPS_PER_FILTER`` of its principal's distinct groups."""
    return principal_slices(where, GROUPS_PER_FILTER)
