"""Run the probes through every target and search path, and classify each answer.

Every probe asks for all of its documents (k = the corpus size) with a query every
document scores positively against, so the filter alone decides what comes back:

============ =============================================================================
verdict      meaning
============ =============================================================================
works        exactly the expected documents
ignored      every expected document and more: the filter (or a part of it) was dropped
wrong        some expected document missing, or other documents instead
raises       the integration raised (at translation, at write, or at search)
unsupported  the filter language has no construct for the operator (nothing was sent)
============ =============================================================================
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from filterproof.adapters.base import Record
from filterproof.adapters.bridges.options import PATHS
from filterproof.adapters.filterlang import Unsupported
from filterproof.errors import BackendUnavailable
from filterproof.matrix.probes import PROBES, Probe
from filterproof.matrix.targets import TARGETS, Target

VERDICTS = ("works", "ignored", "wrong", "raises", "unsupported")
DIM = 4


@dataclass(frozen=True)
class Cell:
    target: str
    probe: str
    path: str
    verdict: str
    got: list[str] | None
    expected: list[str]
    detail: str = ""


@dataclass
class Matrix:
    cells: list[Cell] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    """Target -> why it did not run (not installed)."""
    stopped: int | None = None
    """The exit status of a matrix stopped by SIGTERM (143) or Ctrl-C (130): the cells so far are kept."""

    def verdict(self, target: str, probe: str, path: str) -> Cell | None:
        return next((c for c in self.cells if (c.target, c.probe, c.path) == (target, probe, path)), None)

    def to_json(self) -> dict[str, Any]:
        return {"versions": self.versions, "python": platform.python_version(), "skipped": self.skipped,
                "probes": {p.name: {"description": p.description, "expected": sorted(p.expected)} for p in PROBES},
                "paths": list(PATHS), "verdicts": list(VERDICTS), "cells": [asdict(c) for c in self.cells],
                "stopped": self.stopped}


def classify(got: set[str], expected: set[str]) -> str:
    if got == expected:
        return "works"
    return "ignored" if got > expected else "wrong"


def probe_records(probe: Probe) -> tuple[list[Record], np.ndarray]:
    """Distinct positive cosines with the query for every document, so only the filter decides."""
    records = [Record(doc_id, np.array([1.0, 0.05 * (n + 1), 0.0, 0.0], dtype=np.float32), dict(meta))
               for n, (doc_id, meta) in enumerate(probe.docs.items())]
    return records, np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)


def _short(error: BaseException) -> str:
    return f"{type(error).__name__}: {' '.join(str(error).split())[:160]}"


def run_probe(target: Target, probe: Probe, paths: Sequence[str]) -> list[Cell]:
    expected = sorted(probe.expected)
    paths = [p for p in paths if p in target.paths]

    def every(verdict: str, detail: str) -> list[Cell]:
        return [Cell(target.name, probe.name, path, verdict, None, expected, detail) for path in paths]

    try:
        native = target.render(probe.expr)
    except Unsupported as error:
        return every("unsupported", str(error))
    except Exception as error:  # the translator is the integration's code: its refusal is a finding
        return every("raises", "translating: " + _short(error))
    store = target.open()
    try:
        records, query = probe_records(probe)
        try:
            store.reset(DIM)
            store.upsert(records)
            vectors = {r.id: r.vector for r in records}
            if probe.readd:  # the framework's own add path, as an application re-ingests: no delete first
                store._add([Record(i, vectors[i], dict(m)) for i, m in probe.readd.items()])
        except Exception as error:
            return every("raises", "writing: " + _short(error))
        cells = []
        for path in paths:
            try:
                hits = store._scored(query, store._query(query, len(records), native, path))
            except Exception as error:
                cells.append(Cell(target.name, probe.name, path, "raises", None, expected, _short(error)))
                continue
            got = sorted({h.id for h in hits})
            cells.append(Cell(target.name, probe.name, path, classify(set(got), probe.expected), got, expected))
        return cells
    finally:
        store.close()


def run_matrix(targets: Sequence[Target] = TARGETS, probes: Sequence[Probe] = PROBES,
               paths: Sequence[str] = PATHS) -> Matrix:
    matrix = Matrix()
    try:
        _run(matrix, targets, probes, paths)
    except (KeyboardInterrupt, SystemExit) as stop:  # cli.signals: the first SIGTERM or Ctrl-C, here
        matrix.stopped = 130 if isinstance(stop, KeyboardInterrupt) else int(stop.code or 1)
    return matrix


def _run(matrix: Matrix, targets: Sequence[Target], probes: Sequence[Probe], paths: Sequence[str]) -> None:
    for target in targets:
        try:
            target.open().close()
        except ImportError as error:
            extra = target.backend.split("-")[0]
            matrix.skipped[target.name] = f"not installed ({error.name}): pip install 'filterproof[{extra}]'"
            continue
        except BackendUnavailable as error:  # a server-backed integration with no server here
            matrix.skipped[target.name] = str(error)
            continue
        matrix.versions.update(target.versions())
        for probe in probes:
            matrix.cells += run_probe(target, probe, paths)
