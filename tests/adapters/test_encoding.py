"""The encoding toolkit is what the built-in adapters use: its limits, slices and never-matching filters are
theirs, not copies that drift."""

from __future__ import annotations

import importlib
from datetime import date

import pytest

from filterproof.adapters import encoding
from filterproof.adapters.chroma import where as chroma_where
from filterproof.adapters.filterlang import Or
from filterproof.adapters.lancedb import where as lancedb_where
from filterproof.adapters.milvus import expr as milvus_expr
from filterproof.adapters.pgvector.language import connective, typed_condition
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal


@pytest.mark.parametrize("limit", encoding.LIMITS, ids=[f"{lim.engine}-{lim.name}" for lim in encoding.LIMITS])
def test_each_limit_is_the_constant_its_adapter_uses(limit: encoding.Limit) -> None:
    assert getattr(importlib.import_module(limit.home), limit.name) == limit.value


def test_the_never_matching_filters_are_what_the_adapters_render() -> None:
    rendered = {"chroma": chroma_where.MATCH_NOTHING, "lancedb": lancedb_where.RENDER.render(lancedb_where.NONE_OF),
                "milvus": milvus_expr.RENDER.render(milvus_expr.NONE_OF)}
    assert {engine: encoding.NEVER_MATCHING[engine] for engine in rendered} == rendered
    assert connective(Or(()), lambda c: typed_condition(c, {}))[0] == encoding.NEVER_MATCHING["pgvector"]


def test_slices_cover_every_value_once_in_order() -> None:
    values = list(range(2 * 20_000 + 1))
    parts = encoding.slices(values, 20_000)
    assert [len(p) for p in parts] == [20_000, 20_000, 1] and [v for p in parts for v in p] == values
    assert encoding.slices([], 3) == []
    with pytest.raises(ValueError, match="at least one"):
        encoding.slices(values, 0)


def test_principal_slices_keep_the_tenant_and_every_distinct_group() -> None:
    where = PolicyFilter(Principal("acme", ("a", "b", "a", "c")), date(2026, 9, 8), ActiveRevisions.of({}))
    parts = encoding.principal_slices(where, 2)
    assert [p.principal.groups for p in parts] == [("a", "b"), ("c",)]
    assert {p.principal.tenant for p in parts} == {"acme"} and {p.as_of for p in parts} == {where.as_of}
    nobody = PolicyFilter(Principal("acme", ()), date(2026, 9, 8), ActiveRevisions.of({}))
    assert encoding.principal_slices(nobody, 2) == [nobody]  # its filter matches nothing; it is not dropped
