"""The authoritative revision as every store spells it: one key format, one list per tenant, one cache.

Stores that compile the active map into each query (``revision=query``) send the
keys ``tenant/logical_id#revision`` of the principal's tenant; stores that keep a flag
(``revision=flag``) find a document's revisions by ``tenant/logical_id``. Both strings
are unambiguous because a well-formed tenant holds no ``/`` and a revision's digits
no ``#``. Entries no well-formed document can hold (a tenant with ``/``, NUL or a lone
surrogate in a name) are left out of every list: they could match nothing, and some
stores refuse such a value even in a query.
"""

from __future__ import annotations

from collections.abc import Callable

from filterproof.policy import ActiveRevisions, is_revision, matchable


def revision_key(tenant: str, logical_id: str, revision: int) -> str:
    """The one string that says "this tenant/logical_id at this revision"."""
    return f"{tenant}/{logical_id}#{revision}"


def logical_key(tenant: str, logical_id: str) -> str:
    """``tenant/logical_id``: the document whatever its revision."""
    return f"{tenant}/{logical_id}"


def can_hold(tenant: str, logical_id: str) -> bool:
    """Whether a well-formed document can have this tenant and logical_id."""
    return matchable(tenant) and "/" not in tenant and matchable(logical_id)


def active_keys(active: ActiveRevisions, tenant: str) -> list[str]:
    """The keys of the revisions the map declares active, for one tenant, sorted."""
    keys = []
    for (owner, logical_id), revision in active.items():
        if not is_revision(revision):
            raise TypeError(f"active revision of {owner}/{logical_id} is not an integer: {revision!r}")
        if owner == tenant and can_hold(owner, logical_id):
            keys.append(revision_key(owner, logical_id, revision))
    return sorted(keys)


class KeyCache:
    """``active_keys`` per tenant, computed once per map object (a changed map is a new object).

    ``encode`` turns each key into the store's spelling (an escape, say) once. One client's threads share the cache
    and may ask with two maps at once (an application moves its map while requests are under way): the map and its
    keys are one object, read once per call, so that a call never stores or reads keys under another call's map.
    """

    def __init__(self, encode: Callable[[str], str] | None = None) -> None:
        self._encode = encode
        self._cached: tuple[ActiveRevisions | None, dict[str, list[str]]] = (None, {})

    def __call__(self, active: ActiveRevisions, tenant: str) -> list[str]:
        cached, by_tenant = self._cached
        if active is not cached:
            by_tenant = {}
            self._cached = (active, by_tenant)
        keys = by_tenant.get(tenant)
        if keys is None:
            keys = active_keys(active, tenant)
            keys = by_tenant[tenant] = [self._encode(k) for k in keys] if self._encode else keys
        return keys


def flags_to_rewrite(old: ActiveRevisions, new: ActiveRevisions) -> list[tuple[str, str]]:
    """The pairs whose current-revision flags a change from ``old`` to ``new`` rewrites: those that changed and
    that a well-formed document can hold. The others flag nothing, and their ``tenant/logical_id`` key could name
    another pair's documents (``acme/x`` + ``y`` joins as ``acme`` + ``x/y``) or be refused by the store (a lone
    surrogate, a NUL)."""
    return [pair for pair in old.changed(new) if can_hold(*pair)]
