"""Defects in reading dates: the spellings a store accepts, and the clock it compares them on.

The policy takes ``YYYY-MM-DD`` calendar days in years 0001-9999, nothing else, and
compares whole days. Each defect here keeps every other clause of the policy and gets
only the date window wrong, the way a real store or adapter does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
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
