"""Sizes: principals and documents in thousands of groups, identities of tens of thousands of characters.

Engines have limits nobody meets with a fixture of ten documents, and they do not fail
gracefully at them (measured: ``bench/results/engine_limits.txt``). Chroma 1.5.9 dies
with a segmentation fault on an ``$or`` of about 8,000 ``$contains``, and one record
with 5,462 list values breaks its collection for good. PostgreSQL refuses a btree
entry over 2,704 bytes and rolls the whole write back. So the store must answer each
world here exactly, or refuse a document it cannot hold before writing it, and say
so (``Refusing.not_indexable``). Only the documents a world marks as beyond some
engine's limits may be refused. Refusing an ordinary one is a failure, and so is
dropping one without saying so. After every write the store must still answer: a
write that breaks it is named.

* **thousands of groups on one document**: 3,000 (every store must hold them) and
  10,000 (past Chroma's limit), asked for by a group at each power of two;
* **long identities**: a tenant, a logical id, a group and a document id of 20,000
  characters, each beside a twin that differs in its last character only (a store
  that compares a prefix, or a hash of one, conflates the two);
* **a principal in thousands of groups**: ``twin_worlds.big_principal_world``;
* **a long active map**: the principal's tenant holds ``MAP_ENTRIES`` entries in the
  map every query carries (most for documents the store does not hold), and the
  documents that decide the answer sit at its start, its middle and its end: a store
  whose filter carries the map's keys (a list in the query, an ``IN`` of values) must
  carry them all (an ``IN`` list capped at 1,000 or 4,096 values, a request body
  truncated, a list split into slices of which one is lost);
* **large metadata no clause reads**: a field of ``BODY`` characters, one of characters JSON
  writes longer (its JSON text five times longer), ``EXTRA_KEYS`` keys. A store keeps what it can
  of such metadata for a reader, but how much it keeps must never decide whether the document
  is held (a column of one VARCHAR's size that a document's JSON outgrows).
"""

from __future__ import annotations

import random
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from filterproof.adapters.base import Adapter, not_indexable
from filterproof.conformance.checks.refused import refusal_failures
from filterproof.conformance.plugin import budget_seconds
from filterproof.conformance.progress import Progress
from filterproof.conformance.worlds import scenarios as sc
from filterproof.conformance.worlds.twin_worlds import big_principal_world, spread_texts
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal

HELD_GROUPS = 3_000
"""Groups on one document that every store must hold (under Chroma's 5,461 list values a record)."""
HUGE_GROUPS = 10_000
"""Groups on one document that a store may refuse."""
LONG = 20_000
"""Characters of a long identity (PostgreSQL's btree takes at most 2,704 bytes an entry)."""
MAP_SLICE = 20_000
"""The most keys a filter carries at once where a store slices them (``chroma.where.KEYS_PER_FILTER``)."""
BODY = 150_000
"""Characters of a metadata field no clause reads: past a Milvus VARCHAR (65,535) and the raw JSON adapters keep."""
ESCAPED = '"\\\u00e9\n\x01\U0001f642'
"""Characters that JSON writes longer: a quote, a backslash, an accent, a newline, a control, an emoji."""
EXTRA_KEYS = 5_000
"""Metadata keys no clause reads, on one document."""
MAP_ENTRIES = 2 * MAP_SLICE + 1
"""Entries of one tenant in the long active map: past Chroma's 5,461 values, SQL ``IN`` lists of 1,000, a Milvus
``in`` of 4,096 or 10,000 values, and two whole slices of ``MAP_SLICE`` keys with one key left for a third."""


def long_text(seed: str, n: int = LONG) -> str:
    """``n`` letters and digits drawn from ``seed``: text that does not compress (a repeated character would fit
    a compressed index entry and hide the limit)."""
    rng = random.Random(seed)
    return "".join(rng.choices(string.ascii_letters + string.digits, k=n))


def twin_of(value: str) -> str:
    """The same string but for its last character."""
    return value[:-1] + ("0" if value[-1] != "0" else "1")


class Unusable(Exception):
    """The store failed after a write: every later answer would be a consequence."""


@dataclass
class SizeWorld:
    """Documents written in ``batches`` (in order, the store probed after each), principals to ask with, and the
    documents that a store may refuse as beyond its engine's limits."""

    label: str
    batches: list[dict[str, dict[str, Any]]]
    principals: list[Principal]
    may_refuse: set[str] = field(default_factory=set)
    what: dict[str, str] = field(default_factory=dict)
    active: ActiveRevisions | None = None
    """The map the principals ask under (None: each document's own revision, ``scenarios.active_for``)."""

    def failures(self, adapter: Adapter) -> list[str]:
        docs = {i: m for batch in self.batches for i, m in batch.items()}
        written: list[Sequence[str]] = []
        try:
            s = sc.Scenario.build(adapter, docs, texts=spread_texts(docs), batches=[list(b) for b in self.batches],
                                  after=lambda scenario, batch: self._probe(scenario, batch, written))
        except Unusable as broken:
            return [str(broken)]
        except Exception as error:  # the write itself raised: which one, and what a store should do instead
            batch = list(self.batches[len(written)])
            return [f"[{self.label}] writing {self._named(batch)} raised {type(error).__name__}: {error}; a store "
                    f"that cannot hold a document refuses it before the write and reports it (not_indexable)"]
        refused = not_indexable(adapter)
        found = [f"[{self.label}] refused {self._named(sorted(set(refused) - self.may_refuse))}, which every store "
                 f"must hold (said: {'; '.join(refused[i] for i in sorted(set(refused) - self.may_refuse))})"
                 ] if set(refused) - self.may_refuse else []
        active = self.active if self.active is not None else sc.active_for(docs)
        first = None
        for principal in self.principals:
            where = PolicyFilter(principal, sc.AS_OF, active)
            got, want = s.native_ids(where), s.policy_ids(where) - set(refused)
            if got != want:
                found.append(f"[{self.label}] {sc.asked(where)}: {sc.mismatch(got, want, s.docs)} "
                             f"({'; '.join(f'{i} is {self.what[i]}' for i in sorted(got ^ want) if i in self.what)})")
                first = first or (len(found) - 1, where, got, want)
        if first:  # the world's first wrong answer diagnosed, on its line, last: it empties the store
            found[first[0]] += s.diagnose(*first[1:])
        return found

    def _probe(self, scenario: sc.Scenario, batch: Sequence[str], written: list[Sequence[str]]) -> None:
        """The store still answers an unfiltered and a filtered query after this write; else name the write."""
        try:
            scenario.native_ids(None, 1)
            scenario.native_ids(PolicyFilter(sc.principal(), sc.AS_OF, sc.active_for(scenario.docs)), 1)
        except Exception as error:
            raise Unusable(f"[{self.label}] the store fails after writing {self._named(list(batch))}: "
                           f"{type(error).__name__}: {str(error)[:300]}; every later call is suspect. A store "
                           f"that cannot hold a document refuses it before the write (not_indexable)") from None
        written.append(batch)

    def _named(self, ids: Sequence[str]) -> str:
        return ", ".join(f"{sc.shown(i)} ({self.what[i]})" if i in self.what else sc.shown(i) for i in ids)


def huge_groups() -> list[str]:
    """The groups of the document in ``HUGE_GROUPS``: past Chroma's 5,461 list values in one record."""
    return [f"huge-{n:05d}" for n in range(HUGE_GROUPS)]


def groups_world() -> SizeWorld:
    """A document in ``HELD_GROUPS`` groups and one in ``HUGE_GROUPS``, between two ordinary documents written
    before and after them."""
    held = [f"held-{n:05d}" for n in range(HELD_GROUPS)]
    huge = huge_groups()
    asked = [held[n] for n in (0, 1023, 1024, 2047, 2048, HELD_GROUPS - 1)] + [huge[n] for n in (0, 5461, 9999)]
    batches = [{"before": sc.meta(logical_id="before")}, {"held": sc.meta(logical_id="held", groups=held)},
               {"huge": sc.meta(logical_id="huge", groups=huge)}, {"after": sc.meta(logical_id="after")}]
    return SizeWorld("groups thousands on one document", batches,
                     [sc.principal(), *(Principal(sc.TENANT, (g,)) for g in asked), Principal(sc.TENANT, ("none",))],
                     may_refuse={"huge"},
                     what={"held": f"a document in {HELD_GROUPS:,} groups",
                           "huge": f"a document in {HUGE_GROUPS:,} groups",
                           "before": "an ordinary document", "after": "an ordinary document written last"})


def long_identities_world() -> SizeWorld:
    """For the tenant, the logical id, a group and the document id: a document with a ``LONG`` value and one with
    its twin, asked for by each."""
    tenant, lid, group, doc_id = (long_text(f"long {what}") for what in ("tenant", "logical_id", "group", "id"))
    docs = {"tenant": sc.meta(tenant=tenant, logical_id="t"), "tenant-twin": sc.meta(tenant=twin_of(tenant),
                                                                                      logical_id="t"),
            "lid": sc.meta(logical_id=lid), "lid-twin": sc.meta(logical_id=twin_of(lid)),
            "group": sc.meta(logical_id="g", groups=[group]), "group-twin": sc.meta(logical_id="g2",
                                                                                    groups=[twin_of(group)]),
            doc_id: sc.meta(logical_id="i1", groups=["ids"]), twin_of(doc_id): sc.meta(logical_id="i2", groups=["ids"])}
    what = {i: f"a document with a {LONG:,}-character {kind}" for i, kind in
            (("tenant", "tenant"), ("lid", "logical id"), ("group", "group"), (doc_id, "id"))}
    what |= {f"{i}-twin": "its twin, differing in the last character" for i in ("tenant", "lid", "group")}
    what[twin_of(doc_id)] = "a document whose id is the long id's twin"
    principals = [sc.principal(tenant), sc.principal(twin_of(tenant)), sc.principal(),
                  Principal(sc.TENANT, (group,)), Principal(sc.TENANT, (twin_of(group),)),
                  Principal(sc.TENANT, ("ids",))]
    return SizeWorld("long identities", [docs, {"after": sc.meta(logical_id="after")}], principals,
                     may_refuse=set(docs), what={**what, "after": "an ordinary document written last"})


def long_map_world() -> SizeWorld:
    """The tenant's ``MAP_ENTRIES`` entries in the map, sorted by logical id; documents of the first entry, of
    each side of the first slice's end, of the middle of the second slice and of the last entry (alone in a
    third slice): their own revision, eligible; one of an entry that names a newer revision (superseded: never
    eligible), and one of a logical id that has no entry at all."""
    lids = [f"m{n:05d}" for n in range(MAP_ENTRIES)]
    middle = MAP_SLICE + MAP_SLICE // 2
    eligible = {"first": 0, "slice-end": MAP_SLICE - 1, "slice-start": MAP_SLICE, "middle": middle,
                "last": MAP_ENTRIES - 1}
    docs = {name: sc.meta(logical_id=lids[n]) for name, n in eligible.items()}
    docs |= {"superseded": sc.meta(logical_id=lids[middle + 1]), "unlisted": sc.meta(logical_id="z-unlisted")}
    active = ActiveRevisions.of({(sc.TENANT, lid): 1 for lid in lids} | {(sc.TENANT, lids[middle + 1]): 2})
    what = {"first": "the map's first entry", "slice-end": f"its entry {MAP_SLICE:,}, the last of a first slice",
            "slice-start": f"its entry {MAP_SLICE + 1:,}, the first of a second slice",
            "middle": "the middle of a second slice", "last": "its last entry, alone in a third slice",
            "superseded": "a document whose entry names a newer revision",
            "unlisted": "a document with no entry in the map"}
    return SizeWorld(f"an active map of {MAP_ENTRIES:,} entries", [docs], [sc.principal()], what=what,
                     active=active)


def unread_metadata_world() -> SizeWorld:
    """Well-formed, eligible documents with large metadata no clause reads, between two ordinary ones: every
    store must hold and return them, whatever it keeps of the metadata for a reader."""
    docs = {"long-body": sc.meta(logical_id="body", body=long_text("body", BODY)),
            "escaped-body": sc.meta(logical_id="escaped", body=ESCAPED * (BODY // len(ESCAPED))),
            "many-keys": sc.meta(logical_id="keys", **{f"extra_{n:04d}": f"value {n}" for n in range(EXTRA_KEYS)})}
    what = {"long-body": f"a document with a {BODY:,}-character field no clause reads",
            "escaped-body": f"a document with a {BODY:,}-character field of quotes, backslashes, accents, newlines, "
                            f"controls and emoji (its JSON five times longer)",
            "many-keys": f"a document with {EXTRA_KEYS:,} metadata keys no clause reads",
            "before": "an ordinary document", "after": "an ordinary document written last"}
    batches = [{"before": sc.meta(logical_id="before")}, docs, {"after": sc.meta(logical_id="after")}]
    return SizeWorld("large metadata no clause reads", batches, [sc.principal(), sc.principal("other")], what=what)


def size_failures(adapter: Adapter, progress: Progress | None = None) -> list[str]:
    """Every failing world's lines: the principal in thousands of groups, then the documents, then the map, then
    a refused document's lifecycle (``progress``: a line as each begins)."""
    found = []
    for world in (big_principal_world(), groups_world(), long_identities_world(), long_map_world(),
                  unread_metadata_world()):
        if progress is not None:
            progress.note(world.label, force=True)
        found += world.failures(adapter)
    if progress is not None:
        progress.note("a refused document's lifecycle", force=True)
    return found + refusal_failures(adapter, huge_groups(), long_text("long tenant"))


class SizeChecks:
    """Sizes past the engines' limits: answered exactly, or refused before the write and reported."""

    def test_sizes(self, native: Adapter, request: pytest.FixtureRequest) -> None:
        """A principal in 2,000 groups; documents in 3,000 and 10,000 groups; a tenant, logical id, group and
        document id of 20,000 characters beside twins differing in the last one; an active map of 40,001 entries
        for the principal's tenant; documents with 150,000 characters or 5,000 keys of metadata no clause
        reads; one document moved past the limits and back by updates, upserts and a delete. The store
        answers exactly, or refuses the documents marked as past some engine's limits (``not_indexable``)
        and stays usable, and its refusals follow the document.

        If this fails: the message names the world, the write or the principal. A principal in
        thousands: the store capped, truncated or split the principal's groups and lost some
        (an ``$or`` too deep for SQLite, an ``IN`` list of at most 1,000); slice them and merge
        the answers. "fails after writing": that write broke the store (Chroma past 5,461 list
        values in one record); check the document against the engine's limits before writing it
        and refuse it (``Refusing.not_indexable``). "raised": the write itself failed (a btree
        entry over 2,704 bytes in PostgreSQL); refuse instead, so that the rest of the batch is
        written. Missing without a refusal: the store dropped the document silently. A long twin
        returned: identities are compared by a prefix or a hash of one; compare them whole.
        "an active map of 40,001 entries" missing a slice's edge, middle or last entry: the store cut the
        map's keys (a capped ``IN`` list, a truncated request, a lost slice); carry them all, in
        slices if the engine needs them, and merge the answers. "large metadata no clause reads"
        refused: what the store keeps of metadata for a reader outgrew a column; keep less of it (a
        head, cut until its escaped JSON fits: ``adapters.raw.raw_json``'s ``limit``), never refuse
        the document for it. "a refused document's lifecycle":
        a refusal outlived the document's return within the limits, or its delete; forget it
        when the document is written or deleted (``adapters.refusals.Refusals.forget``).
        """
        from filterproof.conformance.checks.twin_checks import report

        failures = size_failures(native, Progress(request.config, "sizes", budget_seconds(request.config)))
        assert not failures, report(failures, "the sizes")
