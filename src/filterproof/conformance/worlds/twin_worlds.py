"""The worlds the twin checks ask: each catalogue entry of ``twins`` beside its original, on every side.

For an identity field, one world per family of twins holds a document for the original
and one for each twin, every one of them otherwise eligible, the originals written
first and the twins in a second upsert (a store that sizes a column or builds a
dictionary from its first write shows):

* **document side**: a principal asking for the original must not get the twin's document;
* **principal side**: a principal asking for the twin must get the twin's document only;
* **active map keys** (tenant and logical_id): the map holds the originals' keys only, the
  twins' only, or both at different revisions, so that a store looking the map up by a
  normalised key admits a document the map does not name, or the wrong revision.

Besides the twins: values an interpreter may read as something else (``twins.NAME_VALUES``:
column names, query words, quotes), and composite keys (``acme``/``x:y`` against
``acme:x``/``y``, for every separator a store may join a key with). Revisions: one document
per revision of each colliding pair, the map at one side of every pair, then the other;
and revisions out of the 64-bit range, the map at the valid revision each would wrap to.
Dates: at each boundary day a window that starts there, one that ends there, one of that
day alone, an empty one and a reversed one, asked the day before, on and after; and
windows written in spellings lenient parsers take, asked inside what they would mean.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from filterproof.adapters.base import Adapter
from filterproof.conformance.worlds import scenarios as sc
from filterproof.conformance.worlds import twins
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal


@dataclass
class TwinWorld:
    """Documents (written in ``batches``), the maps and principals to ask with, the days to ask on, and what
    each document is."""

    label: str
    docs: dict[str, dict[str, Any]]
    maps: dict[str, ActiveRevisions]
    principals: list[Principal]
    days: list[date] = field(default_factory=lambda: [sc.AS_OF])
    what: dict[str, str] = field(default_factory=dict)
    batches: list[list[str]] | None = None
    best_of: int = 0
    """Also ask each principal for its best ``best_of`` alone (raw, not through the harness's margin): a filter
    cut into slices, each asked for k and the answers concatenated, returns more than k."""

    def failures(self, adapter: Adapter) -> list[str]:
        """One line per (map, principal, day) whose native answer differs from the policy's."""
        s = sc.Scenario.build(adapter, self.docs, texts=spread_texts(self.docs), batches=self.batches)
        found, first = [], None
        for map_label, active in self.maps.items():
            for principal in self.principals:
                for day in self.days:
                    where = PolicyFilter(principal, day, active)
                    got, want = s.native_ids(where), s.policy_ids(where)
                    if self.best_of and got == want:
                        best = [h.id for h in adapter.search(s.query, self.best_of, where)]
                        if len(best) > self.best_of or not set(best) <= want:
                            found.append(f"[{self.label}, {map_label}] {sc.asked(where)}, k={self.best_of}: "
                                         f"returned {best}, at most {self.best_of} of {sorted(want)}")
                    if got != want:
                        named = "; ".join(f"{i} is {self.what[i]}" for i in sorted(got ^ want) if i in self.what)
                        found.append(f"[{self.label}, {map_label}] {sc.asked(where)}: "
                                     f"{sc.mismatch(got, want, s.docs)}" + (f" ({named})" if named else ""))
                        first = first or (where, got, want)
        if first:  # the world's first wrong answer diagnosed, last: it empties the store
            found[0] += s.diagnose(*first)
        return found


SPREAD_WORDS = tuple(f"w{n}" for n in range(48))
"""The vocabulary ``spread_texts`` draws from."""


def spread_texts(ids: Iterable[str]) -> dict[str, str]:
    """A text per document: the query, the id and four words drawn (seeded by position) from ``SPREAD_WORDS``.

    Why: texts of only the query and the id make every document equidistant from every other
    (each holds one unique word), the worst case for a graph index. pgvector's HNSW on 300 such rows
    leaves some unreachable, a recall loss on degenerate data that the twin checks would report as a
    filter dropping a document. Shared words give the graph neighbours; every text still holds the
    query, so every document stays a candidate.
    """
    rng = random.Random(20)
    return {i: " ".join([sc.QUERY, i.replace("-", " "), *rng.sample(SPREAD_WORDS, 4)]) for i in ids}


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


def values_world(name: str, label: str, originals: list[str], copies: list[str], what: dict[str, str]) -> TwinWorld:
    """``originals`` and ``copies`` of one identity field, each in an otherwise eligible document (the originals
    written first), asked for by each value (tenant, group) or under the key maps (tenant, logical_id)."""
    values = originals + [v for v in copies if v not in originals]
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
    batches = [[ids[v] for v in values if v in originals], [ids[v] for v in values if v not in originals]]
    return TwinWorld(label, docs, maps, principals, what={ids[v]: what[v] for v in values},
                     batches=[b for b in batches if b])


def identity_world(name: str, family: str, entries: list[twins.Twin]) -> TwinWorld:
    """One family's twins of one identity field, each beside its original, all otherwise eligible."""
    originals = list(dict.fromkeys(t.value for t in entries))
    what: dict[str, str] = {v: f"the original {name} {twins.shown(v)}" for v in originals}
    for t in entries:
        what.setdefault(t.twin, str(t))
    return values_world(name, f"{name} {family}", originals, [t.twin for t in entries], what)


def names_world(name: str, family: str, values: Iterable[str]) -> TwinWorld:
    """Values an interpreter may read as a name, a word or a quote, beside an ordinary value (written first)."""
    ordinary = "acme" if name == "tenant" else "active" if name == "status" else "plain"
    copies = [v for v in values if v != ordinary]
    what = {v: f"a {name} spelled like {family}: {twins.shown(v)}" for v in copies} | {ordinary: "an ordinary value"}
    return values_world(name, f"{name} {family}", [ordinary], copies, what)


def identity_worlds(name: str) -> list[TwinWorld]:
    """Every world of one identity field: a twin family each, the names, many distinct values (not for the
    status) and (logical_id) the composite keys."""
    families = by_family(twins.identity_twins(name))
    worlds = [identity_world(name, family, entries) for family, entries in families.items()]
    worlds += [names_world(name, family, values) for family, values in twins.NAME_VALUES.items()]
    worlds += [many_values_world(name)] if name != "status" else []
    worlds += [many_groups_world()] if name == "group" else []  # a principal in thousands: conformance.checks.sizes
    return worlds + ([composite_world()] if name == "logical_id" else [])


MANY = 300
ASKED_POSITIONS = (0, 1, 63, 64, 65, 127, 128, 129, 255, 256, 257, MANY - 1)
"""Where a store's capacity for distinct values runs out: bits of a 64-bit mask, codes of a signed or unsigned
byte. The values are written in this order, so the 65th and the 257th are new when they arrive."""


def many_values_world(name: str) -> TwinWorld:
    """``MANY`` distinct values of one field, one document each, written in order; asked for by a value at each of
    ``ASKED_POSITIONS`` (tenant, group) or under maps holding every key or only the keys at those positions
    (logical_id)."""
    values = [f"{name[0]}{n:03d}" for n in range(MANY)]
    asked = [values[n] for n in ASKED_POSITIONS]
    what = {v: f"distinct {name} number {n + 1} of {MANY}" for n, v in enumerate(values)}
    world = values_world(name, f"{name} many values", values, [], what)
    if name == "tenant":
        world.principals = [sc.principal(v) for v in asked]
        world.maps = {"every key in the map": world.maps["every key in the map"]}
    elif name == "group":
        world.principals = [Principal(sc.TENANT, (v,)) for v in asked]
    else:
        world.maps = {"every key in the map": world.maps["every key in the map"],
                      "only the asked positions' keys in the map": ActiveRevisions.of({(sc.TENANT, v): 1
                                                                                     for v in asked})}
    world.batches = [[f"{name[0]}{n}" for n in range(start, min(start + 64, MANY))] for start in range(0, MANY, 64)]
    return world


def many_groups_world() -> TwinWorld:
    """One document holding ``GROUPS_ON_ONE`` groups, beside one holding none of them; asked for by a group at each
    position (a store with a fixed number of group columns, or a list cut short, drops the later ones)."""
    groups = [f"h{n:02d}" for n in range(GROUPS_ON_ONE)]
    docs = {"many": sc.meta(logical_id="many", groups=groups), "other": sc.meta(logical_id="other", groups=["x"])}
    principals = [Principal(sc.TENANT, (groups[n],)) for n in (0, 1, 3, 4, 7, 8, 15, 16, 31, 32, GROUPS_ON_ONE - 1)]
    return TwinWorld("group many on one document", docs, {"every key in the map": sc.active_for(docs)}, principals,
                     what={"many": f"a document in {GROUPS_ON_ONE} groups", "other": "a document in group 'x'"})


GROUPS_ON_ONE = 40
"""Groups on one document: past 4, 8, 16 and 32 slots. Lists of thousands are for a limits check."""
BIG_PRINCIPAL = 2_000
"""Groups of one principal: past an ``$or`` of about 990 clauses (SQLite's expression depth, Chroma), past a cap
of 1,000 values in an ``IN`` list (Oracle, some drivers) or a 1,024-term boolean query (Lucene)."""


def big_principal_world() -> TwinWorld:
    """Principals in ``BIG_PRINCIPAL`` groups (a directory user in a large organisation), each document in one
    group near the start, the middle or the end of that list, or in none of them: a store that caps the groups
    it compiles, or splits them and loses a slice, misses the later ones; one that drops the clause leaks."""
    groups = [f"dir-{n:04d}" for n in range(BIG_PRINCIPAL)]
    placed = {"p0": 0, "p499": 499, "p500": 500, "p989": 989, "p990": 990, "p1000": 1000, "p1024": 1024,
              "plast": BIG_PRINCIPAL - 1}
    docs = {i: sc.meta(logical_id=i, groups=[groups[n]]) for i, n in placed.items()}
    docs["outside"] = sc.meta(logical_id="outside", groups=["not-in-the-directory"])
    what = {i: f"in the principal's group number {n + 1} of {BIG_PRINCIPAL}" for i, n in placed.items()}
    principals = [Principal(sc.TENANT, tuple(groups)), Principal(sc.TENANT, tuple(reversed(groups)))]
    return TwinWorld("group a principal in thousands", docs, {"every key in the map": sc.active_for(docs)},
                     principals, what={**what, "outside": "in a group the principal is not in"}, best_of=2)


def composite_world() -> TwinWorld:
    """For each separator, (acme, x{sep}y) and (acme{sep}x, y): two pairs a joined key makes one, the map holding
    one, the other, or both at different revisions; asked by both tenants."""
    docs, what, split = {}, {}, {}
    for n, sep in enumerate(twins.COMPOSITE_SEPARATORS):
        docs[f"c{n}a"] = sc.meta(logical_id=f"x{sep}y")
        docs[f"c{n}b"] = sc.meta(tenant=f"{sc.TENANT}{sep}x", logical_id="y")
        what[f"c{n}a"] = what[f"c{n}b"] = f"joined with {sep!r}, the key of the other"
        split[sep] = ((sc.TENANT, f"x{sep}y"), (f"{sc.TENANT}{sep}x", "y"))
    maps = {
        "only the logical ids holding the separator": ActiveRevisions.of({a: 1 for a, _ in split.values()}),
        "only the tenants holding the separator": ActiveRevisions.of({b: 1 for _, b in split.values()}),
        "both, the tenants' at revision 2": ActiveRevisions.of({k: r for a, b in split.values()
                                                                for k, r in ((a, 1), (b, 2))}),
    }
    principals = [sc.principal()] + [sc.principal(f"{sc.TENANT}{sep}x") for sep in twins.COMPOSITE_SEPARATORS]
    return TwinWorld("logical_id composite keys", docs, maps, principals, what=what)


def revision_world() -> TwinWorld:
    """Each colliding pair as two revisions of one logical id; the map at the first of every pair, then the second."""
    entries = twins.revision_twins()
    docs, what = {}, {}
    for i, t in enumerate(entries):
        for side, revision in (("a", t.value), ("b", t.twin)):
            docs[f"r{i}{side}"] = sc.meta(logical_id=f"r{i}", revision=revision)
            other = t.twin if side == "a" else t.value
            what[f"r{i}{side}"] = f"revision {revision} ({t.family}: {t.name}, twin of {other})"
    # First the map the documents were written under (a store writing flags at upsert keeps them), then each side.
    # Its revisions equal the documents' but are other objects, as when the map is read from another source than
    # the metadata (a comparison by identity, ``is``, holds for small integers only: sc.active_for).
    maps = {"the map the documents were written under (every pair's second revision)": sc.active_for(docs)}
    maps |= {f"the map at every pair's {which} revision": ActiveRevisions.of(
        {(sc.TENANT, f"r{i}"): int(str(pick(t))) for i, t in enumerate(entries)})
        for which, pick in (("first", lambda t: t.value), ("second", lambda t: t.twin))}
    # Out of range: malformed, and the map holds the valid revision it would wrap to.
    for j, (name, revision, wrapped) in enumerate(twins.OUT_OF_RANGE):
        docs[f"o{j}"] = sc.meta(logical_id=f"o{j}", revision=revision)
        what[f"o{j}"] = f"revision {revision} (out of the signed 64-bit range: {name}): malformed"
        maps = {label: active.replace(sc.TENANT, f"o{j}", wrapped) for label, active in maps.items()}
    return TwinWorld("revision widths", docs, maps, [sc.principal()], what=what)


def date_world() -> TwinWorld:
    """Every window shape at every boundary day, the malformed days beside them (as a start and as an end), and
    windows spelled other ways around ``AS_OF``; asked on each boundary, the day before and the day after."""
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
    bad = [(text, why) for text, why in twins.NOT_DAYS]
    # Spelled otherwise, a start before AS_OF and an end after it: read leniently, the window holds AS_OF.
    bad += [(spell(sc.AS_OF - timedelta(days=30)), f"{name}, not YYYY-MM-DD") for name, spell in
            twins.DATE_SPELLINGS.items()]
    bad += [(spell(sc.AS_OF + timedelta(days=30)), f"{name}, not YYYY-MM-DD") for name, spell in
            twins.DATE_SPELLINGS.items()]
    for n, (text, why) in enumerate(bad):
        for name in ("valid_from", "valid_until"):
            doc_id = f"x{n}-{name[6:]}"
            docs[doc_id] = sc.meta(logical_id=doc_id, **{name: text})
            what[doc_id] = f"{name} {twins.shown(text)}: {why}: malformed"
    return TwinWorld("date boundaries", docs, {"every key in the map": sc.active_for(docs)}, [sc.principal()],
                     days=[*twins.asked_days(), sc.AS_OF], what=what)
