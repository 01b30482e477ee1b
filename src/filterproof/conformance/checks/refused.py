"""A refused document's lifecycle: past an engine's limits, within them, and back (the sizes family).

A store that cannot hold a document refuses it and reports it (``Refusing.not_indexable``); the
run then stops expecting it. That record must follow the document: once an update or an upsert
brings it within the limits it is written after all and no longer named, and a delete forgets it.
A stale refusal is not harmless: the run excludes the document from what it expects, so a store
that then loses it passes. After every step: the refusals name only a document past the limits,
never one that is returned, and every principal gets what the policy admits less what is refused.

Engines meet different limits, so the lifecycle is stepped past two: 10,000 groups (past Chroma's
5,461 list values in one record) and a tenant of 20,000 characters (past PostgreSQL's btree entry
of 2,704 bytes). Stepped past the first alone, pgvector's refusals never went through it: a
mutant of its ``delete`` that kept the refusal survived the whole suite (#44).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from filterproof.adapters.base import Adapter, not_indexable
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import PolicyFilter, Principal

DOC = "huge"


@dataclass(frozen=True)
class Limit:
    """One way past the limits: the document's metadata past them and within them, each in words, and the
    principals whose answers it changes."""

    past: dict[str, Any]
    within: dict[str, Any]
    past_words: str
    within_words: str
    principals: list[Principal]


def limits(huge: list[str], long_tenant: str) -> list[Limit]:
    """The two ways past: ``huge`` groups (the sizes family's ``HUGE_GROUPS``), and ``long_tenant``."""
    return [
        Limit(sc.meta(logical_id=DOC, groups=huge), sc.meta(logical_id=DOC, groups=["fits"]),
              f"{len(huge):,} groups", "1 group",
              [sc.principal(), Principal(sc.TENANT, ("fits",)), Principal(sc.TENANT, (huge[0],)),
               Principal(sc.TENANT, (huge[-1],))]),
        Limit(sc.meta(logical_id=DOC, tenant=long_tenant), sc.meta(logical_id=DOC),
              f"a {len(long_tenant):,}-character tenant", "an ordinary tenant",
              [sc.principal(), Principal(long_tenant, (sc.GROUP,))]),
    ]


def refusal_failures(adapter: Adapter, huge: list[str], long_tenant: str) -> list[str]:
    """What goes wrong as one document moves past the limits and back, step by step, past each of ``limits``."""
    return [line for limit in limits(huge, long_tenant) for line in lifecycle_failures(adapter, limit)]


def lifecycle_failures(adapter: Adapter, limit: Limit) -> list[str]:
    past, within = limit.past, limit.within
    try:
        s = sc.Scenario.build(adapter, {"before": sc.meta(logical_id="before"), DOC: past})
    except Exception as error:  # the write raised: the sizes worlds name it too, with what to do instead
        return [raised(f"writing it with {limit.past_words}", error)]
    steps: list[tuple[str, Callable[[], None]]] = [
        (f"update_metadata brought it within the limits ({limit.within_words})", lambda: s.update(DOC, within)),
        (f"update_metadata put it past them again ({limit.past_words})", lambda: s.update(DOC, past)),
        ("an upsert brought it within the limits", lambda: s.publish(DOC, within)),
        ("an upsert put it past them again", lambda: s.publish(DOC, past)),
        ("it was deleted", lambda: s.delete(DOC)),
    ]
    failures = step_failures(s, f"written with {limit.past_words}", limit.principals, past)
    for label, step in steps:
        try:
            step()
        except Exception as error:
            return [*failures, raised(label, error)]
        failures += step_failures(s, label, limit.principals, past)
    return failures


def raised(label: str, error: Exception) -> str:
    return (f"[a refused document's lifecycle] {label}: the write raised {type(error).__name__}: {str(error)[:300]}; "
            f"a store that cannot hold a document refuses it before the write and reports it (not_indexable)")


def step_failures(s: sc.Scenario, label: str, principals: list[Principal],
                  past: Mapping[str, Any]) -> list[str]:
    """After one step: refusals only of the document while its metadata is ``past`` the limits, never of a returned
    one; each principal's answer the policy's, less what is refused."""
    where = f"[a refused document's lifecycle] after {label}"
    refused = not_indexable(s.adapter)
    fits = DOC in s.docs and dict(s.docs[DOC]) != dict(past)
    wrong = {i for i in refused if i != DOC or fits or DOC not in s.docs}
    failures = [f"{where}: not_indexable() names {sorted(wrong)}, which "
                f"{'is deleted' if DOC not in s.docs else 'is within every limit'} (a stale refusal: the run no "
                f"longer expects it back, so losing it would pass)"] if wrong else []
    returned = s.native_ids(None) & set(refused)
    if returned:
        failures.append(f"{where}: not_indexable() names {sorted(returned)}, which the store returns")
    active = sc.active_for(s.docs)
    for principal in principals:
        asked = PolicyFilter(principal, sc.AS_OF, active)
        got, want = s.native_ids(asked), s.policy_ids(asked) - set(refused)
        if got != want:
            failures.append(f"{where}: {sc.asked(asked)}: {sc.mismatch(got, want, s.docs)}")
    return failures
