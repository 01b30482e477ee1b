"""The property test: on generated corpora, the native filter returns exactly the policy's eligible set.

``run_property`` drives hypothesis over ``generated.worlds()`` and counts, across the
run, how strong its examples were. A property test whose examples never admit
anything proves nothing ("nothing came back" is then always right), so the test
checks its own strength at the end and fails when it was weak: fewer than a quarter
of the examples with a non-empty eligible set, no eligible or no ineligible
well-formed document, or fewer than half of the documents well formed.

The bars sit below the generator's ordinary variance at the smallest budget CI runs
(30 examples): over 1,100 random seeds there, a run's well-formed share ranged from 55%
to 92% (median 77%); the former 60% bar failed 4 of those runs, and one CI run (on a bridge,
where the property runs at that budget once per search path).
"""

from __future__ import annotations

import contextlib
import random
from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as fixed_seed
from hypothesis import strategies as st

from filterproof.adapters.base import Adapter
from filterproof.conformance.checks.dates import process_time_zone
from filterproof.conformance.plugin import Budgets
from filterproof.conformance.worlds import generated
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import problem

MIN_NONEMPTY = 0.25
MIN_WELLFORMED = 0.50


@dataclass
class Strength:
    """What a run's examples exercised; ``problems()`` says how it fell short."""

    examples: int = 0
    nonempty: int = 0
    """Examples where at least one principal was eligible for something."""
    documents: int = 0
    wellformed: int = 0
    eligible: int = 0
    """(principal, well-formed document) pairs the policy admits..."""
    ineligible: int = 0
    """... and the pairs it rejects."""

    def count(self, world: generated.World, admitted: list[set[str]]) -> None:
        active = world.wheres[0].active
        wellformed = {i for i, m in world.docs.items() if not problem(m, active)}
        self.examples += 1
        self.nonempty += any(admitted)
        self.documents += len(world.docs)
        self.wellformed += len(wellformed)
        self.eligible += sum(len(a) for a in admitted)
        self.ineligible += sum(len(wellformed - a) for a in admitted)

    def problems(self) -> list[str]:
        found = []
        if self.nonempty < MIN_NONEMPTY * self.examples:
            found.append(f"only {self.nonempty} of {self.examples} examples had a non-empty eligible set "
                         f"(at least {MIN_NONEMPTY:.0%} needed)")
        if not self.eligible or not self.ineligible:
            found.append(f"{self.eligible} eligible and {self.ineligible} ineligible well-formed documents: "
                         "both must occur")
        if self.wellformed < MIN_WELLFORMED * self.documents:
            found.append(f"only {self.wellformed} of {self.documents} documents well formed "
                         f"(at least {MIN_WELLFORMED:.0%} needed)")
        return found

    def __str__(self) -> str:
        share = self.nonempty / self.examples if self.examples else 0.0
        return (f"{self.examples} examples, {self.nonempty} ({share:.0%}) with a non-empty eligible set, "
                f"{self.wellformed}/{self.documents} documents well formed, "
                f"{self.eligible} eligible and {self.ineligible} ineligible (principal, well-formed document) pairs")


def check_world(adapter: Adapter, world: generated.World, tolerance: float) -> list[set[str]]:
    """Index the world, ask each filter (under the world's time zone); raise AssertionError naming the documents."""
    with process_time_zone(world.zone) if world.zone else contextlib.nullcontext():
        return ask_world(sc.Scenario.build(adapter, world.docs), world, tolerance)


def ask_world(s: sc.Scenario, world: generated.World, tolerance: float) -> list[set[str]]:
    admitted = []
    for where in world.wheres:
        got, want = s.native_ids(where), s.policy_ids(where)
        zone = f" under TZ={world.zone}" if world.zone else ""
        assert got <= want and len(got) >= len(want) * (1 - tolerance), (
            f"{sc.asked(where)}{zone}, active revisions {where.active.to_json()}: "
            f"{sc.mismatch(got, want, s.docs)}{s.diagnose(where, got, want)}")
        admitted.append(want)
    return admitted


def failure(adapter: Adapter, world: generated.World, tolerance: float) -> str | None:
    """The assertion message ``world`` fails with, or None when the store answers it right."""
    try:
        check_world(adapter, world, tolerance)
    except AssertionError as error:
        return str(error)
    return None


def minimal(adapter: Adapter, world: generated.World, tolerance: float) -> tuple[generated.World, str]:
    """A smallest failing sub-world: principals, then documents, dropped one at a time while it still fails.

    Greedy and 1-minimal (dropping any one more principal or document makes it pass):
    at most one check per principal and document, where hypothesis's own shrinking took
    over a minute even against the in-memory reference.
    """
    message = failure(adapter, world, tolerance)
    assert message is not None, "minimal() needs a failing world"
    for n in reversed(range(len(world.wheres))):
        smaller = replace(world, wheres=world.wheres[:n] + world.wheres[n + 1:])
        if smaller.wheres and (found := failure(adapter, smaller, tolerance)):
            world, message = smaller, found
    for doc_id in list(world.docs):
        smaller = replace(world, docs={i: m for i, m in world.docs.items() if i != doc_id})
        if smaller.docs and (found := failure(adapter, smaller, tolerance)):
            world, message = smaller, found
    return world, message


def explain(world: generated.World, message: str, original: generated.World) -> str:
    docs = "; ".join(f"{i}: {m}" for i, m in world.docs.items())
    zone = f", process TZ={world.zone}" if world.zone else ""
    return (f"{message}\nsmallest failing world (from {len(original.docs)} documents and {len(original.wheres)} "
            f"principals): {len(world.docs)} documents [{docs}]; principals "
            f"{[sc.asked(w) for w in world.wheres]}{zone}")


def run_property(adapter: Adapter, examples: int, seed: Any = None,
                 worlds: st.SearchStrategy[generated.World] | None = None) -> Strength:
    """Run the property over ``examples`` generated worlds (``seed``: reproducible); return its strength.

    The first failing world is minimised by ``minimal`` (hypothesis's shrink phase is
    off) and reported with the documents and principals that still fail.
    """
    strength = Strength()
    tolerance = adapter.capabilities.recall_tolerance
    seed = chosen_seed() if seed is None else seed

    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.explicit, Phase.generate],
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                     HealthCheck.data_too_large])
    @given(world=worlds if worlds is not None else generated.worlds())
    def native_filter_equals_policy(world: generated.World) -> None:
        try:
            admitted = check_world(adapter, world, tolerance)
        except AssertionError:
            smallest, message = minimal(adapter, world, tolerance)
            raise AssertionError(f"{explain(smallest, message, world)}\n{replay_hint(seed)}") from None
        strength.count(world, admitted)

    fixed_seed(seed)(native_filter_equals_policy)()
    return strength


class GeneratedChecks(Budgets):
    """The generated congruence property, with its own strength check."""

    def test_native_filter_equals_policy_on_generated_metadata(self, native: Adapter,
                                                                request: pytest.FixtureRequest) -> None:
        """Generated corpora (mostly well formed; every malformed or near-miss document a one-field twin of an
        eligible one) and principals aimed at them: the native filter returns exactly the policy's set.

        Runs ``--conformance-examples`` examples (default 60; env
        FILTERPROOF_CONFORMANCE_EXAMPLES; ``--hypothesis-seed N`` reproduces a run).
        If this fails: the message names the principal and the documents wrongly admitted
        (a leak) or wrongly excluded, with their metadata, then the smallest failing
        world (the documents and principals that still fail); hypothesis prints the
        whole world as "Falsifying example". Approximate adapters may miss up to their
        ``recall_tolerance``, never admit. If it fails on strength, the generator (not
        your store) is at fault: report it.
        """
        strength = run_property(native, self.examples(request.config))
        weak = strength.problems()
        assert not weak, f"the property test was too weak to prove anything ({strength}): {'; '.join(weak)}"


def chosen_seed() -> Any:
    """The seed a generated test runs under: ``--hypothesis-seed`` when given, else a fresh one, so that a
    failure can say how to replay it."""
    from hypothesis import core

    forced = core.global_force_seed
    return forced if forced is not None else random.randrange(2**32)


def replay_hint(seed: Any) -> str:
    return f"(replay this run with --hypothesis-seed {seed})"
