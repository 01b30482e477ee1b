"""Date checks: the window's boundaries, every spelling that is not a calendar date, and the process's clock.

Each scenario holds the dated document and a well-formed ``control`` twin that the
window admits, so that a test can only pass by judging the date, not by an empty
answer.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from datetime import date, timedelta

import pytest

from filterproof.adapters.base import Adapter
from filterproof.conformance.worlds import scenarios as sc
from filterproof.conformance.worlds.twins import shown
from filterproof.policy import PolicyFilter

TIME_ZONES = ("<+14>-14", "<-12>+12")
"""POSIX spellings (no tz database needed) of UTC+14 and UTC-12: the calendar day's two extremes."""

NOT_DATES = [
    # (label, field, value, as_of): as_of lies inside the window the value would give if misread.
    ("February 29th of a common year", "valid_from", "2026-02-29", "2026-09-08"),
    ("February 30th", "valid_from", "2026-02-30", "2026-09-08"),
    ("April 31st", "valid_from", "2026-04-31", "2026-09-08"),
    ("year 0000", "valid_from", "0000-01-01", "2026-09-08"),
    ("basic format", "valid_from", "20260101", "2026-09-08"),
    ("a week date", "valid_from", "2026-W01-4", "2026-09-08"),
    ("an ordinal date", "valid_from", "2026-001", "2026-09-08"),
    ("a timestamp", "valid_from", "2026-01-01T00:00:00Z", "2026-09-08"),
    ("a timestamp with a space", "valid_from", "2026-01-01 00:00:00", "2026-09-08"),
    ("February 30th as an end", "valid_until", "2026-02-30", "2026-02-27"),
    ("basic format as an end", "valid_until", "20260908", "2026-09-07"),
    ("a week date as an end", "valid_until", "2026-W37-2", "2026-09-07"),
    ("an ordinal date as an end", "valid_until", "2026-251", "2026-09-07"),
    ("a timestamp as an end", "valid_until", "2026-09-08T00:00:00+14:00", "2026-09-07"),
]


@contextlib.contextmanager
def process_time_zone(spec: str) -> Iterator[None]:
    """Run the block with ``TZ=spec`` for this process; the previous zone is restored, also on failure."""
    if not hasattr(time, "tzset"):
        pytest.skip("time.tzset is not available on this platform")
    before = os.environ.get("TZ")
    os.environ["TZ"] = spec
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = before
        time.tzset()


class DateChecks:
    """valid_from <= as_of < valid_until in whole calendar days, and nothing but ``YYYY-MM-DD`` is a date."""

    @pytest.mark.parametrize(("label", "field", "value", "as_of", "eligible"), [
        ("valid_from is inclusive", "valid_from", "2026-09-08", "2026-09-08", True),
        ("the day before valid_from", "valid_from", "2026-09-08", "2026-09-07", False),
        ("valid_until is exclusive", "valid_until", "2026-09-08", "2026-09-08", False),
        ("the day before valid_until", "valid_until", "2026-09-08", "2026-09-07", True),
        ("a leap day", "valid_until", "2028-02-29", "2028-02-28", True),
        ("a time-zone offset is not a date (malformed)", "valid_from", "2026-09-07T23:00:00-05:00",
         "2026-09-08", False),
        ("a UTC timestamp is not a date (malformed)", "valid_until", "2026-12-01T00:00:00Z", "2026-09-08", False),
        ("valid_until null is open-ended", "valid_until", None, "2031-01-01", True),
        ("valid_until absent is open-ended", "valid_until", ..., "2031-01-01", True),
    ])
    def test_date_boundaries(self, native: Adapter, label: str, field: str, value: object, as_of: str,
                             eligible: bool) -> None:
        """valid_from <= as_of < valid_until, in whole calendar days; timestamps are malformed.

        If this fails: check inclusive/exclusive comparisons (``$gte``/``$lt``), how an
        absent or null valid_until is encoded (a sentinel, or "is empty": a range alone
        skips a missing key), and that strings with a time or an offset are not parsed
        into a date the policy would reject.
        """
        docs = {"dated": sc.meta(**{field: value}), "other": sc.meta(tenant="zeta")}
        s = sc.Scenario.build(native, docs)
        where = PolicyFilter(sc.principal(), date.fromisoformat(as_of), sc.active_for(docs))
        assert s.policy_ids(where) == ({"dated"} if eligible else set()), "scenario self-check"
        sc.expect_policy(s, where, label)

    @pytest.mark.parametrize(("label", "field", "value", "as_of"), NOT_DATES, ids=[n[0] for n in NOT_DATES])
    def test_what_is_not_a_calendar_date_fails_closed(self, native: Adapter, label: str, field: str, value: str,
                                                      as_of: str) -> None:
        """Impossible days, year 0000, basic, week and ordinal spellings, timestamps: malformed, never eligible,
        even as of a day inside the window they would give if read leniently.

        If this fails: the store (or its date function: SQLite's ``date()`` takes
        ``0000-01-01`` and ``2026-02-30``; Python's ``date.fromisoformat`` takes
        ``20260908`` and ``2026-W37-2``) accepted a spelling the policy rejects. Parse
        with the policy's rule (``filterproof.policy.parse_date``) before storing, and
        store what fails as malformed.
        """
        docs = {"misdated": sc.meta(logical_id="m", **{field: value}), "control": sc.meta(logical_id="c")}
        s = sc.Scenario.build(native, docs)
        where = PolicyFilter(sc.principal(), date.fromisoformat(as_of), sc.active_for(docs))
        assert s.policy_ids(where) == {"control"}, "scenario self-check"
        sc.expect_policy(s, where, f"{label}: {field} {shown(value)}")

    @pytest.mark.parametrize("zone", TIME_ZONES, ids=["UTC+14", "UTC-12"])
    def test_as_of_is_a_calendar_day_in_any_process_time_zone(self, native: Adapter, zone: str) -> None:
        """The window is the same under any process time zone: as_of is a calendar day, not local midnight.

        Runs with the process's ``TZ`` set to UTC+14 and to UTC-12 (restored after).
        If this fails: as_of (or a stored date) went through local time, e.g. a naive
        ``datetime.combine(as_of, time()).timestamp()``; build instants with an explicit
        ``tzinfo=UTC``, or compare dates as ``YYYYMMDD`` integers.
        """
        day = sc.AS_OF
        docs = {"starts": sc.meta(logical_id="s", valid_from=day.isoformat()),
                "ends": sc.meta(logical_id="e", valid_until=day.isoformat()),
                "ends-next": sc.meta(logical_id="n", valid_until=(day + timedelta(days=1)).isoformat()),
                "starts-next": sc.meta(logical_id="t", valid_from=(day + timedelta(days=1)).isoformat())}
        with process_time_zone(zone):
            s = sc.Scenario.build(native, docs)
            for offset in (-1, 0, 1):
                where = PolicyFilter(sc.principal(), day + timedelta(days=offset), sc.active_for(docs))
                sc.expect_policy(s, where, f"under TZ={zone}")
