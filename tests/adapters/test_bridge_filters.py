"""The bridges' filter compilers, pure: clause by clause, the fail-closed corners, unknown input raising."""

from __future__ import annotations

from datetime import date, datetime

import pytest

pytest.importorskip("llama_index.core")
pytest.importorskip("langchain_qdrant")

from llama_index.core.vector_stores.types import FilterCondition, FilterOperator, MetadataFilter, MetadataFilters

from filterproof.adapters.bridges import llamaindex_filters as lf
from filterproof.adapters.bridges.langchain_filters import chroma_filters, qdrant_compiler
from filterproof.adapters.chroma.limits import KEYS_PER_FILTER
from filterproof.adapters.chroma.where import compile_where
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal

AS_OF = date(2026, 9, 8)


def policy(groups: tuple[str, ...] = ("eng", "$or"), tenant: str = "acme") -> PolicyFilter:
    active = ActiveRevisions.of({("acme", "a"): 1, ("acme", "b"): 2, ("beta", "a"): 1})
    return PolicyFilter(Principal(tenant, groups), AS_OF, active)


def clauses(filters: MetadataFilters) -> dict[str, MetadataFilter | MetadataFilters]:
    found: dict[str, MetadataFilter | MetadataFilters] = {}
    for item in filters.filters:
        key = item.key if isinstance(item, MetadataFilter) else item.filters[0].key.split(":")[0]
        found[key] = item
    return found


def test_every_clause_of_the_policy_in_metadata_filters() -> None:
    compiled = lf.compile_filters(policy(), "list")
    assert compiled.condition == FilterCondition.AND
    got = [(f.key, f.operator, f.value) for f in compiled.filters if isinstance(f, MetadataFilter)]
    assert got == [
        ("fp_tenant", FilterOperator.EQ, "acme"), ("fp_status", FilterOperator.EQ, "active"),
        ("fp_key", FilterOperator.IN, ["acme/a#1", "acme/b#2"]), ("fp_groups", FilterOperator.IN, ["eng", "$or"]),
        ("fp_from", FilterOperator.LTE, 20260908), ("fp_until", FilterOperator.GT, 20260908),
    ]


def test_groups_as_flags_are_an_or_of_equalities() -> None:
    groups = clauses(lf.compile_filters(policy(), "flags"))["fp_group"]
    assert isinstance(groups, MetadataFilters) and groups.condition == FilterCondition.OR
    assert [(f.key, f.operator, f.value) for f in groups.filters] == [
        ("fp_group:eng", FilterOperator.EQ, 1), ("fp_group:$or", FilterOperator.EQ, 1)]
    single = lf.compile_filters(policy(("eng",)), "flags").filters[3]
    assert isinstance(single, MetadataFilter) and single.key == "fp_group:eng"  # one group: no OR of one


@pytest.mark.parametrize("groups", ["list", "flags"])
def test_no_groups_and_no_active_keys_match_nothing_never_an_empty_group(groups: lf.Groups) -> None:
    """An empty IN list or an empty OR is dropped by some integrations (no constraint): never emitted."""
    for compiled in (lf.compile_filters(policy(()), groups), lf.compile_filters(policy(tenant="zeta"), groups)):
        never = [f for f in compiled.filters if isinstance(f, MetadataFilter) and f.key == "fp_never"]
        assert never and never[0].operator == FilterOperator.EQ and never[0].value == 1
        for item in compiled.filters:
            assert not (isinstance(item, MetadataFilters) and not item.filters)
            assert not (isinstance(item, MetadataFilter) and item.value == [])


def test_partitions_split_the_active_keys() -> None:
    active = ActiveRevisions.of({("acme", f"d{i}"): 1 for i in range(KEYS_PER_FILTER + 5)})
    parts = lf.compile_partitions(PolicyFilter(Principal("acme", ("eng",)), AS_OF, active), "list")
    sizes = [len(clauses(p)["fp_key"].value) for p in parts]  # type: ignore[union-attr]
    assert sizes == [KEYS_PER_FILTER, 5]


def test_node_metadata_drops_none_and_keeps_malformed_documents_out_of_every_clause() -> None:
    good = lf.node_metadata("d1", sc.meta(), "flags")
    assert None not in good.values() and good["fp_id"] == "d1" and good["fp_group:engineering"] == 1
    assert "fp_groups" not in good and "fp_until" in good
    for listed in ("list", "any"):  # the list operators read the list as it is
        assert lf.node_metadata("d1", sc.meta(), listed)["fp_groups"] == ["engineering"]
    hexed = lf.node_metadata("d1", sc.meta(), "hex")
    assert "fp_groups" not in hexed and hexed["fp_group_" + b"engineering".hex()] == 1
    bad = lf.node_metadata("d2", sc.meta(groups="engineering"), "list")
    assert not {"fp_tenant", "fp_status", "fp_key", "fp_groups", "fp_from", "fp_until"} & set(bad)
    assert bad["fp_problem"] == "groups is not a list"


@pytest.mark.parametrize("bad", [Principal(3, ("eng",)), Principal("acme", (7,))])  # type: ignore[arg-type]
def test_unknown_input_raises(bad: Principal) -> None:
    with pytest.raises(TypeError):
        lf.compile_filters(PolicyFilter(bad, AS_OF, policy().active), "list")
    with pytest.raises(TypeError):
        lf.compile_filters("tenant == acme", "list")  # type: ignore[arg-type]
    for encoding in ("csv", "hex", "zzz", "List"):  # before, between and after the three it takes; Haystack's own
        with pytest.raises(ValueError):
            lf.groups_clause(Principal("acme", ("eng",)), encoding)  # type: ignore[arg-type]
    for as_of in (datetime(2026, 9, 8, 12), "2026-09-08", AS_OF.toordinal()):  # its own guard
        with pytest.raises(TypeError):
            lf.compile_filters(PolicyFilter(Principal("acme", ("eng",)), as_of, policy().active), "list")  # type: ignore[arg-type]


def test_langchain_chroma_filter_is_the_engine_adapters_where() -> None:
    assert chroma_filters(policy()) == [compile_where(policy())]


def test_langchain_qdrant_filter_prefixes_every_key_with_metadata() -> None:
    native = qdrant_compiler().native(policy())
    keys: list[str] = []

    def walk(node: object) -> None:
        for part in (getattr(node, "must", None) or []) + (getattr(node, "should", None) or []):
            walk(part)
        key = getattr(node, "key", None) or getattr(getattr(node, "is_empty", None), "key", None)
        if key:
            keys.append(key)

    walk(native)
    assert keys and all(k.startswith("metadata.") for k in keys)
    assert "metadata.fp_revision_key" in keys and "metadata.valid_until" in keys
