"""The metadata as given, in a form every store accepts: one JSON text, never filtered on.

Stores keep the fixture's metadata beside the fields they filter on, so that a
reader can see what was indexed. Kept as a nested structure it would have to pass
each store's own value rules: Qdrant refuses NaN, infinities and integers beyond
64 bits, most stores refuse lone surrogates, and deep nesting overflows their
converters; any of those would abort a whole run for a field the policy never reads.
As one ASCII JSON text it is always accepted (PostgreSQL's ``json`` type too: strict
JSON, so NaN and the infinities are written as the strings ``"NaN"``, ``"Infinity"``),
and nothing a reader needs is lost.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

RAW_LIMIT = 100_000
"""Characters kept of very large metadata (the text is for reading, never for filtering)."""


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float replaced by its name (strict JSON has no NaN)."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value).replace("inf", "Infinity").replace("nan", "NaN")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def raw_json(metadata: Mapping[str, Any], limit: int = RAW_LIMIT) -> str:
    """``metadata`` as strict ASCII JSON (anything unusual by ``repr``), at most ``limit`` long.

    Longer metadata is kept as a JSON object holding its beginning (``head``) and its length:
    still valid JSON, which a store's JSON column requires (a text cut in the middle is not).
    A store whose column is smaller passes its own ``limit`` (Milvus's VARCHAR): the head is
    escaped again inside the object, so quotes, backslashes and non-ASCII text grow when kept,
    and the head is shortened until the whole fits.
    """
    try:
        text = json.dumps(_finite(dict(metadata)), ensure_ascii=True, sort_keys=True, default=repr, allow_nan=False)
    except (RecursionError, TypeError, ValueError):  # keys that do not sort, or nesting too deep to walk
        text = json.dumps({"unstorable": "metadata nested too deeply or with keys of mixed types"})
    if len(text) <= limit:
        return text
    head = text[:max(limit - 200, 0)]
    while head:
        cut = json.dumps({"truncated": True, "characters": len(text), "head": head}, ensure_ascii=True)
        if len(cut) <= limit:
            return cut
        head = head[:max(len(head) - (len(cut) - limit) - 16, 0)]
    return json.dumps({"truncated": True, "characters": len(text)})
