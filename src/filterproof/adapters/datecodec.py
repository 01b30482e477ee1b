"""Dates as the integers the engines compare: YYYYMMDD, for stores whose ranges are numeric only.

Chroma (ranges on numbers only), LanceDB (int32) and Milvus (INT64) keep ``valid_from`` and
``valid_until`` so; the order of the integers is the order of the dates, and an open-ended
document's ``valid_until`` is ``OPEN_UNTIL``, after every date.
"""

from __future__ import annotations

from datetime import date, datetime

OPEN_UNTIL = 99_999_999
"""valid_until of an open-ended document: after every YYYYMMDD date (9999-12-31 is 99991231)."""


def date_int(day: date) -> int:
    """``day`` as YYYYMMDD; a datetime (a date too, to Python) or anything else raises: a time would be lost."""
    if not isinstance(day, date) or isinstance(day, datetime):
        raise TypeError(f"expected a date, got {day!r}")
    return day.year * 10_000 + day.month * 100 + day.day
