"""The eligibility policy: the one predicate every backend is held to.

A document may be used by a principal at a date ``as_of`` when all of these hold:

* its ``tenant`` equals the principal's tenant;
* its ``status`` is ``"active"``;
* its ``revision`` equals the authoritative active revision of ``tenant/logical_id``;
* its ``groups`` share at least one group with the principal's groups;
* ``valid_from <= as_of < valid_until`` (``valid_until`` absent or null: open-ended).

Everything fails closed. Metadata that cannot be judged (a required field missing,
groups empty / not a list / not all strings, an identity string holding U+0000 or a
lone surrogate, a date that is not ``YYYY-MM-DD``, a revision that is not a 64-bit
integer, a tenant/logical_id with no entry in the active map) makes a document
*malformed*: it is indexed and counted, never eligible.

This module is the oracle, written for reading: one small function per check.
``columns.PolicyColumns`` evaluates the same predicate over all documents at once
with numpy masks (the reference adapter's native filter, and every case's truth in
``truth.prepare``); the tests hold the two equal on every shipped fixture and on
generated metadata, and the conformance suite judges stores against this module
directly. Identities here are trusted test inputs, not authentication.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

ACTIVE_STATUS = "active"
NUL = "\x00"
"""Never part of an identity: C strings (SQLite's JSON functions among them) end at it, so
``"acme\\x00evil"`` would read as ``"acme"`` in one store and not in another."""
REQUIRED_FIELDS = ("tenant", "logical_id", "revision", "status", "groups", "valid_from")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_date(value: object) -> date | None:
    """A calendar date written ``YYYY-MM-DD``; anything else is None (fail closed).

    Stricter than ``date.fromisoformat``, which in Python 3.11 also takes week
    dates and basic format: every backend must store the same dates, so only one
    spelling is accepted.
    """
    if not isinstance(value, str) or not _ISO_DATE.fullmatch(value):
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


REVISION_RANGE = (-(2**63), 2**63 - 1)
"""Revisions every store can hold (a signed 64-bit integer); beyond it a revision is malformed."""


def is_revision(value: object) -> bool:
    """Revisions are integers a store can hold; ``True`` and ``1.0`` are not (Python says they equal 1)."""
    return (isinstance(value, int) and not isinstance(value, bool)
            and REVISION_RANGE[0] <= value <= REVISION_RANGE[1])


def matchable(value: object) -> bool:
    """Whether a well-formed document can hold this tenant, logical_id or group: valid text without NUL.

    A principal, a group or an active-map entry that fails it can match nothing, so a
    compiler leaves it out of a filter (some stores refuse NUL even in a query).
    """
    return is_text(value) and NUL not in value  # type: ignore[operator]


def is_text(value: object) -> bool:
    """A string every store can hold: encodable as UTF-8 (JSON may carry lone surrogates like ``\\ud800``)."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@dataclass(frozen=True)
class ActiveRevisions(Mapping[tuple[str, str], int]):
    """The authoritative ``(tenant, logical_id) -> revision`` map, immutable and hashable.

    Adapters may cache work derived from a map (``digest`` names its content), so a
    change of the map is always a new object, visible to the next query.
    """

    entries: tuple[tuple[tuple[str, str], int], ...] = ()
    _index: dict[tuple[str, str], int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", dict(self.entries))

    @classmethod
    def of(cls, mapping: Mapping[tuple[str, str], int]) -> ActiveRevisions:
        return cls(tuple(sorted(mapping.items())))

    def __getitem__(self, key: tuple[str, str]) -> int:
        return self._index[key]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __hash__(self) -> int:
        return hash(self.entries)

    @property
    def digest(self) -> str:
        return hashlib.sha256(repr(self.entries).encode()).hexdigest()[:16]

    def replace(self, tenant: str, logical_id: str, revision: int) -> ActiveRevisions:
        return ActiveRevisions.of({**self._index, (tenant, logical_id): revision})

    def changed(self, new: Mapping[tuple[str, str], int]) -> list[tuple[str, str]]:
        """The tenant/logical_ids whose active revision differs in ``new`` (added, removed or moved), sorted.

        What a store that flags the current revision must rewrite when the map changes.
        """
        if new is self:
            return []
        return sorted(pair for pair in set(self._index) | set(new) if self._index.get(pair) != new.get(pair))

    def to_json(self) -> dict[str, int]:
        return {f"{tenant}/{logical}": rev for (tenant, logical), rev in self.entries}


@dataclass(frozen=True)
class Principal:
    """Who asks: a tenant and the groups they belong to."""

    tenant: str
    groups: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "groups", tuple(self.groups))


@dataclass(frozen=True)
class PolicyFilter:
    """Everything a backend needs to decide eligibility natively for one query."""

    principal: Principal
    as_of: date
    active: ActiveRevisions


# -- malformed metadata: one small check per class ---------------------------


def missing_field(meta: Mapping[str, Any]) -> str | None:
    for name in REQUIRED_FIELDS:
        if name not in meta or meta[name] is None:
            return f"missing {name}"
    return None


def bad_identity(meta: Mapping[str, Any]) -> str | None:
    for name in ("tenant", "logical_id", "status"):
        if not isinstance(meta[name], str):
            return f"{name} is not a string"
        if not is_text(meta[name]):
            return f"{name} is not valid text (a lone surrogate)"
    if "/" in meta["tenant"]:
        # tenant/logical_id keys the active map; a slash would make keys ambiguous.
        return "tenant contains '/'"
    for name in ("tenant", "logical_id", "status"):
        if NUL in meta[name]:
            return f"{name} contains U+0000"
    return None


def bad_groups(meta: Mapping[str, Any]) -> str | None:
    groups = meta["groups"]
    if not isinstance(groups, list):
        return "groups is not a list"
    if not groups:
        return "groups is empty"
    if not all(isinstance(g, str) for g in groups):
        return "groups has a non-string"
    if not all(is_text(g) for g in groups):
        return "groups has a string that is not valid text (a lone surrogate)"
    if any(NUL in g for g in groups):
        return "a group contains U+0000"
    return None


def bad_revision(meta: Mapping[str, Any]) -> str | None:
    revision = meta["revision"]
    if isinstance(revision, int) and not isinstance(revision, bool) and not is_revision(revision):
        return "revision is outside the signed 64-bit range"
    return None if is_revision(revision) else "revision is not an integer"


def bad_dates(meta: Mapping[str, Any]) -> str | None:
    if parse_date(meta["valid_from"]) is None:
        return "valid_from is not a YYYY-MM-DD date"
    until = meta.get("valid_until")
    if until is not None and parse_date(until) is None:
        return "valid_until is not a YYYY-MM-DD date"
    return None


_STRUCTURAL_CHECKS = (missing_field, bad_identity, bad_groups, bad_revision, bad_dates)


def structural_problem(meta: Mapping[str, Any]) -> str | None:
    """Why this metadata can never be eligible, whatever the active map says; or None."""
    for check in _STRUCTURAL_CHECKS:
        problem = check(meta)
        if problem:
            return problem
    return None


def problem(meta: Mapping[str, Any], active: Mapping[tuple[str, str], int]) -> str | None:
    """Why this document is malformed under ``active``, or None when it is well formed."""
    found = structural_problem(meta)
    if found:
        return found
    if (meta["tenant"], meta["logical_id"]) not in active:
        return "tenant/logical_id absent from the active revisions"
    return None


# -- eligibility --------------------------------------------------------------


def calendar_day(as_of: object) -> date:
    """``as_of`` when it is a calendar date. A datetime (a time of day, whose day depends on a time zone), ISO text
    or a number raises TypeError, as comparing one with a document's dates does in ``in_window``: a filter is asked
    on a day, never on something a lenient reader turns into one."""
    if not isinstance(as_of, date) or isinstance(as_of, datetime):
        raise TypeError(f"as_of must be a calendar date (datetime.date, not a datetime), got {as_of!r}")
    return as_of


def in_window(meta: Mapping[str, Any], as_of: date) -> bool:
    """valid_from inclusive, valid_until exclusive; assumes well-formed dates."""
    start = parse_date(meta["valid_from"])
    end = parse_date(meta["valid_until"]) if meta.get("valid_until") is not None else None
    return start is not None and start <= as_of and (end is None or as_of < end)


def same_tenant(meta: Mapping[str, Any], flt: PolicyFilter) -> bool:
    return bool(meta["tenant"] == flt.principal.tenant)


def is_active(meta: Mapping[str, Any], flt: PolicyFilter) -> bool:
    return bool(meta["status"] == ACTIVE_STATUS)


def is_authoritative(meta: Mapping[str, Any], flt: PolicyFilter) -> bool:
    return bool(meta["revision"] == flt.active[(meta["tenant"], meta["logical_id"])])


def shares_a_group(meta: Mapping[str, Any], flt: PolicyFilter) -> bool:
    return not set(meta["groups"]).isdisjoint(flt.principal.groups)


def in_effect(meta: Mapping[str, Any], flt: PolicyFilter) -> bool:
    return in_window(meta, flt.as_of)


CLAUSES = {"tenant": same_tenant, "status": is_active, "revision": is_authoritative, "groups": shares_a_group,
           "window": in_effect}
"""The policy's clauses of a well-formed document, by name, in the order a diagnosis names them."""


def is_eligible(meta: Mapping[str, Any], flt: PolicyFilter) -> bool:
    """The policy predicate. Malformed metadata is never eligible."""
    if problem(meta, flt.active):
        return False
    return all(clause(meta, flt) for clause in CLAUSES.values())


def rejected_by(meta: Mapping[str, Any], flt: PolicyFilter) -> list[str]:
    """The clauses that reject a document: ``["malformed"]`` for malformed metadata, else each failing clause's
    name from ``CLAUSES`` (empty: eligible)."""
    if problem(meta, flt.active):
        return ["malformed"]
    return [name for name, clause in CLAUSES.items() if not clause(meta, flt)]


def eligible_ids(documents: Iterable[tuple[str, Mapping[str, Any]]], flt: PolicyFilter) -> set[str]:
    """Ids of the (id, metadata) pairs the filter admits."""
    return {doc_id for doc_id, meta in documents if is_eligible(meta, flt)}
