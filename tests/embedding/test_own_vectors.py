"""Your own vectors, end to end: carried by a fixture (inline, .npy) or made by ``--embedding module:callable``.

The vectors come from a seeded numpy generator. On them, every embedded backend must
give the reference's verdicts, and the reference's answers must be numpy's exact
cosine ranking under the policy (``policy.eligible_ids``), computed here apart from
filterproof's pipeline. With nothing given, ``compare`` is unchanged: its case rows
equal the ones the code before own vectors wrote (``tests/data``).
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner, Result

from filterproof.adapters.descriptor import embedded
from filterproof.cli import app
from filterproof.evaluation.strategies import TIE_DIGITS
from filterproof.evaluation.truth import prepare
from filterproof.fixtures import Fixture, load_fixture, shipped
from filterproof.policy import eligible_ids
from support.paths import DATA

EMBEDDED = embedded()
"""compare's default set, from the stores' descriptions (a store added as a package is run here too)."""
EVERY = [arg for backend in EMBEDDED for arg in ("-b", backend)]
DIM = 12
GOLDEN = DATA / "freshness-lab-compare.json"
runner = CliRunner()

EMBED_MODULE = '''
import hashlib

import numpy as np

CALLS = []


def embed(texts, kind):
    """A stand-in model: a seeded vector per text (the same text, the same vector)."""
    CALLS.append((kind, len(texts)))
    return [np.random.default_rng(list(hashlib.sha256(t.encode()).digest())).normal(size=12).tolist()
            for t in texts]


def plain(texts):
    return np.array(embed(texts, "any"), dtype=np.float32)
'''


def rows(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, DIM))


def lab_with_vectors(tmp: Path, how: str) -> tuple[Path, np.ndarray, np.ndarray]:
    """The freshness lab with seeded vectors, inline or in .npy files beside it."""
    doc = json.loads(shipped("freshness-lab.json").read_text())
    docs, queries = rows(len(doc["documents"]), 1), rows(len(doc["cases"]), 2)
    if how == "inline":
        for record, vector in [*zip(doc["documents"], docs, strict=True), *zip(doc["cases"], queries, strict=True)]:
            record["vector"] = vector.tolist()
    else:
        np.save(tmp / "docs.npy", docs)
        np.save(tmp / "queries.npy", queries.astype(np.float32))
        doc["vectors"] = {"documents": "docs.npy", "queries": "queries.npy"}
    path = tmp / f"lab-{how}.json"
    path.write_text(json.dumps(doc))
    return path, docs, queries


def corpus_with_vectors(tmp: Path) -> tuple[Path, np.ndarray, np.ndarray]:
    """The authorized-recall corpus with documents.npy and queries.npy; query rows repeated per case."""
    directory = tmp / "recall-npy"
    shutil.copytree(shipped("authorized-recall"), directory)
    fx = load_fixture(directory)
    n_queries = len(json.loads((directory / "queries.json").read_text())["queries"])
    docs, queries = rows(len(fx.documents), 3), rows(n_queries, 4)
    np.save(directory / "documents.npy", docs)
    np.save(directory / "queries.npy", queries)
    return directory, docs, np.repeat(queries, len(fx.cases) // n_queries, axis=0)


def exact_top(fx: Fixture, i: int, docs: np.ndarray, query: np.ndarray, k: int) -> list[tuple[str, float]]:
    """Numpy's answer: eligible documents with a positive cosine, best first, ties by fixture order."""
    unit = docs / np.linalg.norm(docs, axis=1, keepdims=True)
    scores = np.round(unit @ (query / np.linalg.norm(query)), TIE_DIGITS)
    allowed = eligible_ids(((d.id, d.metadata) for d in fx.documents), fx.policy_filter(fx.cases[i]))
    ranked = sorted((-scores[r], r) for r, d in enumerate(fx.documents) if d.id in allowed and scores[r] > 0)
    return [(fx.documents[r].id, -s) for s, r in ranked[:k]]


def assert_reference_is_exact(doc: dict[str, Any], name: str, path: Path, docs: np.ndarray,
                              queries: np.ndarray) -> None:
    fx = load_fixture(path)
    threshold = fx.min_score if fx.min_score is not None else 0.25
    got = {r["case"]: r for r in doc["cases"]
           if (r["fixture"], r["backend"], r["strategy"]) == (name, "reference", "pre_filter")}
    assert len(got) == len(fx.cases)
    for i, case in enumerate(fx.cases):
        want = exact_top(fx, i, docs, queries[i], 10)
        assert got[case.id]["k"]["10"]["ids"] == [d for d, _ in want], case.id
        assert got[case.id]["selected"] == (want[0][0] if want and want[0][1] >= threshold else None), case.id


def compare(*args: str, backends: Sequence[str] = ()) -> tuple[Result, dict[str, Any]]:
    """``compare ARGS`` over ``backends`` (default: every embedded one) into the JSON file the last arg names."""
    out = Path(args[-1])
    chosen = [arg for name in backends for arg in ("-b", name)] if backends else EVERY
    result = runner.invoke(app, ["compare", *args[:-1], *chosen, "--json", str(out)])
    assert "Traceback" not in result.output, result.output
    return result, json.loads(out.read_text()) if out.exists() else {}


def assert_agree(result: Result, doc: dict[str, Any], fixtures: int, backends: int = len(EMBEDDED)) -> None:
    """Every backend ran, and each gave the reference's verdicts (exit 0: no leak, no difference)."""
    assert result.exit_code == 0, result.output
    assert doc["complete"] and doc["problems"] == []
    assert [b["status"] for b in doc["backends"]] == ["ok"] * backends * fixtures
    assert result.output.count("identical to reference") == (backends - 1) * fixtures


@pytest.mark.slow  # about 40 s: three fixtures through every embedded backend
def test_fixture_vectors_inline_and_npy_give_the_references_verdicts(tmp_path: Path) -> None:
    made = [lab_with_vectors(tmp_path, "inline"), lab_with_vectors(tmp_path, "npy"), corpus_with_vectors(tmp_path)]
    result, doc = compare(*(str(p) for p, _, _ in made), str(tmp_path / "out.json"))
    assert_agree(result, doc, len(made))
    assert doc["settings"]["vectors"] == doc["settings"]["embedding"] == "fixture"
    assert [(f["vectors"], f["dim"]) for f in doc["fixtures"]] == [("fixture", DIM)] * len(made)
    assert "vectors fixture (12-d)" in result.output
    for (path, docs, queries), info in zip(made, doc["fixtures"], strict=True):
        assert_reference_is_exact(doc, info["name"], path, docs, queries)


@pytest.fixture
def embed_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A module of the user's, on sys.path for this test only."""
    name = "fp_test_own_vectors"
    (tmp_path / f"{name}.py").write_text(EMBED_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    yield name
    sys.modules.pop(name, None)


@pytest.mark.slow  # about 8 s: two fixtures through three backends
def test_embedding_function_gives_the_references_verdicts(tmp_path: Path, embed_module: str) -> None:
    """The two small shipped fixtures (the guide's example, docs/guides/your-own-vectors.md, runs the corpus), on
    an exact engine, an approximate one and a SQL one: the function's vectors reach every backend as the fixture's
    do, which the test above runs through every embedded backend."""
    paths = [shipped("freshness-lab.json"), shipped("adversarial.json")]
    result, doc = compare(*map(str, paths), "--embedding", f"{embed_module}:embed", str(tmp_path / "out.json"),
                          backends=("reference", "qdrant-edge", "chroma", "duckdb"))
    assert_agree(result, doc, len(paths), backends=4)
    label = f"embedding:{embed_module}:embed"
    assert doc["settings"]["vectors"] == label and [f["vectors"] for f in doc["fixtures"]] == [label, label]
    module = sys.modules[embed_module]
    assert [kind for kind, _ in module.CALLS] == ["query", "document"] * len(paths)  # queries first, with kind=
    for path, info in zip(paths, doc["fixtures"], strict=True):
        fx = load_fixture(path)
        docs = np.array(module.embed([d.text for d in fx.documents], "document"))
        queries = np.array(module.embed([c.query for c in fx.cases], "query"))
        assert_reference_is_exact(doc, info["name"], path, docs, queries)


@pytest.mark.slow  # about 10 s: every embedded backend, twice
def test_default_is_unchanged_on_the_shipped_fixture(tmp_path: Path) -> None:
    """With nothing given: the case rows, summary and verdicts the code before own vectors wrote; fields only added."""
    out = tmp_path / "out.json"
    result = runner.invoke(app, ["compare", str(shipped("freshness-lab.json")), "--json", str(out)])
    assert result.exit_code == 0, result.output
    doc, before = json.loads(out.read_text()), json.loads(GOLDEN.read_text())
    # Stores joined the default backends since (milvus, duckdb): their rows are added (and agree: exit 0), the
    # others' unchanged.
    known = set(before["settings"]["backends"])
    assert doc["settings"]["backends"] == embedded() and known <= set(embedded())
    for key in ("cases", "summary", "problems", "latency"):
        rows = [row for row in doc[key] if not isinstance(row, dict) or row.get("backend", "reference") in known]
        assert rows == before[key], key
    for key in ("schema", "command", "complete"):
        assert doc[key] == before[key], key
    doc["settings"]["backends"] = before["settings"]["backends"]
    for now, then in [(doc["settings"], before["settings"]), *zip(doc["fixtures"], before["fixtures"], strict=True)]:
        assert {k: now[k] for k in then} == then
        assert {k: v for k, v in now.items() if k not in then and k not in ("path", "timings")} == {"vectors": "tfidf"}
    assert ", vectors " not in result.output  # the header names vectors only when they are not TF-IDF


@pytest.mark.slow  # about 10 s: two sweeps
def test_sweep_uses_fixture_vectors_and_an_embedding_function(tmp_path: Path, embed_module: str) -> None:
    path, _, _ = lab_with_vectors(tmp_path, "npy")
    small = ["--no-plots", "--latency-samples", "0", "-b", "reference", "-b", "qdrant-edge"]
    result = runner.invoke(app, ["sweep", str(path), *small, "--out", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "a" / "report.json").read_text())
    assert report["settings"]["vectors"] == report["fixtures"][0]["vectors"] == "fixture"
    generated = ["-n", "400", "--selectivity", "0.01,0.1", "--cases-per-level", "3"]
    result = runner.invoke(app, ["sweep", *generated, *small, "--out", str(tmp_path / "b"),
                                 "--embedding", f"{embed_module}:plain"])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "b" / "report.json").read_text())
    assert report["fixtures"][0]["vectors"] == f"embedding:{embed_module}:plain" and report["fixtures"][0]["dim"] == 12
    assert report["problems"] == []


def test_inline_and_npy_carry_the_same_vectors_as_unit_float32_rows(tmp_path: Path) -> None:
    inline, docs, _ = lab_with_vectors(tmp_path, "inline")
    from_npy = load_fixture(lab_with_vectors(tmp_path, "npy")[0])
    carried = load_fixture(inline).vectors
    assert carried is not None and from_npy.vectors is not None and carried.origin == "inline"
    assert from_npy.vectors.origin == "docs.npy, queries.npy"
    checked = runner.invoke(app, ["check", str(inline)])
    assert checked.exit_code == 0 and "6 documents, 5 cases, 0 malformed, vectors 12-d (inline)" in checked.output
    assert carried.documents.dtype == np.float32 and np.allclose(np.linalg.norm(carried.documents, axis=1), 1)
    np.testing.assert_allclose(carried.documents, docs / np.linalg.norm(docs, axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(from_npy.vectors.queries, carried.queries, rtol=1e-6)
    prepared = prepare(load_fixture(inline), vectors_on_disk=True)  # the sweep's way: vectors in a file
    assert prepared.embedding_kind == "fixture" and prepared.dim == DIM
    np.testing.assert_array_equal(np.asarray(prepared.doc_vectors), carried.documents)


def test_npy_files_are_part_of_the_fixtures_sha256(tmp_path: Path) -> None:
    path, docs, _ = lab_with_vectors(tmp_path, "npy")
    before = load_fixture(path).sha256
    np.save(tmp_path / "docs.npy", docs * 2)  # the same directions, other bytes
    assert load_fixture(path).sha256 != before
    assert load_fixture(shipped("freshness-lab.json")).sha256 == json.loads(GOLDEN.read_text())["fixtures"][0]["sha256"]


def test_a_corpus_carries_vectors_inline_too(tmp_path: Path) -> None:
    directory, docs, per_case = corpus_with_vectors(tmp_path)
    from_npy = load_fixture(directory).vectors
    for name in ("documents.npy", "queries.npy"):
        (directory / name).unlink()
    corpus, queries = (json.loads((directory / name).read_text()) for name in ("corpus.json", "queries.json"))
    for record, vector in zip(corpus["datasets"], docs, strict=True):
        record["vector"] = vector.tolist()
    for record, vector in zip(queries["queries"], per_case[::len(per_case) // len(queries["queries"])], strict=True):
        record["vector"] = vector.tolist()
    (directory / "corpus.json").write_text(json.dumps(corpus))
    (directory / "queries.json").write_text(json.dumps(queries))
    inline = load_fixture(directory).vectors
    assert inline is not None and from_npy is not None and inline.origin == "inline"
    np.testing.assert_array_equal(inline.documents, from_npy.documents)
    np.testing.assert_array_equal(inline.queries, from_npy.queries)


def test_a_python_callable_and_the_conformance_fixtures(tmp_path: Path) -> None:
    from filterproof.conformance.worlds.shipped import Settings, reference_runs
    from filterproof.conformance.worlds.shipped import shipped as conformance_fixture

    def embed(texts: list[str]) -> np.ndarray:
        return np.array([[len(t), t.count("e") + 1, t.count(" ")] for t in texts], dtype=float)

    prepared = prepare(load_fixture(shipped("freshness-lab.json")), embedding=embed)
    assert prepared.embedding_kind.startswith("embedding:test_own_vectors:") and prepared.dim == 3
    assert conformance_fixture("freshness-lab.json").embedding_kind == "tfidf"  # nothing given: as always
    path, _, _ = lab_with_vectors(tmp_path, "inline")
    assert reference_runs(prepare(load_fixture(path)), Settings())  # the suite's runner, on the fixture's vectors
