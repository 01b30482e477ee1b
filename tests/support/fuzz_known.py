"""What the engines' fuzz tests share: a known finding on a current release, and its committed minimal worlds
replayed as strict xfails (``tests/data/fuzz/<name>-N.json``, written by the fuzzer), so a release that fixes one
turns the run red."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from filterproof.adapters import filterlang
from filterproof.fuzz.finding import Finding
from filterproof.fuzz.oracles import conditions
from filterproof.fuzz.report import load_finding
from filterproof.fuzz.run import fuzz
from filterproof.fuzz.shrink import attempt
from filterproof.fuzz.target import Target
from support import paths

DATA = paths.DATA / "fuzz"


@dataclass(frozen=True)
class Known:
    name: str
    targets: frozenset[str]
    reason: str
    """``finding: <engine> <version> ...`` and the reproducer under ``bench/repro``."""
    explains: Callable[[Finding], bool]


def explained(finding: Finding, known: Sequence[Known]) -> Known | None:
    return next((k for k in known if k.targets & set(finding.targets) and k.explains(finding)), None)


def unexplained(findings: Sequence[Finding], known: Sequence[Known]) -> list[str]:
    """Each finding no ``Known`` explains, described with its world and filter (empty: all recorded)."""
    return [f"{f.signature}: {f.describe()} world {f.docs} ({filterlang.show(f.expr)})" for f in findings
            if explained(f, known) is None]


def known_cases(known: Sequence[Known]) -> list[object]:
    """One strict xfail per committed world of each known finding: the first world in the quick set, the others
    in the slow set (each replay opens the engines again: a Milvus Lite, 4 s)."""
    cases = []
    for each in known:
        paths = sorted(DATA.glob(f"{each.name}-*.json"))
        assert paths, f"{each.name}: no committed world in {DATA}"
        xfail = pytest.mark.xfail(strict=True, reason=each.reason)
        cases += [pytest.param(path, marks=[xfail] if n == 0 else [xfail, pytest.mark.slow], id=path.stem)
                  for n, path in enumerate(paths)]
    return cases


def still_fails(path: Path) -> None:
    """Replays a committed finding: raises while it reproduces (the xfail), returns once a release fixed it."""
    finding, targets = load_finding(path)
    try:
        again = attempt(finding, finding.expr, finding.docs, targets)
    finally:
        for target in targets:
            target.close()
    assert again is None, again.describe()


def _float_bound_on_int(f: Finding) -> bool:
    return any(isinstance(v, float) and not v.is_integer() and any(
        isinstance(d.get(c.key), int) and not isinstance(d.get(c.key), bool) for d in f.docs.values())
        for c in conditions(f.expr) for v in (c.value if isinstance(c.value, tuple) else (c.value,)))


CHROMA_INT_FLOAT_BOUND = Known(
    "chroma_int_float_bound", frozenset({"chroma", "chroma-server", "llamaindex-chroma", "selfquery-chroma"}),
    "finding: chromadb 1.5.9 compares an integer-stored value with a non-integral float bound as if the bound were "
    "truncated (with x = 0, x < 0.5 selects nothing); chroma-core/chroma#7491, open "
    "(bench/repro/fuzz_chroma_int_float_bound.py)", _float_bound_on_int)
"""Chroma's engine, met directly and through LlamaIndex's and LangChain's translations (which pass the bound on
unchanged)."""


LI_FILTER = "li.MetadataFilter(key={!r}, operator=li.FilterOperator.{}, value={!r})"
"""One LlamaIndex ``MetadataFilter`` as the ``llamaindex-*`` targets write it (``.format(key, OPERATOR, value)``)."""


def li_filters(parts: list[str], condition: str = "AND") -> str:
    """``MetadataFilters`` source of the parts, as the ``llamaindex-*`` targets write it."""
    return f"li.MetadataFilters(filters=[{', '.join(parts)}], condition=li.FilterCondition.{condition})"


def recorded_only(target: Target, seed: int, cases: int, known: Sequence[Known], shrink_s: float = 1) -> set[str]:
    """A seeded run of ``cases`` filters on ``target``: every finding must be a recorded one (else it fails, naming
    each unexplained one with its world); returns the names of the recorded findings it met. ``shrink_s`` per
    finding: a target that meets many signatures of one recorded finding spends its time there."""
    outcome = fuzz([target], seed=seed, budget_s=90, max_cases=cases, shrink_s=shrink_s)
    assert outcome.cases == cases
    unknown = unexplained(outcome.findings, known)
    assert not unknown, "\n".join(unknown)
    return {k.name for f in outcome.findings if (k := explained(f, known))}
