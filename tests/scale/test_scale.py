"""The scale tools: the generator keeps its promises, and a small sweep runs end to end.

Nothing here asserts a timing: speed is recorded by the scripts under bench/.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from filterproof.cli import app
from filterproof.fixtures import load_fixture
from filterproof.policy import is_eligible
from filterproof.policy.columns import PolicyColumns
from filterproof.report import Results, load
from filterproof.scale.generator import GeneratorConfig, GeneratorError, case_level, generate, write_lab_json
from support.paths import FIXTURES, ROOT

SMALL = GeneratorConfig(documents=2000, seed=7, selectivities=(0.002, 0.02, 0.1, 0.3), cases_per_level=6)


@pytest.fixture(scope="module")
def small():  # type: ignore[no-untyped-def]
    return generate(SMALL)


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    first, second, other = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    write_lab_json(generate(SMALL), first)
    write_lab_json(generate(SMALL), second)
    write_lab_json(generate(GeneratorConfig(**{**SMALL.__dict__, "seed": 8})), other)
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes() != other.read_bytes()


@pytest.mark.parametrize("levels", [(0.001, 0.01, 0.1, 0.5), (0.0005, 0.003, 0.05, 0.25)])
def test_selectivity_is_controlled(levels: tuple[float, ...]) -> None:
    corpus = generate(GeneratorConfig(documents=4000, seed=3, selectivities=levels, cases_per_level=5))
    fx = corpus.fixture
    columns = PolicyColumns([d.metadata for d in fx.documents])
    n = len(fx.documents)
    for case, level in zip(fx.cases, corpus.levels, strict=True):
        measured = columns.mask(fx.policy_filter(case)).sum() / n
        assert abs(measured - level) <= 1 / n, (case.id, measured, level)
        assert case_level(case.id) == level


def test_columns_agree_with_the_policy_oracle(small) -> None:  # type: ignore[no-untyped-def]
    fx = small.fixture
    columns = PolicyColumns([d.metadata for d in fx.documents])
    for case in fx.cases[::5]:
        flt = fx.policy_filter(case)
        oracle = np.array([is_eligible(d.metadata, flt) for d in fx.documents])
        assert (columns.mask(flt) == oracle).all()


def test_malformed_documents_exist_and_never_match(small) -> None:  # type: ignore[no-untyped-def]
    fx = small.fixture
    malformed = fx.malformed()
    assert len(set(malformed.values())) == 6, "every malformed class is present"
    for case in fx.cases:
        flt = fx.policy_filter(case)
        assert not any(is_eligible(fx.documents[fx.order[d]].metadata, flt) for d in malformed)


def test_relevant_sets_by_construction(small) -> None:  # type: ignore[no-untyped-def]
    fx = small.fixture
    columns = PolicyColumns([d.metadata for d in fx.documents])
    for case in fx.cases:
        mask = columns.mask(fx.policy_filter(case))
        assert case.expected is not None and case.expected in case.relevant
        assert mask[fx.order[case.expected]], "the expected answer is one the principal may use"
        eligible = [d for d in case.relevant or () if mask[fx.order[d]]]
        assert 1 <= len(eligible) < len(case.relevant or ()), "both usable and unusable relevant documents"
        words = set(case.query.split()[:4])
        answer = set(fx.documents[fx.order[case.expected]].text.split())
        assert words <= answer, "the answer repeats the query's topic words"
    planted = [d for c in fx.cases for d in c.relevant or ()]
    assert len(planted) == len(set(planted)), "each relevant document belongs to one case"


def test_impossible_selectivity_is_a_clear_error() -> None:
    with pytest.raises(GeneratorError, match="largest tenant"):
        generate(GeneratorConfig(documents=500, selectivities=(0.9,), cases_per_level=1))


def test_generated_fixture_loads(tmp_path: Path, small) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "generated.json"
    write_lab_json(small, path)
    loaded = load_fixture(path)
    assert [d.id for d in loaded.documents] == [d.id for d in small.fixture.documents]
    assert [dict(d.metadata) for d in loaded.documents] == [dict(d.metadata) for d in small.fixture.documents]
    assert loaded.cases == small.fixture.cases
    assert loaded.active == small.fixture.active
    assert loaded.malformed() == small.fixture.malformed()


def _available(name: str, module: str) -> list[str]:
    return [name] if importlib.util.find_spec(module) is not None else []


BACKENDS = ["reference", *_available("chroma", "chromadb"), *_available("qdrant-edge", "qdrant_edge")]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Results:
    """A small sweep through the command line, as a user runs it."""
    out = tmp_path_factory.mktemp("sweep")
    args = ["sweep", "-n", str(SMALL.documents), "--seed", str(SMALL.seed),
            "--selectivity", ",".join(map(str, SMALL.selectivities)), "--cases-per-level", str(SMALL.cases_per_level),
            "--k", "1,5", "--candidates", "1K,10K", "--batch", "8", "--latency-samples", "2", "--dim", "32",
            "--out", str(out), "--no-plots"]
    for backend in BACKENDS:
        args += ["-b", backend]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return load(out / "report.json")


def by_level(report: Results) -> list[dict]:  # type: ignore[type-arg]
    return [r for r in report.summary if r["level"] is not None]


@pytest.mark.slow  # about 8 s with the others on this sweep (the report fixture)
def test_small_sweep_runs_every_available_backend(report: Results) -> None:
    assert report.labels() == BACKENDS
    assert {r["level"] for r in by_level(report)} == set(SMALL.selectivities)
    assert all(r["cases"] == SMALL.cases_per_level for r in by_level(report))
    assert all(b["timings"]["inside_s"] > 0 for b in report.backends) and report.latency


@pytest.mark.slow  # about 8 s with the others on this sweep (the report fixture)
def test_filtered_strategies_never_leak(report: Results) -> None:
    filtered = [r for r in report.summary if r["strategy"] != "rank_only"]
    assert filtered and all(r["leaks"] == 0 and r["leaks_at_k"] == 0 for r in filtered)
    assert not report.problems


@pytest.mark.slow  # about 8 s with the others on this sweep (the report fixture)
def test_pre_filter_recall_at_least_post_filter(report: Results) -> None:
    by = {(r["backend"], r["strategy"], r["candidates"], r["level"], r["k"]): r for r in by_level(report)}
    compared = 0
    for (backend, strategy, depth, level, k), row in by.items():
        if strategy != "post_filter":
            continue
        pre = by[(backend, "pre_filter", None, level, k)]
        tolerance = 0.0 if backend == "reference" else 0.05  # approximate engines may miss a little
        assert pre["arecall"] >= row["arecall"] - tolerance, (backend, depth, level, k)
        compared += 1
    assert compared
    exact = [r for r in report.summary if r["backend"] == "reference" and r["strategy"] == "pre_filter"]
    assert all(r["recall_exact"] == 1.0 for r in exact)


@pytest.mark.slow  # about 8 s with the others on this sweep (the report fixture)
def test_html_report_embeds_the_figures(tmp_path: Path, report: Results) -> None:
    pytest.importorskip("matplotlib")
    from filterproof.report.figures import FIGURES, write_figures
    from filterproof.report.html import write_html

    figures = write_figures(report, tmp_path)
    assert set(figures) == set(FIGURES) and all(p.read_bytes()[:4] == b"\x89PNG" for p in figures.values())
    page = write_html(report, tmp_path / "report.html", figures, "report.json").read_text()
    assert page.count("data:image/png;base64,") == len(FIGURES)
    assert "<img" in page and "src='arecall" not in page


@pytest.mark.slow  # about 7 s: a compare and a sweep
def test_compare_and_sweep_judge_a_fixture_identically(tmp_path: Path) -> None:
    """One evaluation core: the same fixture, vectors and settings give the same case rows and metrics."""
    fixture = str(FIXTURES / "authorized-recall")
    same = ["-b", "reference", "-b", "qdrant-local", "--k", "1,3,5,10", "--candidates", "1,10K"]
    runner = CliRunner()
    result = runner.invoke(app, ["compare", fixture, *same, "--json", str(tmp_path / "compare.json")])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["sweep", fixture, *same, "--embedding", "tfidf", "--latency-samples", "0",
                                 "--no-plots", "--out", str(tmp_path / "sweep")])
    assert result.exit_code == 0, result.output
    compared, swept = load(tmp_path / "compare.json"), load(tmp_path / "sweep" / "report.json")
    assert len(compared.cases) == 96 * 4 * 2
    assert [r.to_json() for r in compared.cases] == [r.to_json() for r in swept.cases]
    overall = [r for r in swept.summary if r["level"] is None]
    assert compared.summary == overall and len(overall) == 4 * 4 * 2


def test_cli_generate_and_sweep(tmp_path: Path) -> None:
    runner = CliRunner()
    fixture = tmp_path / "tiny.json"
    result = runner.invoke(app, ["generate", str(fixture), "-n", "600", "--selectivity", "0.01,0.2",
                                 "--cases-per-level", "2"])
    assert result.exit_code == 0, result.output
    assert len(load_fixture(fixture).cases) == 4
    out = tmp_path / "out"
    result = runner.invoke(app, ["sweep", str(fixture), "-b", "reference", "--k", "1,3", "--candidates", "1K,5K",
                                 "--dim", "16", "--latency-samples", "1", "--no-plots", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "report.json").is_file() and "ARecall@3" in result.output
    result = runner.invoke(app, ["sweep", "--replot", str(out / "report.json"), "--no-plots"])
    assert result.exit_code == 0 and "ARecall@3" in result.output
    result = runner.invoke(app, ["generate", str(fixture), "-n", "600"])
    assert result.exit_code == 2 and "exists; pass --force" in result.output


def test_the_committed_100k_report_replots(tmp_path: Path) -> None:
    """bench/results/sweep_100k/report.json is read back by the current renderers (no run)."""
    report = ROOT / "bench" / "results" / "sweep_100k" / "report.json"
    result = CliRunner().invoke(app, ["sweep", "--replot", str(report), "--no-plots", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "ARecall@10 by selectivity" in result.output and "qdrant-edge" in result.output
    assert "0.925" in result.output, "qdrant-edge's measured pre_filter ARecall@10 at 50%"
