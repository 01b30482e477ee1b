"""Across clients: another client of the store, in this process and in a child process, sees each change.

A permissions job writes through one client; API replicas read through others. Here the
writer (the adapter under test) revokes a group, supersedes a revision, moves the
active map alone, deletes, republishes and grants back; after each change returns,
a second client (``open_reader``, and ``reader_spec`` opened in a child process of
ours) must answer as the policy says: on its next query when the store declares
``staleness_bound_s=0`` or nothing, or by the first query that starts once the
declared bound has passed (it is polled until then, and the time is measured). Both
filtered and unfiltered answers count: a deleted document returned unfiltered is
still served. A store that cannot have a second client (or not in another process)
says so (``NoSecondClient``) and the check skips with its reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from filterproof.adapters.base import Adapter, Reader, staleness_bound
from filterproof.conformance.requirements import lacks
from filterproof.conformance.worlds import scenarios as sc
from filterproof.errors import NoSecondClient
from filterproof.evaluation.strategies import ranked_search
from filterproof.policy import ActiveRevisions, PolicyFilter

POLL_S = 0.05
"""Seconds between two queries of a reader while its declared bound has not passed."""


@dataclass
class Change:
    """One change the writer makes, by name, and the active map after it."""

    label: str
    make: Callable[[sc.Scenario, ActiveRevisions], ActiveRevisions]


def _revoke(s: sc.Scenario, active: ActiveRevisions) -> ActiveRevisions:
    s.update("revoked", sc.meta(logical_id="a", groups=["security"]))
    return active


def _supersede(s: sc.Scenario, active: ActiveRevisions) -> ActiveRevisions:
    s.publish("v2", sc.meta(logical_id="p", revision=2))
    s.update("v1", sc.meta(logical_id="p", revision=1, status="superseded"))
    return active.replace(sc.TENANT, "p", 2)


def _map_alone(s: sc.Scenario, active: ActiveRevisions) -> ActiveRevisions:
    return active.replace(sc.TENANT, "p", 3)  # revision 3 is not published: acme/p answers nothing


def _delete(s: sc.Scenario, active: ActiveRevisions) -> ActiveRevisions:
    s.delete("gone")
    return active


def _republish(s: sc.Scenario, active: ActiveRevisions) -> ActiveRevisions:
    s.publish("gone", sc.meta(logical_id="d"))
    return active


def _grant(s: sc.Scenario, active: ActiveRevisions) -> ActiveRevisions:
    s.update("revoked", sc.meta(logical_id="a"))
    return active.replace(sc.TENANT, "p", 2)


CHANGES = [Change("revoke a group", _revoke), Change("supersede a revision", _supersede),
           Change("move the active map alone", _map_alone), Change("delete", _delete),
           Change("republish the deleted document", _republish), Change("grant the group back", _grant)]
DOCS = {"revoked": sc.meta(logical_id="a"), "kept": sc.meta(logical_id="b"), "v1": sc.meta(logical_id="p"),
        "gone": sc.meta(logical_id="d"), "elsewhere": sc.meta(tenant="beta", logical_id="e")}


def answers(reader: Reader, s: sc.Scenario, where: PolicyFilter) -> tuple[set[str], set[str]]:
    """The reader's filtered and unfiltered answers, everything it holds (k past the collection)."""
    depth = len(s.known) + 1
    filtered, unfiltered = ranked_search(reader, s.query[None, :].repeat(2, 0), depth,  # type: ignore[arg-type]
                                         [where, None], s.known)
    return {h.id for h in filtered}, {h.id for h in unfiltered}


def wrong(got: tuple[set[str], set[str]], s: sc.Scenario, where: PolicyFilter) -> str:
    """What a reader's answers get wrong ('' when nothing)."""
    filtered, unfiltered = got
    parts = []
    if filtered != s.policy_ids(where):
        parts.append(f"filtered ({sc.asked(where)}): {sc.mismatch(filtered, s.policy_ids(where), s.docs)}")
    if unfiltered != set(s.vectors):
        stale, missing = sorted(unfiltered - set(s.vectors)), sorted(set(s.vectors) - unfiltered)
        parts.append("unfiltered: " + "; ".join(
            ([f"returned, but deleted: {', '.join(stale)}"] if stale else [])
            + ([f"stored, but not returned: {', '.join(missing)}"] if missing else [])))
    return " | ".join(parts)


def follow(writer: Adapter, open_reader: Callable[[], Reader], who: str) -> list[str]:
    """Make each change of ``CHANGES`` through ``writer`` and poll a reader from ``open_reader`` until it reflects
    it; returns how long each took. Raises AssertionError for a reader that still answers as before once the
    declared bound has passed."""
    s = sc.Scenario.build(writer, DOCS)
    active = sc.active_for(DOCS)
    bound = staleness_bound(writer.capabilities)
    declared = writer.capabilities.staleness_bound_s
    held = f"staleness_bound_s={declared:g}" if declared is not None else "no staleness_bound_s declared: held to 0"
    reader = open_reader()
    took = []
    try:
        where = PolicyFilter(sc.principal(), sc.AS_OF, active)
        if problem := wrong(answers(reader, s, where), s, where):
            raise AssertionError(f"[{who}] before any change, the reader does not see what the writer wrote: "
                                 f"{problem}")
        for change in CHANGES:
            active = change.make(s, active)
            s.sync(active)
            returned = time.monotonic()
            where = PolicyFilter(sc.principal(), sc.AS_OF, active)
            while True:
                started = time.monotonic()
                try:
                    problem = wrong(answers(reader, s, where), s, where)
                except Exception as error:
                    raise AssertionError(
                        f"[{who}] after the writer's '{change.label}' returned, the reader's query raised "
                        f"{type(error).__name__}: {error}") from error
                if not problem:
                    took.append(f"{change.label}: {started - returned:.3f} s")
                    break
                if started - returned >= bound:
                    raise AssertionError(
                        f"[{who}] after the writer's '{change.label}' returned, a query the reader started "
                        f"{started - returned:.3f} s later ({held}) answered as before: {problem}. Hint: the reader "
                        f"serves a cached answer or a snapshot of the store (a connection's read consistency, an "
                        f"index loaded once); refresh it on every read, or declare the bound it keeps")
                time.sleep(min(POLL_S, max(bound / 20, 0.001)))
    finally:
        reader.close()
    return took


class AcrossClientChecks:
    """A second client of the store sees every change, in this process and in a child process.

    Troubleshooting for both: a reader that caches answers, a connection that reads a
    snapshot (LanceDB's default ``read_consistency_interval``), an index a reader loaded
    once, a write acknowledged before it is applied (Qdrant ``wait=false``).
    """

    @pytest.fixture()
    def second_client(self, mutable: Adapter) -> Iterator[Adapter]:
        yield mutable

    def test_a_reader_in_this_process_sees_each_change(self, second_client: Adapter) -> None:
        """Another client of the store in this process (``open_reader()``) reflects every change on its next query
        (or within the declared ``staleness_bound_s``): a revoked group, a superseded revision, the active map
        moved alone, a delete, a republish, a group granted back; filtered and unfiltered.

        If this fails: the reader caches answers, or reads a snapshot taken when it opened.
        """
        from filterproof.adapters.readers import open_reader

        across(second_client, "reader", lambda: open_reader(second_client), "a reader in this process")

    def test_a_reader_in_another_process_sees_each_change(self, second_client: Adapter) -> None:
        """Another client opened from ``reader_spec()`` in a child process (spawned by filterproof) reflects every
        change on its next query, or within the declared ``staleness_bound_s``: the same changes as in this
        process, across processes, as an API replica reads what a permissions job wrote.

        If this fails: the other process reads a snapshot: an index or a table version loaded when it opened
        (with the time the answer stayed stale in the message).
        """
        from filterproof.adapters.readers import ChildReader, reader_spec

        across(second_client, "child_reader", lambda: ChildReader(reader_spec(second_client)),
               "a reader in another process")


def across(writer: Adapter, capability: str, opened: Callable[[], Reader], who: str) -> None:
    """``follow`` through the reader ``opened`` returns, unless the store has none (``unless_no_reader``)."""
    unless_no_reader(writer, capability, lambda: follow(writer, opened, who))


def unless_no_reader(writer: Adapter, capability: str, check: Callable[[], object]) -> None:
    """Run ``check``; when the store has no second client (no ``open_reader``, or ``NoSecondClient`` from it),
    the check skips for ``capability``, or fails where the run requires it."""
    if not callable(getattr(writer, "open_reader", None)):
        pytest.skip(lacks(capability,
                          f"{writer.name} has no second client (no open_reader): nothing to check across clients"))
    try:
        check()
        return
    except NoSecondClient as error:
        why = str(error)
    pytest.skip(lacks(capability, why))  # outside the handler: the reason alone, not the exception it replaces
