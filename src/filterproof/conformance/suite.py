"""``AdapterConformanceTests``: subclass it, provide one fixture, learn whether your filters keep the policy.

    import pytest
    from filterproof.conformance import AdapterConformanceTests

    class TestMyStore(AdapterConformanceTests):
        @pytest.fixture()
        def adapter(self):
            store = MyStoreAdapter()      # a fresh, empty adapter (see filterproof.adapters.base)
            yield store
            store.close()

Tests an adapter cannot take skip with the reason, from its declared
``capabilities``: no native filter skips every pre_filter check; no lifecycle skips
delete and update checks; an approximate adapter is held to its
``recall_tolerance`` on recall, never on leaks. Each test's docstring says what to
look at when it fails.

The checks run in this order (pytest runs base classes' tests before subclasses',
from the last base to the first): the exact eligibility checks first (dates,
identities, every fail-closed class), so that the first failure names the clause at
fault; then the store contract, lifecycle, the generated property, placement, one
client shared by threads (``shared``), then written by one of them while the others search (``written``), written
by two at once (``writers``), other clients of the store (``clients``), and
the scale tier last, whose failures can also follow from a clause failing earlier.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from filterproof.adapters.base import Adapter
from filterproof.conformance.checks.aimed import AimedWriteChecks
from filterproof.conformance.checks.bulk import BulkChecks
from filterproof.conformance.checks.clients import AcrossClientChecks
from filterproof.conformance.checks.contract import ContractChecks
from filterproof.conformance.checks.dates import DateChecks
from filterproof.conformance.checks.during import DuringChangeChecks
from filterproof.conformance.checks.empty import EmptyInputChecks
from filterproof.conformance.checks.fixture_checks import FixtureChecks
from filterproof.conformance.checks.generative import GeneratedChecks
from filterproof.conformance.checks.identity import IdentityChecks
from filterproof.conformance.checks.ids import IdChecks
from filterproof.conformance.checks.lifecycle import LifecycleChecks
from filterproof.conformance.checks.owned import CallerObjectChecks
from filterproof.conformance.checks.placement import PlacementChecks
from filterproof.conformance.checks.scale_tier import ScaleChecks
from filterproof.conformance.checks.shared import SharedClientChecks
from filterproof.conformance.checks.sizes import SizeChecks
from filterproof.conformance.checks.twin_checks import TwinChecks
from filterproof.conformance.checks.two_writers import TwoClientWritersChecks
from filterproof.conformance.checks.vectors import VectorChecks
from filterproof.conformance.checks.writers import ConcurrentWritersChecks
from filterproof.conformance.checks.written import WrittenWhileSearchedChecks
from filterproof.conformance.requirements import lacks


class AdapterFixtures:
    """The fixtures every check takes: ``adapter`` (yours), and ``native`` / ``mutable`` that skip with the reason."""

    @pytest.fixture()
    def adapter(self) -> Iterator[Adapter]:
        """Return a fresh, empty adapter. Override this in your subclass."""
        raise NotImplementedError("override the `adapter` fixture to return a fresh adapter")

    @pytest.fixture()
    def native(self, adapter: Adapter) -> Adapter:
        if not adapter.capabilities.native_filter:
            pytest.skip(lacks("native_filter", f"{adapter.name} declares native_filter=False: no pre_filter to "
                                               "check"))
        return adapter

    @pytest.fixture()
    def mutable(self, native: Adapter) -> Adapter:
        if not native.capabilities.lifecycle:
            pytest.skip(lacks("lifecycle", f"{native.name} declares lifecycle=False: delete/update_metadata not "
                                           "supported"))
        return native


class AdapterConformanceTests(ScaleChecks, AcrossClientChecks, DuringChangeChecks, TwoClientWritersChecks,
                              ConcurrentWritersChecks, WrittenWhileSearchedChecks, SharedClientChecks,
                              PlacementChecks, GeneratedChecks,
                              BulkChecks, LifecycleChecks, VectorChecks, AimedWriteChecks, IdChecks,
                              CallerObjectChecks, EmptyInputChecks, ContractChecks,
                              FixtureChecks, SizeChecks, TwinChecks, IdentityChecks, DateChecks, AdapterFixtures):
    """The policy-conformance suite for one adapter; subclass it and override the ``adapter`` fixture."""
