"""Seeded defects on the real Haystack and its integrations: the groups clause written as a new user writes it.

``EmptyInPassedThrough`` is the ``haystack-qdrant`` bridge with its groups clause ``meta.fp_groups in [the
principal's groups]`` whatever they are, none included. qdrant-haystack 13.1.0 translates ``in []`` into
``Filter(should=[])``, which Qdrant reads as no constraint: a principal with no groups reads every document of its
tenant (integration finding 9). The suite must fail it, naming the leak (``tests/adapters/test_haystack.py``).

``GroupKeysAsNamed`` is the ``haystack-chroma`` bridge with one key per group named ``fp_group:<name>`` (LlamaIndex's
Chroma encoding) instead of the hex of the name: chroma-haystack keeps a filter key's last dotted segment (finding
12), so a principal of group ``a.b`` is asked for the key ``b``, which no document holds. The identity twins'
dotted group names must fail it.

``NamesAsGiven`` is the ``haystack-milvus`` bridge without its hex encoding of names (finding 14).
"""

from __future__ import annotations

from typing import Any

from filterproof.adapters.base import Record
from filterproof.adapters.bridges.flat import GROUP_FLAG, node_metadata
from filterproof.adapters.bridges.haystack_filters import compare, compile_filter, hex_text
from filterproof.adapters.bridges.haystack_milvus import HaystackMilvusBridge
from filterproof.adapters.bridges.haystack_stores import HaystackChromaBridge, HaystackQdrantBridge
from filterproof.adapters.chroma.where import GROUPS, RAW, partitions
from filterproof.adapters.qdrant.payload import ID
from filterproof.policy import PolicyFilter, matchable


class EmptyInPassedThrough(HaystackQdrantBridge):
    name = "defect-haystack-qdrant-empty-in"

    def _natives(self, where: PolicyFilter) -> list[Any]:
        policy = compile_filter(where, self.groups)
        groups = list(dict.fromkeys(where.principal.groups))
        # compile_filter's clauses in order: tenant, status, revision, groups, valid_from, valid_until.
        policy["conditions"][3] = compare(GROUPS, "in", groups)
        return [policy]


class GroupKeysAsNamed(HaystackChromaBridge):
    name = "defect-haystack-chroma-group-keys-as-named"

    def _metadata(self, record: Record) -> dict[str, Any]:
        return node_metadata(record.id, record.metadata, "flags")

    def _natives(self, where: PolicyFilter) -> list[Any]:
        policies = []
        for part, key_slice in partitions(where):  # Chroma's limits, as the bridge slices
            policy = compile_filter(part, "hex", key_slice)
            flags = [compare(GROUP_FLAG + g, "==", 1) for g in dict.fromkeys(part.principal.groups) if matchable(g)]
            if flags:
                policy["conditions"][3] = flags[0] if len(flags) == 1 else {"operator": "OR", "conditions": flags}
            policies.append(policy)
        return policies


class NamesAsGiven(HaystackMilvusBridge):
    """The ``haystack-milvus`` bridge storing and asking the tenant, status and revision keys as they are (ids stay
    hex): milvus-haystack pastes a string between double quotes unescaped (finding 14), so a tenant holding a quote
    or a backslash is misread. The identity twins must fail it."""

    name = "defect-haystack-milvus-names-as-given"

    def _metadata(self, record: Record) -> dict[str, Any]:
        stored = node_metadata(record.id, record.metadata, self.groups)
        stored.pop(RAW, None)
        stored[ID] = hex_text(record.id)
        return stored

    def _natives(self, where: PolicyFilter) -> list[Any]:
        return [compile_filter(where, self.groups)]
