"""The twin catalogues: every entry makes a value the policy tells apart, and the encoding it names conflates."""

from __future__ import annotations

import struct
import unicodedata
from datetime import date

import pytest

from filterproof.conformance import twins
from filterproof.conformance.defects.revisions import int32
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, is_eligible, parse_date

TRANSFORMATIONS = [(family, name) for family, names in twins.STRING_FAMILIES.items() for name in names]
FREE_FIELDS = ("tenant", "logical_id", "group")


@pytest.mark.parametrize("field", FREE_FIELDS)
def test_every_transformation_makes_a_twin_of_every_free_field(field: str) -> None:
    made = {(t.family, t.name) for t in twins.identity_twins(field)}
    assert made == set(TRANSFORMATIONS)


def test_the_status_catalogue_holds_what_changes_active() -> None:
    made = {t.twin for t in twins.identity_twins("status")}
    assert {"Active", "ACTIVE", "active ", "active\u00a0", "active\u200b", "\uff41\uff43\uff54\uff49\uff56\uff45",
            "active\x00", ""} <= made
    assert "active" not in made


@pytest.mark.parametrize("field", [*FREE_FIELDS, "status"])
def test_twins_differ_from_their_originals(field: str) -> None:
    for twin in twins.identity_twins(field):
        assert twin.twin != twin.value, twin


@pytest.mark.parametrize(("family", "normalise"), [
    ("case", str.casefold),
    ("unicode form", lambda v: unicodedata.normalize("NFKC", v)),
    ("whitespace", lambda v: "".join(v.split())),
    ("ignorable", lambda v: "".join(c for c in v if unicodedata.category(c) != "Cf")),
    ("nul", lambda v: v.split("\x00")[0]),
])
def test_each_family_is_what_its_normalisation_conflates(family: str, normalise: object) -> None:
    """A store that normalises this way takes every twin of the family for its original."""
    for twin in twins.identity_twins("tenant"):
        if twin.family == family:
            assert normalise(twin.twin) == normalise(twin.value), twin  # type: ignore[operator]


def test_the_policy_tells_each_tenant_twin_apart() -> None:
    for twin in twins.identity_twins("tenant"):
        meta = {"tenant": twin.twin, "logical_id": "doc", "revision": 1, "status": "active", "groups": ["g"],
                "valid_from": "2026-01-01"}
        active = ActiveRevisions.of({(twin.twin, "doc"): 1, (twin.value, "doc"): 1})
        assert not is_eligible(meta, PolicyFilter(Principal(twin.value, ("g",)), date(2026, 9, 8), active)), twin


def float32(value: int) -> float:
    return float(struct.unpack("f", struct.pack("f", float(value)))[0])


ENCODINGS = {"32-bit": lambda a, b: int32(a) == int32(b) or max(a, b) == 2**31 or min(a, b) == -(2**31) - 1,
             "float64": lambda a, b: float(a) == float(b), "float32": lambda a, b: float32(a) == float32(b),
             "text": lambda a, b: str(b).startswith(str(a)), "sign": lambda a, b: abs(a) == abs(b)}


@pytest.mark.parametrize("entry", twins.REVISION_TWINS, ids=[f"{e[0]}: {e[1]}" for e in twins.REVISION_TWINS])
def test_revision_twins_are_distinct_64_bit_integers_its_encoding_conflates(entry: tuple[str, str, int, int]) -> None:
    family, _, a, b = entry
    assert a != b and all(-(2**63) <= v < 2**63 for v in (a, b))
    assert ENCODINGS[family](a, b)


def test_date_boundaries_are_days_and_the_not_days_are_not() -> None:
    assert all(parse_date(day) is not None for day, _ in twins.DATE_BOUNDARIES)
    assert all(parse_date(day) is None for day, _ in twins.NOT_DAYS)
    assert date.min in twins.asked_days() and date.max in twins.asked_days()


@pytest.mark.parametrize(("shape", "start", "end"), [
    ("starts", "2038-01-19", None), ("ends", "2037-12-20", "2038-01-19"), ("one day", "2038-01-19", "2038-01-20"),
    ("empty", "2038-01-19", "2038-01-19"), ("reversed", "2038-01-19", "2038-01-18"),
])
def test_window_shapes(shape: str, start: str, end: str | None) -> None:
    got = twins.window(shape, date(2038, 1, 19))
    assert got == (date.fromisoformat(start), None if end is None else date.fromisoformat(end))


def test_windows_the_calendar_cannot_hold_are_left_out() -> None:
    assert twins.window("one day", date.max) is None
    assert twins.window("reversed", date.min) is None and twins.window("ends", date.min) is None


@pytest.mark.parametrize(("a", "b"), [
    (unicodedata.normalize("NFC", "ácme"), unicodedata.normalize("NFD", "ácme")), ("acme", "acme\u00a0"),
    ("acme", "ac\u200bme"), ("K", "\u212a"), ("fin", "\ufb01n"), ("acme", "\uff41cme"), ("a'b", "a\\'b"),
])
def test_different_identities_never_print_alike(a: str, b: str) -> None:
    assert twins.shown(a) != twins.shown(b)


def test_plain_text_prints_as_itself() -> None:
    shown = twins.shown({"tenant": "Ácme", "groups": ["工程", "straße"]})
    assert shown == "{'tenant': 'Ácme', 'groups': ['工程', 'straße']}"
