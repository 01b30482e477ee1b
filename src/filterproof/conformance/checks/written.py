"""One client written while searched: the threads that search a client while another thread writes through it
each get the store as it stands, never as it stood before a write that had returned.

An application shares one client between its request threads and its permissions job: a revocation is written
through the client the searches use. Two things go wrong only then. A client that serializes its searches but not
its writes lets a write run in the middle of a search (a connection's ``execute``, then ``fetchall``, with an
UPDATE between them): the search returns the write's empty result, or raises. And a client that caches answers and
drops the cache on every write keeps an answer that a search computed before the write and stored after the write
dropped the cache (the look-aside cache's race): from then on every search hits it, and the revoked document is
returned after the revocation returned, until the next write. One thread writing and then searching never meets
either; neither does a second client (``DuringChangeChecks``), which has a cache of its own.

Here three threads search one client, as principals a change shows to, while the test's thread writes through it:
the active revision moved, a document moved to another tenant, a group revoked and granted again, a document
deleted and published again, each change made twice in a row: after the first, the next follows as soon as each
thread has begun a search (a write meets searches under way), and after the second the searches go on until each
thread has asked as each principal since it returned (what a search kept from before it shows). Each answer must
be what one state of the store admits: the one the last write that had returned when the search began left, or
one a write that began before the search ended left (a store that declares ``staleness_bound_s`` may also answer
from an earlier one); a search that a write was under way during may miss the documents that write changes
(``TOUCHES``), and nothing else.

Found with it: the active map's keys cached per map (``adapters.revisions.KeyCache``, and the Qdrant compiler's
filters), which handed a search under the new map the old map's keys (a superseded revision); the indexes
pgvector and LanceDB build at the first search after a write, built twice by two threads (``DuplicateTable``, a
commit conflict); the bridges' record of what they hold, which a search read between a write's two steps;
qdrant-client's local mode, whose search read both revisions during a flag rewrite (findings/engine.md); and
chromadb's hit of a document deleted during the query, without its data (findings/integration.md#finding-17).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from filterproof.adapters.base import Adapter
from filterproof.conformance.checks.during import State
from filterproof.conformance.checks.shared import concurrently, raised
from filterproof.conformance.requirements import lacks
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, eligible_ids

READERS = 3
ROUNDS = 4
"""Times each change is made, back and forth, in one pass of the writer."""
OVERLAPPED = 20
"""Searches a write began during, before the check judges: passes go on until then (``MAX_PASSES`` at most)."""
MIN_PASSES, MAX_PASSES = 2, 5
"""Passes of the writer at least and at most: in one pass of 16 writes, a write met a search between its statement
and its rows (``defects.LocksSearchesOnly``) 0 to 5 times (measured, 8 runs)."""
WAIT_S = 10.0
"""How long the writer waits for each reader to ask once after a write returned (a reader that hangs is named)."""

HOME = sc.meta(logical_id="m", groups=[sc.GROUP])
AWAY = sc.meta(tenant="beta", logical_id="m", groups=["sales"])
GRANTED = sc.meta(logical_id="g")
REVOKED = sc.meta(logical_id="g", groups=[])
GONE = sc.meta(logical_id="x")
DOCS = {"r1": sc.meta(logical_id="p", revision=1), "r2": sc.meta(logical_id="p", revision=2), "moved": HOME,
        "granted": GRANTED, "gone": GONE, "kept": sc.meta(logical_id="k"),
        "beta-sales": sc.meta(tenant="beta", logical_id="s", groups=["sales"]),
        "acme-sales": sc.meta(logical_id="a", groups=["sales"]),
        "beta-eng": sc.meta(tenant="beta", logical_id="e")}
PRINCIPALS = (sc.principal(), sc.principal("beta", "sales"), sc.principal(sc.TENANT, "sales"),
              sc.principal("beta", sc.GROUP))
"""Who asks: acme's engineering (every change shows to it), beta's sales (the moved document, away), and the two a
document half moved shows to. Each is admitted a document no change writes (``kept``, ``beta-sales``,
``acme-sales``, ``beta-eng``), so that an answer lost to a write under way always shows."""


def active_map(revision: int) -> ActiveRevisions:
    """acme/p at ``revision``; every other document's pair at revision 1, the moved one's in both tenants."""
    return ActiveRevisions.of({(sc.TENANT, "p"): revision, (sc.TENANT, "m"): 1, ("beta", "m"): 1,
                               (sc.TENANT, "g"): 1, (sc.TENANT, "x"): 1, (sc.TENANT, "k"): 1, ("beta", "s"): 1,
                               (sc.TENANT, "a"): 1, ("beta", "e"): 1})


class Application:
    """The map the application holds, which searches read as they begin (under ``revision=query`` it is the
    change itself)."""

    def __init__(self) -> None:
        self.active = active_map(1)


Change = Callable[[sc.Scenario, Application, int], str]


def revise(s: sc.Scenario, app: Application, n: int) -> str:
    app.active = active_map(2 if n % 2 == 0 else 1)
    s.sync(app.active)
    return f"the active revision of acme/p moved to {2 if n % 2 == 0 else 1}"


def move(s: sc.Scenario, app: Application, n: int) -> str:
    s.update("moved", AWAY if n % 2 == 0 else HOME)
    return f"update_metadata('moved', {'AWAY' if n % 2 == 0 else 'HOME'})"


def revoke(s: sc.Scenario, app: Application, n: int) -> str:
    s.update("granted", REVOKED if n % 2 == 0 else GRANTED)
    return f"update_metadata('granted', groups={REVOKED['groups'] if n % 2 == 0 else GRANTED['groups']})"


def remove(s: sc.Scenario, app: Application, n: int) -> str:
    if n % 2 == 0:
        s.delete("gone")
        return "delete(['gone'])"
    s.publish("gone", GONE)
    return "upsert of 'gone' again"


CHANGES: tuple[Change, ...] = (revise, move, revoke, remove)
TOUCHES = {revise: frozenset({"r1", "r2"}), move: frozenset({"moved"}), revoke: frozenset({"granted"}),
           remove: frozenset({"gone"})}
"""The documents each change writes: a search it is under way during may miss them (a revision's flag cleared
before the new one's is set fails closed), never another document, and never shows two states at once."""


@dataclass(frozen=True)
class Read:
    principal: Principal
    answer: frozenset[str]
    done: int
    """Writes that had returned when the search began: the state it must show at least."""
    begun: int
    """Writes that had begun when it ended: the latest state it may show."""


class Readers:
    """``READERS`` threads searching one client as ``PRINCIPALS`` in turn until stopped; ``reads`` holds what each
    got, ``errors`` what raised."""

    def __init__(self, s: sc.Scenario, app: Application) -> None:
        self.s, self.app = s, app
        self.begun = self.done = 0
        self.reads: list[Read] = []
        self.errors: list[str] = []
        self.asked = [[-1] * len(PRINCIPALS) for _ in range(READERS)]
        """Per reader and principal, the ``done`` of its last search to end."""
        self.began = [-1] * READERS
        """Per reader, the ``done`` of its last search to begin."""
        self.stop = threading.Event()
        self.turn = threading.Condition()
        self.states = [State.of(s, app.active)]
        self.what = ["the world as written"]
        self.touched: list[frozenset[str]] = [frozenset()]

    def _run(self, reader: int) -> None:
        n = reader
        try:
            while not self.stop.is_set():
                asking = n % len(PRINCIPALS)
                principal = PRINCIPALS[asking]
                done = self.done  # before the map: a change moves the map before it counts as done
                with self.turn:
                    self.began[reader] = done
                    self.turn.notify_all()
                where = PolicyFilter(principal, sc.AS_OF, self.app.active)
                hits = self.s.adapter.search(self.s.query, len(self.s.known) + 1, where)
                self.reads.append(Read(principal, frozenset(h.id for h in hits), done, self.begun))
                with self.turn:
                    self.asked[reader][asking] = done
                    self.turn.notify_all()
                n += 1
        except Exception as error:  # carried to the test's thread, which names it
            self.errors.append(f"reader {reader}: {raised(error)}")
            with self.turn:
                self.asked[reader] = [1 << 30] * len(PRINCIPALS)
                self.began[reader] = 1 << 30
                self.turn.notify_all()

    def write(self, change: Change, n: int) -> str:
        """Make one change, then wait: after an even ``n``'s, until every reader has begun a search since it
        returned, so that the next change meets searches under way (a cache's misses after the write dropped it);
        after an odd ``n``'s, until every reader has asked as every principal since, so that an answer kept from
        before it shows before the next change drops it."""
        self.begun += 1
        what = change(self.s, self.app, n)
        self.states.append(State.of(self.s, self.app.active))
        self.touched.append(TOUCHES[change])
        self.done += 1

        def settled() -> bool:
            return min(map(min, self.asked)) >= self.done if n % 2 else min(self.began) >= self.done

        with self.turn:
            if not self.turn.wait_for(settled, timeout=WAIT_S):
                raise AssertionError(f"a reader asked nothing for {WAIT_S:.0f} s after {what} returned")
        return what

    def run(self) -> None:
        """Passes of the writer's changes, each ``ROUNDS`` times, while the readers search, until ``OVERLAPPED``
        searches had a write begin during them (``MAX_PASSES`` at most)."""
        threads = [threading.Thread(target=self._run, args=(r,), name=f"filterproof-reader-{r}", daemon=True)
                   for r in range(READERS)]
        with concurrently(threads):
            try:
                for passes in range(1, MAX_PASSES + 1):
                    for change in CHANGES:
                        for n in range(ROUNDS):
                            self.what.append(self.write(change, n))
                    if self.errors or (passes >= MIN_PASSES and self.overlapped >= OVERLAPPED):
                        break
            finally:
                self.stop.set()

    @property
    def overlapped(self) -> int:
        return sum(read.begun > read.done for read in self.reads)


def admitted(state: State, principal: Principal) -> frozenset[str]:
    return frozenset(eligible_ids(state.docs.items(), PolicyFilter(principal, sc.AS_OF, state.active)))


def fits(answer: frozenset[str], admits: frozenset[str], under_way: frozenset[str]) -> bool:
    """Whether ``answer`` is what one state admits, but for documents a write under way changes."""
    return answer <= admits and admits - answer <= under_way


def wrong(readers: Readers, lag: bool) -> list[str]:
    """Each read that no state it may show admits, described: what it read, and which state that was."""
    states, found = readers.states, []
    cache: dict[tuple[int, Principal], frozenset[str]] = {}

    def admits(j: int, principal: Principal) -> frozenset[str]:
        if (j, principal) not in cache:
            cache[(j, principal)] = admitted(states[j], principal)
        return cache[(j, principal)]

    for read in readers.reads:
        first = 0 if lag else read.done
        under_way = frozenset().union(*readers.touched[read.done + 1:read.begun + 1])
        if any(fits(read.answer, admits(j, read.principal), under_way) for j in range(first, read.begun + 1)):
            continue
        earlier = [j for j in range(read.done) if read.answer == admits(j, read.principal)]
        was = (f"the answer of the store as it stood before write {earlier[-1] + 1} ({readers.what[earlier[-1] + 1]}) "
               "had returned" if earlier else "what no state of the store admits")
        during = f", during write {read.done + 1} ({readers.what[read.done + 1]})" if under_way else ""
        found.append(f"{sc.asked(PolicyFilter(read.principal, sc.AS_OF, states[read.done].active))} read "
                     f"{sorted(read.answer)}, begun after {read.done} writes had returned{during}: {was}; the store "
                     f"then admitted {sorted(admitted(states[read.done], read.principal))}")
    return found


class WrittenWhileSearchedChecks:
    """A client written by one thread while others search it answers each search as the store then stands.

    Troubleshooting: hold the client's lock around writes as well as searches where the connection serializes
    nothing; a result cache must not store an answer computed before a write that dropped the cache.
    """

    def test_one_client_searched_while_written_answers_as_it_stands(self, mutable: Adapter) -> None:
        """Three threads search one client as acme's engineering, beta's sales and two principals a document half
        moved shows to, while this thread writes through the same client: the active revision of acme/p moved
        between 1 and 2, a document moved between acme and beta, a group revoked and granted again, a document
        deleted and published again, each four times a pass: the second of each pair as soon as every thread has
        begun a search after the first, and after the second, every thread asks as every principal again. Each
        answer must be what one state of the store admits: the last write's that had returned when the search
        began, or a later one's whose write began before it ended; a search a write was under way during may miss
        the documents that write changes, and nothing else.

        If this fails: the message names who read what, and which state that was. An answer kept from before a
        write that had returned: a result cache stored what a search computed before the write dropped the cache
        (store an answer only if no write began since the search did). What no state admits, or a search that
        raised: a write ran in the middle of a search on a connection that serializes nothing (hold the lock
        around writes too), or a write shows its middle steps. A client that must not be shared declares
        ``Capabilities(thread_safe=False)``.
        """
        if not mutable.capabilities.thread_safe:
            pytest.skip(lacks("thread_safe", f"{mutable.name} declares thread_safe=False: one client per thread"))
        app = Application()
        s = sc.Scenario.build(mutable, DOCS)
        s.sync(app.active)
        readers = Readers(s, app)
        readers.run()
        assert not readers.errors, (f"{len(readers.errors)} of {READERS} threads raised while they searched a "
                                    f"client another thread wrote through: {readers.errors[0]}. Hint: hold the "
                                    "client's lock around writes too, or declare Capabilities(thread_safe=False)")
        lag = bool(mutable.capabilities.staleness_bound_s)
        found = wrong(readers, lag)
        assert not found, (f"{len(found)} of {len(readers.reads)} searches, made while another thread wrote through "
                           "the same client, answered otherwise than the store stood: " + " | ".join(found[:3]))
        last = readers.states[-1]
        stale = [f"{sc.asked(PolicyFilter(p, sc.AS_OF, last.active))} reads {sorted(got)}, the store admits "
                 f"{sorted(admitted(last, p))}" for p in PRINCIPALS
                 if (got := frozenset(h.id for h in mutable.search(s.query, len(s.known) + 1, PolicyFilter(
                     p, sc.AS_OF, last.active)))) != admitted(last, p)]
        assert lag or not stale, "asked alone after the writes: " + " | ".join(stale)
        if readers.overlapped < OVERLAPPED:
            pytest.skip(f"in {len(readers.what) - 1} writes, only {readers.overlapped} of {len(readers.reads)} "
                        f"searches had a write begin during them (the check judges after {OVERLAPPED}): the machine "
                        "ran each thread alone; run it on a quieter machine")
