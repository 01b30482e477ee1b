"""One record schema for every run, and its renderers (``console``, ``html``, ``figures``).

``Results`` is what ``compare`` and ``sweep`` produce and what every renderer reads;
``to_json`` / ``load`` write and read it as one JSON document (``SCHEMA``)::

    {"schema": "filterproof/2", "filterproof": "<version>", "command": "compare" | "sweep" | "freshness",
     "complete": true,                       # false: interrupted, or a backend failed
     "stopped": null,                        # 143 / 130: stopped by SIGTERM / Ctrl-C; what completed is here
     "settings": {"ks", "candidates", "min_score", "embedding", "vectors", "dim", "batch", "latency_samples",
                  "backends"},
     "fixtures": [{"name", "path", "sha256", "documents", "cases", "malformed": {id: why}, "min_score",
                   "generator", "levels": {"<level>": {"cases", "measured"}}, "embedding", "vectors", "dim",
                   "fit_sample" (documents the embedding was fitted on; null: all), "timings"}],
     "backends": [{"label", "backend", "fixture", "options", "status", "reason", "capabilities", "timings",
                   "not_indexable" (only when the store refused documents): {"count", "documents": {id: why},
                   "differences_without_them": {"differences", "first"}}}],
     "summary":  [{"fixture", "backend", "strategy", "candidates", "level", "k", "cases", "correct",
                   "wrong_document", "false_abstention", "correct_abstention", "leaks", "leaks_at_k",
                   "recall", "arecall", "arecall_nonempty", "n_nonempty", "unusable", "precision", "ndcg",
                   "mrr", "recall_exact", "short", "empty", "short_rate", "empty_rate",
                   "false_abstention_rate", "wrong_document_rate"}],
     "cases":    [{"fixture", "backend", "strategy", "candidates", "case", "level", "selected", "score",
                   "decision", "acceptable", "leaks", "k": {"<K>": {"ids", "short", "empty", "leaks",
                   "recall_exact", "recall", "arecall", "unusable", "precision", "ndcg"}}, "rr", "nonempty"}],
     "latency":  [{"fixture", "backend", "strategy", "candidates", "level", "samples", "p50_ms", "p95_ms", "qps"}],
     "problems": [{"fixture", "backend", "kind" (leak, differs, failed, not_indexable; freshness:
                   stale_reader, reader_errors, failed), "detail"}],
     "timings": {...}, "machine": {...},
     "freshness": [{"backend", "readers", "readers_in", "status" (ok, failed, stopped), "reason",
                    "declared_bound_s", "summary": {"changes", "vanishing", "appearing", "post_return_leaks",
                    "leaks_beyond_bound", "changes_leaked", "unresolved", "invisible_p50_ms", "invisible_p99_ms",
                    "invisible_max_ms", "invisible_ms" (one per vanishing change; null: never within the run),
                    "post_return_misses", "misses_beyond_bound", "never_visible", "visible_max_ms", "queries",
                    "reader_qps", "resolution_ms", "writer_p50_ms", "writer_p99_ms",
                    "reader_errors" (each reader's first), "failed_queries", "declared_bound_s"}}]}
                    # command freshness only; its fixtures, cases and summary are empty

``vectors`` says which vectors every backend indexed: ``tfidf`` or ``svd``
(filterproof's), ``fixture`` (the fixture's own) or ``embedding:<module>:<callable>``
(a user's function); ``embedding`` holds the same value (it said ``tfidf`` or ``svd``
before the others existed). In ``settings`` it is the fixtures' values, comma separated
when they differ. A ``summary`` row with ``level`` null averages all the fixture's cases; sweeps add one
row per selectivity level. ``backend`` is the spec's label (``qdrant-edge:exact=true``),
so one backend run twice with different options stays apart. Schema 1 (``compare``)
and ``filterproof-sweep/1`` (``sweep``) are replaced by this one;
``scripts/convert_sweep_v1.py`` converts an old sweep report. A backend whose ``status`` is
``failed`` with a reason beginning "the backend's worker process died of" crashed natively (its worker's
signal and phase follow); ``not_indexable`` names the documents a store refused as past its engine's limits
(at most 100 of them; ``count`` counts all), and ``differences_without_them`` compares the store with the
reference run without those documents (``differences`` 0: identical). The documentation site
renders this docstring as its results-schema page (``docs/reference/results.md``).
"""

from __future__ import annotations

import gc
import json
import os
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filterproof import __version__
from filterproof.errors import UsageError
from filterproof.evaluation.congruence import Problem, verdict
from filterproof.evaluation.runner import BackendRun, Settings
from filterproof.evaluation.scoring import CaseRow, summarize
from filterproof.evaluation.truth import Prepared

SCHEMA = "filterproof/2"


def fixture_info(prepared: Prepared, generator: dict[str, Any] | None = None) -> dict[str, Any]:
    fx = prepared.fixture
    n = max(len(fx.documents), 1)
    levels: dict[str, dict[str, float]] = {}
    for level in prepared.levels:
        eligible = [t.eligible for t in prepared.truths if t.level == level]
        levels[f"{level:g}"] = {"cases": len(eligible), "measured": sum(eligible) / len(eligible) / n}
    return {"name": fx.name, "path": str(fx.path), "sha256": fx.sha256, "documents": len(fx.documents),
            "cases": len(fx.cases), "malformed": prepared.malformed, "min_score": fx.min_score,
            "description": fx.description, "generator": generator, "levels": levels,
            "embedding": prepared.embedding_kind, "vectors": prepared.embedding_kind, "dim": prepared.dim,
            "fit_sample": prepared.fit_sample, "timings": prepared.timings}


def vectors_of(prepared: list[Prepared]) -> str:
    """The vectors of a run's fixtures, for ``settings``: one value, or the distinct values comma separated."""
    return ",".join(dict.fromkeys(p.embedding_kind for p in prepared))


def settings_info(settings: Settings, labels: list[str], embedding: str, dim: int | None) -> dict[str, Any]:
    return {"ks": list(settings.ks), "candidates": [str(d) for d in settings.depths], "min_score": settings.min_score,
            "embedding": embedding, "vectors": embedding, "dim": dim, "batch": settings.batch,
            "latency_samples": settings.latency_samples, "backends": labels}


@dataclass
class Results:
    """Everything a run found; renderers read only this."""

    command: str
    settings: dict[str, Any]
    fixtures: list[dict[str, Any]] = field(default_factory=list)
    backends: list[dict[str, Any]] = field(default_factory=list)
    cases: list[CaseRow] = field(default_factory=list)
    summary: list[dict[str, Any]] = field(default_factory=list)
    latency: list[dict[str, Any]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    timings: dict[str, Any] = field(default_factory=dict)
    complete: bool = True
    stopped: int | None = None
    """The exit status of a run stopped by a signal (143: SIGTERM, 130: Ctrl-C); None: not stopped."""
    freshness: list[dict[str, Any]] = field(default_factory=list)
    """``freshness`` runs: one row per backend (``freshness.measure.run``)."""

    def add(self, run: BackendRun, ks: list[int], by_level: bool) -> None:
        self.backends.append(run.info())
        self.cases += run.rows
        self.summary += summarize(run.rows, ks, by_level)
        self.latency += run.latency

    def judge(self, against_reference: bool = True, accept_short: bool = False) -> list[Problem]:
        self.problems = verdict(self.backends, self.cases, self.summary, against_reference, accept_short)
        if any(b["status"] == "failed" for b in self.backends):
            self.complete = False
        return self.problems

    def labels(self, fixture: str | None = None) -> list[str]:
        return list(dict.fromkeys(b["label"] for b in self.backends
                                  if b["status"] == "ok" and fixture in (None, b["fixture"])))

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA, "filterproof": __version__, "command": self.command, "complete": self.complete,
            "stopped": self.stopped,
            "settings": self.settings, "fixtures": self.fixtures, "backends": self.backends,
            "summary": self.summary, "cases": [r.to_json() for r in self.cases], "latency": self.latency,
            "problems": [vars(p) for p in self.problems], "timings": self.timings,
            **({"freshness": self.freshness} if self.command == "freshness" else {}),
            "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                        "platform": platform.platform(), "load_average": list(os.getloadavg())},
        }

    @classmethod
    def from_json(cls, doc: Any, source: str = "results") -> Results:
        if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
            found = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
            raise UsageError(f"{source}: not a filterproof report of schema {SCHEMA} (found {found!r})")
        try:
            return cls(command=doc["command"], settings=doc["settings"], fixtures=doc["fixtures"],
                       backends=doc["backends"], cases=[CaseRow.from_json(r) for r in doc["cases"]],
                       summary=doc["summary"], latency=doc["latency"],
                       problems=[Problem(**p) for p in doc.get("problems", [])], timings=doc.get("timings", {}),
                       complete=bool(doc.get("complete", True)), stopped=doc.get("stopped"),
                       freshness=list(doc.get("freshness", [])))
        except (KeyError, TypeError, ValueError) as error:
            raise UsageError(f"{source}: malformed {SCHEMA} report ({type(error).__name__}: {error})") from None


def load(path: Path) -> Results:
    """Read a report written by ``--json`` / ``sweep``; a file that is not one is a ``UsageError``."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise UsageError(f"{path}: cannot read a report: {error}") from None
    return Results.from_json(doc, str(path))


ROW_PER_LINE = ("cases", "summary", "latency")
"""The lists written one row per line: json's C encoder runs only without ``indent`` (indented, a stop's report of
3,200 cases took 1.3 s of its 2 s; bench/report_write.py), and a row per line keeps the file readable and diffable."""


def dumps(doc: dict[str, Any]) -> str:
    """The JSON document: a key per line, the long lists a row per line, the rest indented."""
    def value(key: str, item: Any) -> str:
        if key in ROW_PER_LINE and isinstance(item, list) and item:
            return "[\n  " + ",\n  ".join(json.dumps(row, allow_nan=False) for row in item) + "\n ]"
        return json.dumps(item, indent=1, allow_nan=False).replace("\n", "\n ")

    return "{\n" + ",\n".join(f" {json.dumps(key)}: {value(key, item)}" for key, item in doc.items()) + "\n}\n"


def write(results: Results, path: Path) -> None:
    """Write the JSON document through a temporary file, so a reader never sees half of it."""
    tmp = path.with_name(f".{path.name}.tmp")
    collecting = gc.isenabled()
    gc.disable()  # the document is a million small objects, none garbage: collections meanwhile tripled the time
    try:
        text = dumps(results.to_json())
    finally:
        if collecting:
            gc.enable()
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
