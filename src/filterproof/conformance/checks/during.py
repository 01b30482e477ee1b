"""During a change: a reader that queries while the writer changes permissions sees one state, never a mix.

A store's write is often several steps inside one call: a revision's flag cleared on the old rows and set on the
new ones, a document's fields written one statement at a time. An API replica that reads at that moment sees what
lies between, and a filter over a mix admits what no state of the store ever admitted: two revisions of one
document at once, or a document moved to another tenant under its old groups. No check made after a call returns
can see it. Here a reader in this process (``open_reader``) queries in a thread while the writer moves the active
revision and a document back and forth; every answer must be admitted, as a whole, by one state the writer's calls
left (the one before the first, or the one after any). No timing is assumed: a reader that lags (a declared
staleness bound) passes, so long as what it shows was once true.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from filterproof.adapters.base import Adapter, Reader
from filterproof.conformance.checks.clients import unless_no_reader
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, eligible_ids

ROUNDS = 12
"""Changes of each kind the writer makes: the active revision moved, then the document, each back and forth."""
SWITCH_S = 1e-4
"""Python's thread switch interval during the check (5 ms by default): a reader thread then runs between two
steps a Python adapter takes, not only while the writer waits on its store."""

HOME = sc.meta(logical_id="m", groups=[sc.GROUP])
AWAY = sc.meta(tenant="beta", logical_id="m", groups=["sales"])
"""The two places of the moved document: each field differs, so a document half moved is in neither."""
DOCS = {"r1": sc.meta(logical_id="p", revision=1), "r2": sc.meta(logical_id="p", revision=2), "moved": HOME,
        "kept": sc.meta(logical_id="k")}
REVISION_READERS = (sc.principal(),)
"""Who reads acme/p: a mix of its revisions shows as both."""
MOVE_READERS = (sc.principal(sc.TENANT, "sales"), sc.principal("beta", sc.GROUP))
"""Who reads the moved document in neither place: a document half moved (its groups written before its tenant, or
after) shows to one of them."""


def active_map(revision: int) -> ActiveRevisions:
    """acme/p at ``revision``; the moved document's pair in both tenants."""
    return ActiveRevisions.of({(sc.TENANT, "p"): revision, (sc.TENANT, "k"): 1, (sc.TENANT, "m"): 1,
                               ("beta", "m"): 1})


@dataclass(frozen=True)
class State:
    """What the store holds after one of the writer's calls, and the map it was given."""

    docs: dict[str, dict[str, object]]
    active: ActiveRevisions

    @classmethod
    def of(cls, s: sc.Scenario, active: ActiveRevisions) -> State:
        return cls({i: dict(m) for i, m in s.docs.items()}, active)

    def admits(self, principal: Principal, answer: set[str]) -> bool:
        return answer <= eligible_ids(self.docs.items(), PolicyFilter(principal, sc.AS_OF, self.active))


@dataclass(frozen=True)
class Seen:
    principal: Principal
    answer: set[str]
    during: bool
    """Whether the query overlapped one of the writer's calls."""


@dataclass
class Asking:
    """What the reader asks next: the map the application holds, and the principals a mix of the change under way
    would show to."""

    active: ActiveRevisions
    principals: tuple[Principal, ...]


class Reading:
    """A thread that queries ``reader`` as ``asking`` says until stopped; ``seen`` holds the answers."""

    def __init__(self, reader: Reader, s: sc.Scenario, asking: Asking, busy: threading.Event) -> None:
        self.reader, self.s, self.asking, self.busy = reader, s, asking, busy
        self.seen: list[Seen] = []
        self.error: BaseException | None = None
        self.first, self.stop = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._run, name="filterproof-during-reader", daemon=True)

    def _run(self) -> None:
        depth = len(self.s.known) + 1
        try:
            while not self.stop.is_set():
                for principal in self.asking.principals:
                    during = self.busy.is_set()
                    where = PolicyFilter(principal, sc.AS_OF, self.asking.active)
                    hits = self.reader.search(self.s.query, depth, where)
                    self.seen.append(Seen(principal, {h.id for h in hits}, during or self.busy.is_set()))
                self.first.set()
        except BaseException as error:  # carried to the test's thread, which raises it
            self.error = error
            self.first.set()


@contextmanager
def switching_often(interval_s: float = SWITCH_S) -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(interval_s)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def revise(s: sc.Scenario, asking: Asking, n: int) -> None:
    asking.active = active_map(2 if n % 2 == 0 else 1)
    s.sync(asking.active)


def move(s: sc.Scenario, asking: Asking, n: int) -> None:
    s.update("moved", AWAY if n % 2 == 0 else HOME)


def change_while_reading(reader: Reader, s: sc.Scenario) -> tuple[list[State], list[Seen]]:
    """Move the active revision, then the document, back and forth ``ROUNDS`` times each while ``reader`` asks; the
    states the writer's calls left, and what the reader saw."""
    asking = Asking(active_map(1), REVISION_READERS)
    states = [State.of(s, asking.active)]
    busy = threading.Event()
    reading = Reading(reader, s, asking, busy)
    with switching_often():
        reading.thread.start()
        try:
            reading.first.wait(timeout=60)
            for readers, change in ((REVISION_READERS, revise), (MOVE_READERS, move)):
                asking.principals = readers
                for n in range(ROUNDS):
                    busy.set()
                    change(s, asking, n)
                    busy.clear()
                    states.append(State.of(s, asking.active))
                    time.sleep(0)  # the reader's turn between two writes too
        finally:
            reading.stop.set()
            reading.thread.join(timeout=60)
    if reading.error is not None:
        raise AssertionError(f"the reader's query raised {type(reading.error).__name__} while the writer changed "
                             f"the store: {reading.error}") from reading.error
    return states, reading.seen


def mixes(states: list[State], seen: list[Seen]) -> Counter[str]:
    """Each answer no single state admits, described, with how often it was read."""
    found: Counter[str] = Counter()
    for one in seen:
        if not any(state.admits(one.principal, one.answer) for state in states):
            when = "during a write" if one.during else "between writes"
            found[f"{sc.asked(PolicyFilter(one.principal, sc.AS_OF, active_map(1)))} read {sorted(one.answer)} "
                  f"({when})"] += 1
    return found


class DuringChangeChecks:
    """A reader querying while the writer writes sees one state of the store at a time.

    Troubleshooting: a flag set on a new revision before the old one's is cleared; a document's fields written
    one statement (or one payload key) at a time.
    """

    def test_a_reader_during_a_change_sees_one_state(self, second_client: Adapter) -> None:
        """While the writer moves the active revision of acme/p between 1 and 2 (``set_active_revisions``, or the
        map in each query) and moves a document between tenant 'acme' in group 'engineering' and tenant 'beta' in
        group 'sales' (``update_metadata``), a reader in this process (``open_reader``) queries in a thread, as the
        principals a mix would show to: every answer must be admitted, as a whole, by one state the writer's calls
        left.

        If this fails: the write shows its middle steps: both revisions flagged at once, or a document half moved
        (its tenant written before its groups, or after); the message names who read what.
        """
        from filterproof.adapters.readers import open_reader

        def check() -> None:
            s = sc.Scenario.build(second_client, DOCS)
            s.sync(active_map(1))
            reader = open_reader(second_client)
            try:
                one_state_at_a_time(reader, s)
            finally:
                reader.close()

        unless_no_reader(second_client, "reader", check)


def one_state_at_a_time(reader: Reader, s: sc.Scenario) -> None:
    """Raise AssertionError naming each answer that mixed states, with how many answers were read."""
    states, seen = change_while_reading(reader, s)
    found = mixes(states, seen)
    if found:
        during = sum(one.during for one in seen)
        shown = " | ".join(f"{line}: {n} time{'s' if n > 1 else ''}" for line, n in found.most_common(4))
        raise AssertionError(
            f"{found.total()} of {len(seen)} answers ({during} read during a write) are admitted by no state the "
            f"writer's calls left: r1 and r2 are revisions 1 and 2 of acme/p, 'moved' is {HOME} or {AWAY}: "
            f"{shown}. Hint: a write of several steps shows its middle: set the new flag after clearing the old one "
            "(a reader then misses a document, never sees two), and write a document's fields in one statement")
