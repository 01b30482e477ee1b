"""Hypothesis strategies for the property test: well-formed corpora, one-field perturbations, aimed principals.

A generated ``World`` is built the way real corpora go wrong:

* a few **base** documents, well formed, over a small alphabet of identities with
  real near-miss relations (case, accents, NFC against NFD, prefixes, ``$or``-like
  group names, logical ids holding ``/``);
* for each base, up to three **twins**: a copy with exactly one field perturbed, two
  in five into a malformed class the policy names (``malformed_changes``: missing
  or null fields, wrong types, junk dates, a key absent from the active map; "/"
  and NUL in identities; bad groups; other spellings of the base's own dates;
  impossible dates and year 0000), the others into a well-formed near miss
  (``near_miss_changes``: a look-alike tenant or group from any family of the twin
  catalogue ``twins``, another revision or status, a window that just misses). The
  twins of a world take the classes in turn, so that a world covers several classes
  and no class drowns in the others;
* an active map from the bases (one time in ten a revision nobody has) and the
  well-formed twins;
* principals **aimed** at each base: its tenant and one of its groups; and a few
  near misses of them (a "/" into the base's logical id, or a twin of any family,
  family first), asked on the base's window boundaries or on the days its twins'
  dates mean if misread; and a process time zone (UTC+14 or UTC-12) for some worlds.

So most documents are well formed, most worlds have a principal eligible for
something, and every malformed or near-miss document sits beside an eligible twin:
a filter that admits it leaks where the property test looks.
"""

from __future__ import annotations

import functools
import itertools
import re
import time
import unicodedata
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from hypothesis import strategies as st

from filterproof.conformance.defects.dates import lenient_date
from filterproof.conformance.worlds import twins
from filterproof.policy import NUL, REQUIRED_FIELDS, ActiveRevisions, PolicyFilter, Principal, structural_problem

TENANTS = ("acme", "Acme", "acme-corp", "ácme", unicodedata.normalize("NFD", "ácme"), "beta")
GROUPS = ("eng", "Eng", "eng-leads", "$or", "ingeniería", unicodedata.normalize("NFD", "ingeniería"), "工程", "sec")
LOGICAL_IDS = ("a", "x/y", "x/z")
UNMAPPED = "ghost"
"""A logical id the active map never holds: its documents are malformed (absent from the map)."""
STARTS = ("2026-01-01", "2026-02-28", "2026-09-08")
ENDS = (None, "2026-03-01", "2026-09-08", "2026-09-09", "2027-01-01")
NEAR_STATUS = ("superseded", "draft", "Active", "active ")
ZONES = (None, None, "<+14>-14", "<-12>+12") if hasattr(time, "tzset") else (None,)
"""Process time zones a world is checked under (None: the process's own); POSIX spellings need no tz database."""
_SHAPED = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
Change = tuple[str, Any]
"""(field, new value); the value ``...`` removes the field."""
MALFORMING = ("nul", "slash")
"""Twin families that make a stored identity malformed."""
MALFORMED_CLASSES = ("structure", "identity", "groups", "spelling", "calendar")
NEAR_MISS_CLASSES = ("identity", "version", "window")


@functools.lru_cache(maxsize=256)
def near_miss_classes(name: str) -> dict[str, tuple[str, ...]]:
    """Strings a sloppy comparison takes for ``name``, by family of the twin catalogue (``twins``), and a
    ``/`` suffix; families with nothing to change left out."""
    kinds: dict[str, list[str]] = {"slash": [name + "/x"]}
    for twin in twins.string_twins("identity", name):
        kinds.setdefault(twin.family, []).append(twin.twin)
    return {kind: tuple(dict.fromkeys(values)) for kind, values in kinds.items()}


def spellings(day: str) -> tuple[str, ...]:
    """The same calendar day in spellings lenient parsers take and the policy rejects (``twins.DATE_SPELLINGS``)."""
    return tuple(twins.spellings(date.fromisoformat(day)).values())


def malformed_changes(meta: dict[str, Any]) -> dict[str, tuple[Change, ...]]:
    """One-field changes that make a well-formed ``meta`` malformed, by class."""
    tenant, group = meta["tenant"], meta["groups"][0]
    dated = [("valid_from", meta["valid_from"]), ("valid_until", meta.get("valid_until") or "2026-09-08")]
    return {
        "structure": (*((f, v) for f in REQUIRED_FIELDS for v in (..., None)), ("logical_id", UNMAPPED),
                      ("tenant", 3), ("logical_id", 7), ("status", 1), ("revision", str(meta["revision"])),
                      ("revision", float(meta["revision"])), ("revision", True),
                      *((f, v) for f in ("valid_from", "valid_until") for v in ("", "yesterday", 20260908))),
        "identity": (("tenant", tenant + "/x"), ("tenant", tenant + NUL + "evil"),
                     ("logical_id", meta["logical_id"] + NUL), ("status", "active" + NUL),
                     ("groups", [group + NUL + "x"])),
        # A plain string thrice: the mistake stores make most (Qdrant's MatchAny takes it for a list).
        "groups": (*(("groups", group),) * 3, ("groups", []), ("groups", [1]), ("groups", [group, None]),
                   ("groups", [meta["groups"]])),
        "spelling": tuple((f, s) for f, day in dated for s in spellings(day)),
        # Days that do not exist, placed where a store comparing strings would admit the twin: a start
        # before the base's, an end after the days asked.
        "calendar": (("valid_from", f"0000{meta['valid_from'][4:]}"), ("valid_from", "2025-02-29"),
                     ("valid_from", "2025-11-31"), ("valid_until", "2026-02-30"), ("valid_until", "2026-12-32"),
                     ("valid_until", "2026-13-01")),
    }


def near_miss_changes(meta: dict[str, Any]) -> dict[str, tuple[Change, ...]]:
    """One-field changes that keep ``meta`` well formed but make it differ where the policy looks, by class."""
    # Well-formed twins only: NUL and "/" make a document malformed (those are malformed_changes).
    tenants = [t for kind, values in near_miss_classes(meta["tenant"]).items() if kind not in MALFORMING
               for t in values]
    groups = [g for kind, values in near_miss_classes(meta["groups"][0]).items() if kind not in MALFORMING
              for g in values]
    return {
        "identity": tuple([("tenant", t) for t in tenants] + [("groups", [g]) for g in groups]),
        "version": (("revision", meta["revision"] + 1), ("revision", meta["revision"] - 1),
                    *(("status", s) for s in NEAR_STATUS)),
        "window": (*(("valid_from", s) for s in STARTS if s != meta["valid_from"]),
                   *(("valid_until", e) for e in ENDS if e != meta.get("valid_until"))),
    }


def pick(draw: st.DrawFn, classes: dict[str, tuple[Any, ...]]) -> Any:
    """A class first, then a value in it: rare classes are drawn as often as large ones."""
    kind = draw(st.sampled_from(sorted(k for k, values in classes.items() if values)))
    return draw(st.sampled_from(classes[kind]))


@st.composite
def base_metadata(draw: st.DrawFn) -> dict[str, Any]:
    """One well-formed document's metadata (status mostly active, windows on the shared boundaries)."""
    meta: dict[str, Any] = {
        "tenant": draw(st.sampled_from(TENANTS)), "logical_id": draw(st.sampled_from(LOGICAL_IDS)),
        "revision": draw(st.integers(1, 3)),
        "status": "active",  # other statuses are near misses, in the twins
        "groups": draw(st.lists(st.sampled_from(GROUPS), min_size=1, max_size=2, unique=True)),
        "valid_from": draw(st.sampled_from(STARTS)),
    }
    # Mostly a window that holds days; an empty one is a near miss the twins produce.
    end = draw(st.sampled_from([..., *(e for e in ENDS if e is None or e > meta["valid_from"])]))
    if end is not ...:
        meta["valid_until"] = end
    return meta


def twin(meta: dict[str, Any], change: Change) -> dict[str, Any]:
    field, value = change
    out = {k: v for k, v in meta.items() if k != field}
    if value is not ...:
        out[field] = value
    return out


def misread(value: object) -> date | None:
    """The day a lenient store makes of a date value: Python's parsers, or a day past the month's end rolled over."""
    day = lenient_date(value)
    shaped = _SHAPED.fullmatch(value) if isinstance(value, str) else None
    if day is None and shaped and int(shaped[1]) > 0 and 1 <= int(shaped[2]) <= 12:
        day = date(int(shaped[1]), int(shaped[2]), 1) + timedelta(days=int(shaped[3]) - 1)
    return day


def around(docs: list[dict[str, Any]]) -> list[date]:
    """Each day a document's dates mean (read leniently), with the day before and after."""
    days: set[date] = set()
    for meta in docs:
        for field in ("valid_from", "valid_until"):
            day = misread(meta.get(field))
            if day is not None and day.year > 1:
                days |= {day - timedelta(days=1), day, day + timedelta(days=1)}
    return sorted(days)


def window_days(meta: dict[str, Any]) -> list[date]:
    """The first two days inside a base's window and its last (those inside it): where aimed principals ask."""
    start, end = date.fromisoformat(meta["valid_from"]), meta.get("valid_until")
    last = None if end is None else date.fromisoformat(end) - timedelta(days=1)
    days = [start, start + timedelta(days=1), *([] if last is None else [last])]
    return sorted({d for d in days if last is None or d <= last}) or [start]


@dataclass(frozen=True)
class World:
    """Documents (id -> metadata), the filters asked of them, and the process time zone to ask in."""

    docs: dict[str, dict[str, Any]]
    wheres: tuple[PolicyFilter, ...]
    zone: str | None = None


def active_map(draw: st.DrawFn, docs: dict[str, dict[str, Any]], bases: list[dict[str, Any]]) -> ActiveRevisions:
    """Each base's own revision (one time in ten: a revision nobody has), then the keys of well-formed twins;
    ``UNMAPPED`` never has an entry."""
    revisions: dict[tuple[str, str], int] = {}
    for meta in bases:
        revisions.setdefault((meta["tenant"], meta["logical_id"]), meta["revision"] if draw(st.integers(0, 9)) else 9)
    for meta in docs.values():
        if not structural_problem(meta) and meta["logical_id"] != UNMAPPED:
            revisions.setdefault((meta["tenant"], meta["logical_id"]), meta["revision"])
    return ActiveRevisions.of(revisions)


def aimed(draw: st.DrawFn, base: dict[str, Any], miss: bool) -> Principal:
    """The base's tenant and first group; with ``miss``, a near miss of one of them."""
    tenant, group = base["tenant"], base["groups"][0]
    if miss and draw(st.booleans()):
        # A "/" reaching into the base's own logical id (what a tenant matched as a key prefix admits) one time
        # in three; else a twin of any family.
        slash = f"{tenant}/{base['logical_id'].split('/')[0]}"
        tenant = slash if draw(st.integers(0, 2)) == 0 else pick(draw, near_miss_classes(tenant))
    elif miss:
        group = pick(draw, near_miss_classes(group))
    return Principal(tenant, (group, *draw(st.lists(st.sampled_from(GROUPS), max_size=1))))


def asked_day(draw: st.DrawFn, base: dict[str, Any], twins: list[dict[str, Any]], everywhere: list[date]) -> date:
    """Inside the base's window half the time; else where its twins' dates fall (read leniently), or anywhere."""
    inside = window_days(base)
    pools = (inside, inside, around(twins) or inside, everywhere)
    return draw(st.sampled_from(pools[draw(st.integers(0, 3))]))


@st.composite
def worlds(draw: st.DrawFn, max_bases: int = 8, max_misses: int = 4) -> World:
    bases = draw(st.lists(base_metadata(), min_size=1, max_size=max_bases))
    # The twins of one world take the classes in turn, in a drawn order: a world covers several classes.
    turns = [itertools.cycle(draw(st.permutations(kinds))) for kinds in (MALFORMED_CLASSES, NEAR_MISS_CLASSES)]
    docs: dict[str, dict[str, Any]] = {}
    twins: list[list[dict[str, Any]]] = []
    for i, meta in enumerate(bases):
        docs[f"b{i}"] = meta
        changes = (malformed_changes(meta), near_miss_changes(meta))
        twins.append([])
        for _ in range(draw(st.integers(0, 3))):
            kind = 0 if draw(st.integers(0, 4)) < 2 else 1  # two in five malformed: most documents well formed
            twins[-1].append(twin(meta, draw(st.sampled_from(changes[kind][next(turns[kind])]))))
        docs |= {f"b{i}-t{j}": t for j, t in enumerate(twins[-1])}
    active = active_map(draw, docs, bases)
    everywhere = around(list(docs.values())) or [date(2026, 9, 8)]
    wheres = []
    # One principal aimed at each base, so that every twin is asked about beside its base; then a few
    # near misses of a base's tenant or group.
    aims = list(range(len(bases))) + draw(st.lists(st.integers(0, len(bases) - 1), min_size=1, max_size=max_misses))
    for n, aim in enumerate(aims):
        as_of = asked_day(draw, bases[aim], twins[aim], everywhere)
        wheres.append(PolicyFilter(aimed(draw, bases[aim], miss=n >= len(bases)), as_of, active))
    return World(docs, tuple(wheres), draw(st.sampled_from(ZONES)))
