"""Date twins: the days where date encodings break, day-shaped strings that are no date, and window shapes."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

DATE_BOUNDARIES: tuple[tuple[str, str], ...] = (
    ("0001-01-01", "the calendar's first day (date.min), a sentinel for 'no start'"),
    ("1677-09-22", "the first whole day of signed 64-bit nanoseconds since 1970 (pandas, Arrow timestamp[ns])"),
    ("1901-12-14", "the first whole day of signed 32-bit seconds since 1970"),
    ("1969-12-31", "epoch day -1: negative day numbers, division rounding toward zero"),
    ("1970-01-01", "epoch day 0: false in a truth test, the default of an unset number"),
    ("2000-02-29", "a leap day of a year divisible by 400"),
    ("2038-01-19", "the last whole day of signed 32-bit seconds (the year-2038 limit)"),
    ("2100-03-01", "the day after 2100-02-28: 2100 is not a leap year"),
    ("2106-02-06", "the last whole day of unsigned 32-bit seconds"),
    ("2262-04-10", "the last whole day of signed 64-bit nanoseconds since 1970"),
    ("9999-12-31", "the calendar's last day (date.max), a sentinel for 'no end'"),
)
"""(day, why): days where stored date encodings wrap, saturate, collide with a sentinel or read as missing."""

NOT_DAYS: tuple[tuple[str, str], ...] = (
    ("1900-02-29", "a century year that is not a leap year: a year % 4 rule takes it"),
    ("2100-02-29", "the next such year"),
    ("1970-01-00", "day 0 of a month: an epoch-day codec reads it as the day before"),
    ("2038-01-32", "day 32: a codec that adds days to the month's start rolls it over"),
)
"""(spelling, why): strings shaped like days at the boundaries that are no calendar date: malformed, as a start
and as an end."""

WINDOW_SHAPES = {"starts": "a window that starts on {day}", "ends": "a window that ends on {day}",
                 "one day": "a window of {day} alone", "empty": "an empty window (until = from = {day})",
                 "reversed": "a reversed window (from {day}, until the day before)"}
"""The windows built at each boundary day d: [d, open), [d - 30, d), [d, d + 1), [d, d), [d, d - 1)."""


def shifted(day: date, days: int) -> date | None:
    """``day`` moved by ``days``, or None past the calendar's ends."""
    try:
        return day + timedelta(days=days)
    except OverflowError:
        return None


def window(shape: str, day: date) -> tuple[date, date | None] | None:
    """(valid_from, valid_until) of a window ``shape`` at ``day``; None where the calendar cannot hold it."""
    before, after = shifted(day, -1), shifted(day, 1)
    windows: dict[str, tuple[date | None, date | None]] = {
        "starts": (day, None), "ends": (shifted(day, -30) or date.min, day), "one day": (day, after),
        "empty": (day, day), "reversed": (day, before),
    }
    start, end = windows[shape]
    if start is None or (shape != "starts" and end is None) or (shape == "ends" and start == day):
        return None
    return start, end


def asked_days() -> list[date]:
    """Every boundary day with the day before and after (within the calendar), sorted."""
    days = set()
    for text, _ in DATE_BOUNDARIES:
        day = date.fromisoformat(text)
        days |= {d for d in (shifted(day, -1), day, shifted(day, 1)) if d is not None}
    return sorted(days)


DATE_SPELLINGS: dict[str, Callable[[date], str]] = {
    "unpadded month and day": lambda d: f"{d.year}-{d.month}-{d.day}",
    "unpadded day": lambda d: f"{d.year}-{d.month:02d}-{d.day}",
    "slashes": lambda d: d.strftime("%Y/%m/%d"),
    "dots": lambda d: d.strftime("%Y.%m.%d"),
    "month first": lambda d: d.strftime("%m/%d/%Y"),
    "day first": lambda d: d.strftime("%d.%m.%Y"),
    "basic format": lambda d: d.strftime("%Y%m%d"),
    "week date": lambda d: f"{d.isocalendar()[0]}-W{d.isocalendar()[1]:02d}-{d.isocalendar()[2]}",
    "ordinal date": lambda d: f"{d.year}-{d.timetuple().tm_yday:03d}",
    "a leading space": lambda d: " " + d.isoformat(),
    "a trailing space": lambda d: d.isoformat() + " ",
    "a trailing newline": lambda d: d.isoformat() + "\n",
    "a plus sign": lambda d: "+" + d.isoformat(),
    "a five-digit year": lambda d: "0" + d.isoformat(),
    "full-width digits": lambda d: "".join(chr(ord(c) + 0xFEE0) if c.isdigit() else c for c in d.isoformat()),
    "a UTC timestamp": lambda d: d.isoformat() + "T00:00:00Z",
    "a timestamp with an offset": lambda d: d.isoformat() + "T00:00:00+14:00",
    "a date and a time": lambda d: d.isoformat() + " 00:00:00",
    "a trailing Z": lambda d: d.isoformat() + "Z",
}
"""Other spellings of a day that lenient parsers take (``strptime``, ``dateutil``, pandas, SQLite's ``date()``,
``fromisoformat`` in later Pythons) and the policy does not: only ``YYYY-MM-DD`` is a date."""


def spellings(day: date) -> dict[str, str]:
    """Every other spelling of ``day``, by name (those that differ from ``YYYY-MM-DD`` for this day)."""
    return {name: spelled for name, spell in DATE_SPELLINGS.items() if (spelled := spell(day)) != day.isoformat()}
