"""``llamaindex-milvus`` in the conformance suite: what its filter rendering cannot carry, held as strict xfails.

``MilvusVectorStore`` renders a ``MetadataFilter`` string as ``'...'`` with only ``'``
escaped and a list as Python's ``repr``, and Milvus Lite reads the backslash escapes
of both (``bench/repro/llamaindex_milvus_filters.py``). The stored names are the
``milvus`` backend's (``expr.text``: a backslash or a control character becomes a
backslash escape), so a tenant, a logical id or a group holding one of those, or a
character ``repr`` escapes (a no-break or zero-width space, a BOM), makes the query
fail (or, for an escape Milvus reads, ask for another name). The twin catalogues hold
such names: ``test_identity_twins`` is a strict xfail for those fields, and the checks
below ask every other name (``llamaindex_milvus.renderable``), so that nothing else
hides behind the finding. The generated property draws such names at random, so it
runs on its worlds without them (a strict xfail cannot hold a random failure).
"""

from __future__ import annotations

from dataclasses import replace
from importlib.metadata import version

import pytest
from pymilvus import MilvusException

from filterproof.adapters import Adapter
from filterproof.conformance.checks.generative import run_property
from filterproof.conformance.checks.twin_checks import report
from filterproof.conformance.worlds import generated
from filterproof.conformance.worlds.twin_worlds import TwinWorld, identity_worlds
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal

IDENTITY_FIELDS = ["tenant", "logical_id", "group", "status"]
RENDERED = ("tenant", "logical_id", "group")
"""The fields whose names reach the filter (the status clause always asks for "active")."""
RENDERING = (f"finding: llama-index-vector-stores-milvus {version('llama-index-vector-stores-milvus')} renders a "
             "MetadataFilter string as '...' escaping only ' and a list as Python's repr; Milvus Lite "
             f"{version('milvus-lite')} reads the backslash escapes of both, so a name holding a backslash or a "
             "control character (stored escaped), or a character repr escapes (a no-break space), is refused or read "
             "as another name (bench/repro/llamaindex_milvus_filters.py)")


def renderable(name: str) -> bool:
    """``llamaindex_milvus.renderable``, imported when first asked: every run that collects the conformance matrix
    imports this module, and llama-index with it cost about 3 s a process (each xdist worker, each developer run)."""
    from filterproof.adapters.bridges.llamaindex_milvus import renderable as carried

    return carried(name)


def carried_principal(principal: Principal) -> bool:
    return renderable(principal.tenant) and all(renderable(g) for g in principal.groups)


def carried_map(active: ActiveRevisions) -> ActiveRevisions:
    return ActiveRevisions.of({pair: r for pair, r in active.items() if renderable(pair[0]) and renderable(pair[1])})


def carried_world(world: TwinWorld) -> TwinWorld:
    """The world asked only what the integration can render: its principals and map entries without the names
    ``renderable`` refuses (the documents stay: a document's names never reach the filter)."""
    return replace(world, maps={label: carried_map(m) for label, m in world.maps.items()},
                   principals=[p for p in world.principals if carried_principal(p)])


def carried_generated(world: generated.World) -> generated.World:
    """The same for a generated world (the principals aimed at its bases always stay: their names are plain)."""
    active = carried_map(world.wheres[0].active)
    return replace(world, wheres=tuple(PolicyFilter(w.principal, w.as_of, active) for w in world.wheres
                                       if carried_principal(w.principal)))


def rendering(name: str) -> pytest.MarkDecorator | tuple[()]:
    return pytest.mark.xfail(raises=MilvusException, strict=True, reason=RENDERING) if name in RENDERED else ()


class LlamaIndexMilvusRendering:
    """Mixed into the llamaindex-milvus classes, before the suite."""

    @pytest.mark.parametrize("name", [pytest.param(n, marks=rendering(n)) for n in IDENTITY_FIELDS])
    def test_identity_twins(self, native: Adapter, name: str) -> None:
        """See ``TwinChecks.test_identity_twins``; fails here on names the integration cannot render
        (``RENDERING``), so the next test asks every other name."""
        super().test_identity_twins(native, name)  # type: ignore[misc]

    @pytest.mark.parametrize("name", IDENTITY_FIELDS)
    def test_identity_twins_of_renderable_names(self, native: Adapter, name: str) -> None:
        """Every twin world of the field, asked only with names the integration renders: none may fail."""
        if getattr(native.options, "path", "plain") != "plain":
            pytest.skip("runs on this bridge's plain path only, as test_identity_twins")
        failures = [line for world in identity_worlds(name) for line in carried_world(world).failures(native)]
        assert not failures, report(failures, f"the {name} twins the integration can render")

    def test_native_filter_equals_policy_on_generated_metadata(self, native: Adapter,
                                                                request: pytest.FixtureRequest) -> None:
        """See ``GeneratedChecks``; on generated worlds asked only with names the integration renders."""
        strength = run_property(native, self.examples(request.config),  # type: ignore[attr-defined]
                                worlds=generated.worlds().map(carried_generated))
        weak = strength.problems()
        assert not weak, f"the property test was too weak to prove anything ({strength}): {'; '.join(weak)}"
