"""How a document's metadata is stored in Qdrant, so that every policy clause is one native condition.

The adapter receives the fixture's metadata exactly as given, malformed values
included. Filtering on it as given would not be safe: a ``groups`` stored as a
plain string matches ``MatchAny`` like a one-element list, an integer index makes
revision ``1`` match ``1.0``, qdrant-edge 0.9 turns ``MatchValue(True)`` into ``1``,
and malformed dates silently never match (which fails closed, but only by luck).
So ``stored_payload`` classifies each document once, at upsert, with
``policy.structural_problem``, and stores:

================= ======================================= ============================
field             stored value (well-formed documents)    index
================= ======================================= ============================
fp_id             our string id (every document)          none
fp_form           ``"ok"`` (every document: or            keyword
                  ``"malformed"``)
tenant            tenant                                  keyword, tenant key
status            status                                  keyword
groups            list of strings, non-empty              keyword
fp_revision_key   ``"tenant/logical_id#revision"``        keyword (``revision=query`` only)
revision          integer                                 none (not filtered on)
valid_from        ``YYYY-MM-DDT00:00:00Z``                datetime
valid_until       the same, or absent when open-ended     datetime
logical_id        logical_id                              none
raw               the metadata as given, as JSON text     none, never filtered on
                  (``adapters.raw``; every document)
================= ======================================= ============================

A malformed document keeps only ``fp_id``, ``fp_form: "malformed"``, ``fp_problem``
and ``raw``: none of the filtered fields, so it fails every clause twice over (the
``fp_form`` marker, and each field's absence). Dates are midnight UTC RFC 3339
datetimes because Qdrant's datetime range is the native date window and both
engines parse that spelling; the policy's dates are calendar days, so midnight
loses nothing. The key is unambiguous: a well-formed tenant holds no ``/`` and a
revision's digits hold no ``#``.

Point ids are UUIDv5 of our id (Qdrant takes only unsigned integers and UUIDs);
our id stays in ``fp_id`` and searches read it back from there.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import date
from typing import Any, Literal

from filterproof.adapters.raw import raw_json
from filterproof.adapters.revisions import logical_key, revision_key
from filterproof.policy import parse_date, structural_problem

ID, FORM, PROBLEM, RAW = "fp_id", "fp_form", "fp_problem", "raw"
CURRENT, LID = "fp_current", "fp_lid"
"""``revision=flag`` only: ``"yes"``/``"no"`` (never a bool: qdrant-edge 0.9 reads ``MatchValue(True)`` as 1),
and the document's ``tenant/logical_id``, by which ``set_active_revisions`` rewrites the flags."""
TENANT, STATUS, GROUPS, KEY = "tenant", "status", "groups", "fp_revision_key"
REVISION, LOGICAL_ID, VALID_FROM, VALID_UNTIL = "revision", "logical_id", "valid_from", "valid_until"
WELL_FORMED, MALFORMED = "ok", "malformed"

IndexKind = Literal["keyword", "tenant", "datetime"]
INDEXES: dict[str, IndexKind] = {
    FORM: "keyword", TENANT: "tenant", STATUS: "keyword", GROUPS: "keyword",
    VALID_FROM: "datetime", VALID_UNTIL: "datetime",
}
"""Payload field -> index type, for the fields every filter reads. ``tenant`` is a keyword index marked
as the tenant key. Only filtered fields are indexed: each index costs memory in every segment, twice
while the optimizer rebuilds one (at 200k documents, the integer index on ``revision``, which no filter
reads, cost 62 MB and the revision key's 83 MB of the 343 MB all indexes took; ``bench/README.md``)."""
QUERY_INDEXES: dict[str, IndexKind] = {KEY: "keyword"}
"""The extra index of ``revision=query``: the active map travels as a ``MatchAny`` over the key."""
FLAG_INDEXES: dict[str, IndexKind] = {CURRENT: "keyword", LID: "keyword"}
"""The extra indexes of ``revision=flag``: the flag, and the logical document its rewrite selects by."""

NAMESPACE = uuid.UUID("6f1c1d52-4d0e-5b8e-9a57-0c3f2f7e9a11")
"""UUIDv5 namespace for point ids; fixed, so a document's point id is stable across runs."""


def point_id(doc_id: str) -> str:
    """Qdrant's id for our document id (a UUID string; qdrant-edge returns it as ``uuid.UUID``)."""
    return str(uuid.uuid5(NAMESPACE, doc_id))


def timestamp(day: date) -> str:
    """A calendar day as the RFC 3339 datetime Qdrant stores and compares: midnight UTC."""
    return f"{day.isoformat()}T00:00:00Z"


def stored_payload(doc_id: str, metadata: Mapping[str, Any],
                   active: Mapping[tuple[str, str], int] | None = None) -> dict[str, Any]:
    """The payload for one document (see the module docstring); raises nothing, whatever the metadata.

    ``active`` (``revision=flag`` only) adds the current-revision flag under that map.
    """
    payload: dict[str, Any] = {ID: doc_id, RAW: raw_json(metadata)}
    problem = structural_problem(metadata)
    if problem:
        return {**payload, FORM: MALFORMED, PROBLEM: problem}
    start = parse_date(metadata["valid_from"])
    assert start is not None  # structural_problem checked it
    payload |= {
        FORM: WELL_FORMED,
        TENANT: metadata["tenant"],
        STATUS: metadata["status"],
        GROUPS: list(metadata["groups"]),
        KEY: revision_key(metadata["tenant"], metadata["logical_id"], metadata["revision"]),
        REVISION: metadata["revision"],
        LOGICAL_ID: metadata["logical_id"],
        VALID_FROM: timestamp(start),
    }
    end = parse_date(metadata.get("valid_until"))
    if end is not None:
        payload[VALID_UNTIL] = timestamp(end)
    if active is not None:
        pair = (metadata["tenant"], metadata["logical_id"])
        payload[LID] = logical_key(*pair)
        payload[CURRENT] = "yes" if active.get(pair) == metadata["revision"] else "no"
    return payload
