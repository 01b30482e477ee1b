"""Revision twins: distinct signed 64-bit revisions that a narrower or textual encoding makes equal."""

from __future__ import annotations

from filterproof.conformance.worlds.twins.base import Twin

REVISION_TWINS: tuple[tuple[str, str, int, int], ...] = (
    ("32-bit", "signed wrap", 1, 2**32 + 1),
    ("32-bit", "zero and 2^32", 0, 2**32),
    ("32-bit", "unsigned -1", -1, 2**32 - 1),
    ("32-bit", "sign of 2^31", 2**31, -(2**31)),
    ("32-bit", "saturation at the top", 2**31 - 1, 2**31),
    ("32-bit", "saturation at the bottom", -(2**31), -(2**31) - 1),
    ("float64", "above 2^53", 2**53, 2**53 + 1),
    ("float64", "nanosecond timestamps", 1_767_225_600_000_000_000, 1_767_225_600_000_000_001),
    ("float64", "the int64 maximum", 2**63 - 1, 2**63 - 512),
    ("float64", "the int64 minimum", -(2**63), -(2**63) + 1),
    ("float32", "above 2^24", 2**24, 2**24 + 1),
    ("float32", "around 2^31", 2**31 - 1, 2**31 - 64),
    ("text", "decimal prefix", 1, 10),
    ("text", "negative prefix", -1, -12),
    ("sign", "absolute value", 7, -7),
)
"""(family, name, revision, twin): distinct signed 64-bit revisions that a narrower or textual encoding makes
equal (or, for a key matched by prefix, nested)."""


def revision_twins() -> list[Twin]:
    return [Twin("revision", family, name, a, b) for family, name, a, b in REVISION_TWINS]


OUT_OF_RANGE: tuple[tuple[str, int, int], ...] = (
    ("2^63 wraps to the int64 minimum", 2**63, -(2**63)),
    ("2^64 + 1 wraps to 1", 2**64 + 1, 1),
    ("below the int64 minimum wraps to the maximum", -(2**63) - 1, 2**63 - 1),
)
"""(name, revision, the valid revision it wraps to): a revision outside the signed 64-bit range is malformed, but a
store that checks the range loosely and packs the value into an int64 makes it equal to a valid one."""
