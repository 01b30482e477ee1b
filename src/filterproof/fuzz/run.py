"""The fuzz loop: worlds and filters from a seed, every oracle on every target, findings kept once per signature.

A *case* is one generated filter P asked of one world on every target. Each oracle
builds its relation from P (``oracles``); a relation a target cannot render (a
condition its language has no faithful form for) is skipped and counted by reason. A
violated relation, or an engine that raises on a filter it accepted, is a finding;
findings are deduplicated by signature (targets, oracle, the operators of P) and each
is shrunk (``shrink``) to the fewest documents and the smallest filter that still
violate it.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from filterproof.adapters import filterlang
from filterproof.adapters.filterlang import Unsupported
from filterproof.fuzz.finding import Finding, Judge, signature, value_kind
from filterproof.fuzz.generate import Allows, Generator
from filterproof.fuzz.oracles import ONE_TARGET, Relation, differential
from filterproof.fuzz.shrink import shrink
from filterproof.fuzz.target import Docs, Target

__all__ = ["Finding", "Judge", "Outcome", "fuzz", "signature", "value_kind"]

DOCS_PER_WORLD = 8
FILTERS_PER_WORLD = 25
RAW_PER_SHAPE = 2
"""Failing cases kept per targets, oracle and typed shape before shrinking (the rest are the same bugs, mostly)."""
RAW_AT_MOST = 40


@dataclass
class Outcome:
    seed: int
    cases: int = 0
    worlds: int = 0
    seconds: float = 0.0
    checked: Counter[str] = field(default_factory=Counter)
    """``target oracle`` -> relations judged."""
    skipped: Counter[str] = field(default_factory=Counter)
    """``target: reason`` -> relations skipped (the language cannot say a condition)."""
    findings: list[Finding] = field(default_factory=list)
    stopped: int | None = None


def fuzz(targets: Sequence[Target], seed: int, budget_s: float, max_cases: int | None = None,
         pairs: Sequence[tuple[int, int]] = (), shrink_s: float = 20.0) -> Outcome:
    """Run until the budget or ``max_cases``; every finding is shrunk within ``shrink_s`` seconds."""
    allows = Allows()
    for target in targets:
        allows = allows & target.allows
    generator = Generator(seed, allows)
    outcome = Outcome(seed)
    raw: dict[str, Finding] = {}
    per_oracle: Counter[str] = Counter()
    start = time.monotonic()
    try:
        while time.monotonic() - start < budget_s and (max_cases is None or outcome.cases < max_cases):
            docs = generator.world(DOCS_PER_WORLD)
            outcome.worlds += 1
            for target in targets:
                target.world(docs)
            for _ in range(FILTERS_PER_WORLD):
                if time.monotonic() - start >= budget_s or (max_cases is not None and outcome.cases >= max_cases):
                    break
                expr = generator.filter()
                outcome.cases += 1
                spellings = [generator.rng.randrange(t.spellings) for t in targets]
                for found in _case(targets, pairs, docs, expr, spellings, outcome):
                    found.seed, found.case = seed, outcome.cases
                    group = f"{'+'.join(found.targets)} {found.oracle} {filterlang.shape(found.expr, kinds=True)}"
                    if found.signature not in raw and per_oracle[group] < RAW_PER_SHAPE and len(raw) < RAW_AT_MOST:
                        raw[found.signature], per_oracle[group] = found, per_oracle[group] + 1
    except (KeyboardInterrupt, SystemExit) as stop:  # a first SIGTERM or Ctrl-C: keep what was found
        outcome.stopped = 130 if isinstance(stop, KeyboardInterrupt) else int(stop.code or 1)
    shrunk: dict[str, Finding] = {}
    for found in raw.values():  # one finding per signature of its shrunk form
        small = shrink(found, targets, shrink_s)
        if not _spelling_matters(small, targets):
            small.spellings = (0, 0)
        small.signature = signature(small.targets, small.oracle, small.expr, small.error, small.docs,
                                    small.spellings)
        shrunk.setdefault(small.signature, small)
    outcome.findings = list(shrunk.values())
    outcome.seconds = time.monotonic() - start
    return outcome


def _spelling_matters(finding: Finding, targets: Sequence[Target]) -> bool:
    """The finding's filter is written otherwise in its spelling than in spelling 0 (else the spelling is noise)."""
    for n, name in enumerate(finding.targets):
        target = next(t for t in targets if t.name == name)
        try:
            if target.rendered(finding.expr, finding.spellings[n]) != target.rendered(finding.expr, 0):
                return True
        except Unsupported:
            return True
    return False


def _case(targets: Sequence[Target], pairs: Sequence[tuple[int, int]], docs: Docs, expr: filterlang.Expr,
          spellings: Sequence[int], outcome: Outcome) -> Iterator[Finding]:
    jobs: list[tuple[Sequence[Target], Relation | None, tuple[int, int]]] = []
    for n, target in enumerate(targets):
        jobs += [([target], build(expr, docs, target), (spellings[n], 0)) for build in ONE_TARGET.values()]
    for a, b in pairs:  # one language: the same spelling on both sides
        jobs.append(([targets[a], targets[b]], differential(expr, docs, targets[a]), (spellings[a], spellings[a])))
    for judged, built, spelled in jobs:
        if built is None:
            continue
        relation = built.spelled(spelled)
        names = tuple(t.name for t in judged)
        try:
            bad = Judge(judged).violation(relation, docs)
        except Unsupported as why:
            said = str(why)  # a target's reason names it already ("milvus: no range on a boolean")
            outcome.skipped[said if said.startswith(f"{names[0]}: ") else f"{'+'.join(names)}: {said}"] += 1
            continue
        outcome.checked[f"{'+'.join(names)} {relation.oracle}"] += 1
        if bad is not None:
            answers, error = bad
            yield Finding(names, relation.oracle, signature(names, relation.oracle, expr, error, docs, spelled),
                          dict(docs), expr,
                          relation, {k: sorted(v) for k, v in answers.items()}, error, spellings=spelled,
                          shrunk_from=(len(docs), filterlang.size(expr)))
