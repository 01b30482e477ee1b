"""The policy as a Qdrant ``Filter``: one small pure function per clause, each a neutral condition.

Each clause is an ``adapters.filterlang`` condition on the stored fields (``payload.py``),
written into either model family (``qdrant_client.models`` for local mode and servers,
``qdrant_edge`` for the engine in process) by Qdrant's one renderer,
``language.Qdrant``, which the fuzz targets and the matrix write with too. Pure data
in, pure data out (``language.Call`` before ``Family.make``), so the clauses are
unit-tested without any engine.

The compiled filter is the conjunction (``must``, in this order) of

* ``fp_form == "ok"``: the well-formed marker; malformed documents have none of
  the fields below either;
* ``tenant == principal.tenant`` and ``status == "active"``;
* ``groups`` matches any of the principal's groups (none: ``MatchAny([])``, which
  matches nothing in every form);
* ``valid_from <= as_of`` and (``valid_until > as_of`` or ``valid_until`` empty).
  ``should[range, IsEmpty]`` rather than ``must_not[range <=]``: the two agree on
  well-formed payloads, and on a stored malformed date only the first fails closed;
* ``fp_revision_key`` among the keys ``"tenant/logical_id#revision"`` of the active
  map's entries for the principal's tenant. A changed map is a new list in the next
  filter, and a tenant/logical_id absent from the map has no key there. The cost is
  a filter as long as the tenant's share of the map; ``PolicyCompiler`` builds the
  per-tenant lists once per map object. The clause comes last: qdrant-client's local
  mode checks ``must`` in order and stops at the first failure, and a long
  ``MatchAny`` is its most expensive check (a list scan per candidate point).

Why a key list per query rather than a per-document "current" flag kept in sync:
the list is stateless (no write when the map changes, several maps can be asked
in one batch, nothing to repair after a crash between two flag writes) and exact
for any map. Its price grows with the tenant's share of the map: request bodies to
a server (so batched calls are capped by key count), time on the edge engine, and
in local mode a cost proportional to candidates x keys (bench/README.md has the
numbers). A flag would make the filter constant-size at the cost of writes on every
publish or supersede.

Unknown input raises ``TypeError``; an empty ``should`` (which Qdrant reads as "no
constraint") cannot be rendered at all (``Unsupported``), and no clause holds one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from filterproof.adapters.filterlang import And, Cond, Expr, Or
from filterproof.adapters.qdrant.language import Family, Qdrant
from filterproof.adapters.qdrant.payload import (
    CURRENT,
    FORM,
    GROUPS,
    KEY,
    STATUS,
    TENANT,
    VALID_FROM,
    VALID_UNTIL,
    WELL_FORMED,
)
from filterproof.adapters.revisions import can_hold, revision_key
from filterproof.policy import (
    ACTIVE_STATUS,
    ActiveRevisions,
    PolicyFilter,
    Principal,
    calendar_day,
    is_revision,
    matchable,
)

# -- one clause each ------------------------------------------------------------


def form_clause() -> Expr:
    return Cond("eq", FORM, WELL_FORMED)


def tenant_clause(principal: Principal) -> Expr:
    """The principal's tenant; one no well-formed document can hold (NUL, a lone surrogate, which qdrant-edge
    cannot even take) matches nothing, as ``MatchAny([])``."""
    tenant = _text(principal.tenant, "principal tenant")
    return Cond("eq", TENANT, tenant) if matchable(tenant) else Cond("in", TENANT, ())


def status_clause() -> Expr:
    return Cond("eq", STATUS, ACTIVE_STATUS)


def groups_clause(principal: Principal) -> Expr:
    """Any of the principal's groups that a well-formed document can hold (none: ``MatchAny([])``, nothing)."""
    held = tuple(g for g in (_text(g, "principal group") for g in principal.groups) if matchable(g))
    return Cond("contains_any", GROUPS, held)


def valid_from_clause(as_of: date) -> Expr:
    return Cond("lte", VALID_FROM, calendar_day(as_of))


def valid_until_clause(as_of: date) -> Expr:
    return Or((Cond("gt", VALID_UNTIL, calendar_day(as_of)), Cond("is_empty", VALID_UNTIL)))


def revision_clause(keys: Sequence[str]) -> Expr:
    return Cond("in", KEY, tuple(keys))


def flag_clause() -> Expr:
    """``revision=flag``: the document is flagged current (by ``set_active_revisions``)."""
    return Cond("eq", CURRENT, "yes")


def keys_by_tenant(active: Mapping[tuple[str, str], int]) -> dict[str, tuple[str, ...]]:
    """Tenant -> the revision keys of its entries in the active map, sorted.

    Entries whose tenant holds a ``/`` are left out: no well-formed document has such a
    tenant, and leaving them out keeps every key in a list unambiguous.
    """
    found: dict[str, list[str]] = {}
    for (tenant, logical_id), revision in active.items():
        if not is_revision(revision):
            raise TypeError(f"active revision of {tenant}/{logical_id} is {revision!r}, not an integer")
        if can_hold(tenant, logical_id):
            found.setdefault(tenant, []).append(revision_key(tenant, logical_id, revision))
    return {tenant: tuple(sorted(keys)) for tenant, keys in found.items()}


def compile_policy(where: PolicyFilter, keys: Sequence[str] | None) -> And:
    """The whole policy for one query; ``keys`` are the active revision keys of the principal's tenant,
    or None under ``revision=flag`` (the stored flag decides)."""
    if not isinstance(where, PolicyFilter):
        raise TypeError(f"expected a PolicyFilter, got {type(where).__name__}")
    return And((
        form_clause(),
        tenant_clause(where.principal),
        status_clause(),
        groups_clause(where.principal),
        valid_from_clause(where.as_of),
        valid_until_clause(where.as_of),
        flag_clause() if keys is None else revision_clause(keys),
    ))


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, got {value!r}")
    return value


KEYS_CACHED = 2_000_000
"""Revision keys the cached native filters may hold together. A native ``MatchAny`` costs
about 95 bytes a key (measured, qdrant-edge): at 1M documents a principal of the largest
tenant carries 580k keys, 55 MB a filter, and a sweep's 180 cached filters held 5-6 GB."""


class MapFilters:
    """One map's revision keys by tenant and the native filters compiled under it, with the keys those hold: one
    object, read once per call, so that two threads of one client asking under two maps at once (an application
    moves its map while requests are under way) never store or read a filter under the other's map."""

    def __init__(self, active: ActiveRevisions | None, keys: dict[str, tuple[str, ...]]) -> None:
        self.active, self.keys = active, keys
        self.filters: dict[tuple[Principal, date], Any] = {}
        self.held = 0


class PolicyCompiler:
    """Policy filters to native filters of one model family, with the per-map and per-query work done once.

    Keyed by the identity of the ``ActiveRevisions`` object (immutable: a changed map
    is a new object), never by its hash, which walks the whole map. The cache holds at
    most ``cache_size`` filters and ``keys_cached`` revision keys between them.
    """

    def __init__(self, family: Family, cache_size: int = 256, flag: bool = False,
                 keys_cached: int = KEYS_CACHED, prefix: str = "") -> None:
        self._qdrant, self._cache_size, self._flag = Qdrant(family, prefix=prefix), cache_size, flag
        self._keys_cached = keys_cached
        self._cache = MapFilters(None, {})

    def native(self, where: PolicyFilter) -> Any:
        """The native filter for ``where``; the same object for the same principal, date and map."""
        cache = self._for(where)
        keys = None if self._flag else cache.keys.get(where.principal.tenant, ())
        slot = (where.principal, where.as_of)
        found = cache.filters.get(slot)
        if found is None:
            found = self._qdrant.native(compile_policy(where, keys))
            weight = len(keys) if keys else 0
            if len(cache.filters) >= self._cache_size or cache.held + weight > self._keys_cached:
                cache.filters.clear()
                cache.held = 0
            cache.filters[slot] = found
            cache.held += weight
        return found

    def size(self, where: PolicyFilter) -> int:
        """How many revision keys the filter for ``where`` carries (its weight in a request body)."""
        return 0 if self._flag else len(self._for(where).keys.get(where.principal.tenant, ()))

    def render(self, expr: Expr) -> Any:
        """Any neutral filter (a selector of the adapter's writes) as this family's native ``Filter``."""
        return self._qdrant.native(expr)

    def _for(self, where: PolicyFilter) -> MapFilters:
        """The cache of ``where``'s map (under ``revision=flag`` the one cache: a filter holds no map)."""
        if not isinstance(where, PolicyFilter):
            raise TypeError(f"expected a PolicyFilter, got {type(where).__name__}")
        cache = self._cache
        if not self._flag and where.active is not cache.active:
            cache = self._cache = MapFilters(where.active, keys_by_tenant(where.active))
        return cache
