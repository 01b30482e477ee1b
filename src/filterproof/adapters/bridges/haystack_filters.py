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
groups (``list``)    ``meta.fp_groups in [groups]``                none: match nothing
groups (``hex``)     an OR of ``meta.fp_group_<hex> == 1``          none: match nothing
valid_from           ``meta.fp_from <= as_of``                     integer
valid_until          ``meta.fp_until > as_of``                     integer
==================== ============================================= ============================

Groups are a list where the integration reads ``in`` on a list field as "any element" (qdrant-haystack),
and otherwise one key per group (``hex``: chroma-haystack keeps only a key's last dotted segment, so a group
``a.b`` would be asked as ``b``; pgvector-haystack compares a list's JSON text). Chroma's limits cut the
active keys and a principal's groups into slices (``compile_partitions``): one filter a slice, the answers merged.

"Match nothing" is ``meta.fp_never == 1``, a key no document has, never an empty ``in``:
qdrant-haystack 13.1.0 translates ``in []`` into ``Filter(should=[])``, which Qdrant reads as
no constraint, so an empty list would admit every document (integration finding 9). A NOT is
never written: qdrant-haystack reads NOT over several conditions as "none of them" where
Haystack defines "not all" (finding 10). Unknown input raises.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

from filterproof.adapters.bridges.flat import Groups, group_key
from filterproof.adapters.chroma.where import (
    GROUPS,
    KEY,
    NEVER,
    STATUS,
    TENANT,
    VALID_FROM,
    VALID_UNTIL,
    partitions,
)
from filterproof.adapters.datecodec import date_int
from filterproof.adapters.revisions import active_keys
from filterproof.policy import ACTIVE_STATUS, PolicyFilter, Principal, calendar_day, matchable

Filter = dict[str, Any]
Text = Callable[[str], str]
"""How a name is stored and asked for: as it is, or encoded (``hex_text``, for milvus-haystack)."""


def as_is(value: str) -> str:
    return value


def hex_text(value: str) -> str:
    """A name as the hex of its UTF-8 bytes (lone surrogates kept): letters and digits only, so no quoting in any
    filter language can change it (milvus-haystack pastes a string between double quotes as it is, finding 14)."""
    return value.encode("utf-8", "surrogatepass").hex()


def from_hex_text(stored: str) -> str:
    """The name ``hex_text`` stored."""
    return bytes.fromhex(stored).decode("utf-8", "surrogatepass")


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


def tenant_clause(principal: Principal, text: Text = as_is) -> Filter:
    tenant = _text(principal.tenant, "principal tenant")
    return compare(TENANT, "==", text(tenant)) if matchable(tenant) else match_nothing()


def status_clause(text: Text = as_is) -> Filter:
    return compare(STATUS, "==", text(ACTIVE_STATUS))


def revision_clause(keys: Sequence[str], text: Text = as_is) -> Filter:
    return one_of(KEY, [text(_text(k, "revision key")) for k in keys])


def any_flag(groups: Sequence[str]) -> Filter:
    """An OR of ``group_key(g) == 1``; one group: its condition alone (Chroma refuses an ``$or`` of one)."""
    if not groups:
        return match_nothing()
    flags = [compare(group_key(g), "==", 1) for g in groups]
    return flags[0] if len(flags) == 1 else {"operator": "OR", "conditions": flags}


def groups_clause(principal: Principal, groups: Groups) -> Filter:
    distinct = [g for g in dict.fromkeys(_text(g, "principal group") for g in principal.groups) if matchable(g)]
    if groups == "list":
        return one_of(GROUPS, distinct)
    if groups == "hex":
        return any_flag(distinct)
    raise ValueError(f"haystack filters: unknown groups encoding {groups!r}")


def valid_from_clause(as_of: date) -> Filter:
    return compare(VALID_FROM, "<=", date_int(as_of))


def valid_until_clause(as_of: date) -> Filter:
    return compare(VALID_UNTIL, ">", date_int(as_of))


def compile_filter(where: PolicyFilter, groups: Groups = "list", keys: Sequence[str] | None = None,
                   text: Text = as_is) -> Filter:
    """The whole policy for one query: an AND of the six clauses; ``keys``: these active keys (a slice); ``text``:
    how the tenant, status and keys are stored (group keys are hex already)."""
    if not isinstance(where, PolicyFilter):
        raise TypeError(f"expected a PolicyFilter, got {type(where).__name__}")
    calendar_day(where.as_of)
    if keys is None:
        keys = active_keys(where.active, _text(where.principal.tenant, "principal tenant"))
    return {"operator": "AND", "conditions": [
        tenant_clause(where.principal, text), status_clause(text), revision_clause(keys, text),
        groups_clause(where.principal, groups), valid_from_clause(where.as_of), valid_until_clause(where.as_of),
    ]}


def compile_partitions(where: PolicyFilter, groups: Groups) -> list[Filter]:
    """One filter per slice of ``KEYS_PER_FILTER`` active keys and, for ``hex``, per slice of a principal's groups
    (Chroma's SQLite limits, ``chroma.limits``): the key slices admit disjoint sets; a document in two group slices
    is admitted by both, and the bridge's merge keeps it once."""
    return [compile_filter(part, groups, key_slice) for part, key_slice in partitions(where, by_groups=groups == "hex")]
