"""The metadata kept for reading (``adapters/raw.py``): always one valid JSON text, however large."""

from __future__ import annotations

import json

from filterproof.adapters.raw import RAW_LIMIT, raw_json


def test_metadata_past_the_limit_is_still_valid_json() -> None:
    """Cut at ``RAW_LIMIT`` characters, the text was not JSON any more, and PostgreSQL's ``json`` column refused the
    whole write of a document in 10,000 groups ("The input string ended unexpectedly"; found by ``test_sizes``)."""
    metadata = {"tenant": "acme", "groups": [f"huge-{n:05d}" for n in range(10_000)]}
    text = raw_json(metadata)
    assert len(text) <= RAW_LIMIT
    kept = json.loads(text)
    assert kept["truncated"] is True and kept["characters"] == len(json.dumps(metadata, sort_keys=True))
    assert kept["head"].startswith('{"groups": ["huge-00000"')


def test_metadata_within_the_limit_is_kept_whole() -> None:
    metadata = {"tenant": "acme", "score": float("nan"), "groups": ["a"]}
    assert json.loads(raw_json(metadata)) == {"tenant": "acme", "score": "NaN", "groups": ["a"]}
