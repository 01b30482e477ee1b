"""The suite against the adapter chosen on the command line.

    pytest --pyargs filterproof.conformance --backend reference
    pytest --pyargs filterproof.conformance --adapter mypackage.store:make_adapter
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from filterproof.adapters.base import Adapter
from filterproof.conformance.plugin import configured_factory
from filterproof.conformance.suite import AdapterConformanceTests


class TestSelectedAdapter(AdapterConformanceTests):
    @pytest.fixture()
    def adapter(self, request: pytest.FixtureRequest) -> Iterator[Adapter]:
        store = configured_factory(request.config)()
        yield store
        store.close()
