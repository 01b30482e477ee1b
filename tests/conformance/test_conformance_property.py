"""The property test bites: its examples admit documents, it checks its own strength, and it fails
on every seeded defect of the classes it generates, naming the smallest failing world."""

from __future__ import annotations

from dataclasses import replace

import pytest

from filterproof.adapters.reference import ReferenceAdapter
from filterproof.conformance import defects
from filterproof.conformance.checks.generative import MIN_NONEMPTY, MIN_WELLFORMED, Strength, run_property
from filterproof.conformance.worlds import generated
from filterproof.policy import PolicyFilter, Principal

SEEDS = (1, 2, 3, 4, 5)
EXAMPLES = 60  # the suite's default
PROPERTY_DEFECTS = [
    "IgnoresValidUntil", "DropsOpenEnded", "GroupsStringAsList", "DropsTenantClause", "LexicalDates", "LenientDates",
    "LocalTimeAsOf", "CaseFoldsIdentities", "NormalizesUnicode", "FoldsAccents", "TruncatesAtNul", "TenantByKeyPrefix",
]


@pytest.mark.parametrize("seed", SEEDS)
def test_examples_are_strong_under_every_seed(seed: int) -> None:
    """Over a run, a quarter of the examples or more admit something; eligible and ineligible documents occur."""
    strength = run_property(ReferenceAdapter(), EXAMPLES, seed=seed)
    assert strength.problems() == [], str(strength)
    assert strength.nonempty >= MIN_NONEMPTY * strength.examples
    assert strength.wellformed >= MIN_WELLFORMED * strength.documents
    assert strength.eligible > 0 and strength.ineligible > 0


def test_a_strong_generator_passes_its_strength_check_at_the_smallest_budget_ci_uses() -> None:
    """Seed 113 at 30 examples (the bridges' CI budget) draws 188 of 314 documents well formed (59.9%, the
    lowest of seeds 1 to 149): a sound generator's ordinary variance, which the former 60% bar failed (seed
    587573680 did, in CI on one of the bridges, with the twin catalogues of then). A catalogue that grows
    changes the draws: find the lowest seed again."""
    strength = run_property(ReferenceAdapter(), 30, seed=113)
    assert (strength.documents, strength.wellformed) == (314, 188)
    assert strength.problems() == [], str(strength)


def test_a_weak_generator_is_caught_by_the_strength_check() -> None:
    """Principals that can match nothing make every run pass vacuously: the strength check says so."""
    nobody = generated.worlds().map(lambda w: replace(w, wheres=tuple(
        PolicyFilter(Principal("nobody", ("none",)), where.as_of, where.active) for where in w.wheres)))
    strength = run_property(ReferenceAdapter(), 30, seed=1, worlds=nobody)
    assert strength.nonempty == 0
    assert any("non-empty eligible set" in problem for problem in strength.problems())
    assert any("both must occur" in problem for problem in strength.problems())


def test_strength_counts_what_the_examples_exercised() -> None:
    strength = Strength(examples=4, nonempty=1, documents=10, wellformed=4, eligible=0, ineligible=3)
    problems = strength.problems()  # 1 of 4 examples non-empty is exactly enough
    assert len(problems) == 2
    assert "0 eligible and 3 ineligible" in problems[0] and "only 4 of 10 documents" in problems[1]
    assert replace(strength, wellformed=5, eligible=1).problems() == []  # half is exactly enough
    assert "only 0 of 4 examples" in replace(strength, nonempty=0).problems()[0]


@pytest.mark.parametrize("defect", PROPERTY_DEFECTS)
def test_the_property_fails_on_each_defect_of_its_classes(defect: str) -> None:
    """Each defect is within the generator's reach at the default budget: found under one of ``SEEDS``, not
    necessarily the first (measured at 60 examples: LenientDates under 14 of seeds 1 to 20, GroupsStringAsList
    under 7 of seeds 1 to 8, the others under all 8; the deterministic checks catch each one every time)."""
    message = ""
    for seed in SEEDS:
        try:
            run_property(getattr(defects, defect)(), EXAMPLES, seed=seed)
        except AssertionError as failure:
            message = str(failure)
            break
    assert message, f"{defect} passed the property under every seed of {SEEDS} at {EXAMPLES} examples"
    assert "smallest failing world" in message
    assert "NOT eligible (a leak)" in message or "eligible but NOT returned" in message
