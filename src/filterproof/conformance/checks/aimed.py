"""Writes aimed at one id: an update, an upsert or a delete of one document changes that document only.

A write selects its rows by id, and how it selects them is the adapter's code: ``WHERE id LIKE ?`` (its ``_`` and
``%`` read as wildcards), a GLOB or a regular expression, a prefix match (the chunks of a document), ids
compared trimmed or folded, a list of ids joined with commas and split again by the store, an id pasted into a
statement between quotes. Every such selection also reaches other documents whose ids it confuses with the one
named: a revoke that revokes others too, a delete that deletes them. A search never shows it; only a write named
at one id, on a store that holds the ids it is confused with, does. The ids world (``checks.ids``) writes to one
original and one twin; here every id built to be confused with others is written to, each in its own call, and
after every kind of write both answers (filtered and unfiltered) must show that those documents changed and no
other.
"""

from __future__ import annotations

import numpy as np

from filterproof.adapters.base import Adapter, Record, not_indexable, sync_active
from filterproof.conformance.checks.ids import twin_ids, vector
from filterproof.conformance.worlds import scenarios as sc
from filterproof.conformance.worlds.twins import NAME_VALUES, identity_twins, shown
from filterproof.policy import PolicyFilter

CONFUSED: dict[str, tuple[str, ...]] = {
    "a_c": ("abc",),                  # LIKE: _ is any one character
    "a%": ("abc", "a"),               # LIKE: % is any run of characters
    "a?c": ("abc",),                  # GLOB: ? is any one character
    "a*": ("abc",),                   # GLOB: * is any run; a regular expression: a, aa, ...
    "[ab]c": ("bc",),                 # GLOB and regular expressions: a class
    "a.c": ("abc",),                  # a regular expression: . is any character
    "a|b": ("a", "b"),                # a regular expression: an alternation
    "a,b": ("a", "b"),                # a list joined with commas and split again
    "a b": ("a", "b"),                # a list joined with spaces and split again
    "doc1": ("doc10", "doc1#0"),      # a prefix (the chunks of a document)
    "1": ("01", "1.0"),               # an id read as a number
}
"""Ids a write may select more than itself by (key), each beside the ids that selection also reaches."""

QUOTED = NAME_VALUES["quotes and escapes"] + ("*", "%", "_", "?", "NULL", "$ne")
"""Ids that end a literal, escape, or stand for anything in some language: each written to by itself."""


def aimed_world() -> tuple[dict[str, str], list[str]]:
    """Every id (the ids world's and the confused ones, id -> what it is) and the ids each write aims at: the
    catalogue's originals (every twin of theirs is held beside them), the confusing ids and the quotes."""
    ids = twin_ids()
    for target, others in CONFUSED.items():
        ids.setdefault(target, f"an id a write may read as a pattern or a list: {shown(target)}")
        for other in others:
            ids.setdefault(other, f"an id {shown(target)} read as a pattern or a list selects")
    originals = list(dict.fromkeys(twin.value for twin in identity_twins("tenant")))
    targets = [t for t in dict.fromkeys([*originals, *CONFUSED, *QUOTED]) if t in ids]
    return ids, targets


class AimedWorld:
    """The ids world with the confused ids, written into ``adapter``; ``aimed`` the held ids the writes name."""

    def __init__(self, adapter: Adapter) -> None:
        self.adapter = adapter
        self.ids, targets = aimed_world()
        self.docs = {i: sc.meta(logical_id=f"d{n}") for n, i in enumerate(self.ids)}
        self.row = {i: n for n, i in enumerate(self.ids)}
        adapter.reset(3)
        active = sc.active_for(self.docs)
        sync_active(adapter, active)
        adapter.upsert([Record(i, vector(n), self.docs[i]) for n, i in enumerate(self.ids)])
        self.held = set(self.ids) - set(not_indexable(adapter))
        self.aimed = [t for t in targets if t in self.held]
        self.where = PolicyFilter(sc.principal(), sc.AS_OF, active)

    def update_out(self, target: str) -> None:
        self.adapter.update_metadata(target, sc.meta(logical_id=self.docs[target]["logical_id"], groups=["nobody"]))

    def upsert_back(self, targets: list[str]) -> None:
        self.adapter.upsert([Record(t, vector(self.row[t]), self.docs[t]) for t in targets])

    def delete(self, target: str) -> None:
        self.adapter.delete([target])

    def write_one(self, step: int, target: str) -> None:
        """Step 0 (update out) or 2 (delete) of ``STEPS`` on one id; step 1 is one upsert of them all."""
        (self.update_out if step == 0 else self.delete)(target)

    def differ(self, filtered: set[str], unfiltered: set[str]) -> set[str]:
        """The documents the answers show otherwise than expected (filtered and unfiltered)."""
        probe, k = np.ones(3, dtype=np.float32), len(self.ids) + 5
        got = [{h.id for h in self.adapter.search(probe, k, asked)} for asked in (self.where, None)]
        return (got[0] ^ filtered) | (got[1] ^ unfiltered)

    def named(self, some: set[str]) -> str:
        return "; ".join(f"{shown(i)} ({self.ids.get(i, 'never written')})" for i in sorted(some)[:6])


STEPS = ("updating each out of the principal's groups, one call each", "upserting them back, one call",
         "deleting each, one call each")


def expected(world: AimedWorld, step: int, done: set[str]) -> tuple[set[str], set[str]]:
    """What the filtered and the unfiltered answers hold once ``step`` has written to ``done``."""
    rest = world.held - done
    return [(rest, world.held), (world.held, world.held), (rest, rest)][step]


def first_at_fault(adapter: Adapter, step: int) -> str:
    """The world written again, the steps before ``step`` taken whole and ``step`` one call at a time: the first
    call that changed another document, and which."""
    world = AimedWorld(adapter)
    for before in range(step):
        take(world, before)
    done: set[str] = set()
    for target in world.aimed if step != 1 else []:
        world.write_one(step, target)
        done.add(target)
        differ = world.differ(*expected(world, step, done))
        if differ:
            call = f"update_metadata({shown(target)}, ...)" if step == 0 else f"delete([{shown(target)}])"
            return f"; the first call at fault, {call}, also changed {world.named(differ - done)}"
    return ""


def take(world: AimedWorld, step: int) -> None:
    """Step ``step`` (``STEPS``) on every aimed id: one call each, the upsert one call for all."""
    if step == 1:
        world.upsert_back(world.aimed)
        return
    for target in world.aimed:
        world.write_one(step, target)


class AimedWriteChecks:
    """A write names one id, and changes that document only.

    Troubleshooting: select rows by an exact, bound id (``WHERE id = ?`` with a parameter, ``$eq``, ``id IN``
    with the list as a list); escape ``_`` and ``%`` in a LIKE, never split an id, never trim, fold or cut it.
    """

    def test_a_write_aimed_at_one_id_changes_that_document_only(self, mutable: Adapter) -> None:
        """On the ids world with ids built to be confused with the ids a write names (``a_c`` beside ``abc``,
        ``doc1`` beside ``doc10``, ``a,b`` beside ``a`` and ``b``, quotes, the originals beside their twins), each
        such id is updated out of the principal's groups (one call each), upserted back (one call), then deleted
        (one call each); after each kind of write, both answers must show exactly those documents changed.

        If this fails: the message names the documents the answers show otherwise, what their ids are, and the
        first call that changed another document; its selection reached them (a pattern, a prefix, a trimmed,
        folded or split id, an id pasted into a statement unescaped).
        """
        world = AimedWorld(mutable)
        for step, label in enumerate(STEPS):
            take(world, step)
            differ = world.differ(*expected(world, step, set(world.aimed)))
            if differ:
                where = first_at_fault(mutable, step)
                raise AssertionError(f"after {label} ({len(world.aimed)} of {len(world.held)} ids): {len(differ)} "
                                     f"documents answer otherwise than the writes said, e.g. {world.named(differ)}"
                                     f"{where}")
