"""Lifecycle checks: every change is visible to the very next query, in hand-written scenarios and in
generated sequences of operations (``sequences``)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from datetime import date
from itertools import chain
from typing import Any

import pytest

from filterproof.adapters.base import Adapter
from filterproof.conformance.checks import sequences as seq
from filterproof.conformance.checks.generative import chosen_seed, replay_hint
from filterproof.conformance.plugin import EXAMPLES_ENV, Budgets, budget_seconds
from filterproof.conformance.progress import OverBudget, Progress
from filterproof.conformance.worlds import scenarios as sc
from filterproof.conformance.worlds.sequence_aims import ELIGIBLE, aimed
from filterproof.conformance.worlds.sequence_draws import drawn
from filterproof.policy import PolicyFilter

MIN_NONEMPTY = 0.1
MIN_STEPS, MAX_STEPS = 4, 24
REQUIRED_KINDS = ("insert", "replace", "re-upsert", "delete", "delete unknown", "update revision", "update tenant",
                  "update logical_id", "update deleted", "update batch", "map add", "map move", "map remove")
"""Steps every run of the sequence test must have taken at least once, or it proved too little."""


@dataclass
class Coverage:
    """What a run of generated sequences exercised; ``problems()`` says how it fell short."""

    sequences: int = 0
    checks: int = 0
    nonempty: int = 0
    kinds: set[str] = field(default_factory=set)
    seed: Any = None
    """The seed the run drew from (``--hypothesis-seed`` replays it)."""

    def count(self, model: seq.Model) -> None:
        self.sequences += 1
        self.checks += model.checks
        self.nonempty += model.nonempty
        self.kinds |= model.kinds

    def problems(self) -> list[str]:
        found = [f"no step of kind {kind!r}" for kind in REQUIRED_KINDS if kind not in self.kinds]
        if self.nonempty < MIN_NONEMPTY * self.checks:
            found.append(f"only {self.nonempty} of {self.checks} checks had an eligible document "
                         f"(at least {MIN_NONEMPTY:.0%} needed)")
        return found

    def aims(self) -> tuple[str, ...]:
        """What a top-up sequence aims at first: each kind of step not taken yet, and an eligible document when
        too few checks had one (``sequence_aims``)."""
        missing = tuple(kind for kind in REQUIRED_KINDS if kind not in self.kinds)
        return missing + ((ELIGIBLE,) if self.nonempty < MIN_NONEMPTY * self.checks else ())


SHRINK_SEQUENCES = f"--conformance-examples N (or ${EXAMPLES_ENV}) runs fewer"
SEQUENCE_PARTS = 2
"""Test items the generated sequences are run as: the suite's longest check on the slower engines (LanceDB: 21.8 s
of a 30 s run on two workers), one per worker (``plugin.spread_parts``)."""
TOP_UP = 4 * SEQUENCE_PARTS
"""A run draws up to this many times its budget of sequences until it is strong (``Coverage.problems``), each
sequence past the budget aimed first at what the run lacks (``sequence_aims``): drawn alone, a part of 4 at the quick
tier stopped weak at 32 sequences about once in a thousand parts (``update deleted`` missed, or too few eligible
documents), and failed a run whose store was right."""


def run_sequences(adapter: Adapter, sequences: int, seed: Any = None, progress: Progress | None = None,
                  part: int = 1) -> Coverage:
    """Run ``sequences`` generated sequences (``seed``: reproducible), and more (up to ``TOP_UP`` times as many)
    until the run is strong (every kind in ``REQUIRED_KINDS`` taken, enough checks with an eligible document), each
    of those starting with steps aimed at what the run lacks, so that a small budget is not a weak run by chance;
    the first failure is shrunk and raised as a script.
    ``progress`` prints a line now and then, and stops the run when the first sequence's pace projects the
    whole run past its budget. ``part`` draws from its own stream of the seed (part 1: the seed's own)."""
    seed = chosen_seed() if seed is None else seed
    coverage = Coverage(seed=seed)
    rnd = random.Random(str(seed) if part == 1 else f"{seed}/part {part}")
    began = time.monotonic()
    if progress is not None:
        progress.note(f"{sequences} sequences of {MIN_STEPS} to {MAX_STEPS} steps", force=True)
    while coverage.sequences < sequences or (coverage.problems() and coverage.sequences < TOP_UP * sequences):
        model = seq.Model()
        steps: list[seq.Step] = []
        aims = coverage.aims() if coverage.sequences >= sequences else ()
        planned = chain(aimed(rnd, model, aims, steps), drawn(rnd, model, rnd.randint(MIN_STEPS, MAX_STEPS), steps))
        failure = seq.play(adapter, model, planned)
        if failure is not None:
            smallest, note = seq.shrink(adapter, steps, failure)
            raise AssertionError(f"{seq.script(smallest, len(steps), note)}\n{replay_hint(seed)}")
        coverage.count(model)
        if progress is not None:
            if coverage.sequences == 1:
                progress.project("a generated sequence", time.monotonic() - began, 1, sequences, SHRINK_SEQUENCES)
            progress.note(f"{coverage.sequences} of {sequences} sequences, {coverage.checks} checks")
    return coverage


class LifecycleChecks(Budgets):
    """Revoke, supersede, change the active map, publish, delete: each visible at once.

    Troubleshooting for all of them: an adapter that caches results, writes
    asynchronously without waiting (Qdrant ``wait=True``), merges metadata instead of
    replacing it, or keeps a derived flag that is not updated with the change.
    """

    def test_revoke_a_group(self, mutable: Adapter) -> None:
        """Replacing a document's groups with ones the principal lacks removes it on the next query.

        If this fails: results are cached, or the write is not visible yet (wait for it).
        """
        docs = {"kept": sc.meta(logical_id="a"), "revoked": sc.meta(logical_id="b")}
        s = sc.Scenario.build(mutable, docs)
        where = PolicyFilter(sc.principal(), sc.AS_OF, sc.active_for(docs))
        assert s.native_ids(where) == {"kept", "revoked"}
        s.update("revoked", sc.meta(logical_id="b", groups=["security"]))
        assert s.native_ids(where) == {"kept"}, "the revoked group still admits the document"

    def test_metadata_update_replaces_not_merges(self, mutable: Adapter) -> None:
        """``update_metadata`` replaces the whole metadata: a field left out is gone (fail closed).

        If this fails: the store merged the new metadata into the old (Chroma's update
        does; send the absent fields as deletions), so the old groups still admit.
        """
        docs = {"doc": sc.meta(valid_until="2027-01-01")}
        s = sc.Scenario.build(mutable, docs)
        where = PolicyFilter(sc.principal(), sc.AS_OF, sc.active_for(docs))
        s.update("doc", sc.meta(valid_until=..., groups=...))
        assert s.native_ids(where) == set(), "a document whose groups were removed must not match"

    def test_supersede_a_revision(self, mutable: Adapter) -> None:
        """Publishing revision 2 and moving the active map to it retires revision 1 at once.

        If this fails: the active revision is read from a stale copy of the map, or the
        revision clause compares something else than the map's revision.
        """
        docs = {"v1": sc.meta(logical_id="p", revision=1)}
        s = sc.Scenario.build(mutable, docs)
        before = PolicyFilter(sc.principal(), sc.AS_OF, sc.active_for(s.docs))
        assert s.native_ids(before) == {"v1"}
        s.publish("v2", sc.meta(logical_id="p", revision=2))
        s.update("v1", sc.meta(logical_id="p", revision=1, status="superseded"))
        after = PolicyFilter(sc.principal(), sc.AS_OF, before.active.replace(sc.TENANT, "p", 2))
        assert s.native_ids(after) == {"v2"}

    def test_change_of_the_active_map_alone(self, mutable: Adapter) -> None:
        """With no write to the store, a new active map decides which revision is eligible, on the very
        next query (the map is given to ``set_active_revisions`` first, as an application would).

        If this fails: the active revision was baked into the documents at upsert time;
        it must come from the ``PolicyFilter`` of each query (``revision=query``), or a
        stored flag must be rewritten by ``set_active_revisions`` before it returns
        (``revision=flag``): not lazily, not at the next write, not in the background.
        """
        docs = {"r1": sc.meta(logical_id="p", revision=1), "r2": sc.meta(logical_id="p", revision=2)}
        s = sc.Scenario.build(mutable, docs)
        for revision, expected in ((1, {"r1"}), (2, {"r2"}), (3, set()), (1, {"r1"})):
            where = PolicyFilter(sc.principal(), sc.AS_OF, sc.active_for(docs, p=revision))
            got = s.native_ids(where)
            assert got == expected, (f"the map alone moved acme/p to revision {revision}: "
                                     f"{sc.mismatch(got, expected, s.docs)}{s.diagnose(where, got, expected)}")

    def test_publish_a_new_document(self, mutable: Adapter) -> None:
        """A document upserted after the first query is found by the next one.

        If this fails: writes are asynchronous (wait for them) or an index is not refreshed.
        """
        docs = {"old": sc.meta(logical_id="a")}
        s = sc.Scenario.build(mutable, docs)
        where = PolicyFilter(sc.principal(), date(2026, 9, 8), sc.active_for({**docs, "new": sc.meta(logical_id="b")}))
        assert s.native_ids(where) == {"old"}
        s.publish("new", sc.meta(logical_id="b"))
        assert s.native_ids(where) == {"old", "new"}

    def test_delete(self, mutable: Adapter) -> None:
        """A deleted document is gone from filtered and unfiltered results alike.

        If this fails: the delete is asynchronous, soft (a flag the filter ignores), or cached.
        """
        docs = {"keep": sc.meta(logical_id="a"), "drop": sc.meta(logical_id="b")}
        s = sc.Scenario.build(mutable, docs)
        where = PolicyFilter(sc.principal(), sc.AS_OF, sc.active_for(docs))
        s.delete("drop")
        assert s.native_ids(where) == {"keep"}
        assert s.native_ids(None) == {"keep"}

    @pytest.mark.parametrize("field", sorted(sc.FIELD_FLIPS))
    def test_every_field_updated_both_ways(self, mutable: Adapter, field: str) -> None:
        """A store holding one document: ``update_metadata`` changing only ``field`` lets it in, then out, then
        in again (and the same starting from in); every step visible to the next query.

        If this fails: the store derived something from the field at upsert (a flag, a zone
        map of the segment's dates, a bitmap or posting list, a cached mask) that an update
        does not rewrite, or rewrites in one direction only (revocations, not grants).
        """
        inside, outside = sc.FIELD_FLIPS[field]
        where = PolicyFilter(sc.principal(), sc.AS_OF, sc.active_for({"d": sc.meta()}))
        for start, then in ((outside, inside), (inside, outside)):
            docs = {"d": sc.meta(**{field: start})}
            s = sc.Scenario.build(mutable, docs)
            for value in (start, then, start, then):
                s.update("d", sc.meta(**{field: value}))
                got, want = s.native_ids(where), s.policy_ids(where)
                assert got == want, (f"after update_metadata set {field} to {sc.shown(value)} (the document alone in "
                                     f"the store, written with {sc.shown(start)}): {sc.mismatch(got, want, s.docs)}"
                                     f"{s.diagnose(where, got, want)}")

    @pytest.mark.parametrize("part", range(1, SEQUENCE_PARTS + 1), ids=lambda n: f"part {n} of {SEQUENCE_PARTS}")
    def test_generated_sequences_of_operations(self, mutable: Adapter, request: pytest.FixtureRequest,
                                               part: int) -> None:
        """Generated sequences of upserts (new, replacing, after a delete), deletes (known and unknown ids),
        one-field ``update_metadata`` (revision, tenant, logical id, groups, status, dates; of deleted and
        unknown ids too) and active-map changes (add, move forward, roll back, remove a pair): after every step
        the native filter returns exactly the policy's set for several principals, and an unfiltered search
        exactly the stored ids. Under ``revision=flag`` too.

        Runs ``--conformance-examples`` sequences (default 60) as two parts of half as many, each
        strong by itself, within half the budget, and drawn from its own stream of the seed (two
        workers take one each). If this fails: the message is the shrunk sequence as a numbered
        script of adapter calls, and the seed to replay it. Typical causes: a current-revision
        flag not recomputed when a document's own revision, tenant or logical id changes, or not
        cleared when its pair leaves the map; a delete that leaves a tombstone whose old metadata
        (or flag) comes back when the id is upserted again; an update of a deleted id that
        resurrects it; a cache that misses one kind of change.
        """
        progress = Progress(request.config, f"generated sequences, part {part} of {SEQUENCE_PARTS}",
                            budget_seconds(request.config) / SEQUENCE_PARTS)  # the parts share the check's budget
        share = -(-self.examples(request.config) // SEQUENCE_PARTS)
        try:
            coverage = run_sequences(mutable, share, progress=progress, part=part)
        except OverBudget as stop:  # the message alone, not the exception it replaces (from None)
            raise pytest.fail.Exception(str(stop), pytrace=False) from None
        weak = coverage.problems()
        assert not weak, (f"the sequence test was too weak ({coverage.sequences} sequences): {'; '.join(weak)}\n"
                          f"{replay_hint(coverage.seed)}")
