"""Own vectors that cannot be used: one line naming the file, the record and the field (or the callable), exit 2."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner, Result

from filterproof.cli import app
from filterproof.fixtures import shipped
from support.one_line import one_line_error

DIM = 12
runner = CliRunner()

BAD_FUNCTIONS = '''
import numpy as np

NOT_A_FUNCTION = 3


def good(texts):
    return np.random.default_rng(len(texts)).normal(size=(len(texts), 12))


def flat(texts):
    return np.ones(len(texts))


def one_short(texts):
    return np.ones((len(texts) - 1, 12))


def nan(texts):
    out = good(texts)
    out[-1, 3] = np.nan
    return out


def zero(texts, kind):
    out = good(texts)
    if kind == "document":
        out[2] = 0
    return out


def wider_documents(texts, kind):
    return np.ones((len(texts), 12 if kind == "query" else 16))


def words(texts):
    return [["x"] * 12 for _ in texts]


def ragged(texts):
    return [[1.0] * (12 + i) for i, _ in enumerate(texts)]


def raises(texts):
    raise RuntimeError("no model here")
'''


def invoke(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output, result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    return result


def inline_lab() -> dict[str, Any]:
    doc = json.loads(shipped("freshness-lab.json").read_text())
    rng = np.random.default_rng(5)
    for record in [*doc["documents"], *doc["cases"]]:
        record["vector"] = rng.normal(size=DIM).tolist()
    return doc


def npy_lab(tmp: Path) -> dict[str, Any]:
    doc = json.loads(shipped("freshness-lab.json").read_text())
    rng = np.random.default_rng(6)
    np.save(tmp / "docs.npy", rng.normal(size=(len(doc["documents"]), DIM)))
    np.save(tmp / "queries.npy", rng.normal(size=(len(doc["cases"]), DIM)))
    doc["vectors"] = {"documents": "docs.npy", "queries": "queries.npy"}
    return doc


def put(doc: dict[str, Any], record: str, i: int, vector: Any) -> None:
    doc[record][i]["vector"] = vector


def drop(doc: dict[str, Any], record: str) -> None:
    for item in doc[record]:
        item.pop("vector")


def save(name: str, array: Any) -> Callable[[Path], None]:
    return lambda tmp: np.save(tmp / name, array)


def npz(tmp: Path) -> None:
    """An .npz archive under the .npy name (numpy.savez given a path would add .npz to it)."""
    with (tmp / "docs.npy").open("wb") as out:
        np.savez(out, a=np.ones((6, DIM)))


INLINE: list[tuple[Callable[[dict[str, Any]], None], tuple[str, ...]]] = [
    (lambda d: d["documents"][3].pop("vector"), ("documents[3] (id 'keys-public-v1')", "'vector'", "missing")),
    (lambda d: put(d, "documents", 2, [1.0] * 5), ("documents[2]", "'vector'", "has 5 numbers, expected 12")),
    (lambda d: put(d, "documents", 1, [float("nan")] * DIM), ("documents[1]", "'vector'", "not finite")),
    (lambda d: put(d, "cases", 4, [1.0, float("inf")] * 6), ("cases[4] (id 'no-match')", "'vector'", "not finite")),
    (lambda d: put(d, "documents", 4, [0] * DIM), ("documents[4]", "'vector'", "all zeros")),
    (lambda d: put(d, "cases", 0, [0.0] * DIM), ("cases[0] (id 'superseded')", "'vector'", "all zeros")),
    (lambda d: put(d, "documents", 0, [1.0] * 11 + ["x"]), ("documents[0]", "'vector'", "element 11 is 'x'")),
    (lambda d: put(d, "documents", 0, [True] * DIM), ("documents[0]", "'vector'", "element 0 is True")),
    (lambda d: put(d, "documents", 0, {"a": 1}), ("documents[0]", "'vector'", "expected a list of numbers")),
    (lambda d: put(d, "documents", 0, []), ("documents[0]", "'vector'", "empty")),
    (lambda d: drop(d, "cases"), ("cases[0]", "'vector'", "the documents carry vectors, so every case needs one")),
    (lambda d: drop(d, "documents"), ("documents[0]", "'vector'", "so every document needs one")),
    (lambda d: [c.update(vector=[1.0] * 4) for c in d["cases"]], ("cases[0]", "4-d", "documents' have 12")),
]


@pytest.mark.parametrize(("mutate", "fragments"), INLINE)
def test_inline_vectors(tmp_path: Path, mutate: Callable[[dict[str, Any]], None], fragments: tuple[str, ...]) -> None:
    doc = inline_lab()
    mutate(doc)
    path = tmp_path / "fx.json"
    path.write_text(json.dumps(doc))
    for command in ("check", "compare"):
        one_line_error(invoke(command, str(path)), str(path), *fragments)


NPY: list[tuple[Callable[[Path], None], Callable[[dict[str, Any]], None], tuple[str, ...]]] = [
    (save("docs.npy", np.ones((5, DIM))), lambda d: None, ("docs.npy: array", "shape (5, 12)", "expected (6, d)")),
    (save("docs.npy", np.ones(6)), lambda d: None, ("docs.npy: array", "shape (6,)")),
    (save("queries.npy", np.ones((5, 4))), lambda d: None, ("queries.npy: array", "4-d", "documents' have 12")),
    (lambda t: (t / "docs.npy").write_text("hello"), lambda d: None, ("docs.npy: file", "not an .npy file")),
    (lambda t: None, lambda d: d["vectors"].update(documents="nope.npy"),
     ("fx.json: vectors: field 'documents'", "cannot read", "nope.npy")),
    (save("docs.npy", np.array([[None] * DIM] * 6)), lambda d: None, ("docs.npy: file", "not a readable .npy")),
    (save("docs.npy", np.array([["a"] * DIM] * 6)), lambda d: None, ("docs.npy: array", "expected numbers")),
    (save("docs.npy", np.eye(6, DIM) * [[1], [1], [np.nan], [1], [1], [1]]), lambda d: None,
     ("docs.npy: row 2 (documents[2] (id 'keys-private-v1'))", "not finite")),
    (save("queries.npy", np.eye(5, DIM) * [[1], [1], [1], [0], [1]]), lambda d: None,
     ("queries.npy: row 3 (cases[3] (id 'not-yet-effective'))", "all zeros")),
    (npz, lambda d: None, ("docs.npy: file", ".npz archive")),
    (lambda t: None, lambda d: put(d, "documents", 0, [1.0] * DIM),
     ("fx.json: documents[0]", "'vector'", "given inline and in", "docs.npy")),
    (lambda t: None, lambda d: d["vectors"].pop("queries"), ("fx.json: cases[0]", "'vector'", "vectors.queries")),
    (lambda t: None, lambda d: d["vectors"].update(doc="x.npy"), ("fx.json: vectors: field 'doc'", "unknown field")),
]


@pytest.mark.parametrize(("files", "mutate", "fragments"), NPY)
def test_npy_vectors(tmp_path: Path, files: Callable[[Path], None], mutate: Callable[[dict[str, Any]], None],
                     fragments: tuple[str, ...]) -> None:
    doc = npy_lab(tmp_path)
    files(tmp_path)
    mutate(doc)
    path = tmp_path / "fx.json"
    path.write_text(json.dumps(doc))
    for command in ("check", "compare"):
        one_line_error(invoke(command, str(path)), *fragments)


def test_corpus_vectors(tmp_path: Path) -> None:
    directory = tmp_path / "recall"
    shutil.copytree(shipped("authorized-recall"), directory)
    np.save(directory / "documents.npy", np.ones((40, DIM)))
    one_line_error(invoke("check", str(directory)), "queries.json: queries[0]", "'vector'", "put queries.npy")
    np.save(directory / "queries.npy", np.ones((23, DIM)))
    one_line_error(invoke("compare", str(directory)), "queries.npy: array", "shape (23, 12)", "one row per query")


@pytest.fixture
def functions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = "fp_test_bad_vectors"
    (tmp_path / f"{name}.py").write_text(BAD_FUNCTIONS)
    (tmp_path / "fp_test_broken.py").write_text("import fp_no_such_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for module in (name, "fp_test_broken"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    return name


@pytest.mark.parametrize(("function", "fragments"), [
    ("flat", ("embedding function {m}:flat", "returned shape (5,) for 5 query texts", "expected (5, d)")),
    ("one_short", ("{m}:one_short", "shape (4, 12) for 5 query texts")),
    ("nan", ("{m}:nan", "query text 'orbital telescope calibration'", "not finite")),
    ("zero", ("{m}:zero", "document text 'rotation signing key service'", "all zeros")),
    ("wider_documents", ("{m}:wider_documents", "16-d vectors for document texts after 12-d ones")),
    ("words", ("{m}:words", "returned <U1 values", "expected real numbers")),
    ("ragged", ("{m}:ragged", "returned a list that is no array of numbers")),
    ("raises", ("{m}:raises raised RuntimeError on 5 query texts: no model here",)),
    ("NOT_A_FUNCTION", ("--embedding {m}:NOT_A_FUNCTION", "is a int, not a function")),
    ("missing", ("--embedding {m}:missing", "has no 'missing'")),
])
def test_embedding_functions(functions: str, function: str, fragments: tuple[str, ...]) -> None:
    result = invoke("compare", str(shipped("freshness-lab.json")), "-b", "reference", "--embedding",
                    f"{functions}:{function}")
    one_line_error(result, *(f.format(m=functions) for f in fragments))


def test_embedding_specs_and_conflicts(tmp_path: Path, functions: str) -> None:
    lab = str(shipped("freshness-lab.json"))
    one_line_error(invoke("compare", lab, "--embedding", "fp_no_such_module:embed"), "no module named")
    one_line_error(invoke("compare", lab, "--embedding", "fp_test_broken:embed"), "importing fp_test_broken failed",
                   "fp_no_such_dependency")
    for spec in ("bogus", "a:b:c", "mod:", ":fn"):
        one_line_error(invoke("compare", lab, "--embedding", spec), "expected tfidf, svd, fixture, or module:callable")
    one_line_error(invoke("compare", lab, "--embedding", "fixture"), "carries no vectors")
    carried = tmp_path / "fx.json"
    carried.write_text(json.dumps(inline_lab()))
    for spec in ("tfidf", "svd", f"{functions}:good"):
        one_line_error(invoke("compare", str(carried), "--embedding", spec), str(carried), "carries its own vectors",
                       f"--embedding {spec} asks for others")
        one_line_error(invoke("sweep", str(carried), "--embedding", spec, "--out", str(tmp_path / "out")),
                       "carries its own vectors")
    assert invoke("compare", str(carried), "--embedding", "fixture", "-b", "reference").exit_code == 0


def test_a_module_beside_the_user_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The `filterproof` script does not put the current directory on sys.path; --embedding looks there last."""
    (tmp_path / "fp_test_beside.py").write_text(BAD_FUNCTIONS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", os.getcwd())])
    monkeypatch.delitem(sys.modules, "fp_test_beside", raising=False)
    result = invoke("compare", str(shipped("freshness-lab.json")), "-b", "reference", "--embedding",
                    "fp_test_beside:good")
    assert result.exit_code in (0, 1), result.output  # it ran: the verdicts are the random function's affair
    assert "vectors embedding:fp_test_beside:good (12-d)" in result.output
    sys.modules.pop("fp_test_beside", None)
