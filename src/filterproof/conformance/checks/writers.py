"""Two threads writing through one client: the store ends as one order of their writes left it, never a mix.

Permission updates arrive at once: a revocation job and a request that publishes a document, two jobs moving
one document, the application moving its active map while a new revision is written. Each write is right alone,
and each is right beside searches (``WrittenWhileSearchedChecks``); two of them at once through one client meet
only where a write reads before it writes. A write that reads what it holds, then writes a copy back, loses the
other's (a document published by one thread is unknown to the next update, which is ignored: the revocation
never lands). An update that reads a document, then writes it back, brings back a document the other thread
deleted between the two. A flag written from the map as the write began misses the map another thread set
meanwhile: the new revision is never current (or the superseded one stays current).

Here two threads write at once, from one barrier, a pair of writes of the same document or of two, with a
document or a map between them, ``ROUNDS`` times each pair; after each pair, this thread asks as each of
``PRINCIPALS``. The answers must be what one order of the two writes leaves: both orders are computed by the
policy, and every principal must read the same one.

Found with it (each fixed by one write lock per adapter, ``adapters.locking.writing``): the Qdrant adapters'
update, which checks that the point exists and then writes its payload, raised on a point deleted between the two;
pgvector's writes nested two transactions on one connection (psycopg's ``OutOfOrderTransactionNesting``); LanceDB's
and Milvus's flags (``revision=flag``) of a revision published while the map moved to it were written from the old
map, after the rewrite: the new revision was never current; Chroma's flags, under two rewrites of the map at
once (or one beside a publish or an update of the revision it moves to); Milvus's and LanceDB's update, which reads
the row and writes it back whole, and the bridges' (the framework's remove, then add), brought back a document
deleted between the two steps; and the bridges' document keys for the framework's embeddings shim, dropped by one
write of a document while the other's framework embedded it. DuckDB, whose every call holds one lock, passed before.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import pytest

from filterproof.adapters.base import Adapter, Record, sync_active
from filterproof.conformance.checks.shared import concurrently, raised
from filterproof.conformance.requirements import lacks
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, eligible_ids

ROUNDS = 6
"""Times each pair of writes is made at once."""

HOME = sc.meta(logical_id="d")
DOCS = {"r1": sc.meta(logical_id="p", revision=1), "r2": sc.meta(logical_id="p", revision=2),
        "r3": sc.meta(logical_id="p", revision=3), "d": HOME, "x": sc.meta(logical_id="x"),
        "n1": sc.meta(logical_id="n1"), "n2": sc.meta(logical_id="n2"), "kept": sc.meta(logical_id="k"),
        "beta-sales": sc.meta(tenant="beta", logical_id="s", groups=["sales"])}
REVOKED = {**HOME, "groups": []}
AWAY = {**HOME, "tenant": "beta", "groups": ["sales"]}
SALES = {**DOCS["r2"], "groups": ["sales"]}
PRINCIPALS = (sc.principal(), sc.principal(sc.TENANT, "sales"), sc.principal("beta", "sales"))
"""Who asks: every write shows to acme's engineering; a revoked or moved document to acme's or beta's sales."""


def active_map(p: int) -> ActiveRevisions:
    return ActiveRevisions.of({(sc.TENANT, "p"): p, (sc.TENANT, "d"): 1, ("beta", "d"): 1, (sc.TENANT, "x"): 1,
                               (sc.TENANT, "n1"): 1, (sc.TENANT, "n2"): 1, (sc.TENANT, "k"): 1, ("beta", "s"): 1})


@dataclass(frozen=True)
class World:
    """What the store holds and the map the application last set."""

    docs: dict[str, dict[str, object]]
    active: ActiveRevisions

    def admits(self, principal: Principal) -> frozenset[str]:
        return frozenset(eligible_ids(self.docs.items(), PolicyFilter(principal, sc.AS_OF, self.active)))


@dataclass(frozen=True)
class Write:
    """One write: what it is called, what it does to the world, and the call that makes it."""

    what: str
    model: Callable[[World], World]
    call: Callable[[Adapter, dict[str, np.ndarray]], None]
    every_client: bool = False
    """Made through every client, the writing one first (a map change: the application tells each client)."""


def publish(doc_id: str, meta: dict[str, object] | None = None) -> Write:
    body = dict(meta if meta is not None else DOCS[doc_id])
    return Write(f"upsert of {doc_id!r}", lambda w: replace(w, docs={**w.docs, doc_id: body}),
                 lambda a, v: a.upsert([Record(doc_id, v[doc_id], dict(body))]))


def update(doc_id: str, meta: dict[str, object], said: str) -> Write:
    def model(w: World) -> World:  # an unknown id is ignored, as by the reference
        return replace(w, docs={**w.docs, doc_id: dict(meta)}) if doc_id in w.docs else w
    return Write(f"update_metadata({doc_id!r}, {said})", model, lambda a, v: a.update_metadata(doc_id, dict(meta)))


def revoke(doc_id: str) -> Write:
    return update(doc_id, {**DOCS[doc_id], "groups": []}, "groups=[]")


def delete(doc_id: str) -> Write:
    return Write(f"delete([{doc_id!r}])", lambda w: replace(w, docs={i: m for i, m in w.docs.items() if i != doc_id}),
                 lambda a, v: a.delete([doc_id]))


def move_map(p: int) -> Write:
    active = active_map(p)
    return Write(f"set_active_revisions(acme/p at {p})", lambda w: replace(w, active=active),
                 lambda a, v: sync_active(a, active), every_client=True)


@dataclass(frozen=True)
class Pair:
    """Writes made one by one (``before``), then two at once (``at_once``, each a list of pairs in turn)."""

    name: str
    before: tuple[Write, ...]
    at_once: tuple[tuple[Write, Write], ...]


PAIRS = (
    Pair("one document updated two ways", (update("d", HOME, "HOME"),),
         ((update("d", REVOKED, "groups=[]"), update("d", AWAY, "to beta's sales")),)),
    Pair("a document deleted while updated", (publish("x"),),
         ((delete("x"), update("x", {**DOCS["x"], "groups": ["sales"]}, "groups=['sales']")),)),
    Pair("two documents published, then updated", (delete("n1"), delete("n2")),
         ((publish("n1"), publish("n2")), (revoke("n1"), revoke("n2")))),
    Pair("two documents deleted, then updated", (publish("n1"), publish("n2")),
         ((delete("n1"), delete("n2")), (update("n1", DOCS["n1"], "as published"),
                                         update("n2", DOCS["n2"], "as published")))),
    Pair("the map moved while the new revision is published", (move_map(1), delete("r3")),
         ((move_map(3), publish("r3")),)),
    Pair("the map moved while its revision is updated", (move_map(1), update("r2", DOCS["r2"], "engineering")),
         ((move_map(2), update("r2", SALES, "groups=['sales']")),)),
    Pair("the map moved two ways at once", (move_map(1),), ((move_map(2), move_map(3)),)),
)


@dataclass
class Writers:
    """Two threads that make a pair of writes at once, from one barrier, the first through ``clients[0]``, the
    second through the last client (one client, or two); ``errors`` holds what raised."""

    clients: tuple[Adapter, ...]
    vectors: dict[str, np.ndarray]
    errors: list[str] = field(default_factory=list)

    def make(self, write: Write, client: Adapter) -> None:
        write.call(client, self.vectors)
        for other in self.clients if write.every_client else ():
            if other is not client:
                write.call(other, self.vectors)

    def at_once(self, first: Write, second: Write) -> None:
        barrier = threading.Barrier(2)

        def run(write: Write, client: Adapter) -> None:
            try:
                barrier.wait(timeout=30)
                self.make(write, client)
            except Exception as error:  # carried to the test's thread, which names it
                self.errors.append(f"{write.what}: {raised(error)}")

        threads = [threading.Thread(target=run, args=(w, c), name=f"filterproof-writer-{n}", daemon=True)
                   for n, (w, c) in enumerate(((first, self.clients[0]), (second, self.clients[-1])))]
        with concurrently(threads):
            pass


def read(adapter: Adapter, query: np.ndarray, active: ActiveRevisions) -> dict[Principal, frozenset[str]]:
    return {p: frozenset(h.id for h in adapter.search(query, len(DOCS) + 1, PolicyFilter(p, sc.AS_OF, active)))
            for p in PRINCIPALS}


def judged(clients: tuple[Adapter, ...], query: np.ndarray, orders: dict[str, World]) -> tuple[World | None, str]:
    """The order every principal reads through every client, or None and what each read against each order."""
    seen = []
    for name, world in orders.items():
        admits = {p: world.admits(p) for p in PRINCIPALS}
        wrong = []
        for n, client in enumerate(dict.fromkeys(clients)):
            got = read(client, query, world.active)
            through = f" through client {n + 1}" if len(set(clients)) > 1 else ""
            wrong += [f"{sc.asked(PolicyFilter(p, sc.AS_OF, world.active))} read {sorted(got[p])}{through} where it "
                      f"admits {sorted(admits[p])}" for p in PRINCIPALS if got[p] != admits[p]]
        if not wrong:
            return world, name
        seen.append(f"as {name} left it, " + "; ".join(wrong))
    return None, " | ".join(seen)


def write_pairs(clients: tuple[Adapter, ...], s: sc.Scenario, who: str, settle_s: float = 0.0,
                pairs: tuple[Pair, ...] = PAIRS) -> None:
    """Every pair of ``pairs``, ``ROUNDS`` times, each pair's writes made at once by two threads through
    ``clients``; after each pair (and ``settle_s``: a store's declared staleness bound), the store must read as one
    order of the two left it (``judged``). ``who`` names the writers in a failure."""
    world = World({i: dict(m) for i, m in DOCS.items()}, active_map(1))
    writers = Writers(clients, dict(s.vectors))
    for client in dict.fromkeys(clients):
        sync_active(client, world.active)
    for pair in pairs:
        for round in range(1, ROUNDS + 1):
            for write in pair.before:
                writers.make(write, clients[0])
                world = write.model(world)
            for first, second in pair.at_once:
                writers.at_once(first, second)
                assert not writers.errors, (
                    f"{pair.name}, round {round}: a write raised while {who} wrote at once: {writers.errors[0]}. "
                    "Hint: hold a lock around writes, or declare Capabilities(thread_safe=False)")
                orders = {f"{first.what}, then {second.what}": second.model(first.model(world)),
                          f"{second.what}, then {first.what}": first.model(second.model(world))}
                time.sleep(settle_s)
                found, said = judged(clients, s.query, orders)
                assert found is not None, (f"{pair.name}, round {round}: {first.what} and {second.what}, made at "
                                           f"once by {who}, left what neither order leaves: {said}")
                world = found


class ConcurrentWritersChecks:
    """Two threads writing through one client at once leave the store as one order of their writes.

    Troubleshooting: hold the client's lock from a write's read to its write (what it holds, the document it
    updates, the map it writes a flag from), or make the write one statement.
    """

    def test_two_threads_writing_one_client_leave_one_order_of_their_writes(self, mutable: Adapter) -> None:
        """Two threads write through one client at once, from one barrier: one document updated two ways (revoked,
        moved to beta), deleted while updated, two documents published then updated, deleted then updated, the
        active map moved while the new revision is published, while that revision is updated, and two ways at once;
        each pair six times. After each pair, the principals' answers must be what one order of the two writes left,
        the same order for all: a write is never lost, and a deleted document never comes back.

        If this fails: the message names the pair, its round, and what each principal read against each order. A
        write lost (a published document the next update ignored): the client's record of what it holds was read,
        then written back, by both threads; hold a lock over both steps. A deleted document back: an update read
        the document, then wrote it whole. A revision not current under the map set (or current under the old):
        a flag was computed from the map as the write began; compute it under the lock that the map's rewrite
        holds. A client that must not be shared declares ``Capabilities(thread_safe=False)``.
        """
        if not mutable.capabilities.thread_safe:
            pytest.skip(lacks("thread_safe", f"{mutable.name} declares thread_safe=False: one client per thread"))
        write_pairs((mutable,), sc.Scenario.build(mutable, DOCS), "two threads of one client")
