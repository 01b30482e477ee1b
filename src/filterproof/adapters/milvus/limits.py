"""What one Milvus row can hold: a VARCHAR of 65,535 and an ARRAY of 4,096 elements, checked before the write.

Milvus refuses a row whose VARCHAR exceeds the field's ``max_length`` (at most 65,535;
a server counts UTF-8 bytes, Milvus Lite characters) or whose ARRAY holds more than its
``max_capacity`` (at most 4,096), and the insert fails as a whole. The adapter declares
the largest of each, and refuses before the write any document past them, by the
stricter count (bytes), so that one document never fails its batch
(``adapters/refusals.py``): it is reported, never returned, and an earlier version of it
is deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_LENGTH = 65_535
"""Milvus's largest VARCHAR ``max_length``, and an ARRAY<VARCHAR> element's."""
MAX_CAPACITY = 4_096
"""Milvus's largest ARRAY ``max_capacity``."""


def _size(value: str) -> int:
    return len(value.encode("utf-8", "surrogatepass"))


def refusal(row: Mapping[str, Any]) -> str | None:
    """Why Milvus cannot hold a row with these field values (as stored), or None when it can."""
    for field, value in row.items():
        if isinstance(value, str) and _size(value) > MAX_LENGTH:
            return (f"its {field} is {_size(value):,} bytes as stored; a Milvus VARCHAR holds at most "
                    f"{MAX_LENGTH:,} (a longer one fails the whole insert)")
        if isinstance(value, list):
            if len(value) > MAX_CAPACITY:
                return (f"its {field} holds {len(value):,} values; a Milvus ARRAY holds at most {MAX_CAPACITY:,} "
                        f"(more fail the whole insert)")
            longest = max((_size(v) for v in value if isinstance(v, str)), default=0)
            if longest > MAX_LENGTH:
                return (f"one of its {field} is {longest:,} bytes as stored; an ARRAY element holds at most "
                        f"{MAX_LENGTH:,}")
    return None
