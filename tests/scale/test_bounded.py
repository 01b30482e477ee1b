"""Bounded memory at scale: the chunked generator, the streamed ground truth, and what they hold.

Nothing here asserts a time or a resident set size: those are measured in bench/
(``bench/sweep_*.sh``). What is asserted is deterministic: the same corpus and the
same truths whatever the chunking, the same results as the path that held the whole
corpus in memory, and (with ``tracemalloc``, which counts Python and numpy
allocations exactly) how much memory each extra document costs.
"""

from __future__ import annotations

import hashlib
import json
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from filterproof.cli import app
from filterproof.evaluation import truth as truth_module
from filterproof.evaluation.groundtruth import Eligible, exact_scores
from filterproof.evaluation.strategies import TIE_DIGITS
from filterproof.evaluation.truth import Prepared, prepare
from filterproof.evaluation.vector_file import VectorFile
from filterproof.policy.columns import PolicyColumns
from filterproof.scale.generator import GeneratorConfig, generate

SMALL = GeneratorConfig(documents=2000, seed=7, selectivities=(0.002, 0.02, 0.1, 0.3), cases_per_level=6)


@pytest.mark.parametrize("n", [1, 7, 8, 9, 1001])
def test_eligible_bits_index_like_the_mask(n: int) -> None:
    mask = np.random.default_rng(n).random(n) < 0.3
    bits = Eligible.of(mask)
    assert [bits[i] for i in range(n)] == mask.tolist() and bits.sum() == mask.sum() == bits.count
    rows = np.arange(n)[::3]
    assert (bits[rows] == mask[rows]).all() and (bits.rows() == np.flatnonzero(mask)).all()
    with pytest.raises(IndexError):
        bits[n]


def test_vector_file_reads_like_the_array(tmp_path: Path) -> None:
    data = np.random.default_rng(0).standard_normal((1000, 12)).astype(np.float32)
    stored = VectorFile(1000, 12, tmp_path)
    for start in range(0, 1000, 300):
        stored.append(start, data[start:start + 300])
    with pytest.raises(ValueError, match="in order"):
        stored.append(0, data[:1])
    rows = np.array([999, 0, 17, 17])
    assert stored.shape == data.shape and len(stored) == 1000 and stored.nbytes == data.nbytes
    assert np.array_equal(stored[100:350], data[100:350]) and np.array_equal(stored[rows], data[rows])
    assert np.array_equal(stored[-1], data[-1]) and np.array_equal(np.asarray(stored), data)
    path = stored.path
    assert not path.exists(), "unlinked at once and read through its descriptor: reclaimed however the run ends"
    stored.close()
    assert not path.exists()


def brute_force(prepared: Prepared, depth: int) -> list[tuple[list[bool], list[int], list[float], int, int]]:
    """Every case's truth from the whole corpus at once: one mask over all metadata, one score per document."""
    fx = prepared.fixture
    columns = PolicyColumns([d.metadata for d in fx.documents])
    out = []
    for i, case in enumerate(fx.cases):
        mask = columns.mask(fx.policy_filter(case))
        raw = np.asarray(prepared.doc_vectors, np.float64) @ np.asarray(prepared.query_vectors[i], np.float64)
        scores = np.round(raw, TIE_DIGITS)
        rows = np.flatnonzero(mask & (raw > 0))
        best = rows[np.lexsort((rows, -scores[rows]))][:depth]
        out.append((mask.tolist(), best.tolist(), scores[best].tolist(), len(rows), int((raw > 0).sum())))
    return out


def streamed(prepared: Prepared) -> list[tuple[list[bool], list[int], list[float], int, int]]:
    return [(t.mask.mask().tolist(), t.exact.tolist(), t.exact_scores.tolist(), t.available, t.positive)
            for t in prepared.truths]


@pytest.mark.parametrize("fit_sample", [0, 500])
def test_streamed_truth_equals_the_whole_corpus_truth(monkeypatch: pytest.MonkeyPatch, fit_sample: int) -> None:
    """Chunks of 8 to 2,000 rows, the embedding fitted on all documents or on a sample: the same truths."""
    corpus = generate(SMALL)
    runs = []
    for rows in (8, 136, 2000):
        monkeypatch.setattr(truth_module, "chunk_rows", lambda dim, rows=rows: rows)
        runs.append(prepare(corpus.fixture, depth=10, embedding="svd", dim=32, levels=corpus.levels,
                            fit_sample=fit_sample))
    runs.append(prepare(corpus.fixture, depth=10, embedding="svd", dim=32, levels=corpus.levels,
                        fit_sample=fit_sample, vectors_on_disk=True))
    assert isinstance(runs[-1].doc_vectors, VectorFile)
    assert runs[0].fit_sample == (500 if fit_sample else None)
    expected = brute_force(runs[0], 10)
    for run in runs:
        assert np.array_equal(np.asarray(run.doc_vectors), np.asarray(runs[-1].doc_vectors))
        assert streamed(run) == expected
        assert run.malformed == corpus.fixture.malformed() and len(set(run.malformed.values())) == 6
        for t in run.truths:
            assert t.eligible == sum(expected[run.truths.index(t)][0])


def test_rescoring_a_row_gives_its_exact_score() -> None:
    """Scoring recomputes returned rows' scores as the truth computed them (float64), whatever the rows asked."""
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((5000, 128)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = vectors[:20] + 0.1
    chunked = np.concatenate([exact_scores(vectors[s:s + 999], queries) for s in range(0, 5000, 999)], axis=1)
    for i in range(20):
        rows = rng.choice(5000, size=50, replace=False)
        assert (exact_scores(vectors[rows], queries[i][None, :])[0] == chunked[i, rows]).all()


SWEEP = ["sweep", "-n", "3000", "--seed", "7", "--selectivity", "0.002,0.02,0.1,0.3", "--cases-per-level", "6",
         "--k", "1,5", "--candidates", "1K,10K", "--dim", "32", "-b", "reference", "--latency-samples", "0",
         "--no-plots"]
SWEEP_BEFORE = "b44f435e657525cbfdca0ad34803f3e021eecb702f810c2186cf60af29f4876c"
"""sha256 of that sweep's case rows, summaries, malformed documents and levels, run by the code that held the
whole corpus, its masks and its float32 ground truth in memory (d11ba2c)."""


def test_a_sweep_judges_as_before(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [*SWEEP, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    doc = json.loads((tmp_path / "report.json").read_text())
    info = doc["fixtures"][0]
    core = {"cases": doc["cases"], "summary": doc["summary"], "malformed": info["malformed"],
            "levels": info["levels"]}
    assert hashlib.sha256(json.dumps(core, sort_keys=True).encode()).hexdigest() == SWEEP_BEFORE


def traced(n: int) -> tuple[float, float]:
    """Bytes per document (traced allocations): held by a generated corpus, and added at the peak of preparing it."""
    cfg = GeneratorConfig(documents=n, seed=1, selectivities=(0.01, 0.1), cases_per_level=3)
    tracemalloc.start()
    try:
        corpus = generate(cfg)
        held = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        prepare(corpus.fixture, depth=10, embedding="svd", dim=16, levels=corpus.levels, fit_sample=1000)
        return held / n, (tracemalloc.get_traced_memory()[1] - held) / n
    finally:
        tracemalloc.stop()


@pytest.mark.slow  # about 8 s: two corpora measured
def test_memory_grows_far_slower_than_the_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """A generated document costs its columns (~300 bytes with its share of the active map), not a
    ``Document`` with its text and metadata dict (about 2 KB: 393 MB at 200k before); preparing it adds
    its 16-d vector (64 bytes) and one bit per case, not its texts or dicts: chunks bound those."""
    monkeypatch.setattr(truth_module, "chunk_rows", lambda dim: 1024)
    traced(1000)  # first imports (scikit-learn's SVD) would count as the first run's memory
    _, small_added = traced(10_000)
    large_held, large_added = traced(40_000)
    assert large_held < 500, f"the corpus holds {large_held:.0f} bytes per document"
    per_document = (large_added * 40_000 - small_added * 10_000) / 30_000
    assert per_document < 150, f"preparing costs {per_document:.0f} bytes per extra document"
