"""Twin checks: every catalogue entry of ``twins`` beside its original, on every side a store can conflate it.

For an identity field, one world per family of twins holds a document for the original
and one for each twin, every one of them otherwise eligible:

* **document side**: a principal asking for the original must not get the twin's document;
* **principal side**: a principal asking for the twin must get the twin's document only;
* **active map keys** (tenant and logical_id): the map holds the originals' keys only, the
  twins' only, or both at different revisions, so that a store looking the map up by a
  normalised key admits a document the map does not name, or the wrong revision.

Revisions: one document per revision of each colliding pair, the map at one side of
every pair, then the other. Dates: at each boundary day, a window that starts there,
one that ends there, one of that day only, an empty one and a reversed one, asked on
the day before, the day itself and the day after.

Each test reports every failing world at once, one line each, naming the family, the
map, the principal and the documents with their metadata (strings escaped, so that
twins never print alike), then which twin each document is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import pytest

from filterproof.adapters.base import Adapter
from filterproof.conformance import scenarios as sc
from filterproof.conformance import twins
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal

SHOWN = 8
"""Failing worlds listed in full in a message; the count of the others follows."""


@dataclass
class TwinWorld:
    """Documents, the maps and principals to ask with, the days to ask on, and what each document is."""

    label: str
    docs: dict[str, dict[str, Any]]
    maps: dict[str, ActiveRevisions]
    principals: list[Principal]
    days: list[date] = field(default_factory=lambda: [sc.AS_OF])
    what: dict[str, str] = field(default_factory=dict)

    def failures(self, adapter: Adapter) -> list[str]:
        """One line per (map, principal, day) whose native answer differs from the policy's."""
        s = sc.Scenario.build(adapter, self.docs)
        found = []
        for map_label, active in self.maps.items():
            for principal in self.principals:
                for day in self.days:
                    where = PolicyFilter(principal, day, active)
                    got, want = s.native_ids(where), s.policy_ids(where)
                    if got != want:
                        named = "; ".join(f"{i} is {self.what[i]}" for i in sorted(got ^ want) if i in self.what)
                        found.append(f"[{self.label}, {map_label}] {sc.asked(where)}: "
                                     f"{sc.mismatch(got, want, s.docs)}" + (f" ({named})" if named else ""))
        return found


def by_family(catalogue: Iterable[twins.Twin]) -> dict[str, list[twins.Twin]]:
    families: dict[str, list[twins.Twin]] = {}
    for twin in catalogue:
        families.setdefault(twin.family, []).append(twin)
    return families


def key_maps(key: Callable[[str], tuple[str, str]], originals: list[str],
             copies: list[str]) -> dict[str, ActiveRevisions]:
    """The active maps a key field is asked under: both sides, one side only, each side ahead of the other."""
    def of(at: dict[str, int]) -> ActiveRevisions:
        return ActiveRevisions.of({key(v): r for v, r in at.items()})

    return {
        "every key in the map": of(dict.fromkeys(originals + copies, 1)),
        "only the originals' keys in the map": of(dict.fromkeys(originals, 1)),
        "only the twins' keys in the map": of(dict.fromkeys(copies, 1)),
        "the originals' keys at revision 2": of({**dict.fromkeys(copies, 1), **dict.fromkeys(originals, 2)}),
        "the twins' keys at revision 2": of({**dict.fromkeys(originals, 1), **dict.fromkeys(copies, 2)}),
    }


def placed(name: str, value: str, doc_id: str) -> dict[str, Any]:
    """An otherwise eligible document holding ``value`` in the identity field ``name`` (a key field keeps the
    document's logical id for the value itself)."""
    if name == "tenant":
        return sc.meta(tenant=value)
    if name == "logical_id":
        return sc.meta(logical_id=value)
    if name == "group":
        return sc.meta(logical_id=doc_id, groups=[value])
    return sc.meta(logical_id=doc_id, status=value)


def identity_world(name: str, family: str, entries: list[twins.Twin]) -> TwinWorld:
    """One family's twins of one identity field, each beside its original, all otherwise eligible."""
    values = list(dict.fromkeys([t.value for t in entries] + [t.twin for t in entries]))
    originals = list(dict.fromkeys(t.value for t in entries))
    copies = [v for v in values if v not in originals]
    what: dict[str, str] = {}
    for t in entries:
        what.setdefault(t.twin, str(t))
    what |= {v: f"the original {name} {twins.shown(v)}" for v in originals}
    ids = {v: f"{name[0]}{i}" for i, v in enumerate(values)}
    docs = {ids[v]: placed(name, v, ids[v]) for v in values}
    if name == "tenant":
        maps = key_maps(lambda v: (v, "doc"), originals, copies)
        principals = [sc.principal(v) for v in values]
    elif name == "logical_id":
        maps, principals = key_maps(lambda v: (sc.TENANT, v), originals, copies), [sc.principal()]
    else:
        maps = {"every key in the map": sc.active_for(docs)}
        principals = [Principal(sc.TENANT, (v,)) for v in values] if name == "group" else [sc.principal()]
    return TwinWorld(f"{name} {family}", docs, maps, principals, what={ids[v]: what[v] for v in values})


def revision_world() -> TwinWorld:
    """Each colliding pair as two revisions of one logical id; the map at the first of every pair, then the second."""
    entries = twins.revision_twins()
    docs, what = {}, {}
    for i, t in enumerate(entries):
        for side, revision in (("a", t.value), ("b", t.twin)):
            docs[f"r{i}{side}"] = sc.meta(logical_id=f"r{i}", revision=revision)
            other = t.twin if side == "a" else t.value
            what[f"r{i}{side}"] = f"revision {revision} ({t.family}: {t.name}, twin of {other})"
    maps = {f"the map at every pair's {which} revision": ActiveRevisions.of(
        {(sc.TENANT, f"r{i}"): pick(t) for i, t in enumerate(entries)})
        for which, pick in (("first", lambda t: t.value), ("second", lambda t: t.twin))}
    return TwinWorld("revision widths", docs, maps, [sc.principal()], what=what)


def date_world() -> TwinWorld:
    """Every window shape at every boundary day, and the malformed days beside them (as a start and as an
    end), asked on each boundary, the day before and the day after."""
    docs, what = {}, {}
    for n, (text, why) in enumerate(twins.DATE_BOUNDARIES):
        day = date.fromisoformat(text)
        for m, (shape, phrase) in enumerate(twins.WINDOW_SHAPES.items()):
            found = twins.window(shape, day)
            if found is None:
                continue
            start, end = found
            doc_id = f"d{n}-{m}"
            docs[doc_id] = sc.meta(logical_id=doc_id, valid_from=start.isoformat(),
                                   valid_until=None if end is None else end.isoformat())
            what[doc_id] = f"{phrase.format(day=text)}: {why}"
    for n, (text, why) in enumerate(twins.NOT_DAYS):
        for name in ("valid_from", "valid_until"):
            doc_id = f"x{n}-{name[6:]}"
            docs[doc_id] = sc.meta(logical_id=doc_id, **{name: text})
            what[doc_id] = f"{name} {text}, not a date ({why}): malformed"
    return TwinWorld("date boundaries", docs, {"every key in the map": sc.active_for(docs)}, [sc.principal()],
                     days=[*twins.asked_days(), sc.AS_OF], what=what)


def report(failures: list[str], what: str) -> str:
    more = f"\n... and {len(failures) - SHOWN} more" if len(failures) > SHOWN else ""
    count = "1 answer differs" if len(failures) == 1 else f"{len(failures)} answers differ"
    hints = "".join(f"\nhint, {way}: {hint}" for way, hint in sc.HINTS.items() if any(way in f for f in failures))
    return f"{count} from the policy on {what}:\n" + "\n".join(failures[:SHOWN]) + more + hints


class TwinChecks:
    """Each field's twin catalogue (``filterproof.conformance.twins``): no store conflation leaks or drops."""

    @pytest.mark.parametrize("name", ["tenant", "logical_id", "group", "status"])
    def test_identity_twins(self, native: Adapter, name: str) -> None:
        """Twins of a tenant, a logical id (the active map's key), a group or the status: other letter case,
        accents, Unicode forms, whitespace, zero-width characters, prefixes, NUL, the empty string, collation
        pairs (ß/ss, ligatures, the Kelvin sign). Each is a different identity; none may stand for another.

        If this fails: the message names the family (e.g. ``tenant whitespace``) and the
        twin. The store, a driver or a collation conflates the two: a case- or
        accent-insensitive collation, a PAD SPACE comparison, a trimmed or normalised
        value (NFC/NFKC), a key looked up after normalising (a dict keyed by
        ``casefold()``, ``COLLATE NOCASE``), an empty string read as "no constraint".
        Store and compare identities as the exact code points given, on every field.
        """
        failures = [line for family, entries in by_family(twins.identity_twins(name)).items()
                    for line in identity_world(name, family, entries).failures(native)]
        assert not failures, report(failures, f"the {name} twins")

    def test_revision_twins(self, native: Adapter) -> None:
        """Revisions that collide in 32-bit integers (wrap, sign, saturation), in float64 (beyond 2^53, at the
        int64 limits), in float32, or as text (a key prefix), and zero and negatives, are distinct revisions.

        If this fails: the store (or a JSON layer, a driver, a column type) keeps revisions
        narrower than signed 64-bit integers, or compares them as text by prefix. Store
        them as 64-bit integers or as exact decimal strings compared whole.
        """
        failures = revision_world().failures(native)
        assert not failures, report(failures, "the revision twins")

    def test_date_boundaries_of_encodings(self, native: Adapter) -> None:
        """Windows starting, ending, lasting one day, empty and reversed at the days where date encodings
        break (0001-01-01, 1677-09-22, 1901-12-14, 1969-12-31, 1970-01-01, 2000-02-29, 2038-01-19, 2100-03-01,
        2106-02-06, 2262-04-10, 9999-12-31), asked the day before, on the day and the day after.

        If this fails: dates are stored in an encoding that wraps or saturates (32-bit
        seconds, 64-bit nanoseconds), reads epoch day 0 as missing (``if day:``), uses a
        real day as the open-end sentinel, or treats a window whose end is not after its
        start as open. An empty or reversed window admits no day.
        """
        failures = date_world().failures(native)
        assert not failures, report(failures, "the date boundaries")
