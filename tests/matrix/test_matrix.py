"""``filterproof matrix``: the answer keys, the measured verdicts, the known findings, and the command end to end.

A silent verdict (``ignored``: more documents than the filter admits; ``wrong``: other
or fewer documents) is what an application cannot see. Every (integration, probe)
must be free of them, except the findings listed in ``FINDINGS``, each an
``xfail(strict=True)`` naming the integration, its version and the operator (README,
"Integration findings"): when an upgrade fixes one, the strict xfail fails and the
entry goes. ``test_verdicts_match_the_committed_matrix`` holds the whole measured
matrix (``bench/results/matrix.json``, shown in the README) to the live run when the
installed versions are the ones it was measured on.
"""

from __future__ import annotations

import json
import logging
import warnings
from collections.abc import Iterator, Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version
from typer.testing import CliRunner

from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or
from filterproof.matrix.probes import PROBES
from filterproof.matrix.run import Matrix, classify, run_matrix
from filterproof.matrix.targets import TARGETS
from support.paths import ROOT

COMMITTED = ROOT / "bench" / "results" / "matrix.json"


def installed(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


FINDINGS: dict[tuple[str, str], str] = {
    ("langchain-chroma/native", "readd"): "langchain-chroma {langchain-chroma}: add_texts with an existing id merges "
                                          "metadata (Chroma upsert): a key left out survives",
    ("langchain-chroma/translator", "readd"): "langchain-chroma {langchain-chroma}: add_texts with an existing id "
                                              "merges metadata (Chroma upsert): a key left out survives",
    ("llamaindex-chroma/MetadataFilters", "readd"): "llama-index-vector-stores-chroma "
                                                    "{llama-index-vector-stores-chroma}: add of an existing node id is "
                                                    "silently ignored (Chroma add): the old metadata stays",
    ("llamaindex-chroma/MetadataFilters", "null_vs_empty"): "llama-index-vector-stores-chroma "
                                                            "{llama-index-vector-stores-chroma}: a None metadata value "
                                                            "is written as '', so == '' matches it",
    ("llamaindex-qdrant/MetadataFilters", "or_empty"): "llama-index-vector-stores-qdrant "
                                                       "{llama-index-vector-stores-qdrant}: a nested MetadataFilters "
                                                       "with no filters is skipped (its clause vanishes)",
    ("llamaindex-lancedb/MetadataFilters", "sql_value"): "llama-index-vector-stores-lancedb "
                                                          "{llama-index-vector-stores-lancedb}: a string value is "
                                                          "pasted into the SQL filter unescaped (x' OR '1'='1)",
    ("llamaindex-pgvector/MetadataFilters", "sql_value"): "llama-index-vector-stores-postgres "
                                                           "{llama-index-vector-stores-postgres}: filter values are "
                                                           "pasted into SQL text unescaped",
    ("llamaindex-pgvector/MetadataFilters", "or_empty"): "llama-index-vector-stores-postgres "
                                                          "{llama-index-vector-stores-postgres}: an empty nested "
                                                          "MetadataFilters becomes SQLAlchemy's or_() of nothing",
    ("llamaindex-pgvector/MetadataFilters", "readd"): "llama-index-vector-stores-postgres "
                                                       "{llama-index-vector-stores-postgres}: add of an existing node "
                                                       "id inserts a second row; the old one still matches",
    ("langchain-qdrant/native", "or_empty"): "qdrant-client {qdrant-client} (as the server): Filter(should=[]) is no "
                                             "constraint; langchain-qdrant passes it through",
    ("langchain-qdrant/translator", "or_empty"): "langchain-community {langchain-community} QdrantTranslator renders "
                                                 "an OR of nothing as Filter(should=[]): no constraint in Qdrant",
    ("llamaindex-milvus/MetadataFilters", "is_empty"): "llama-index-vector-stores-milvus "
                                                       "{llama-index-vector-stores-milvus}: IS_EMPTY is rendered "
                                                       "array_length(key) == 0, which a string value satisfies too "
                                                       "(bench/repro/llamaindex_milvus_filters.py)",
    ("haystack-qdrant/filters", "in_empty"): "qdrant-haystack {qdrant-haystack}: in [] is written Filter(should=[]), "
                                             "which Qdrant reads as no constraint "
                                             "(bench/repro/haystack_qdrant_empty_in.py)",
    ("haystack-qdrant/filters", "not_all"): "qdrant-haystack {qdrant-haystack}: NOT [A, B] is written must_not=[A, B], "
                                            "neither A nor B, where Haystack defines not (A and B) "
                                            "(bench/repro/haystack_qdrant_not.py)",
    ("haystack-chroma/filters", "readd"): "chroma-haystack {chroma-haystack}: write_documents(policy=OVERWRITE) "
                                          "merges the new metadata into the old "
                                          "(bench/repro/haystack_chroma_overwrite_merges.py)",
    ("haystack-milvus/filters", "is_empty"): "milvus-haystack {milvus-haystack}: == None is written `owner == None`, "
                                             "which Milvus Lite matches with nothing, where Haystack means missing or "
                                             "null (findings/integration.md#finding-14)",
    ("llamaindex-milvus/MetadataFilters", "not_all"): "llama-index-vector-stores-milvus "
                                                      "{llama-index-vector-stores-milvus}: FilterCondition.NOT joins "
                                                      "the parts with ' not ', so NOT of one filter is that filter "
                                                      "(bench/repro/llamaindex_milvus_not.py)",
}
if Version(installed("lancedb")) >= Version("0.41"):  # lancedb 0.40 refused to read the two rows (raises: loud)
    FINDINGS[("llamaindex-lancedb/MetadataFilters", "readd")] = (
        "llama-index-vector-stores-lancedb {llama-index-vector-stores-lancedb}: add of an existing node id appends "
        "a second row; the old one still matches (findings/integration.md#finding-18)")


def finding(target: str, probe: str) -> str | None:
    reason = FINDINGS.get((target, probe))
    if reason is None:
        return None
    for package in ("langchain-chroma", "langchain-community", "qdrant-client", "llama-index-vector-stores-chroma",
                    "llama-index-vector-stores-qdrant", "llama-index-vector-stores-lancedb",
                    "llama-index-vector-stores-postgres", "llama-index-vector-stores-milvus", "qdrant-haystack",
                    "chroma-haystack", "milvus-haystack"):
        reason = reason.replace("{" + package + "}", installed(package))
    return f"finding, operator {probe}: {reason}"


@pytest.fixture(scope="module")
def matrix() -> Iterator[Matrix]:
    logging.disable(logging.WARNING)  # the integrations log their own fallbacks (MMR); the verdicts say enough
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield run_matrix()
    finally:
        logging.disable(logging.NOTSET)


def _compare(op: str, have: Any, want: Any) -> bool:
    if op == "eq":
        return have == want and type(have) is type(want)
    if op == "in":
        return not isinstance(have, list) and have in want
    if op == "contains":
        return isinstance(have, list) and want in have
    if op == "contains_any":
        return isinstance(have, list) and any(w in have for w in want)
    if op in ("lte", "gt"):  # numbers, or ISO date strings (whose text order is the date order)
        if isinstance(have, bool) or type(have) is not type(want):
            return False
        return have <= want if op == "lte" else have > want
    raise ValueError(f"no probe uses {op!r}")


def matches(expr: Expr, meta: Mapping[str, Any]) -> bool:
    """The probe semantics (``matrix.probes``' docstring) in Python: the answer keys' check."""
    match expr:
        case Cond("is_empty", key):
            return meta.get(key) is None
        case Cond(op, key, value):
            return key in meta and meta[key] is not None and _compare(op, meta[key], value)
        case And(parts):
            return all(matches(p, meta) for p in parts)
        case Or(parts):
            return any(matches(p, meta) for p in parts)
        case Not(part):
            return not matches(part, meta)
    raise TypeError(f"no probe uses {expr!r}")


def test_every_answer_key_agrees_with_the_probe_semantics() -> None:
    for probe in PROBES:
        assert {i for i, m in probe.final_docs().items() if matches(probe.expr, m)} == probe.expected, probe.name


def test_classify() -> None:
    assert classify({"a"}, {"a"}) == "works"
    assert classify({"a", "b"}, {"a"}) == "ignored"
    assert classify(set(), {"a"}) == "wrong"
    assert classify({"b"}, {"a"}) == "wrong"
    assert classify({"a"}, set()) == "ignored"


CELLS = [pytest.param(t.name, p.name, id=f"{t.name}-{p.name}",
                      marks=[pytest.mark.xfail(strict=True, reason=finding(t.name, p.name))]
                      if finding(t.name, p.name) else [])
         for t in TARGETS for p in PROBES]


@pytest.mark.slow
@pytest.mark.parametrize(("target", "probe"), CELLS)
def test_no_silent_verdict(matrix: Matrix, target: str, probe: str) -> None:
    """No search path returns a plausible wrong answer: works, or fails loudly (raises / unsupported)."""
    if target in matrix.skipped:
        pytest.skip(matrix.skipped[target])
    cells = [c for c in matrix.cells if (c.target, c.probe) == (target, probe)]
    assert cells, f"no cell for {target} {probe}"
    silent = [(c.path, c.verdict, c.got, c.expected) for c in cells if c.verdict in ("ignored", "wrong")]
    assert not silent, f"{target} {probe}: (path, verdict, returned, expected) {silent}"


@pytest.mark.slow
@pytest.mark.parametrize("target", [t.name for t in TARGETS])
def test_verdicts_match_the_committed_matrix(matrix: Matrix, target: str) -> None:
    """Per integration that ran here, on the package versions the committed matrix was measured on."""
    if target in matrix.skipped:
        pytest.skip(matrix.skipped[target])
    committed = json.loads(COMMITTED.read_text())
    versions = next(t for t in TARGETS if t.name == target).versions()
    if any(committed["versions"].get(package) != found for package, found in versions.items()):
        pytest.skip(f"{target}: installed {versions}, committed {committed['versions']}: regenerate with "
                    "`filterproof matrix --json bench/results/matrix.json` and scripts/readme_matrix.py")
    want = {(c["probe"], c["path"]): c["verdict"] for c in committed["cells"] if c["target"] == target}
    got = {(c.probe, c.path): c.verdict for c in matrix.cells if c.target == target}
    assert got == want


def test_the_command_end_to_end(tmp_path: Path) -> None:
    pytest.importorskip("llama_index.vector_stores.qdrant")
    from filterproof.cli import app

    out, md = tmp_path / "m.json", tmp_path / "m.md"
    result = CliRunner().invoke(app, ["matrix", "--target", "llamaindex-qdrant", "--probe", "eq", "--probe",
                                      "or_empty", "--json", str(out), "--markdown", str(md)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    verdicts = {(c["probe"], c["path"]): c["verdict"] for c in data["cells"]}
    want = {("eq", p): "works" for p in data["paths"]} | {("or_empty", p): "ignored" for p in data["paths"]}
    assert verdicts == want
    assert data["versions"]["llama-index-vector-stores-qdrant"] == installed("llama-index-vector-stores-qdrant")
    assert "| llamaindex-qdrant/MetadataFilters | all 4 | ok | **IGNORED** |" in md.read_text()
    assert "IGNORED" in result.output
    bad = CliRunner().invoke(app, ["matrix", "--probe", "nope"])
    assert bad.exit_code == 2 and "unknown probe" in bad.output
