"""The twin catalogues: every entry makes a value the policy tells apart, and the encoding it names conflates."""

from __future__ import annotations

import struct
import unicodedata
import zlib
from datetime import date

import pytest

from filterproof.conformance.defects.revisions import int32
from filterproof.conformance.worlds import twins
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, is_eligible, parse_date

TRANSFORMATIONS = [(family, name) for family, names in twins.STRING_FAMILIES.items() for name in names]
HASHES = [("hash", name) for name, _, _ in twins.HASH_PAIRS]
FREE_FIELDS = ("tenant", "logical_id", "group")


@pytest.mark.parametrize("field", FREE_FIELDS)
def test_every_transformation_makes_a_twin_of_every_free_field(field: str) -> None:
    made = {(t.family, t.name) for t in twins.identity_twins(field)}
    assert made == set(TRANSFORMATIONS) | set(HASHES)


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


def fnv1a32(data: bytes) -> int:
    h = 0x811C9DC5
    for byte in data:
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def murmur3_32(data: bytes) -> int:
    h, n = 0, len(data)
    for i in range(0, n - n % 4, 4):
        k = int.from_bytes(data[i:i + 4], "little") * 0xCC9E2D51 & 0xFFFFFFFF
        k = ((k << 15) | (k >> 17)) * 0x1B873593 & 0xFFFFFFFF
        h = ((((h ^ k) << 13) | ((h ^ k) >> 19)) * 5 + 0xE6546B64) & 0xFFFFFFFF
    tail = int.from_bytes(data[n - n % 4:], "little")
    if n % 4:
        k = tail * 0xCC9E2D51 & 0xFFFFFFFF
        h ^= ((k << 15) | (k >> 17)) * 0x1B873593 & 0xFFFFFFFF
    h ^= n
    for shift, factor in ((16, 0x85EBCA6B), (13, 0xC2B2AE35)):
        h = (h ^ (h >> shift)) * factor & 0xFFFFFFFF
    return h ^ (h >> 16)


def java_hash(value: str) -> int:
    h = 0
    for c in value:
        h = (31 * h + ord(c)) & 0xFFFFFFFF
    return h


HASHERS = {"CRC-32": lambda v: zlib.crc32(v.encode()), "FNV-1a 32-bit": lambda v: fnv1a32(v.encode()),
           "MurmurHash3 x86 32-bit, seed 0": lambda v: murmur3_32(v.encode()), "Java String.hashCode": java_hash}


@pytest.mark.parametrize("pair", twins.HASH_PAIRS, ids=[p[0] for p in twins.HASH_PAIRS])
def test_hash_pairs_collide_under_their_hash(pair: tuple[str, str, str]) -> None:
    name, a, b = pair
    assert a != b and HASHERS[name](a) == HASHERS[name](b)


def test_the_status_hash_twin_collides_with_active() -> None:
    [twin] = [t for t in twins.identity_twins("status") if t.family == "hash"]
    assert twin.twin != "active" and java_hash(twin.twin) == java_hash("active")


def test_composite_keys_join_alike_and_differ_as_pairs() -> None:
    for sep in twins.COMPOSITE_SEPARATORS:
        a, b = ("acme", f"x{sep}y"), (f"acme{sep}x", "y")
        assert a != b and sep.join(a) == sep.join(b)


def test_name_values_are_distinct_identities() -> None:
    values = [v for family in twins.NAME_VALUES.values() for v in family]
    assert len(values) == len(set(values)) and all(isinstance(v, str) and v for v in values)


def test_every_date_spelling_is_refused_by_the_policy() -> None:
    assert len(twins.spellings(date(2026, 8, 9))) == len(twins.DATE_SPELLINGS)  # every spelling differs here
    for day in (date(2026, 9, 8), date(1970, 1, 1), date(2038, 1, 19)):
        for name, spelled in twins.spellings(day).items():
            assert spelled != day.isoformat() and parse_date(spelled) is None, name
