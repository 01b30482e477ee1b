"""A seeded defect on the real Haystack and qdrant-haystack: the groups clause written as a new user writes it.

``EmptyInPassedThrough`` is the ``haystack-qdrant`` bridge with its groups clause ``meta.fp_groups in [the
principal's groups]`` whatever they are, none included. qdrant-haystack 13.1.0 translates ``in []`` into
``Filter(should=[])``, which Qdrant reads as no constraint: a principal with no groups reads every document of its
tenant (integration finding 9). The suite must fail it, naming the leak (``tests/adapters/test_haystack.py``).
"""

from __future__ import annotations

from typing import Any

from filterproof.adapters.bridges.haystack_filters import compare, compile_filter
from filterproof.adapters.bridges.haystack_stores import HaystackQdrantBridge
from filterproof.adapters.chroma.where import GROUPS
from filterproof.policy import PolicyFilter


class EmptyInPassedThrough(HaystackQdrantBridge):
    name = "defect-haystack-qdrant-empty-in"

    def _natives(self, where: PolicyFilter) -> list[Any]:
        policy = compile_filter(where, self.groups)
        groups = list(dict.fromkeys(where.principal.groups))
        # compile_filter's clauses in order: tenant, status, revision, groups, valid_from, valid_until.
        policy["conditions"][3] = compare(GROUPS, "in", groups)
        return [policy]
