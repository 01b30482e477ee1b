"""The ``selfquery-*`` targets' recorded findings: each committed minimal world replayed as a strict xfail, the
retriever's own translator pick, and each reproducer run alone (a module of its own, so that its subprocesses and the
seeded runs of ``test_fuzz_selfquery.py`` go to two workers)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("langchain_classic.retrievers.self_query.base")
pytest.importorskip("lark")

from filterproof.fuzz.targets.selfquery_stores import SelfQueryQdrant
from support.fuzz_known import known_cases, still_fails
from support.paths import ROOT
from support.reproducers import Result, run_scripts, selected
from test_fuzz_selfquery import KNOWN, REPRO


@pytest.mark.parametrize("path", known_cases(KNOWN))
def test_a_known_finding_still_holds_on_the_installed_release(path: Path) -> None:
    """Each recorded finding's minimal world: fails now (the xfail); a fixed release makes it pass (XPASS, red)."""
    still_fails(path)


@pytest.mark.xfail(strict=True, raises=ImportError, reason="finding: langchain-classic 1.0.8's SelfQueryRetriever "
                   "picks no translator with langchain-community 0.4.2 installed: _get_builtin_translator imports "
                   "DatabricksVectorSearch from langchain_community.vectorstores, which 0.4.2 no longer has "
                   f"(ImportError for every store; {REPRO.format('builtin_translator')})")
def test_the_retriever_picks_its_translator() -> None:
    from langchain_classic.retrievers.self_query.base import SelfQueryRetriever
    from langchain_core.runnables import RunnableLambda

    qdrant = SelfQueryQdrant()
    try:
        qdrant.world({"d0": {"s": "a"}})
        retriever = SelfQueryRetriever(query_constructor=RunnableLambda(lambda _: None), vectorstore=qdrant.store)
    finally:
        qdrant.close()
    assert type(retriever.structured_query_translator).__name__ == "QdrantTranslator"


ENGINE = ROOT / "bench" / "repro" / "fuzz_milvus_mixed_json.py"


@pytest.fixture(scope="module")
def reproduced(request: pytest.FixtureRequest) -> dict[str, Result]:
    """The selected reproducers below, in one interpreter (``support.reproducers``): each alone, 3 to 20 s; the
    pgvector one only with ``pgserver`` (else its test skips), the engine's only with Milvus Lite."""
    names = selected(request, "test_the_reproducer_runs_alone", "name")
    env = {}
    if "pgvector_contain" in names and importlib.util.find_spec("pgserver"):
        from filterproof.adapters.bridges.pgvector import sqlalchemy_url
        from filterproof.servers.postgres import shared_server

        env["PGVECTOR_URL"] = sqlalchemy_url(shared_server().dsn, "psycopg")
    elif "pgvector_contain" in names:
        names.remove("pgvector_contain")
    scripts = {name: ROOT / REPRO.format(name) for name in names}
    if selected(request, "test_the_engine_reproducer_runs_alone") and importlib.util.find_spec("milvus_lite"):
        scripts["engine"] = ENGINE
    # text_as_date in a child of its own: chromadb.EphemeralClient() is one per process (chromadb's shared System
    # cache), so a second chroma script in the child would find the first's "fuzz" collection and its documents
    # (quotes_stripped, run after text_as_date, answered P: ['d0'] where alone it answers []).
    return run_scripts(scripts, env=env, alone={"text_as_date"})


@pytest.mark.slow  # a standalone reproducer in a child interpreter (its in-process replay stays quick)
@pytest.mark.parametrize("name", ["escapes_kept", "quotes_stripped", "text_as_date", "date_unconverted",
                                  "qdrant_float_match", "milvus_pasted_text", "pgvector_contain",
                                  "builtin_translator"])
def test_the_reproducer_runs_alone(name: str, reproduced: dict[str, Result]) -> None:
    if name.startswith("pgvector"):
        pytest.importorskip("pgserver")
    done = reproduced[name]
    failed = "VIOLATED" in done.stdout or any(word in done.stderr for word in ("Error:", "Exception:"))
    assert done.returncode == 1 and failed, done.output
    assert done.filterproof is False, done.output
    assert "filterproof" not in (ROOT / REPRO.format(name)).read_text().split('"""', 2)[2]


@pytest.mark.slow  # a standalone reproducer in a child interpreter (its in-process replay stays quick)
def test_the_engine_reproducer_runs_alone(reproduced: dict[str, Result]) -> None:
    """Milvus Lite's evaluator switch met through MilvusTranslator, with pymilvus alone: ``A or B`` loses a row of
    ``B`` once a key's values (or a literal) are of two types."""
    pytest.importorskip("milvus_lite")
    done = reproduced["engine"]
    assert done.returncode == 1 and "A or B lost null" in done.stdout, done.output
    assert done.filterproof is False, done.output
    assert "filterproof" not in ENGINE.read_text().split('"""', 2)[2]
