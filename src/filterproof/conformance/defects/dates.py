"""Defects in reading dates: the spellings a store accepts, and the clock it compares them on.

The policy takes ``YYYY-MM-DD`` calendar days in years 0001-9999, nothing else, and
compares whole days. Each defect here keeps every other clause of the policy and gets
only the date window wrong, the way a real store or adapter does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, date, datetime, time
from typing import Any

from filterproof.conformance.defects.clauses import RowPredicate
from filterproof.policy import PolicyFilter, is_eligible, parse_date

_SHAPE = re.compile(r"\d{4}-\d{2}-\d{2}")


def undated(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The metadata with a window that admits every day: the rest of the policy judged alone."""
    return {**meta, "valid_from": "0001-01-01", "valid_until": None}


def judged(meta: Mapping[str, Any], where: PolicyFilter, window: bool) -> bool:
    """Every clause of the policy but the dates, and the defect's own verdict on the window."""
    has_from = meta.get("valid_from") is not None
    return has_from and window and is_eligible(undated(meta), where)


class LexicalDates(RowPredicate):
    """Checks the shape ``dddd-dd-dd`` with a regex, then compares strings: 2026-02-30 and 0000-01-01 pass
    (what an adapter over SQLite's ``date()`` or over plain string columns does)."""

    name = "defect-lexical-dates"

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        start, end, day = meta.get("valid_from"), meta.get("valid_until"), where.as_of.isoformat()
        shaped = isinstance(start, str) and bool(_SHAPE.fullmatch(start)) and (
            end is None or (isinstance(end, str) and bool(_SHAPE.fullmatch(end))))
        return judged(meta, where, shaped and start <= day and (end is None or day < end))


def lenient_date(value: object) -> date | None:
    """Whatever Python's parsers make of it: basic (20260908), week (2026-W37-2), ordinal (2026-251), timestamps."""
    if not isinstance(value, str):
        return None
    for parse in (date.fromisoformat, lambda v: datetime.fromisoformat(v).date(),
                  lambda v: datetime.strptime(v, "%Y-%j").date()):
        try:
            return parse(value)
        except ValueError:
            continue
    return None


class LenientDates(RowPredicate):
    """Parses dates with Python's own lenient parsers, so ``20260908``, ``2026-W37-2``, ``2026-251`` and
    ``2026-09-08T00:00:00Z`` all read as 2026-09-08 (the policy: malformed)."""

    name = "defect-lenient-dates"

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        start, raw_end = lenient_date(meta.get("valid_from")), meta.get("valid_until")
        end = None if raw_end is None else lenient_date(raw_end)
        window = start is not None and (raw_end is None or end is not None)
        return judged(meta, where, window and start <= where.as_of and (end is None or where.as_of < end))  # type: ignore[operator]


def utc_midnight(day: date) -> float:
    return datetime.combine(day, time(), tzinfo=UTC).timestamp()


class LocalTimeAsOf(RowPredicate):
    """Stores dates as UTC-midnight timestamps but converts ``as_of`` through the process's local time
    (``datetime.combine(as_of, time()).timestamp()``): right under UTC, a day off east or west of it."""

    name = "defect-local-time-as-of"

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        start, raw_end = parse_date(meta.get("valid_from")), meta.get("valid_until")
        end = None if raw_end is None else parse_date(raw_end)
        if start is None or (raw_end is not None and end is None):
            return False
        as_of = datetime.combine(where.as_of, time()).timestamp()  # the defect: naive, so local time
        window = utc_midnight(start) <= as_of and (end is None or as_of < utc_midnight(end))
        return judged(meta, where, window)


class TimeOfDayAsOf(RowPredicate):
    """Answers a datetime ``as_of`` as its day (what ``as_of.toordinal()``, or a timestamp cast to a date column,
    does) where the policy refuses it: the day asked then depends on the caller's clock and zone."""

    name = "defect-time-of-day-as-of"

    def asked(self, where: PolicyFilter) -> PolicyFilter:
        return replace(where, as_of=where.as_of.date()) if isinstance(where.as_of, datetime) else where


EPOCH = date(1970, 1, 1).toordinal()


def epoch_day(day: date) -> int:
    return day.toordinal() - EPOCH


class DayNumbers(RowPredicate):
    """Dates stored as numbers by ``encode`` (``None``: open end) and compared as numbers."""

    def encode(self, day: date) -> int | None:
        return epoch_day(day)

    def end(self, raw: object) -> int | None:
        """valid_until as stored: None when open."""
        return None if raw is None else self.encode(parse_date(raw))  # type: ignore[arg-type]

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        start, raw_end = parse_date(meta.get("valid_from")), meta.get("valid_until")
        if start is None or (raw_end is not None and parse_date(raw_end) is None):
            return False
        as_of, begins, ends = self.encode(where.as_of), self.encode(start), self.end(raw_end)
        window = begins is not None and as_of is not None and begins <= as_of and (ends is None or as_of < ends)
        return judged(meta, where, window)


class EpochDayZeroIsOpen(DayNumbers):
    """Stores days since 1970 and reads a valid_until of day 0 as "no end" (``end or None``): a window that
    ended on 1970-01-01 never closes."""

    name = "defect-epoch-day-zero-is-open"

    def end(self, raw: object) -> int | None:
        return super().end(raw) or None


class Int32Seconds(DayNumbers):
    """Stores dates as seconds since 1970 in a signed 32-bit integer: after 2038-01-19 they wrap to 1901, so
    a window starting in 2039 is in effect now."""

    name = "defect-int32-seconds"

    def encode(self, day: date) -> int | None:
        return (epoch_day(day) * 86_400 + 2**31) % 2**32 - 2**31


class EmptyWindowIsOpen(DayNumbers):
    """Takes a valid_until that is not after valid_from for a missing one ("no end"): an empty or reversed
    window admits every day from its start."""

    name = "defect-empty-window-is-open"

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        start, end = parse_date(meta.get("valid_from")), parse_date(meta.get("valid_until"))
        if start is not None and end is not None and end <= start:
            meta = {**meta, "valid_until": None}
        return super().eligible(meta, where)


class SentinelOpenEnd(DayNumbers):
    """Stores an open end as the day 9999-12-31 (exclusive, like any end): as of 9999-12-31 no open-ended
    document is in effect."""

    name = "defect-sentinel-open-end"

    def end(self, raw: object) -> int | None:
        return super().end(raw if raw is not None else "9999-12-31")


class StrptimeDates(RowPredicate):
    """Parses dates with ``datetime.strptime(value.strip(), "%Y-%m-%d")``, which takes ``2026-9-8`` and
    surrounding whitespace (the policy: only ``YYYY-MM-DD``)."""

    name = "defect-strptime-dates"

    @staticmethod
    def parse(value: object) -> date | None:
        if not isinstance(value, str):
            return None
        try:
            return datetime.strptime(value.strip(), "%Y-%m-%d").date()
        except ValueError:
            return None

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        start, raw_end = self.parse(meta.get("valid_from")), meta.get("valid_until")
        end = None if raw_end is None else self.parse(raw_end)
        window = start is not None and (raw_end is None or end is not None)
        return judged(meta, where, window and start <= where.as_of and (end is None or where.as_of < end))  # type: ignore[operator]
