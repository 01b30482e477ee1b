"""Absent and default: a field left out or null beside the values stores and drivers put in its place.

A document without a tenant, a revision or a start date is malformed and fails closed. A
store, a driver or a schema that writes something else for the absence makes it an
ordinary document: Python drivers write ``None`` as ``''`` or as the text ``'None'``,
JSON layers as ``'null'``, a ``NOT NULL DEFAULT`` column as its default (``0``,
``'active'``), a date codec as day 0 (1970-01-01, or ``date.min``). The principal who
holds that value (a tenant ``''``, a group ``'None'``, the active map at revision 0)
then reads the malformed document. The other way round, an empty ``valid_until``
(``''``, malformed) read as absent becomes an open-ended window.

Each world holds, for one field, a document where the field is absent, one where it is
null (written first: a store that infers a column from its first write), and one for each
value that stands in for them, asked by the principal, the active map or on the day
that admits that value. And the field's key spelled otherwise (``Tenant``, ``TENANT``,
``tenant ``): a store that folds or trims keys (columns named by unquoted SQL identifiers,
a case-insensitive schema) reads a document without the field as one with it, or a
document's other key as its field.
"""

from __future__ import annotations

from typing import Any

from filterproof.conformance.worlds import scenarios as sc
from filterproof.conformance.worlds.twin_worlds import TwinWorld
from filterproof.conformance.worlds.twins import shown
from filterproof.policy import ActiveRevisions, Principal

TEXTS = ("", "None", "null")
"""What a string field's absence is written as: an empty string, Python's ``str(None)``, JSON's null as text."""

STANDS_IN: dict[str, tuple[Any, ...]] = {
    "tenant": TEXTS,
    "logical_id": TEXTS,
    "status": (*TEXTS, sc.meta()["status"]),  # a column's DEFAULT 'active'
    "groups": tuple([g] for g in TEXTS),
    "revision": (0, -1, 1),  # None as 0, a sentinel, a column's DEFAULT 1
    "valid_from": ("1970-01-01", "0001-01-01", sc.AS_OF.isoformat()),  # day 0, date.min, the day asked
    "valid_until": ("", "1970-01-01"),  # an empty end read as open, an open end written as day 0
}
"""Field -> the values some store writes for it when it is absent or null."""


def absent_world(name: str) -> TwinWorld:
    """The field ``name`` absent, null, and each value of ``STANDS_IN[name]``, in otherwise eligible documents,
    asked by every principal and under every map that admits one of those values."""
    key = name[0] if name != "valid_until" else "u"
    docs: dict[str, dict[str, Any]] = {f"{key}-absent": sc.meta(**{name: ...}), f"{key}-null": sc.meta(**{name: None})}
    what = {f"{key}-absent": f"a document without {name}", f"{key}-null": f"a document whose {name} is null"}
    for n, value in enumerate(STANDS_IN[name]):
        docs[f"{key}{n}"] = sc.meta(**{name: value})
        what[f"{key}{n}"] = f"a document whose {name} is {shown(value)}, what a store may write for an absent one"
    principals, maps = [sc.principal()], {"every key in the map": sc.active_for(docs)}
    if name == "tenant":
        principals = [sc.principal(v) for v in TEXTS]
        maps = {"every key in the map": ActiveRevisions.of({(v, "doc"): 1 for v in (sc.TENANT, *TEXTS)})}
    elif name == "logical_id":
        maps = {"every key in the map": ActiveRevisions.of({(sc.TENANT, v): 1 for v in ("doc", *TEXTS)})}
    elif name == "groups":
        principals = [Principal(sc.TENANT, (v,)) for v in TEXTS]
    elif name == "revision":
        maps = {f"the map at revision {r}": ActiveRevisions.of({(sc.TENANT, "doc"): r}) for r in STANDS_IN[name]}
    twins = key_twins(name)
    docs.update({i: meta for i, (meta, _) in twins.items()})
    what.update({i: said for i, (_, said) in twins.items()})
    if name in ("tenant", "groups"):
        principals.append(sc.principal())  # the one a key twin's value would admit
    nulls = [i for i in docs if i.endswith(("-absent", "-null"))]
    return TwinWorld(f"{name} absent", docs, maps, principals, what=what,
                     batches=[nulls, [i for i in docs if i not in nulls]])


KEY_TWINS = (str.title, str.upper, lambda key: key + " ")
"""Keys a store may read as the field's: a folded case (unquoted SQL identifiers, a case-insensitive schema), a
trailing space (a trimmed key)."""


def key_twins(name: str) -> dict[str, tuple[dict[str, Any], str]]:
    """For each twin of the field's key: the field absent (an optional end: absent, so open) beside the twin key
    holding the value that flips the document; and the field holding the flipping value beside the twin key,
    written after it, holding the other. A store that reads the twin as the field answers otherwise."""
    inside, outside = sc.FIELD_FLIPS[name]
    optional = name == "valid_until"
    found = {}
    for n, twin in enumerate(spell(name) for spell in KEY_TWINS):
        held = outside if optional else inside
        found[f"{name[:2]}-key{n}"] = ({**sc.meta(**{name: ...}), twin: held},
                                       f"a document without {name} whose key {twin!r} holds {shown(held)}")
        found[f"{name[:2]}-key{n}b"] = ({**sc.meta(**{name: outside}), twin: inside},
                                        f"a document whose {name} is {shown(outside)} and whose key {twin!r}, "
                                        f"after it, holds {shown(inside)}")
    return found


FIELDS = tuple(STANDS_IN)
