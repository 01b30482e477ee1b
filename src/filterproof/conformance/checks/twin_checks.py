"""Twin checks: the twin catalogues (``twins``) asked of the store, world by world (``twin_worlds``).

Each test reports every failing world at once, one line each, naming the family, the
map, the principal and the documents with their metadata (strings escaped, so that
twins never print alike), then which twin each document is; each failing world's first
wrong answer is diagnosed (``diagnosis``: the clause at fault, with its hint).
"""

from __future__ import annotations

import pytest

from filterproof.adapters.base import Adapter
from filterproof.conformance.worlds import absent
from filterproof.conformance.worlds.twin_worlds import date_world, identity_worlds, revision_world

SHOWN = 8
"""Failing worlds listed in full in a message; the count of the others follows."""


def report(failures: list[str], what: str) -> str:
    more = f"\n... and {len(failures) - SHOWN} more" if len(failures) > SHOWN else ""
    count = "1 answer differs" if len(failures) == 1 else f"{len(failures)} answers differ"
    return f"{count} from the policy on {what}:\n" + "\n".join(failures[:SHOWN]) + more


class TwinChecks:
    """Each field's twin catalogue (``filterproof.conformance.worlds.twins``): no store conflation leaks or drops."""

    @pytest.mark.parametrize("name", ["tenant", "logical_id", "group", "status"])
    def test_identity_twins(self, native: Adapter, name: str) -> None:
        """Twins of a tenant, a logical id (the active map's key), a group or the status: other letter case,
        accents, Unicode forms, whitespace, zero-width characters, prefixes, NUL, an emoji's narrow or split forms
        (a surrogate pair, UCS-2, a 3-byte UTF-8 cut, an unterminated hex escape), the empty string, collation
        pairs (ß/ss, ligatures, the Kelvin sign), strings whose 32-bit hashes collide; values spelled like a
        column name, a query word or a quote; keys joined with a separator; 300 distinct values of the field;
        a document in 40 groups (thousands: ``test_sizes``). Each is a different identity; none may stand for
        another.

        If this fails: the message names the family (e.g. ``tenant whitespace``) and the
        twin. The store, a driver or a collation conflates the two: a case- or
        accent-insensitive collation, a PAD SPACE comparison, a trimmed or normalised
        value (NFC/NFKC), a key looked up after normalising (a dict keyed by
        ``casefold()``, ``COLLATE NOCASE``), an empty string read as "no constraint".
        An astral twin: a layer keeps text as UTF-16 or 3-byte UTF-8, or an escape of
        variable width has no terminator. A hash twin: the store keys identities by a
        hash and never compares the strings. A name or a quote: a value was pasted into a
        query (bind parameters instead). A composite key: the map's keys were joined into
        one string (keep the pair). A distinct value far down the list (``many values``,
        ``many on one document``): a bitmask, a byte code or a fixed set of columns ran out.
        Store and compare identities as the exact code points given, on every field.
        """
        failures = [line for world in identity_worlds(name) for line in world.failures(native)]
        assert not failures, report(failures, f"the {name} twins")

    @pytest.mark.parametrize("name", absent.FIELDS)
    def test_absent_is_not_a_value(self, native: Adapter, name: str) -> None:
        """A field left out or null beside the values stores write in its place: ``''``, ``'None'`` and
        ``'null'`` for a tenant, a logical id, a status or a group; 0, -1 and 1 for a revision; day 0,
        0001-01-01 and the day asked for a start; ``''`` and day 0 for an end. Each asked by the principal,
        map or day that admits the value: an absent required field is malformed and fails closed. And the
        field's key spelled ``Tenant``, ``TENANT`` or ``tenant ``, which is another key, never the field.

        If this fails: the message names the document and what its field is. A document without
        the field (or null) returned: the store, a driver or a schema wrote the absence as a
        value (``None`` as ``''`` or ``'None'``, a ``NOT NULL DEFAULT``, a date codec's day 0),
        and the principal holding that value reads it; judge the document malformed before
        encoding it, and write the absence as a marker no principal can hold. The empty end
        ``''`` returned: an empty ``valid_until`` was read as open-ended (it is malformed). A document with a
        ``-key`` id answered otherwise: the store read a key spelled otherwise as the field (folded case,
        trimmed): keep metadata keys exactly as given.
        """
        failures = absent.absent_world(name).failures(native)
        assert not failures, report(failures, f"an absent {name}")

    def test_revision_twins(self, native: Adapter) -> None:
        """Revisions that collide in 32-bit integers (wrap, sign, saturation), in float64 (beyond 2^53, at the
        int64 limits), in float32, or as text (a key prefix), and zero and negatives, are distinct revisions.

        If this fails: the store (or a JSON layer, a driver, a column type) keeps revisions
        narrower than signed 64-bit integers, or compares them as text by prefix. Store
        them as 64-bit integers or as exact decimal strings compared whole.
        """
        failures = revision_world().failures(native)
        assert not failures, report(failures, "the revision twins")

    def test_date_boundaries_of_encodings(self, native: Adapter) -> None:
        """Windows starting, ending, lasting one day, empty and reversed at the days where date encodings
        break (0001-01-01, 1677-09-22, 1901-12-14, 1969-12-31, 1970-01-01, 2000-02-29, 2038-01-19, 2100-03-01,
        2106-02-06, 2262-04-10, 9999-12-31), asked the day before, on the day and the day after.

        If this fails: dates are stored in an encoding that wraps or saturates (32-bit
        seconds, 64-bit nanoseconds), reads epoch day 0 as missing (``if day:``), uses a
        real day as the open-end sentinel, or treats a window whose end is not after its
        start as open. An empty or reversed window admits no day.
        """
        failures = date_world().failures(native)
        assert not failures, report(failures, "the date boundaries")
