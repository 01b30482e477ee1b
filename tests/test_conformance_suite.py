"""The conformance suite itself: it passes on the reference, and each seeded defect fails it
with a message that points at the defect."""

from __future__ import annotations

from pathlib import Path

import pytest

# Imported once here, so that pytester's in-process runs (which unload what they import)
# share one hypothesis module with the plugin that pytest already loaded.
import filterproof.conformance.suite  # noqa: F401
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.conformance.defects import SilentlyShort
from filterproof.fixtures import shipped
from filterproof.fixtures.lab import load_lab
from filterproof.runner import Settings, evaluate, index
from filterproof.scoring import by_strategy
from filterproof.truth import Prepared, prepare

pytest_plugins = ["pytester"]

SUITE = ["-p", "no:cacheprovider", "--pyargs", "filterproof.conformance", "--conformance-examples", "40"]


def test_reference_passes_through_pyargs(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*SUITE, "--backend", "reference")
    result.assert_outcomes(passed=31)


def test_without_an_adapter_the_suite_skips_with_the_reason(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*SUITE, "-rs")
    assert result.parseoutcomes().get("skipped", 0) >= 20
    result.stdout.fnmatch_lines(["*no adapter selected: pass --backend NAME or --adapter*"])


@pytest.mark.parametrize(("defect", "failing_test", "pointer"), [
    ("IgnoresValidUntil", "test_date_boundaries?valid_until is exclusive*",
     "valid_until is exclusive, as of 2026-09-08: returned but NOT eligible (a leak): dated: "),
    ("GroupsStringAsList", "test_every_malformed_document_fails_closed",
     "returned but NOT eligible (a leak): m-string-groups: "),
    ("DropsTenantClause", "test_tenant_isolation",
     "tenant 'acme': returned but NOT eligible (a leak): "),
    ("CachesAcrossRevocation", "test_revoke_a_group", "the revoked group still admits the document"),
    ("SilentlyShort", "test_selective_filter_is_not_short?2?", "short result: 0 returned for K=2 with 2 eligible"),
])
def test_seeded_defect_fails_with_a_pointer(
    pytester: pytest.Pytester, defect: str, failing_test: str, pointer: str
) -> None:
    result = pytester.runpytest(*SUITE, "--adapter", f"filterproof.conformance.defects:{defect}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"FAILED *::{failing_test}*"])
    assert pointer in result.stdout.str()


def selective_fixture() -> Prepared:
    """Thirty ineligible documents outrank the two a principal may use."""
    meta = {"tenant": "t", "revision": 1, "status": "active", "valid_from": "2026-01-01"}
    docs = [{"id": f"noise-{i}", "logical_id": f"n{i}", "groups": ["other"], "text": "alpha alpha beta", **meta}
            for i in range(30)]
    docs += [{"id": f"wanted-{i}", "logical_id": f"w{i}", "groups": ["mine"], "text": f"alpha w{i} x y z", **meta}
             for i in range(2)]
    raw = {"active_revisions": {f"t/{d['logical_id']}": 1 for d in docs}, "documents": docs,
           "cases": [{"id": "c", "query": "alpha beta", "tenant": "t", "groups": ["mine"], "as_of": "2026-02-01",
                      "expected": "wanted-0", "relevant": ["wanted-0", "wanted-1"]}]}
    return prepare(load_lab(Path("selective.json"), raw, "0" * 64))


def test_runner_reports_the_short_results_of_a_silently_short_store() -> None:
    prepared = selective_fixture()
    store = SilentlyShort()
    index(store, prepared)
    runs = by_strategy(evaluate(store, prepared, Settings(ks=(1, 5))), (1, 5))
    assert runs["pre_filter"][5]["short"] == 1 and runs["post_filter C=1"][5]["short"] == 1
    assert runs["pre_filter"][1]["false_abstention"] == 1
    honest = ReferenceAdapter()
    index(honest, prepared)
    pre = next(r for r in evaluate(honest, prepared, Settings(ks=(1, 5))) if r.strategy == "pre_filter")
    assert by_strategy([pre], (5,))["pre_filter"][5]["short"] == 0 and pre.k[5].ids == ["wanted-0", "wanted-1"]


def test_the_repository_fixtures_are_the_shipped_ones() -> None:
    """One source: ``fixtures/`` in the repository is a link to the package's data."""
    root = Path(__file__).resolve().parent.parent
    assert (root / "fixtures").resolve() == shipped("freshness-lab.json").parent


def test_capabilities_skip_what_an_adapter_cannot_take(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(rankonly='''
        from filterproof.adapters.base import Capabilities
        from filterproof.adapters.reference import ReferenceAdapter

        class RankOnly(ReferenceAdapter):
            name = "rank-only-store"
            capabilities = Capabilities(native_filter=False, lifecycle=False)
    ''')
    pytester.syspathinsert()
    result = pytester.runpytest(*SUITE, "--adapter", "rankonly:RankOnly", "-rs")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0 and outcomes["skipped"] >= 15 and outcomes["passed"] >= 5
    result.stdout.fnmatch_lines(["*rank-only-store declares native_filter=False: no pre_filter to check*"])
