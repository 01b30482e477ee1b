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
from typing import Any

from filterproof.fuzz import lang
from filterproof.fuzz.generate import Allows, Generator
from filterproof.fuzz.oracles import ONE_TARGET, Relation, differential
from filterproof.fuzz.target import Docs, Target, Unsupported

DOCS_PER_WORLD = 8
FILTERS_PER_WORLD = 25
RAW_PER_SHAPE = 2
"""Failing cases kept per targets, oracle and typed shape before shrinking (the rest are the same bugs, mostly)."""
RAW_AT_MOST = 40


@dataclass
class Finding:
    targets: tuple[str, ...]
    oracle: str
    signature: str
    docs: dict[str, dict[str, Any]]
    expr: lang.Expr
    relation: Relation
    answers: dict[str, list[str]]
    error: str = ""
    seed: int = 0
    case: int = 0
    spellings: tuple[int, int] = (0, 0)
    """How each of the targets wrote the filter (``Target.spellings``)."""
    shrunk_from: tuple[int, int] = (0, 0)
    """(documents, filter nodes) before shrinking."""
    reproducer: str = ""

    def describe(self) -> str:
        what = self.error or ", ".join(f"{k}: {sorted(v)}" for k, v in self.answers.items())
        return f"{'+'.join(self.targets)} {self.oracle} on {lang.show(self.expr)}: {what}"


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


class Judge:
    """Asks one relation of its targets (on the loaded world) and says whether it holds."""

    def __init__(self, targets: Sequence[Target]) -> None:
        self.targets = targets

    def answers(self, relation: Relation) -> dict[str, set[str]]:
        sources = [(ask, self.targets[ask.target].render(ask.expr, ask.spelling or 0)) for ask in relation.asks]
        return {ask.label: self.targets[ask.target].answer(source, ask.via, ask.indexed) for ask, source in sources}

    def violation(self, relation: Relation, docs: Docs) -> tuple[dict[str, set[str]], str] | None:
        """The answers and an error message when the relation fails (an engine error is a failure)."""
        try:
            answers = self.answers(relation)
        except Unsupported:
            raise
        except Exception as error:  # the engine refused a filter its own language accepts: a finding too
            return {}, f"{type(error).__name__}: {' '.join(str(error).split())[:300]}"
        return None if relation.holds(answers, set(docs)) else (answers, "")


def value_kind(value: Any) -> str:
    if isinstance(value, list):
        return "list+null" if None in value else ("empty list" if not value else "list")
    return "null" if value is None else type(value).__name__


def signature(targets: Sequence[str], oracle: str, expr: lang.Expr, error: str, docs: Docs,
              spellings: Sequence[int]) -> str:
    """What tells two findings apart: targets, oracle, the operators of the filter, the spelling, and what the
    world holds in the fields the filter names (a bool, a null, a missing key, a list holding a null)."""
    kind = error.split(":", 1)[0] if error else ""
    named = sorted({c.key for c in lang.nodes(expr) if isinstance(c, lang.Cond)})
    held = sorted({value_kind(d[k]) if k in d else "missing" for d in docs.values() for k in named})
    spelled = f"spelling {spellings[0]}" if spellings[0] and oracle != "spelling" else ""
    return " ".join(filter(None, ("+".join(targets), oracle, lang.shape(expr, kinds=True), spelled, kind,
                                  "[" + " ".join(held) + "]")))


def fuzz(targets: Sequence[Target], seed: int, budget_s: float, max_cases: int | None = None,
         pairs: Sequence[tuple[int, int]] = (), shrink_s: float = 20.0) -> Outcome:
    """Run until the budget or ``max_cases``; every finding is shrunk within ``shrink_s`` seconds."""
    from filterproof.fuzz.shrink import shrink

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
                    group = f"{'+'.join(found.targets)} {found.oracle} {lang.shape(found.expr, kinds=True)}"
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
            if target.render(finding.expr, finding.spellings[n]) != target.render(finding.expr, 0):
                return True
        except Unsupported:
            return True
    return False


def _case(targets: Sequence[Target], pairs: Sequence[tuple[int, int]], docs: Docs, expr: lang.Expr,
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
            outcome.skipped[f"{'+'.join(names)}: {why}"] += 1
            continue
        outcome.checked[f"{'+'.join(names)} {relation.oracle}"] += 1
        if bad is not None:
            answers, error = bad
            yield Finding(names, relation.oracle, signature(names, relation.oracle, expr, error, docs, spelled),
                          dict(docs), expr,
                          relation, {k: sorted(v) for k, v in answers.items()}, error, spellings=spelled,
                          shrunk_from=(len(docs), lang.size(expr)))
