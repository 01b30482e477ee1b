"""The metadata as given, in a form every store accepts: one JSON text, never filtered on.

Stores keep the fixture's metadata beside the fields they filter on, so that a
reader can see what was indexed. Kept as a nested structure it would have to pass
each store's own value rules: Qdrant refuses NaN, infinities and integers beyond
64 bits, most stores refuse lone surrogates, and deep nesting overflows their
converters; any of those would abort a whole run for a field the policy never reads.
As one ASCII JSON text it is always accepted, and nothing is lost for a reader.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

RAW_LIMIT = 100_000
"""Characters kept of very large metadata (the text is for reading, never for filtering)."""


def raw_json(metadata: Mapping[str, Any]) -> str:
    """``metadata`` as ASCII JSON (NaN as ``NaN``, anything unusual by ``repr``), at most ``RAW_LIMIT`` long."""
    try:
        text = json.dumps(dict(metadata), ensure_ascii=True, sort_keys=True, default=repr)
    except (RecursionError, TypeError, ValueError):  # keys that do not sort, or nesting too deep to encode
        text = json.dumps(repr(dict(metadata))[:RAW_LIMIT], ensure_ascii=True)
    return text[:RAW_LIMIT]
