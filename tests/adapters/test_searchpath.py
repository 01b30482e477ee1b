"""Which path a filtered search took: the engines' plans read, the declared path compared, `compare`'s line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from filterproof.adapters.lancedb.store import path_of as lancedb_path
from filterproof.adapters.pgvector.store import path_of as pgvector_path
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.adapters.searchpath import off_declared, search_path, summary
from filterproof.cli import app
from support.paths import FIXTURES

# Trimmed plans as the engines print them (LanceDB 0.40 explain_plan(True), PostgreSQL 18 EXPLAIN).
LANCE_PRE_FLAT = """ProjectionExec: expr=[id@4 as id]
  GlobalLimitExec: skip=0, fetch=5
    FilterExec: _distance@3 IS NOT NULL
      SortExec: TopK(fetch=5), expr=[_distance@3 ASC NULLS LAST]
        KNNVectorDistance: metric=cosine
          FilterExec: tenant@0 = a
            LanceRead: uri=t.lance/data, projection=[tenant, vector], full_filter=tenant = Utf8("a")"""
LANCE_POST_FLAT = """ProjectionExec: expr=[id@4 as id]
  GlobalLimitExec: skip=0, fetch=5
    FilterExec: tenant@3 = a
      LanceRead: uri=t.lance/data, projection=[tenant]
        FilterExec: _distance@2 IS NOT NULL
          SortExec: TopK(fetch=5), expr=[_distance@2 ASC NULLS LAST]
            KNNVectorDistance: metric=cosine"""
LANCE_PRE_IVF = """ProjectionExec: expr=[id@2 as id]
  SortExec: TopK(fetch=5), expr=[_distance@0 ASC NULLS LAST]
    ANNSubIndex: name=vector_idx, k=5, deltas=1, metric=Cosine
      ANNIvfPartition: minimum_nprobes=20
      LanceRead: uri=t.lance/data, full_filter=tenant = Utf8("a")"""
PG_HNSW = """Limit  (cost=8.07..13.46 rows=10 width=40)
  ->  Index Scan using fp_1_embedding on fp_1  (cost=8.07..100.22 rows=171 width=40)
        Order By: (embedding <=> '[1,0]'::vector)
        Filter: ((tenant = 'acme'::text) AND (status = 'active'::text))"""
PG_SEQ = """Limit  (cost=20.14..20.16 rows=10 width=40)
  ->  Sort  (cost=20.14..20.57 rows=171 width=40)
        ->  Seq Scan on fp_1  (cost=0.00..16.45 rows=171 width=40)
              Filter: ((tenant = 'acme'::text) AND (status = 'active'::text))"""


@pytest.mark.parametrize(("plan", "kind"), [(LANCE_PRE_FLAT, "exact scan"), (LANCE_POST_FLAT, "post-filter"),
                                            (LANCE_PRE_IVF, "index"), ("EmptyExec", "unknown")])
def test_lancedb_plans_name_their_path(plan: str, kind: str) -> None:
    """A policy FilterExec above the vector node is a post-filter; the `_distance IS NOT NULL` one is not."""
    assert lancedb_path(plan).kind == kind


@pytest.mark.parametrize(("plan", "filtered", "iterative", "kind"), [
    (PG_HNSW, True, "off", "post-filter"), (PG_HNSW, True, "strict_order", "index"), (PG_HNSW, False, "off", "index"),
    (PG_SEQ, True, "off", "exact scan"), (PG_SEQ.replace("fp_1", "fp_2"), True, "strict_order", "exact scan"),
])
def test_pgvector_plans_name_their_path(plan: str, filtered: bool, iterative: str, kind: str) -> None:
    """Only this table's vector index counts; without iterative scans the WHERE filters its ef_search rows."""
    assert pgvector_path(plan, "fp_1", filtered, iterative).kind == kind


def test_a_declared_path_is_compared_with_the_paths_taken() -> None:
    assert summary({"exact scan": 3, "index": 9}) == "index 9, exact scan 3 of 12"
    assert off_declared("s", None, {"exact scan": 3}) is None
    assert off_declared("s", "index", {"index": 2, "unknown": 1}) is None
    said = off_declared("s", "index", {"exact scan": 3})
    assert said is not None
    assert "declares search_path='index', but its filtered searches took: exact scan 3 of 3" in said


def test_an_adapter_without_explain_is_unknown() -> None:
    class Plain:
        name = "plain"

    assert search_path(Plain(), None, 1, None).kind == "unknown"  # type: ignore[arg-type]
    assert search_path(ReferenceAdapter(), None, 1, None).kind == "exact scan"  # type: ignore[arg-type]


@pytest.mark.parametrize(("spec", "kind"), [("pgvector:index=hnsw,plan=seqscan", "exact scan"),
                                            ("pgvector:index=hnsw,plan=index,iterative_scan=strict_order", "index"),
                                            ("pgvector:index=hnsw,plan=index", "post-filter")])
def test_compare_reports_the_path_of_filtered_searches(tmp_path: Path, spec: str, kind: str) -> None:
    """Each sampled case's filter explained after the timed queries; the line and the JSON say which path."""
    out = tmp_path / "r.json"
    result = CliRunner().invoke(app, ["compare", str(FIXTURES / "freshness-lab.json"), "-b", spec, "--json",
                                      str(out), "--no-cases"])
    assert result.exit_code == 0, result.output
    assert f"{spec}: filtered searches took {kind} 5 of 5" in " ".join(result.output.split())
    [run] = [b for b in json.loads(out.read_text())["backends"] if b["label"] == spec]
    assert run["paths"] == {kind: 5}
