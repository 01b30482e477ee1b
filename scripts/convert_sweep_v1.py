"""Convert a ``filterproof-sweep/1`` report (before the one-core rewrite) into schema ``filterproof/2``.

    python scripts/convert_sweep_v1.py bench/results/sweep_100k/report.json

Rewrites the file in place, so that ``filterproof sweep --replot`` redraws the
committed measurements without running them again. What the old schema did not
keep stays absent: per-case rows (``cases`` is empty) and the case-level leak
counts (its per-K ``leaks`` become both ``leaks`` and ``leaks_at_k``). The
document says where it came from in ``converted_from``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

OLD, NEW = "filterproof-sweep/1", "filterproof/2"
RATES = ("short", "empty", "false_abstention", "wrong_document")


def summary_row(fixture: str, row: dict[str, Any]) -> dict[str, Any]:
    n = row["cases"]
    out = {"fixture": fixture, "backend": row["backend"], "strategy": row["strategy"],
           "candidates": row["candidates"], "level": row["selectivity"], "k": row["k"], "cases": n,
           "leaks": row["leaks"], "leaks_at_k": row["leaks"], "n_nonempty": row["n_nonempty"]}
    for name in ("arecall", "arecall_nonempty", "recall_exact"):
        out[name] = row[name]
    for name in RATES:
        rate = row.get(f"{name}_rate")
        out[f"{name}_rate"] = rate
        out[name] = round(rate * n) if rate is not None else None
    return out


def backend_info(fixture: str, b: dict[str, Any]) -> dict[str, Any]:
    timings = {k: b[k] for k in ("build_s", "ingest_s", "query_s", "batched_qps", "latency_s", "evaluate_s",
                                 "wall_s", "inside_s", "calls", "overhead", "overhead_ingest", "overhead_queries")}
    return {"label": b["label"], "backend": b["backend"], "fixture": fixture, "options": b["options"],
            "status": "ok", "reason": None, "capabilities": {"exact": b["exact"]}, "timings": timings}


def convert(doc: dict[str, Any]) -> dict[str, Any]:
    if doc.get("schema") != OLD:
        raise SystemExit(f"not a {OLD} report (schema {doc.get('schema')!r})")
    corpus, settings = doc["corpus"], doc["settings"]
    name = f"generated-{corpus['documents']}-seed{(corpus.get('generator') or {}).get('seed', 0)}"
    fixture = {"name": name, "path": corpus["source"], "sha256": corpus["sha256"], "documents": corpus["documents"],
               "cases": corpus["cases"], "malformed": {}, "malformed_count": corpus["malformed"],
               "min_score": corpus["min_score"], "description": "", "generator": corpus["generator"],
               "levels": doc["levels"], "embedding": "svd", "dim": settings["dim"],
               "timings": {k: doc["timings"][k] for k in ("embed_s", "truth_s") if k in doc["timings"]}}
    latency = [{"fixture": name, "backend": r["backend"], "strategy": r["strategy"], "candidates": r["candidates"],
                "level": r["selectivity"], "samples": r["latency_samples"], "p50_ms": r["p50_ms"],
                "p95_ms": r["p95_ms"], "qps": r["qps"]} for r in doc["latency"]]
    backends = [backend_info(name, b) for b in doc["backends"]]
    backends += [{"label": s["label"], "backend": s["label"].split(":")[0], "fixture": name, "options": {},
                  "status": "unavailable", "reason": s["reason"], "capabilities": {}, "timings": {}}
                 for s in doc["skipped"]]
    return {"schema": NEW, "filterproof": doc["filterproof"], "command": "sweep", "complete": True,
            "converted_from": OLD,
            "settings": {"ks": settings["ks"], "candidates": settings["candidates"], "min_score": settings["min_score"],
                         "embedding": "svd", "dim": settings["dim"], "batch": settings["batch"],
                         "latency_samples": settings["latency_samples"], "backends": settings["backends"]},
            "fixtures": [fixture], "backends": backends,
            "summary": [summary_row(name, r) for r in doc["records"]], "cases": [], "latency": latency,
            "problems": [], "timings": {k: v for k, v in doc["timings"].items() if k not in ("embed_s", "truth_s")},
            "machine": doc["machine"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path)
    for path in parser.parse_args().reports:
        path.write_text(json.dumps(convert(json.loads(path.read_text())), indent=1) + "\n")
        print(f"converted {path}")


if __name__ == "__main__":
    main()
