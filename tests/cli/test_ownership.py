"""Pointed at a store that holds a user's own objects, filterproof writes only into what it created.

Each store here is real and holds a user object named ``docs`` (and, where a default
name could meet one, ``filterproof``): a PostgreSQL server and a ``chroma run`` server
started for the user (not the throwaway ones filterproof starts), a Chroma directory, a
LanceDB directory, a Milvus Lite file, a Qdrant local directory and a directory holding
an ``edge-shard``. Every spelling that names a user object is refused (exit 2, one line
naming it, nothing written); every other spelling runs on objects of filterproof's own;
after each, every user object is byte for byte (or row for row, schema included) what
it was.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from filterproof.cli import app
from support.one_line import one_line_error
from support.paths import FIXTURES
from support.processes import UNUSED_PLUGINS

LAB = str(FIXTURES / "freshness-lab.json")
Snapshot = Callable[[], Any]


def files(root: Path) -> dict[str, str]:
    """Every file under ``root`` with the SHA-256 of its bytes: a directory compared byte for byte."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def compare(spec: str) -> Any:
    return CliRunner().invoke(app, ["compare", LAB, "-b", spec, "--no-cases", "--in-process"])


def refused(result: Any, *what: str) -> None:
    one_line_error(result, *what, "was not created by filterproof", "replace=true")


# -- the user's stores ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def user_postgres() -> Iterator[str]:
    """A PostgreSQL server of the user's (pgvector installed, as a company's would be) with a table ``docs``."""
    pytest.importorskip("psycopg")
    import psycopg

    from filterproof.servers.postgres import PostgresServer

    with PostgresServer.start() as server, psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION vector")
        conn.execute("CREATE TABLE docs (id integer PRIMARY KEY, body text)")
        conn.execute("COMMENT ON TABLE docs IS 'the support team''s articles'")
        conn.execute("INSERT INTO docs VALUES (1, 'refunds'), (2, 'shipping')")
        yield server.dsn


def postgres_snapshot(dsn: str) -> Snapshot:
    import psycopg

    def snapshot() -> Any:
        with psycopg.connect(dsn, autocommit=True) as conn:
            return (conn.execute("SELECT column_name, data_type FROM information_schema.columns "
                                 "WHERE table_name = 'docs' ORDER BY ordinal_position").fetchall(),
                    conn.execute("SELECT * FROM docs ORDER BY id").fetchall(),
                    conn.execute("SELECT obj_description('docs'::regclass, 'pg_class')").fetchall(),
                    conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'docs'").fetchall())
    return snapshot


@pytest.fixture(scope="module")
def user_chroma_server() -> Iterator[str]:
    pytest.importorskip("chromadb")
    from filterproof.adapters.chroma.clients import http_client
    from filterproof.servers.chroma import ChromaServer

    with ChromaServer.start() as server:
        user_collections(http_client(server.url), ("docs",))
        yield server.url


def user_collections(client: Any, names: tuple[str, ...]) -> None:
    for name in names:
        collection = client.create_collection(name, metadata={"team": "support"}, embedding_function=None)
        collection.add(ids=["1", "2"], embeddings=[[1.0, 0.0], [0.0, 1.0]], metadatas=[{"t": "a"}, {"t": "b"}],
                       documents=["refunds", "shipping"])


def chroma_snapshot(client: Callable[[], Any], names: tuple[str, ...]) -> Snapshot:
    def snapshot() -> Any:
        found = {}
        for name in names:
            collection = client().get_collection(name, embedding_function=None)
            got = collection.get(include=["embeddings", "metadatas", "documents"])
            found[name] = (collection.metadata, got["ids"], np.asarray(got["embeddings"]).tolist(),
                           got["metadatas"], got["documents"])
        return found
    return snapshot


@pytest.fixture()
def user_lancedb(tmp_path: Path) -> Path:
    pytest.importorskip("lancedb")
    import lancedb
    import pyarrow as pa

    db = lancedb.connect(tmp_path / "lance")
    for name in ("docs", "filterproof"):
        db.create_table(name, pa.table({"id": [1, 2], "body": ["refunds", "shipping"]}))
    return tmp_path / "lance"


@pytest.fixture()
def user_milvus(tmp_path: Path) -> Iterator[str]:
    pytest.importorskip("pymilvus")
    pytest.importorskip("milvus_lite")
    from pymilvus import MilvusClient

    from filterproof.adapters.milvus.lite import release_lite

    path = str(tmp_path / "user.db")
    client = MilvusClient(path)
    client.create_collection("docs", dimension=2)
    client.insert("docs", [{"id": 1, "vector": [1.0, 0.0], "body": "refunds"},
                           {"id": 2, "vector": [0.0, 1.0], "body": "shipping"}])
    client.close()
    release_lite(os.path.abspath(path))
    yield path
    release_lite(os.path.abspath(path))


def milvus_snapshot(path: str) -> Snapshot:
    def snapshot() -> Any:
        from pymilvus import MilvusClient

        from filterproof.adapters.milvus.lite import release_lite

        client = MilvusClient(path)
        try:
            described = client.describe_collection("docs")
            client.load_collection("docs")  # a reopened Lite file starts with its collections released
            rows = client.query("docs", filter="id >= 0", output_fields=["*"])
            return ([(f["name"], str(f["type"])) for f in described["fields"]], described.get("properties"),
                    sorted((r["id"], r["body"], [round(x, 6) for x in r["vector"]]) for r in rows))
        finally:
            client.close()
            release_lite(os.path.abspath(path))
    return snapshot


@pytest.fixture()
def user_qdrant(tmp_path: Path) -> Path:
    return qdrant_directory(tmp_path / "qdrant", ("docs", "filterproof"))


def qdrant_directory(root: Path, names: tuple[str, ...]) -> Path:
    pytest.importorskip("qdrant_client")
    from qdrant_client import QdrantClient, models

    client = QdrantClient(path=str(root))
    for name in names:
        client.create_collection(name, vectors_config=models.VectorParams(size=2, distance=models.Distance.COSINE))
        client.upsert(name, [models.PointStruct(id=1, vector=[1.0, 0.0], payload={"body": "refunds"})])
    client.close()
    return root


# -- compare: refused where a name meets a user object, run on its own objects elsewhere ---------------------------


def test_pgvector_refuses_the_users_table_and_runs_beside_it(user_postgres: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """``table=docs`` is refused before anything is written; without ``table``, and through the bridges, the run
    works in objects of its own (a fresh table, a fresh database), which it drops."""
    monkeypatch.setenv("PGVECTOR_DSN", user_postgres)
    before = postgres_snapshot(user_postgres)
    expected = before()
    refused(compare("pgvector:table=docs"), "table 'docs'")
    assert before() == expected
    for spec in ("pgvector", "pgvector:table=fp_kept", "langchain-pgvector"):
        result = compare(spec)
        assert result.exit_code == 0, result.output
        assert before() == expected
    import psycopg

    with psycopg.connect(user_postgres, autocommit=True) as conn:
        tables = {r[0] for r in conn.execute("SELECT relname FROM pg_class WHERE relkind = 'r' "
                                             "AND relnamespace = 'public'::regnamespace")}
        databases = {r[0] for r in conn.execute("SELECT datname FROM pg_database")}
    assert tables == {"docs", "fp_kept"}, "a fresh table is dropped after the run; a named one is kept"
    assert databases == {"postgres", "template0", "template1"}, "the bridge's own database is dropped after"


def test_chroma_refuses_the_users_collections_in_a_directory_and_on_a_server(
        tmp_path: Path, user_chroma_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A directory's ``docs`` and a collection that merely has the default name ``filterproof``, and a server's
    ``docs``: each refused; another collection of the same directory and a fresh one on the server run."""
    import chromadb

    from filterproof.adapters.chroma.clients import client_settings, http_client

    path = tmp_path / "chroma"
    user_collections(chromadb.PersistentClient(path=str(path), settings=client_settings()), ("docs", "filterproof"))
    local = chroma_snapshot(lambda: chromadb.PersistentClient(path=str(path), settings=client_settings()),
                            ("docs", "filterproof"))
    remote = chroma_snapshot(lambda: http_client(user_chroma_server), ("docs",))
    expected = local(), remote()
    monkeypatch.setenv("CHROMA_URL", user_chroma_server)
    # Each line names the object and where it is, and the way on: another name, or another path where the name
    # was the default one.
    refused(compare(f"chroma:path={path},collection=docs"), f"collection 'docs' in {path} exists", "collection=NAME")
    refused(compare(f"chroma:path={path}"), f"collection 'filterproof' in {path} exists",
            "another collection=NAME or another path")
    refused(compare("chroma-server:collection=docs"), "chroma-server: collection 'docs' exists")
    for spec in (f"chroma:path={path},collection=ours", "chroma-server"):
        result = compare(spec)
        assert result.exit_code == 0, result.output
    assert (local(), remote()) == expected


def test_lancedb_refuses_the_users_tables_and_replace_is_explicit(user_lancedb: Path) -> None:
    """``table=docs`` and the default name ``filterproof`` are the user's: refused, their files byte for byte
    unchanged; another table of the directory runs; ``replace=true`` takes one over, as the docs warn."""
    before = files(user_lancedb)
    refused(compare(f"lancedb:path={user_lancedb},table=docs"), "table 'docs'")
    refused(compare(f"lancedb:path={user_lancedb}"), "table 'filterproof'")
    assert files(user_lancedb) == before
    assert compare(f"lancedb:path={user_lancedb},table=ours").exit_code == 0
    assert {k: v for k, v in files(user_lancedb).items() if not k.startswith("ours.lance")} == before
    assert compare(f"lancedb:path={user_lancedb},table=docs,replace=true").exit_code == 0
    import lancedb

    assert "tenant" in lancedb.connect(user_lancedb).open_table("docs").schema.names  # replaced, as asked


def test_milvus_refuses_the_users_collection_in_a_lite_file(user_milvus: str) -> None:
    before = milvus_snapshot(user_milvus)
    expected = before()
    refused(compare(f"milvus:uri={user_milvus},collection=docs"), "collection 'docs'")
    assert compare(f"milvus:uri={user_milvus}").exit_code == 0
    assert before() == expected


def test_qdrant_local_refuses_a_users_collection_of_its_default_name(user_qdrant: Path, tmp_path: Path) -> None:
    """qdrant-local keeps one collection, ``filterproof``: a user's collection of that name is refused, its
    storage byte for byte unchanged; a directory holding only other collections runs beside them."""
    before = files(user_qdrant)
    refused(compare(f"qdrant-local:path={user_qdrant}"), f"collection 'filterproof' in {user_qdrant} exists",
            "another path")
    assert {k: v for k, v in files(user_qdrant).items() if k != ".filterproof.lock"} == before
    other = qdrant_directory(tmp_path / "other", ("docs",))
    docs = files(other / "collection" / "docs")
    assert compare(f"qdrant-local:path={other}").exit_code == 0
    assert files(other / "collection" / "docs") == docs


def test_qdrant_edge_refuses_a_users_edge_shard_directory(tmp_path: Path) -> None:
    pytest.importorskip("qdrant_edge")
    root = tmp_path / "edge"
    (root / "edge-shard").mkdir(parents=True)
    (root / "edge-shard" / "notes.txt").write_text("the user's own")
    (root / "keep.txt").write_text("also the user's")
    before = files(root)
    refused(compare(f"qdrant-edge:path={root}"), "edge-shard")
    assert {k: v for k, v in files(root).items() if k != ".filterproof.lock"} == before
    other = tmp_path / "edge2"
    other.mkdir()
    (other / "keep.txt").write_text("the user's")
    assert compare(f"qdrant-edge:path={other}").exit_code == 0
    assert (other / "keep.txt").read_text() == "the user's"


def test_a_writer_opened_on_a_users_object_refuses_before_its_first_call(
        tmp_path: Path, user_lancedb: Path, user_milvus: str, user_qdrant: Path, user_duckdb: Path,
        user_postgres: str) -> None:
    """Opening a writer on a user's object raises ``NotOurs`` at once, not at its first ``reset``: an adapter
    that only checked there would hand a caller that writes before resetting (``upsert``, ``delete``,
    ``update_metadata``) the user's own collection. Found by a mutant of Chroma's writer that skipped the check
    when opened (#44): every ``compare`` and suite run still refused, at ``reset``."""
    import chromadb

    from filterproof.adapters.chroma.clients import client_settings
    from filterproof.adapters.ownership import NotOurs
    from filterproof.adapters.registry import open_backend

    chroma = tmp_path / "chroma"
    user_collections(chromadb.PersistentClient(path=str(chroma), settings=client_settings()), ("docs",))
    specs = [f"chroma:path={chroma},collection=docs", f"lancedb:path={user_lancedb},table=docs",
             f"milvus:uri={user_milvus},collection=docs", f"qdrant-local:path={user_qdrant}",
             f"duckdb:path={user_duckdb},table=docs", f"pgvector:dsn={user_postgres},table=docs"]
    opened = []
    for spec in specs:
        try:
            adapter = open_backend(spec)
        except NotOurs:
            continue
        adapter.close()
        opened.append(spec)
    assert not opened, f"opened on a user's object without refusing: {opened}"


# -- the conformance suite: refused in one line, exit 2 ---------------------------------------------------------


@pytest.mark.slow  # 10-35 s (a pytest in a child process); the quick set's refusals are the in-process ones above
def test_the_suite_refuses_a_users_table_with_exit_2(user_lancedb: Path) -> None:
    """``pytest --pyargs filterproof.conformance`` on a user's table ends at its first test, exit 2, one line."""
    before = files(user_lancedb)
    run = subprocess.run([sys.executable, "-m", "pytest", "--pyargs", "filterproof.conformance", "-p",
                          "no:cacheprovider", *UNUSED_PLUGINS, "-q", "--backend",
                          f"lancedb:path={user_lancedb},table=docs"],
                         capture_output=True, text=True, cwd=user_lancedb.parent, timeout=300)
    assert run.returncode == 2, run.stdout[-2000:] + run.stderr[-2000:]
    assert "table 'docs'" in run.stdout + run.stderr and "was not created by filterproof" in run.stdout + run.stderr
    assert files(user_lancedb) == before


# -- clean: what a killed run left, and only that -----------------------------------------------------------------


KILLED_RUN = """
import os, signal, sys
import numpy as np
from filterproof.adapters import open_backend
from filterproof.adapters.base import Record
store = open_backend(sys.argv[1])
store.reset(2)
store.upsert([Record("a", np.ones(2, dtype=np.float32), {})])
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_clean_drops_what_a_killed_run_left_and_nothing_else(user_postgres: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PGVECTOR_DSN", user_postgres)
    before = postgres_snapshot(user_postgres)
    expected = before()
    run = subprocess.run([sys.executable, "-c", KILLED_RUN, "pgvector"], capture_output=True, text=True,
                         env={**os.environ, "PGVECTOR_DSN": user_postgres}, timeout=120)
    assert run.returncode == -signal.SIGKILL, run.stderr
    import psycopg

    def tables() -> set[str]:
        with psycopg.connect(user_postgres, autocommit=True) as conn:
            return {r[0] for r in conn.execute("SELECT relname FROM pg_class WHERE relkind = 'r' "
                                               "AND relnamespace = 'public'::regnamespace")}
    left = {t for t in tables() if t.startswith("fp_") and t != "fp_kept"}
    assert left, "the killed run left its table behind"
    listed = CliRunner().invoke(app, ["clean", "-b", "pgvector", "--dry-run"])
    assert listed.exit_code == 0 and all(f"would drop table public.{t}" in listed.output for t in left)
    assert "docs" not in listed.output
    assert left <= tables()
    dropped = CliRunner().invoke(app, ["clean", "-b", "pgvector"])
    assert dropped.exit_code == 0, dropped.output
    assert not left & tables() and "docs" in tables() and before() == expected


def test_clean_drops_the_database_a_killed_bridge_run_left(user_postgres: str) -> None:
    """The PostgreSQL bridges make a database of their own per store, marked temporary: a run killed before its
    close leaves it, and ``clean -b pgvector`` finds it and drops it."""
    import psycopg

    def databases() -> set[str]:
        with psycopg.connect(user_postgres, autocommit=True) as conn:
            return {r[0] for r in conn.execute("SELECT datname FROM pg_database")}

    before = databases()
    run = subprocess.run([sys.executable, "-c", KILLED_RUN, "langchain-pgvector"], capture_output=True, text=True,
                         env={**os.environ, "PGVECTOR_DSN": user_postgres}, timeout=180)
    assert run.returncode == -signal.SIGKILL, run.stderr
    left = databases() - before
    assert len(left) == 1 and next(iter(left)).startswith("fp_"), left
    dropped = CliRunner().invoke(app, ["clean", "-b", f"pgvector:dsn={user_postgres}"])
    assert dropped.exit_code == 0 and f"database {next(iter(left))}" in dropped.output, dropped.output
    assert databases() == before


def test_clean_says_in_one_line_when_there_is_nothing_to_look_at(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PGVECTOR_DSN", raising=False)
    for spec, words in (("pgvector", "PGVECTOR_DSN"), ("reference", "nothing to clean"),
                        ("lancedb", "path=DIR")):
        result = CliRunner().invoke(app, ["clean", "-b", spec])
        assert result.exit_code == 2 and words in result.output and len(result.output.strip().splitlines()) == 1


# -- the suite beside the user's objects: it runs, in objects of its own (the slow set) ------------------------


def suite(spec: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "--pyargs", "filterproof.conformance", "-p",
                           "no:cacheprovider", *UNUSED_PLUGINS, "-q", "-x", "--backend", spec,
                           "--conformance-examples", "8", "--conformance-scale", "0"],
                          capture_output=True, text=True, cwd=cwd, timeout=900, env={**os.environ, **env})


@pytest.mark.slow
def test_the_whole_suite_runs_beside_the_users_objects_and_leaves_them_as_they_were(
        tmp_path: Path, user_postgres: str, user_lancedb: Path) -> None:
    """The suite resets its store dozens of times: on a server and in a directory that hold the user's own
    objects, every reset stays in objects of filterproof's, and the user's are unchanged after the whole run
    (qdrant-local beside a user's collection: compare above; its resets are the same code)."""
    postgres = postgres_snapshot(user_postgres)
    expected = postgres(), files(user_lancedb / "docs.lance")
    for spec, env in (("pgvector", {"PGVECTOR_DSN": user_postgres}),
                      (f"lancedb:path={user_lancedb},table=ours,read_consistency_s=0", {})):
        run = suite(spec, tmp_path, **env)
        assert run.returncode == 0, run.stdout[-3000:]
    assert (postgres(), files(user_lancedb / "docs.lance")) == expected


def test_clean_leaves_what_is_kept_on_purpose_unless_asked(user_lancedb: Path) -> None:
    """A table named with ``table=`` is kept by design: ``clean`` lists it and leaves it, ``--kept`` drops it; the
    user's tables, which carry no marker, are never listed."""
    import lancedb

    assert compare(f"lancedb:path={user_lancedb},table=fp_gate").exit_code == 0
    before = files(user_lancedb / "docs.lance"), files(user_lancedb / "filterproof.lance")
    listed = CliRunner().invoke(app, ["clean", "-b", f"lancedb:path={user_lancedb}"])
    assert listed.exit_code == 0 and "left table 'fp_gate'" in listed.output and "kept on purpose" in listed.output
    assert "docs" not in listed.output and "'filterproof'" not in listed.output
    dropped = CliRunner().invoke(app, ["clean", "-b", f"lancedb:path={user_lancedb}", "--kept"])
    assert dropped.exit_code == 0 and "dropped table 'fp_gate'" in dropped.output
    assert set(lancedb.connect(user_lancedb).list_tables().tables) == {"docs", "filterproof"}
    assert (files(user_lancedb / "docs.lance"), files(user_lancedb / "filterproof.lance")) == before


@pytest.mark.slow
def test_the_suite_refuses_every_spelling_that_names_a_users_object(
        tmp_path: Path, user_postgres: str, user_chroma_server: str, user_milvus: str, user_qdrant: Path) -> None:
    """Each spelling ``compare`` refuses, the suite refuses too, at its first test: exit 2, one line naming the
    object; nothing of the user's changed."""
    import chromadb

    from filterproof.adapters.chroma.clients import client_settings, http_client

    path = tmp_path / "chroma"
    user_collections(chromadb.PersistentClient(path=str(path), settings=client_settings()), ("docs", "filterproof"))
    snapshots = (postgres_snapshot(user_postgres), milvus_snapshot(user_milvus),
                 chroma_snapshot(lambda: http_client(user_chroma_server), ("docs",)),
                 lambda: files(user_qdrant / "collection"))
    expected = [snapshot() for snapshot in snapshots]
    spellings = {"pgvector:table=docs": "table 'docs'", f"chroma:path={path},collection=docs": "'docs'",
                 f"chroma:path={path}": "'filterproof'", "chroma-server:collection=docs": "'docs'",
                 f"milvus:uri={user_milvus},collection=docs": "'docs'",
                 f"qdrant-local:path={user_qdrant}": "'filterproof'"}
    # One interpreter runs the suite once per spelling (pytest.main): each run ends at its first test, so the
    # imports, not the runs, are what a process per spelling would cost (about 7 s each).
    run = subprocess.run([sys.executable, "-c", SUITE_PER_SPELLING, *spellings], capture_output=True, text=True,
                         cwd=tmp_path, timeout=900, env={**os.environ, "PGVECTOR_DSN": user_postgres,
                                                         "CHROMA_URL": user_chroma_server})
    parts = re.split(r"^=== the suite on (.+) exit (\d+)$", run.stdout, flags=re.MULTILINE)
    runs = [(parts[i + 1], int(parts[i + 2]), parts[i]) for i in range(0, len(parts) - 1, 3)]
    assert [spec for spec, _, _ in runs] == list(spellings), run.stdout[-3000:] + run.stderr[-2000:]
    for spec, code, output in runs:
        assert code == 2, (spec, output[-2000:])
        assert spellings[spec] in output and "was not created by filterproof" in output, (spec, output[-2000:])
    assert [snapshot() for snapshot in snapshots] == expected


SUITE_PER_SPELLING = """
import sys
import pytest

for spec in sys.argv[1:]:
    code = pytest.main(["--pyargs", "filterproof.conformance", "-p", "no:cacheprovider", "-q", "-x", "--backend", spec])
    print(f"=== the suite on {spec} exit {int(code)}", flush=True)
"""


# -- DuckDB: a database file holding the user's table -------------------------------------------------------------


@pytest.fixture()
def user_duckdb(tmp_path: Path) -> Path:
    """A DuckDB file of the user's with a table ``docs`` (and a comment of its own) and a view over it."""
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "user.duckdb"
    with duckdb.connect(str(path)) as conn:
        conn.execute("CREATE TABLE docs (id INTEGER, body VARCHAR, v FLOAT[2])")
        conn.execute("INSERT INTO docs VALUES (1, 'refunds', [1, 0]), (2, 'travel', [0, 1])")
        conn.execute("COMMENT ON TABLE docs IS 'the support corpus'")
        conn.execute("CREATE VIEW recent AS SELECT * FROM docs WHERE id > 1")
    return path


def duckdb_tables(path: Path) -> dict[str, Any]:
    """Every table of the file with its comment and rows, and every view's SQL."""
    import duckdb

    with duckdb.connect(str(path), read_only=True) as conn:
        tables = {name: (comment, sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr))
                  for name, comment in conn.execute("SELECT table_name, comment FROM duckdb_tables()").fetchall()}
        views = dict(conn.execute("SELECT view_name, sql FROM duckdb_views() WHERE NOT internal").fetchall())
    return {"tables": tables, "views": views}


def test_duckdb_refuses_the_users_table_and_runs_beside_it(user_duckdb: Path) -> None:
    before = duckdb_tables(user_duckdb)
    refused(compare(f"duckdb:path={user_duckdb},table=docs"), "table 'docs'")
    refused(compare(f"duckdb:path={user_duckdb},table=docs,index=hnsw"), "table 'docs'")
    assert duckdb_tables(user_duckdb) == before
    assert compare(f"duckdb:path={user_duckdb}").exit_code == 0  # a fresh fp_ table, dropped after
    assert duckdb_tables(user_duckdb) == before
    assert compare(f"duckdb:path={user_duckdb},table=ours,index=hnsw").exit_code == 0
    after = duckdb_tables(user_duckdb)
    assert set(after["tables"]) == {"docs", "ours"} and '"created_by": "filterproof"' in after["tables"]["ours"][0]
    assert compare(f"duckdb:path={user_duckdb},table=ours").exit_code == 0  # ours: emptied and reused
    assert {k: v for k, v in duckdb_tables(user_duckdb)["tables"].items() if k != "ours"} == before["tables"]
    assert compare(f"duckdb:path={user_duckdb},table=docs,replace=true").exit_code == 0
    assert "filterproof" in duckdb_tables(user_duckdb)["tables"]["docs"][0]  # replaced, as asked


def test_duckdb_clean_drops_a_killed_runs_table_and_nothing_else(user_duckdb: Path) -> None:
    before = duckdb_tables(user_duckdb)
    spec = f"duckdb:path={user_duckdb}"
    run = subprocess.run([sys.executable, "-c", KILLED_RUN, spec], capture_output=True, text=True, timeout=300)
    assert run.returncode == -signal.SIGKILL, run.stderr
    left = set(duckdb_tables(user_duckdb)["tables"]) - set(before["tables"])
    assert len(left) == 1 and left.pop().startswith("fp_")
    listed = CliRunner().invoke(app, ["clean", "-b", spec, "--dry-run"])
    assert listed.exit_code == 0 and "fp_" in listed.output and "'docs'" not in listed.output, listed.output
    dropped = CliRunner().invoke(app, ["clean", "-b", spec])
    assert dropped.exit_code == 0, dropped.output
    assert duckdb_tables(user_duckdb) == before
