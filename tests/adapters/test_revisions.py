"""``filterproof.adapters.revisions``: the active map's keys, cached per map object, shared by a client's threads."""

from __future__ import annotations

import threading

from filterproof.adapters.revisions import KeyCache, active_keys
from filterproof.policy import ActiveRevisions

OLD = ActiveRevisions.of({("acme", "p"): 1})
NEW = ActiveRevisions.of({("acme", "p"): 2})


def test_a_map_asked_while_another_is_cached_keeps_its_own_keys() -> None:
    """Two threads of one client ask with two maps (an application moves its map while requests are under way): a
    call must never get, or leave behind, the keys of the other call's map. Found by
    ``test_one_client_searched_while_written_answers_as_it_stands`` on pgvector: a search under the new map got the
    old map's keys (acme/p revision 2 where the map said 1)."""
    inside, resume = threading.Event(), threading.Event()

    def encode(key: str) -> str:
        if threading.current_thread().name == "old-map" and not resume.is_set():
            inside.set()  # the old map's call is computing its keys: the new map's call runs now
            resume.wait(timeout=10)
        return key

    cache = KeyCache(encode)
    got: dict[str, list[str]] = {}
    old = threading.Thread(target=lambda: got.setdefault("old", cache(OLD, "acme")), name="old-map")
    old.start()
    assert inside.wait(timeout=10)
    got["new"] = cache(NEW, "acme")
    resume.set()
    old.join(timeout=10)
    assert got == {"old": active_keys(OLD, "acme"), "new": active_keys(NEW, "acme")}
    assert cache(NEW, "acme") == active_keys(NEW, "acme"), "the old map's call left its keys under the new map"
    assert active_keys(OLD, "acme") != active_keys(NEW, "acme")
