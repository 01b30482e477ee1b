"""``filterproof generate``: a seeded corpus whose selectivity and relevance are known by construction.

The same configuration and seed always give the same fixture, byte for byte, so a
sweep's numbers can be reproduced from two integers. ``generate`` builds the
fixture as compact columns (``corpus.GeneratedFixture``: what ``filterproof sweep``
uses at scale, skipping JSON) whose documents are built chunk by chunk when read;
``write_lab_json`` streams it out in the lab format that ``load_fixture`` reads.

Each case is one principal of one selectivity level s: it may use exactly
round(s x N) documents (see ``population``). Its query is written from a topic of
its own; the documents planted with that topic are its relevant set: a few the
principal may use (the first is the expected top-1 answer, it repeats the query's
words) and more it may not (near misses of its own tenant with the right groups but
a superseded, stale, draft, expired, future or malformed record; documents of its
tenant outside its groups; documents of other tenants), about as many as the
selectivity implies (eligible share s, within bounds), so a tighter policy leaves
fewer usable documents among the textual neighbours, as in real corpora.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from filterproof.fixtures import Case
from filterproof.policy import ActiveRevisions, Principal
from filterproof.scale.corpus import CorpusColumns, GeneratedFixture, generated_fixture, row_id
from filterproof.scale.metadata import MetadataMaker
from filterproof.scale.population import GeneratorError, Population, build_blocks, populate, target_count
from filterproof.scale.text import PackedTexts, TextMaker, Vocabulary

__all__ = ["MAX_DOCUMENTS", "GeneratedCorpus", "GeneratorConfig", "GeneratorError", "case_level", "generate",
           "write_lab_json"]

MAX_DOCUMENTS = 100_000_000
"""Ten times the largest corpus measured (10M, docs/scale): beyond it, its columns alone outgrow most memories."""
DEFAULT_SELECTIVITIES = (0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.2, 0.5)
CASE_ID = re.compile(r"^s(?P<level>[0-9.eE+-]+)-\d+$")


@dataclass(frozen=True)
class GeneratorConfig:
    """Everything that determines a generated corpus; with the seed, its whole content."""

    documents: int = 10_000
    seed: int = 0
    selectivities: tuple[float, ...] = DEFAULT_SELECTIVITIES
    cases_per_level: int = 20
    tenants: int = 8
    tenant_skew: float = 2.5
    relevant_eligible: int = 4
    min_distractors: int = 4
    max_distractors: int = 5000
    planted_share: float = 0.3
    """At most this share of the corpus is planted (relevant to some case); caps the distractors.

    It also keeps the topic words a steady share of the corpus at every N, which is
    what lets a fixed-dimension SVD keep the topics apart: with distractors capped
    at 200, the planted share fell to 3% at 1M documents and the exact pre-filtered
    ARecall@10 to 0.08 at 50% selectivity (the topics were compressed away)."""
    malformed: float = 0.001
    domains: int = 32
    general_words: int = 4000
    domain_words: int = 40
    as_of: str = "2026-09-01"
    min_score: float = 0.8
    """Top-1 threshold: the answer scores ~0.97 in the dense space, other topics' documents at most ~0.8."""

    def __post_init__(self) -> None:
        # Each refused here, not where numpy meets it after minutes of work (a negative seed, no tenant, a NaN share)
        if self.documents < 10:
            raise GeneratorError("need at least 10 documents")
        if self.documents > MAX_DOCUMENTS:
            raise GeneratorError(f"documents {self.documents}: at most {MAX_DOCUMENTS:,}")
        if not self.selectivities or not all(0 < s <= 1 for s in self.selectivities):
            raise GeneratorError("selectivities must be fractions in (0, 1]")
        if self.seed < 0:
            raise GeneratorError(f"seed {self.seed}: expected an integer of 0 or more")
        if self.tenants < 1 or self.cases_per_level < 1:
            raise GeneratorError(f"tenants {self.tenants}, cases_per_level {self.cases_per_level}: expected 1 or more")
        if not math.isfinite(self.tenant_skew):
            raise GeneratorError(f"tenant_skew {self.tenant_skew}: expected a finite number")
        if not 0 <= self.malformed < 1:  # NaN too
            raise GeneratorError(f"malformed {self.malformed}: expected a share from 0 to less than 1")

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()


@dataclass
class GeneratedCorpus:
    """A generated fixture plus what the sweep needs to know about each case."""

    config: GeneratorConfig
    fixture: GeneratedFixture
    levels: list[float]
    """Per case: its requested selectivity."""
    targets: list[int]
    """Per case: how many documents its principal may use, by construction."""


def case_level(case_id: str) -> float | None:
    """The requested selectivity a generated case id carries (``s0.001-007`` -> 0.001)."""
    match = CASE_ID.match(case_id)
    return float(match.group("level")) if match else None


@dataclass
class _Plan:
    case_id: str
    tenant: int
    groups: tuple[str, ...]
    eligible: list[int]
    distractors: list[int]
    topic: int
    domain: int


def _sample(rng: np.random.Generator, pool: np.ndarray, planted: np.ndarray, count: int) -> list[int]:
    """Up to ``count`` rows of ``pool`` not planted yet, without repeats."""
    if count <= 0 or len(pool) == 0:
        return []
    free = pool[~planted[pool]]
    picked = rng.choice(free, size=min(count, len(free)), replace=False) if len(free) else free
    planted[picked] = True
    return picked.tolist()


def _distractor_count(cfg: GeneratorConfig, eligible: int, s: float) -> int:
    """About eligible x (1 - s) / s, so that the eligible share of the relevant set follows s, within bounds."""
    cases = len(cfg.selectivities) * cfg.cases_per_level
    room = max(0, int(cfg.planted_share * cfg.documents / cases) - cfg.relevant_eligible)
    wanted = math.ceil(max(eligible, 1) * (1 - s) / s) if s < 1 else 0
    return int(min(cfg.max_distractors, room, max(cfg.min_distractors, wanted)))


def _choose_block(rng: np.random.Generator, pop: Population, li: int, t: int, feasible: list[int],
                  next_block: dict[tuple[int, int], int], planted: np.ndarray, want: int) -> tuple[int, int]:
    """A tenant and block for the next case of level ``li``: unused blocks first, then any with free documents.

    Small tenants take part in every level with the same few live documents, so a
    block may already be spent on other cases' plantings; such blocks are skipped
    so that every case keeps eligible relevant documents when the corpus allows.
    """
    def free(tenant: int, block: int) -> int:
        rows = pop.order[(li, tenant)][block * t:(block + 1) * t]
        return int(np.count_nonzero(~planted[rows]))

    options = []
    for tenant in feasible:
        blocks = len(pop.order[(li, tenant)]) // t
        start = next_block.get((li, tenant), 0)
        found = next((b % blocks for b in range(start, start + min(blocks, 64)) if free(tenant, b % blocks) >= want),
                     None)
        if found is not None:
            options.append((start < blocks, tenant, found))
    fresh = [o for o in options if o[0]] or options
    if not fresh:
        tenant = int(rng.choice(feasible))
        return tenant, next_block.get((li, tenant), 0) % (len(pop.order[(li, tenant)]) // t)
    _, tenant, block = fresh[int(rng.integers(0, len(fresh)))]
    next_block[(li, tenant)] = max(next_block.get((li, tenant), 0), block + 1)
    return tenant, block


def plan_cases(rng: np.random.Generator, cfg: GeneratorConfig, pop: Population) -> list[_Plan]:
    """Choose each case's principal (tenant and block) and plant its relevant documents."""
    planted = np.zeros(pop.n, dtype=bool)
    rows_by_tenant = {t: np.flatnonzero(pop.tenant == t) for t in range(cfg.tenants)}
    next_block: dict[tuple[int, int], int] = {}
    plans = []
    for li, s in enumerate(cfg.selectivities):
        t = target_count(s, pop.n)
        feasible = sorted(k for (lv, k) in pop.order if lv == li)
        for c in range(cfg.cases_per_level):
            tenant, block = _choose_block(rng, pop, li, t, feasible, next_block, planted,
                                          min(cfg.relevant_eligible, t))
            eligible = pop.order[(li, tenant)][block * t:(block + 1) * t]
            halves = ("a", "b") if t >= 2 else ("a",)
            roles = rng.choice(8, size=int(rng.integers(1, 3)), replace=False).tolist()
            groups = tuple([f"team-{li}-{block}-{h}" for h in halves] + [f"role-{r:02d}" for r in sorted(roles)])
            picks = _sample(rng, eligible, planted, cfg.relevant_eligible)
            need = _distractor_count(cfg, len(picks), s)
            rows = rows_by_tenant[tenant]
            near = rows[(pop.blocks[li][rows] == block) & ~pop.live[rows]]
            distractors = _sample(rng, near, planted, need // 3)
            same = rows[pop.blocks[li][rows] != block]
            distractors += _sample(rng, same, planted, (need - len(distractors)) // 2)
            other = np.flatnonzero(pop.tenant != tenant) if need > len(distractors) else np.empty(0, np.int64)
            distractors += _sample(rng, other, planted, need - len(distractors))
            plans.append(_Plan(f"s{s:g}-{c:03d}", tenant, groups, picks, distractors, len(plans),
                               int(rng.integers(0, cfg.domains))))
    return plans


Progress = Callable[[int, int], None]
"""Called with (cases written, cases) while the planted documents are written."""


def generate(cfg: GeneratorConfig, progress: Progress | None = None) -> GeneratedCorpus:
    """Build the corpus as columns (no document is materialised): active map, cases with expected and relevant.

    The seed's stream is consumed in the same order as when every document was built
    at once (population, blocks, cases, vocabulary, background words, planted texts,
    the metadata's draws), so the corpus is the same, byte for byte.
    """
    rng = np.random.default_rng(cfg.seed)
    pop = populate(rng, cfg.documents, cfg.tenants, cfg.tenant_skew, cfg.malformed, cfg.domains)
    build_blocks(rng, pop, list(cfg.selectivities), cfg.tenants)
    plans = plan_cases(rng, cfg, pop)
    vocab = Vocabulary.build(rng, cfg.general_words, cfg.domains, cfg.domain_words, len(plans))
    maker = TextMaker(rng, vocab)
    background = maker.background(pop.domain)
    as_of = date.fromisoformat(cfg.as_of)
    planted: dict[int, str] = {}
    cases = []
    for done, plan in enumerate(plans):
        query, words = maker.query(plan.topic, plan.domain)
        # The first eligible one is the expected answer; the first distractor is its ineligible twin.
        for i, row in enumerate(plan.eligible):
            planted[row] = maker.relevant(plan.topic, words, plan.domain, answer=i == 0)
        for i, row in enumerate(plan.distractors):
            planted[row] = maker.relevant(plan.topic, words, plan.domain, answer=i == 0)
        cases.append(Case(
            id=plan.case_id, query=query, principal=Principal(f"tenant-{plan.tenant:02d}", plan.groups),
            as_of=as_of, expected=row_id(plan.eligible[0]) if plan.eligible else None,
            relevant=tuple(row_id(r) for r in plan.eligible + plan.distractors),
        ))
        if progress is not None:
            progress(done + 1, len(plans))
    metadata = MetadataMaker.draw(rng, pop, len(cfg.selectivities), as_of)
    pairs = zip(pop.logical_tenant.tolist(), pop.active_revision.tolist(), strict=True)
    tenants = [f"tenant-{t:02d}" for t in range(cfg.tenants)]  # one string per tenant, not one per entry
    active = ActiveRevisions.of({(tenants[t], f"doc-{k:07d}"): r for k, (t, r) in enumerate(pairs)})
    columns = CorpusColumns(pop.n, maker, background, PackedTexts(planted), metadata)
    del planted
    fixture = generated_fixture(
        columns, name=f"generated-{cfg.documents}-seed{cfg.seed}",
        path=Path(f"<generated n={cfg.documents} seed={cfg.seed}>"), sha256=cfg.digest(), active=active,
        cases=cases, min_score=cfg.min_score,
        description=f"filterproof generate: {cfg.documents} documents, seed {cfg.seed}, "
                    f"{len(cfg.selectivities)} selectivities x {cfg.cases_per_level} cases",
    )
    levels = [s for s in cfg.selectivities for _ in range(cfg.cases_per_level)]
    return GeneratedCorpus(cfg, fixture, levels, [target_count(s, cfg.documents) for s in levels])


def _case_json(case: Case) -> dict[str, Any]:
    return {"id": case.id, "query": case.query, "tenant": case.principal.tenant,
            "groups": list(case.principal.groups), "as_of": case.as_of.isoformat(),
            "expected": case.expected, "relevant": list(case.relevant or ())}


def write_lab_json(corpus: GeneratedCorpus, path: Path, chunk: int = 16_384) -> None:
    """Write the lab JSON format, one document per line, deterministically (same seed, same bytes).

    Streamed: one chunk of documents is built, written and dropped at a time.
    """
    fx = corpus.fixture
    n = len(fx.documents)
    with path.open("w", encoding="utf-8") as out:
        out.write("{\n")
        out.write(f'  "description": {json.dumps(fx.description)},\n')
        out.write(f'  "min_score": {json.dumps(fx.min_score)},\n')
        out.write(f'  "active_revisions": {json.dumps(fx.active.to_json())},\n')
        out.write('  "documents": [\n')
        for part in fx.chunks(chunk):
            assert part.texts is not None
            for i, doc_id, text, meta in zip(range(part.start, part.stop), part.ids, part.texts, part.metadata,
                                             strict=True):
                line = json.dumps({"id": doc_id, "text": text, **meta}, ensure_ascii=False)
                out.write(f"    {line}{',' if i + 1 < n else ''}\n")
        out.write("  ],\n  \"cases\": [\n")
        for i, case in enumerate(fx.cases):
            out.write(f"    {json.dumps(_case_json(case))}{',' if i + 1 < len(fx.cases) else ''}\n")
        out.write("  ]\n}\n")
