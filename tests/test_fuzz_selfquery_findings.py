"""The ``selfquery-*`` targets' recorded findings: each committed minimal world replayed as a strict xfail, the
retriever's own translator pick, and each reproducer run alone (a module of its own, so that its subprocesses and the
seeded runs of ``test_fuzz_selfquery.py`` go to two workers)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("langchain_classic.retrievers.self_query.base")
pytest.importorskip("lark")

from filterproof.fuzz.targets.selfquery_stores import SelfQueryQdrant
from fuzz_known import known_cases, still_fails
from test_fuzz_selfquery import KNOWN, REPRO

ROOT = Path(__file__).resolve().parents[1]


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


@pytest.mark.parametrize("name", ["escapes_kept", "quotes_stripped", "text_as_date", "date_unconverted",
                                  "qdrant_float_match", "milvus_pasted_text", "pgvector_contain",
                                  "builtin_translator"])
def test_the_reproducer_runs_alone(name: str) -> None:
    env = dict(os.environ)
    if name.startswith("pgvector"):
        pytest.importorskip("pgserver")
        from filterproof.adapters.bridges.pgvector import sqlalchemy_url
        from filterproof.servers.postgres import shared_server

        env["PGVECTOR_URL"] = sqlalchemy_url(shared_server().dsn, "psycopg")
    done = subprocess.run([sys.executable, str(ROOT / REPRO.format(name))], capture_output=True, text=True,
                          timeout=120, check=False, env=env)
    failed = "VIOLATED" in done.stdout or any(word in done.stderr for word in ("Error:", "Exception:"))
    assert done.returncode == 1 and failed, done.stdout + done.stderr
    assert "filterproof" not in (ROOT / REPRO.format(name)).read_text().split('"""', 2)[2]


def test_the_engine_reproducer_runs_alone() -> None:
    """Milvus Lite's evaluator switch met through MilvusTranslator, with pymilvus alone: ``A or B`` loses a row of
    ``B`` once a key's values (or a literal) are of two types."""
    pytest.importorskip("milvus_lite")
    path = ROOT / "bench" / "repro" / "fuzz_milvus_mixed_json.py"
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1 and "A or B lost null" in done.stdout, done.stdout + done.stderr
    assert "filterproof" not in path.read_text().split('"""', 2)[2]
