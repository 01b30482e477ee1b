"""The policy as LlamaIndex ``MetadataFilters``: one small pure function per clause.

LlamaIndex has one framework-wide filter language (``MetadataFilter(key, operator,
value)`` combined by ``MetadataFilters(filters, condition=AND|OR)``, nestable), and
each integration translates it into its store's filter. Its documented operators
for ranges are numeric ("int, float"), so the stored encoding is the one of the
Chroma engine adapter (``adapters.chroma.where.stored_metadata``): flat scalars,
dates as integers ``YYYYMMDD``, an open ``valid_until`` as ``OPEN_UNTIL``, and a
malformed document stored without any policy field (every clause needs its key).

==================== =========================================== ===========================
clause               MetadataFilter                              note
==================== =========================================== ===========================
tenant               ``fp_tenant == tenant``                     EQ
status               ``fp_status == "active"``                   EQ
active revision      ``fp_key in [keys of the tenant]``          IN; none: match nothing
groups               see ``Groups`` below                        none: match nothing
valid_from           ``fp_from <= as_of``                        LTE (integer)
valid_until          ``fp_until > as_of``                        GT (integer)
==================== =========================================== ===========================

Groups are the one clause the integrations disagree on (``Groups``):

* ``"list"`` (llamaindex-qdrant): groups stored as a list, ``fp_groups in [groups]``.
  The documented operator is ANY ("contains any"), but ``QdrantVectorStore`` 0.10.4
  raises ``NotImplementedError`` for ANY and CONTAINS; IN becomes Qdrant's ``MatchAny``,
  which matches a list field when any element is in the list.
* ``"any"`` (llamaindex-pgvector): the list and ANY, which ``PGVectorStore`` renders as ``?|``.
* ``"flags"`` (llamaindex-chroma): ``ChromaVectorStore`` keeps ``flat_metadata=True`` and
  refuses a list value at ``add``, and translates neither ANY nor CONTAINS (ValueError),
  so each group is its own key, ``fp_group:<name>: 1``, and the clause is an OR of EQ.

"Match nothing" is ``fp_never == 1``, a key no document has: an empty IN list or an
empty OR would be dropped by some integrations (an empty nested ``MetadataFilters``
is skipped by ``QdrantVectorStore``, i.e. no constraint). Unknown input raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from llama_index.core.vector_stores.types import FilterCondition, FilterOperator, MetadataFilter, MetadataFilters

from filterproof.adapters.bridges.flat import GROUP_FLAG, Groups, node_metadata
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

Clause = MetadataFilter | MetadataFilters


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, got {type(value).__name__}: {value!r}")
    return value


def equals(key: str, value: str | int) -> MetadataFilter:
    return MetadataFilter(key=key, operator=FilterOperator.EQ, value=value)


def match_nothing() -> MetadataFilter:
    return equals(NEVER, 1)


def any_of(clauses: Sequence[Clause]) -> Clause:
    """OR of the clauses (one: unwrapped; none: match nothing, never an empty group)."""
    if not clauses:
        return match_nothing()
    return clauses[0] if len(clauses) == 1 else MetadataFilters(filters=list(clauses), condition=FilterCondition.OR)


def tenant_clause(principal: Principal) -> MetadataFilter:
    tenant = _text(principal.tenant, "principal tenant")
    return equals(TENANT, tenant) if matchable(tenant) else match_nothing()


def status_clause() -> MetadataFilter:
    return equals(STATUS, ACTIVE_STATUS)


def revision_clause(keys: Sequence[str]) -> MetadataFilter:
    if not keys:
        return match_nothing()
    return MetadataFilter(key=KEY, operator=FilterOperator.IN, value=[_text(k, "revision key") for k in keys])


def groups_clause(principal: Principal, groups: Groups) -> Clause:
    distinct = [g for g in dict.fromkeys(_text(g, "principal group") for g in principal.groups) if matchable(g)]
    if not distinct:
        return match_nothing()
    if groups == "list":
        return MetadataFilter(key=GROUPS, operator=FilterOperator.IN, value=distinct)
    if groups == "any":  # the documented "contains any" (PGVectorStore: ?| on the JSON array)
        return MetadataFilter(key=GROUPS, operator=FilterOperator.ANY, value=distinct)
    if groups == "flags":
        return any_of([equals(GROUP_FLAG + g, 1) for g in distinct])
    raise ValueError(f"unknown groups encoding {groups!r}")


def valid_from_clause(as_of: date) -> MetadataFilter:
    return MetadataFilter(key=VALID_FROM, operator=FilterOperator.LTE, value=date_int(as_of))


def valid_until_clause(as_of: date) -> MetadataFilter:
    return MetadataFilter(key=VALID_UNTIL, operator=FilterOperator.GT, value=date_int(as_of))


def compile_filters(where: PolicyFilter, groups: Groups, keys: Sequence[str] | None = None) -> MetadataFilters:
    """The whole policy for one query; ``keys`` may pass a slice of ``active_keys``."""
    if not isinstance(where, PolicyFilter):
        raise TypeError(f"expected a PolicyFilter, got {type(where).__name__}")
    calendar_day(where.as_of)
    if keys is None:
        keys = active_keys(where.active, _text(where.principal.tenant, "principal tenant"))
    return MetadataFilters(filters=[
        tenant_clause(where.principal), status_clause(), revision_clause(keys),
        groups_clause(where.principal, groups), valid_from_clause(where.as_of), valid_until_clause(where.as_of),
    ], condition=FilterCondition.AND)


def compile_partitions(where: PolicyFilter, groups: Groups) -> list[MetadataFilters]:
    """One filter per slice of ``KEYS_PER_FILTER`` active keys (Chroma's SQLite variable limit; disjoint sets)
    and, for ``"flags"`` (Chroma's OR of EQ), per slice of ``GROUPS_PER_FILTER`` groups (SQLite's expression
    depth; a document in two slices' groups is admitted by both, and the merge keeps it once)."""
    return [compile_filters(part, groups, key_slice)
            for part, key_slice in partitions(where, by_groups=groups == "flags")]


__all__ = ["GROUP_FLAG", "Groups", "compile_filters", "compile_partitions", "node_metadata"]
