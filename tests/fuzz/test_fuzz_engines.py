"""``filterproof fuzz`` on every built-in engine at the installed releases, in a small budget.

Each run is seeded and bounded by a case count, so it asks the same filters every time
(the Qdrant pair here; every other engine's seeded run is in its own ``test_fuzz_<engine>.py``).
What it finds on a current release is known and recorded here: each known finding has
its minimal world committed (``tests/data/fuzz/*.json``, written by the fuzzer) and is
replayed as a strict xfail naming the engine, the version and the reproducer, so a
release that fixes it turns the run red; a finding no known one explains fails the run
with its reproducer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from filterproof.fuzz.oracles import conditions
from filterproof.fuzz.run import Finding, fuzz
from filterproof.fuzz.targets import FAMILIES, open_target
from support.fuzz_known import CHROMA_INT_FLOAT_BOUND, Known, known_cases, still_fails, unexplained

CASES = {"qdrant": 400, "chroma": 300}
"""Filters per run, by family: each run takes a few seconds (the whole file well under two minutes)."""
MODULES = {"qdrant-local": "qdrant_client", "qdrant-edge": "qdrant_edge", "qdrant-server": "qdrant_client",
           "chroma": "chromadb", "chroma-server": "chromadb"}


def _bools(f: Finding) -> bool:
    return any(isinstance(c.value, bool) or (isinstance(c.value, tuple) and any(isinstance(v, bool) for v in c.value))
               for c in conditions(f.expr))


def _past_2_53(f: Finding) -> bool:
    held = [v for d in f.docs.values() for v in d.values()]
    flat = [x for v in held for x in (v if isinstance(v, list) else [v])]
    asked = [c.value for c in conditions(f.expr) if c.op in ("gt", "gte", "lt", "lte")]
    return bool(asked) and any(isinstance(x, int) and not isinstance(x, bool) and abs(x) > 2**53
                               for x in flat + asked)


def _mixed_under_index(f: Finding) -> bool:
    from filterproof.fuzz.generate import BY_NAME
    from filterproof.fuzz.run import value_kind

    expect = {"text": "str", "int": "int", "float": "float", "date": "str", "bool": "bool"}
    return f.oracle in ("index", "differential") and any(
        value_kind(d[c.key]) not in ("null", expect.get(BY_NAME[c.key].kind, "list"), "list", "list+null",
                                     "empty list")
        for c in conditions(f.expr) for d in f.docs.values() if c.key in d)


KNOWN = [
    CHROMA_INT_FLOAT_BOUND,
    Known("qdrant_edge_bool_match", frozenset({"qdrant-edge"}),
          "finding: qdrant-edge-py 0.9.0 reads MatchValue(True) as the integer 1: a bool payload is never matched "
          "(b == True selects nothing, b != True selects it; qdrant-client had the same with pydantic, #642) "
          "(bench/repro/fuzz_qdrant_edge_bool.py)", _bools),
    Known("qdrant_edge_range_past_2_53", frozenset({"qdrant-edge"}),
          "finding: Qdrant's engine (qdrant-edge-py 0.9.0) compares an integer payload with a range as a double "
          "without an index and exactly with an integer index: n = 2^53 + 1 is <= 2^53 only unindexed; "
          "qdrant#7955 and #8538, open (bench/repro/fuzz_qdrant_edge_range.py)", _past_2_53),
    Known("qdrant_edge_mixed_types_index", frozenset({"qdrant-edge"}),
          "finding: Qdrant's engine (qdrant-edge-py 0.9.0) with a payload index: a point whose value has another "
          "type than the index (a bool in a keyword field) no longer matches MatchExcept (s except ['x'] loses it), "
          "which the unindexed path matches; qdrant#9068, open (bench/repro/fuzz_qdrant_edge_mixed_index.py)",
          _mixed_under_index),
]


RUNS = [["qdrant-local", "qdrant-edge"], ["qdrant-local", "qdrant-server"], ["chroma", "chroma-server"]]
"""qdrant-server runs where ``QDRANT_URL`` is set or a Docker engine answers, and skips with the reason elsewhere:
what the server finds has not been recorded (none ran where these were written), so a finding there fails the run
until it is (``KNOWN``: the Qdrant ones name qdrant-edge alone)."""


@pytest.mark.slow  # a seeded fuzz run through a framework or across engines: the slow set
@pytest.mark.parametrize("names", RUNS, ids=["+".join(r) for r in RUNS])
def test_every_finding_on_the_installed_releases_is_a_known_one(names: list[str], tmp_path: Path) -> None:
    """A new finding fails here: read its reproducer, then fix the renderer or record it in ``KNOWN``."""
    for name in names:
        pytest.importorskip(MODULES[name])
    try:
        targets = [open_target(n) for n in names]
    except ImportError as error:  # qdrant-server without a server: the target says why
        pytest.skip(str(error))
    pairs = [(0, 1)] if len(names) == 2 and FAMILIES[names[0]] == FAMILIES[names[1]] else []
    try:
        outcome = fuzz(targets, seed=1, budget_s=90, max_cases=CASES[FAMILIES[names[0]]], pairs=pairs, shrink_s=2)
    finally:
        for target in targets:
            target.close()
    assert outcome.cases == CASES[FAMILIES[names[0]]]
    unknown = unexplained(outcome.findings, KNOWN)
    assert not unknown, "\n".join(unknown)


@pytest.mark.parametrize("path", known_cases(KNOWN))
def test_a_known_finding_still_holds_on_the_installed_release(path: Path) -> None:
    """Each recorded finding's minimal world: fails now (the xfail); a fixed release makes it pass (XPASS, red)."""
    still_fails(path)
