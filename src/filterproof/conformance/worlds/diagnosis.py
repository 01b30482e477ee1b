"""Which clause a store disagrees on: a failing answer asked again, clause by clause.

A wrong answer names documents (leaked or missing); the test that saw it may be about
something else (a date boundary, a twin) while the store's fault is in another clause.
The diagnosis separates the causes:

* **lost**: a missing document the store does not return *unfiltered* either: its index
  or its writes lost it (a delete then an insert, an update), not the filter;
* **a leak**: the policy names the clauses that reject the document (``rejected_by``);
  a probe per clause (below) says which of them the store's filter lets through;
* **missing**: a probe per clause says which one drops it.

A probe is a document every clause admits plainly (the principal's tenant and first
group, status active, a revision of its own in the map, in effect from a year before to a year after)
with the fields of *one* clause copied from the document in question, written into the
emptied store with one probe per clause and asked under the same principal, day and map
(the map's size can be the fault). The store is reset: a diagnosis is the last thing a
failing check does with its store.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

import numpy as np

from filterproof.adapters.base import Adapter, Record, sync_active
from filterproof.conformance.worlds.twins import shown
from filterproof.policy import ActiveRevisions, PolicyFilter, is_eligible, problem, rejected_by

FIELDS = {"tenant": ("tenant",), "status": ("status",), "revision": ("logical_id", "revision"),
          "groups": ("groups",), "window": ("valid_from", "valid_until")}
"""The metadata fields each clause reads."""

CAUSES = {
    "lost": "the store lost it: an unfiltered search misses it too, so its index or its writes (a delete then an "
            "insert, an update, a rebuild) are at fault, not the filter",
    "phantom": "the store returns a document it does not hold: a delete or a replacement that did not reach its "
               "index, or an id the store rewrote",
    "tenant": "compare the tenant exactly as written: no case folding, trimming, normalising, prefixes",
    "status": "only the exact string 'active' is active",
    "revision": "the revision must equal the active map's entry for (tenant, logical_id), as a 64-bit integer, "
                "for every entry of the map (a map split into slices, a flag rewritten on every change)",
    "groups": "a document is admitted when any of its groups is one of the principal's: every value, however "
              "many, spelled exactly (an encoding must neither drop nor merge values)",
    "window": "valid_from <= as_of < valid_until as calendar days; valid_until absent or null is open-ended",
    "malformed": "metadata the policy cannot judge must never match: give the store's filter a value for it "
                 "that no principal asks for",
    "filter": "the native filter rejects what the policy admits (an encoding that drops a valid value), or the "
              "search stopped before reaching it (a candidate pool, a page)",
    "together": "no clause alone: the clauses' combination (an OR where AND belongs, a precedence) is at fault",
    "world": "its metadata passes the store's filter in a store of probes: the rest of the world decides (the "
             "search stopped early: a candidate pool, a page, an index's ef; other documents; its id or vector)",
    "history": "written fresh, the same metadata gets the right answer: the store's updates, deletes or map "
               "changes since (a flag, an index or a cache not rewritten) are at fault",
    "base": "even a document every clause admits plainly is not returned, so documents cannot tell the clauses "
            "apart: the fault is in how the query is bound (the principal's tenant or groups, the day, the map: a "
            "list bound as one value, a date as text), or in the filter or the write path as a whole",
}
"""A hint per cause, named in the diagnosis."""

PROBE_KEY = "!"
"""Before a probe's logical id: its key sorts before every letter and digit in the map, so that a store that
reads only the first part of a long map (a slice, a cap) still holds it, and the document's own key stays where
it was."""

SHOWN_DOCS = 3
"""Documents diagnosed per failure; the rest follow from the same cause, usually."""


def plainly_eligible(where: PolicyFilter, logical_id: str) -> dict[str, Any]:
    """Metadata every clause of ``where`` admits without an edge: a probe's starting point."""
    year = timedelta(days=365)
    since = where.as_of - year if where.as_of > date.min + year else date.min
    until = where.as_of + year if where.as_of < date.max - year else date.max
    return {"tenant": where.principal.tenant, "logical_id": logical_id, "revision": 1, "status": "active",
            "groups": list(where.principal.groups[:1]), "valid_from": since.isoformat(),
            "valid_until": until.isoformat()}


def probe_of(doc: Mapping[str, Any], clause: str, where: PolicyFilter, logical_id: str) -> dict[str, Any]:
    """A plainly eligible document holding ``doc``'s fields of one clause (all of them for ``"all"``)."""
    if clause == "all":
        return dict(doc)
    meta = plainly_eligible(where, logical_id)
    for name in FIELDS[clause]:
        meta.pop(name, None)
        if name in doc:
            meta[name] = doc[name]
    return meta


def diagnose(adapter: Adapter, docs: Mapping[str, Mapping[str, Any]], vectors: Mapping[str, np.ndarray],
             query: np.ndarray, where: PolicyFilter, got: set[str], want: set[str], changed: bool = False) -> str:
    """Lines naming the cause of each wrong document (at most ``SHOWN_DOCS`` each way), with its hint; the store
    is reset on the way. ``changed``: the store was updated since it was written (a fresh store answering right
    then points at that history). Never raises: a diagnosis that fails says so, and the failure stands."""
    try:
        return _diagnose(adapter, docs, vectors, query, where, got, want, changed)
    except Exception as error:  # the check's own failure is the one to report
        return f"\ndiagnosis: not available ({type(error).__name__}: {error})"


def _diagnose(adapter: Adapter, docs: Mapping[str, Mapping[str, Any]], vectors: Mapping[str, np.ndarray],
              query: np.ndarray, where: PolicyFilter, got: set[str], want: set[str], changed: bool) -> str:
    missing, leaked = sorted(want - got)[:SHOWN_DOCS], sorted(got - want)[:SHOWN_DOCS]
    unfiltered = {h.id for h in adapter.search(query, len(docs) + len(got) + 1, None)}
    causes: dict[str, list[str]] = {}
    asked: dict[tuple[str, str], str] = {}  # (doc, clause probed) -> the clause it stands for
    for i in leaked:
        if i not in docs:
            causes.setdefault("phantom", []).append(f"{i} returned, never written or deleted")
            continue
        for clause in rejected_by(docs[i], where):
            asked[(i, "all" if clause == "malformed" else clause)] = clause
    for i in missing:
        if i not in unfiltered:
            causes.setdefault("lost", []).append(f"{i} missing, and not returned unfiltered either")
        else:
            asked.update({(i, clause): clause for clause in (*FIELDS, "all")})
    if asked:
        found = probe(adapter, docs, vectors, query, where, list(asked))
        if found.get(("", "base")) is False:  # every probe starts from the base: they cannot tell clauses apart
            causes["base"] = ["the probe " + shown(plainly_eligible(where, PROBE_KEY + "probe-base")) + " is missing"]
            found = {}
        for i in leaked + missing:
            judged = {c: found[(d, c)] for d, c in asked if d == i and (d, c) in found}
            if judged:
                cause, detail = verdict(i, i in leaked, judged, docs[i], where)
                cause = "history" if changed and cause == "world" else cause
                causes.setdefault(cause, []).append(detail)
    return lines(causes)


def lines(causes: Mapping[str, list[str]]) -> str:
    """One line per cause: ``diagnosis, groups: <the documents> [hint: <what to look at>]``."""
    return "".join(f"\ndiagnosis, {cause}: {'; '.join(details)} [hint: {CAUSES[cause]}]"
                   for cause, details in causes.items())


def by_policy(docs: Mapping[str, Mapping[str, Any]], where: PolicyFilter, got: set[str], want: set[str]) -> str:
    """What can be said without asking the store again (a check in the middle of a sequence): the clauses the
    policy rejects each leaked document by, a returned document the store should not hold; a missing one is
    named ``filter`` (its unfiltered answer was right)."""
    causes: dict[str, list[str]] = {}
    for i in sorted(got - want)[:SHOWN_DOCS]:
        if i not in docs:
            causes.setdefault("phantom", []).append(f"{i} returned, never written or deleted")
        else:
            causes.setdefault(rejected_by(docs[i], where)[0], []).append(leak(i, docs[i], where))
    missing = sorted(want - got)[:SHOWN_DOCS]
    if missing:
        causes["filter"] = [f"{', '.join(missing)} missing, returned unfiltered"]
    return lines(causes)


def verdict(doc_id: str, leaked: bool, judged: Mapping[str, bool], meta: Mapping[str, Any],
            where: PolicyFilter) -> tuple[str, str]:
    """The cause for one document from its probes (``judged[clause]``: the probe came back)."""
    if leaked:
        through = [c for c, back in judged.items() if back]
        clause = "malformed" if "all" in judged else (through[0] if through else "world")
        return clause, leak(doc_id, meta, where) + (
            f"; a probe holding only its {held(meta, through)} is returned too" if through and clause != "malformed"
            else "")
    dropped = [c for c, back in judged.items() if not back and c != "all"]
    if dropped:
        probes = "a probe" if len(dropped) == 1 else f"{len(dropped)} probes, each"
        return dropped[0], f"{doc_id} missing; {probes} holding only its {held(meta, dropped)} is missing too"
    if judged.get("all") is False:
        return "together", f"{doc_id} missing; each clause's probe is returned, its whole metadata under another id " \
            "is not"
    return "world", f"{doc_id} missing; in a store of probes, each clause's probe and its whole metadata come back"


def leak(doc_id: str, meta: Mapping[str, Any], where: PolicyFilter) -> str:
    """``d leaked, rejected by the policy's tenant and groups`` (a malformed one with its problem)."""
    clauses = rejected_by(meta, where)
    why = f" ({problem(meta, where.active)})" if clauses == ["malformed"] else ""
    return f"{doc_id} leaked{why}, rejected by the policy's {' and '.join(clauses)}"


def held(meta: Mapping[str, Any], clauses: list[str]) -> str:
    """The fields of ``clauses`` as the document holds them: ``groups ['a', 'b'] / valid_from '2026-01-01'``."""
    return " / ".join(", ".join(f"{n} {shown(meta[n])}" if n in meta else f"no {n}" for n in FIELDS[c])
                      for c in clauses)


def probe(adapter: Adapter, docs: Mapping[str, Mapping[str, Any]], vectors: Mapping[str, np.ndarray],
          query: np.ndarray, where: PolicyFilter, asked: list[tuple[str, str]]) -> dict[tuple[str, str], bool]:
    """Write one probe per (document, clause) and a plainly eligible base into the emptied store; whether each
    comes back under ``where`` with the probes' keys added to its map."""
    probes: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
    for n, (doc_id, clause) in enumerate([*asked, ("", "base")]):
        probe_id = f"probe-{n}-{clause}"
        logical = PROBE_KEY + probe_id
        meta = plainly_eligible(where, logical) if clause == "base" else probe_of(docs[doc_id], clause, where, logical)
        probes[(doc_id, clause)] = probe_id, meta
    entries = dict(where.active)
    entries.update({(m["tenant"], m["logical_id"]): 1 for pid, m in probes.values()
                    if m.get("logical_id") == PROBE_KEY + pid and isinstance(m.get("tenant"), str)})
    asking = PolicyFilter(where.principal, where.as_of, ActiveRevisions.of(entries))
    if not is_eligible(probes[("", "base")][1], asking):
        return {}  # the principal cannot be admitted plainly (no group, a malformed tenant): nothing to learn
    some = next(iter(vectors.values()))
    adapter.reset(len(some))
    sync_active(adapter, asking.active)
    adapter.upsert([Record(pid, vectors.get(d, some), meta) for (d, _), (pid, meta) in probes.items()])
    back = {h.id for h in adapter.search(query, len(probes) + 1, asking)}
    return {key: pid in back for key, (pid, _) in probes.items()}
