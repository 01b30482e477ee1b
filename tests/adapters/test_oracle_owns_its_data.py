"""The oracle owns its data: what a caller changes after a call never changes an answer.

Every input of every call (the records and their metadata, nested lists included, the
vectors, the ids, the query vector) is changed in place right after the call; the
answers must equal those of a twin store that was given untouched copies. Run on the
reference adapter (the oracle) and on the SQLite example (the worked third-party adapter).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import date
from typing import Any

import numpy as np
import pytest

from filterproof.adapters.base import Adapter, Record, sync_active
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal

AS_OF = date(2026, 6, 1)
ACTIVE = ActiveRevisions.of({("acme", "a"): 1, ("acme", "b"): 1, ("acme", "c"): 1})
ASKS = [PolicyFilter(Principal("acme", ("eng",)), AS_OF, ACTIVE), PolicyFilter(Principal("acme", ("hr",)), AS_OF,
                                                                               ACTIVE), None]


def meta(logical: str, groups: list[str]) -> dict[str, Any]:
    return {"tenant": "acme", "logical_id": logical, "revision": 1, "status": "active", "groups": groups,
            "valid_from": "2026-01-01", "valid_until": None}


def scramble(value: Any) -> None:
    """Change a caller's object in place, as a caller reusing its buffers would."""
    if isinstance(value, np.ndarray):
        value[:] = value[::-1] * -1.0
    elif isinstance(value, dict):
        for key in list(value):
            if isinstance(value[key], list):
                value[key][:] = ["hr", "finance"]
            elif isinstance(value[key], str):
                value[key] = "other"
    elif isinstance(value, list):
        for item in value:
            scramble(item)
        value.clear()


def answers(store: Adapter) -> list[list[str]]:
    query = np.array([1.0, 0.05, 0.0], dtype=np.float32)
    found = [[hit.id for hit in store.search(query, 5, where)] for where in ASKS]
    scramble(query)
    return found


def script(store: Adapter, mutate: Callable[[Any], None]) -> list[list[list[str]]]:
    """The same calls on a store; ``mutate`` gets every input right after its call."""
    seen = []
    store.reset(3)
    sync_active(store, ACTIVE)
    records = [Record(name, np.array(vector, dtype=np.float32), meta(name, ["eng"]))
               for name, vector in (("a", [1, 0, 0]), ("b", [0.9, 0.3, 0]), ("c", [0, 0, 1]))]
    store.upsert(records)
    for record in records:
        mutate(record.metadata)
        mutate(record.vector)
    mutate(records)
    seen.append(answers(store))
    update = meta("b", ["eng", "sales"])
    store.update_metadata("b", update)
    mutate(update)
    seen.append(answers(store))
    ids = ["c"]
    store.delete(ids)
    mutate(ids)
    seen.append(answers(store))
    return seen


def sqlite_store() -> Adapter:
    pytest.importorskip("filterproof_sqlite")
    from filterproof_sqlite.adapter import SqliteAdapter

    return SqliteAdapter()  # type: ignore[return-value]


@pytest.mark.parametrize("make", [ReferenceAdapter, sqlite_store], ids=["reference", "sqlite-example"])
def test_changing_every_input_after_every_call_changes_no_answer(make: Callable[[], Adapter]) -> None:
    """Reproduced on the reference before it copied: it kept each record's metadata as a shallow copy, so a
    ``groups`` list changed after ``upsert`` let a principal in ``hr`` read a document written for ``eng``."""
    untouched, changed = make(), make()
    try:
        expected = script(untouched, lambda value: None)
        assert expected[0][0] == ["a", "b", "c"] and expected[0][1] == []  # the world is what the names say
        assert script(changed, scramble) == expected
    finally:
        untouched.close()
        changed.close()


def test_scramble_really_changes_what_it_is_given() -> None:
    """The mutation is real: the same metadata, scrambled, would admit another group."""
    original = meta("a", ["eng"])
    scrambled = copy.deepcopy(original)
    scramble(scrambled)
    assert scrambled["groups"] == ["hr", "finance"] and scrambled["tenant"] == "other"
