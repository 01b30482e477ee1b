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


def test_a_smaller_limit_holds_however_much_json_escaping_grows_the_head() -> None:
    """A store whose column is smaller passes its own limit. The head is re-escaped inside the object, so text of
    quotes, backslashes and non-ASCII grows when kept: Milvus cut its JSON to 64,335 characters and wrapped it,
    and the wrapped text was 94,064 long, past its VARCHAR, so a well-formed document was refused (found by the
    mutation run of ``milvus/expr.py``; ``test_sizes``' large metadata world)."""
    metadata = {"tenant": "acme", "body": '"\\\u00e9\n\x01\U0001f642' * 25_000}
    for limit in (64_535, 1_000, 100):
        text = raw_json(metadata, limit=limit)
        assert len(text) <= limit
        kept = json.loads(text)
        assert kept["truncated"] is True and kept["characters"] == len(json.dumps(metadata, sort_keys=True))


def test_a_limit_too_small_for_any_head_keeps_the_length_alone() -> None:
    """The object without a head still says the metadata was cut, and how long it was; the loop that shortens the
    head ends (an empty head used to be cut again for ever when even the bare object was past the limit)."""
    text = raw_json({"body": "x" * 500}, limit=10)
    assert json.loads(text) == {"truncated": True, "characters": len(json.dumps({"body": "x" * 500}))}
