"""The policy in Haystack's filter language: one small pure function per clause, a dict per filter.

Haystack (2.x and 3.x) writes a filter as nested dicts: a comparison
``{"field": "meta.k", "operator": "==", "value": v}`` (``==``, ``!=``, ``>``, ``>=``, ``<``,
``<=``, ``in``, ``not in``) or a logical ``{"operator": "AND" | "OR" | "NOT", "conditions":
[...]}``; each document-store integration translates it into its store's filter. The stored
encoding is the flat one of the LlamaIndex bridges (``flat.node_metadata``: the Chroma engine
adapter's scalars, dates as integers ``YYYYMMDD``, a malformed document without any policy
field, our id in ``fp_id``), with groups per integration (``Groups``):

==================== ============================================= ============================
clause               comparison                                    note
==================== ============================================= ============================
tenant               ``meta.fp_tenant == tenant``
status               ``meta.fp_status == "active"``
active revision      ``meta.fp_key in [keys of the tenant]``       none: match nothing
groups               ``meta.fp_groups in [groups]`` (``"list"``)   none: match nothing
valid_from           ``meta.fp_from <= as_of``                     integer
valid_until          ``meta.fp_until > as_of``                     integer
==================== ============================================= ============================

"Match nothing" is ``meta.fp_never == 1``, a key no document has, never an empty ``in``:
qdrant-haystack 13.1.0 translates ``in []`` into ``Filter(should=[])``, which Qdrant reads as
no constraint, so an empty list would admit every document (integration finding 9). A NOT is
never written: qdrant-haystack reads NOT over several conditions as "none of them" where
Haystack defines "not all" (finding 10). Unknown input raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from filterproof.adapters.bridges.flat import Groups
from filterproof.adapters.chroma.where import GROUPS, KEY, NEVER, STATUS, TENANT, VALID_FROM, VALID_UNTIL
from filterproof.adapters.datecodec import date_int
from filterproof.adapters.revisions import active_keys
from filterproof.policy import ACTIVE_STATUS, PolicyFilter, Principal, matchable

Filter = dict[str, Any]


def field(key: str) -> str:
    """Haystack's name of a metadata key (``meta.`` names ``Document.meta``)."""
    return f"meta.{key}"


def compare(key: str, operator: str, value: Any) -> Filter:
    return {"field": field(key), "operator": operator, "value": value}


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, got {type(value).__name__}: {value!r}")
    return value


def match_nothing() -> Filter:
    return compare(NEVER, "==", 1)


def one_of(key: str, values: Sequence[str]) -> Filter:
    """``key in values``; no value: match nothing (never ``in []``)."""
    return compare(key, "in", list(values)) if values else match_nothing()


def tenant_clause(principal: Principal) -> Filter:
    tenant = _text(principal.tenant, "principal tenant")
    return compare(TENANT, "==", tenant) if matchable(tenant) else match_nothing()


def status_clause() -> Filter:
    return compare(STATUS, "==", ACTIVE_STATUS)


def revision_clause(keys: Sequence[str]) -> Filter:
    return one_of(KEY, [_text(k, "revision key") for k in keys])


def groups_clause(principal: Principal, groups: Groups) -> Filter:
    if groups != "list":
        raise ValueError(f"haystack filters: unknown groups encoding {groups!r}")
    distinct = [g for g in dict.fromkeys(_text(g, "principal group") for g in principal.groups) if matchable(g)]
    return one_of(GROUPS, distinct)


def valid_from_clause(as_of: date) -> Filter:
    return compare(VALID_FROM, "<=", date_int(as_of))


def valid_until_clause(as_of: date) -> Filter:
    return compare(VALID_UNTIL, ">", date_int(as_of))


def compile_filter(where: PolicyFilter, groups: Groups = "list") -> Filter:
    """The whole policy for one query: an AND of the six clauses."""
    if not isinstance(where, PolicyFilter):
        raise TypeError(f"expected a PolicyFilter, got {type(where).__name__}")
    if not isinstance(where.as_of, date) or isinstance(where.as_of, datetime):
        raise TypeError(f"as_of must be a datetime.date, got {where.as_of!r}")
    keys = active_keys(where.active, _text(where.principal.tenant, "principal tenant"))
    return {"operator": "AND", "conditions": [
        tenant_clause(where.principal), status_clause(), revision_clause(keys),
        groups_clause(where.principal, groups), valid_from_clause(where.as_of), valid_until_clause(where.as_of),
    ]}
