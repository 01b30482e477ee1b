"""What one Chroma record can hold (``adapters/chroma/limits.py``), and the refusal of what it cannot.

Chroma 1.5.9 breaks a collection for good on one record past 5,461 list values or
5,461 scalar keys (issue 26). The first test pins the measured limit on Chroma itself,
so that a Chroma release that moves it fails here and the constants are measured
again. The others run every adapter over Chroma: a document past the limit is
refused before the write, its earlier version deleted, its vector kept for an update
that fits, and the store stays usable for every later write and query.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import chromadb
import numpy as np
import pytest

from filterproof.adapters import open_backend
from filterproof.adapters.base import Adapter, Record, not_indexable, sync_active
from filterproof.adapters.chroma.clients import client_settings
from filterproof.adapters.chroma.limits import MAX_LIST_VALUES, MAX_SCALAR_KEYS
from filterproof.conformance.checks.contract import vec
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import PolicyFilter, Principal

PATHS = [("chroma", {"revision": "query"}), ("chroma", {"revision": "flag"}), ("langchain-chroma", {}),
         ("llamaindex-chroma", {})]


def fresh_collection() -> Any:
    return chromadb.EphemeralClient(settings=client_settings()).create_collection(f"limits-{uuid.uuid4().hex[:8]}")


def listed(values: int) -> dict[str, Any]:
    return {"groups": [f"g{n}" for n in range(values)]}


def scalars(keys: int) -> dict[str, Any]:
    return {"groups": ["g"], **{f"k{n}": "v" for n in range(keys)}}


@pytest.mark.parametrize(("metadata", "limit"), [(listed, MAX_LIST_VALUES), (scalars, MAX_SCALAR_KEYS)])
def test_chroma_itself_breaks_one_past_the_measured_limit(metadata: Any, limit: int) -> None:
    """At the limit a record is held; one more list value or scalar key and the collection fails on every later
    call (bench/repro/chroma_many_groups.py shows it survives no reopen and no delete)."""
    held = fresh_collection()
    held.add(ids=["a"], embeddings=[[1.0, 0.0]], metadatas=[metadata(limit)])
    assert held.count() == 1
    broken = fresh_collection()
    with pytest.raises(Exception, match="Failed to apply logs to the metadata segment"):
        broken.add(ids=["a"], embeddings=[[1.0, 0.0]], metadatas=[metadata(limit + 1)])
    with pytest.raises(Exception, match="Failed to apply logs"):
        broken.count()


DOCS = ("small", "big", "later")
ACTIVE = sc.active_for({i: sc.meta(logical_id=i) for i in DOCS})


@pytest.fixture(params=PATHS, ids=lambda p: f"{p[0]}-{p[1].get('revision', 'plain')}")
def store(request: pytest.FixtureRequest) -> Iterator[Adapter]:
    name, options = request.param
    adapter = open_backend(name, options)
    adapter.reset(3)
    sync_active(adapter, ACTIVE)  # revision=flag writes its flags from the map
    yield adapter
    adapter.close()


def groups(n: int) -> list[str]:
    return [f"dir-{i:05d}" for i in range(n)]


def ask(store: Adapter, *asked: str) -> list[str]:
    where = PolicyFilter(Principal(sc.TENANT, asked), sc.AS_OF, ACTIVE)
    return sorted(h.id for h in store.search(vec(1, 1, 1), 10, where))


def write(store: Adapter, doc_id: str, member_of: list[str], vector: np.ndarray | None = None) -> None:
    store.upsert([Record(doc_id, vec(1, 0, 0) if vector is None else vector,
                         sc.meta(logical_id=doc_id, groups=member_of))])


def test_a_document_chroma_cannot_hold_is_refused_and_the_store_stays_usable(store: Adapter) -> None:
    """Hint: check the record against ``limits.refusal`` before the write, delete an earlier version, keep the
    vector."""
    write(store, "small", ["engineering"])
    write(store, "big", groups(10_000))
    refused = not_indexable(store)
    assert list(refused) == ["big"] and "5,461" in refused["big"], refused
    write(store, "later", ["engineering"], vec(0, 1, 0))  # the collection still takes writes
    assert ask(store, "engineering") == ["later", "small"]
    assert ask(store, "dir-09999") == []  # refused: never returned
    store.update_metadata("big", sc.meta(logical_id="big", groups=["dir-09999"]))  # now it fits: written
    assert not_indexable(store) == {} and ask(store, "dir-09999") == ["big"]
    store.update_metadata("small", sc.meta(logical_id="small", groups=groups(6_000)))  # no longer fits
    assert list(not_indexable(store)) == ["small"]
    assert ask(store, "engineering") == ["later"], "the earlier version of a refused document still answers"
    store.delete(["small"])
    assert not_indexable(store) == {}
    assert ask(store, "engineering", "dir-09999") == ["big", "later"]


def test_the_largest_document_chroma_holds_is_written(store: Adapter) -> None:
    """The refusal is not too cautious either: the most groups a path's records can hold are held and found by
    the last group (for LlamaIndex's one key per group, with the keys the framework adds)."""
    most = max(n for n in range(MAX_LIST_VALUES - 20, MAX_LIST_VALUES + 1) if fits(store, n))
    assert not fits(store, most + 1)
    write(store, "big", groups(most))
    assert not_indexable(store) == {}
    assert ask(store, f"dir-{most - 1:05d}") == ["big"]
    write(store, "later", ["engineering"], vec(0, 1, 0))
    assert ask(store, "engineering") == ["later"]


def fits(store: Adapter, n: int) -> bool:
    """Whether the path's refusal admits a document in ``n`` groups (asked of the refusal alone, no write)."""
    record = Record("probe", vec(1, 0, 0), sc.meta(logical_id="probe", groups=groups(n)))
    refusal = getattr(store, "_refusal", None)
    if refusal is not None:
        return refusal(record) is None
    from filterproof.adapters.chroma.limits import refusal as chroma_refusal
    from filterproof.adapters.chroma.where import stored_metadata

    return chroma_refusal(stored_metadata(record.metadata, store.flag_map)) is None  # type: ignore[attr-defined]
