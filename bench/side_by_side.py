"""Reports side by side: one metric per (backend, strategy) and selectivity level, a column group per report.

    python bench/side_by_side.py A/report.json B/report.json ... [--metric arecall --k 10]

Prints, for each metric, one row per (backend, strategy) and report, with the level
columns, and the largest absolute difference from the first report.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

METRICS = ("arecall", "recall_exact", "false_abstention_rate", "short_rate")


def by_level(report: dict[str, Any], metric: str, k: int) -> dict[tuple[str, str], dict[float, float]]:
    rows: dict[tuple[str, str], dict[float, float]] = {}
    for r in report["summary"]:
        if r["k"] == k and r["level"] is not None and r.get(metric) is not None:
            label = r["strategy"] + (f" C={r['candidates']}" if r["candidates"] else "")
            rows.setdefault((r["backend"], label), {})[r["level"]] = r[metric]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path)
    parser.add_argument("--k", type=int, default=None, help="K (default: the largest, 1 for false abstentions)")
    args = parser.parse_args()
    docs = [json.loads(p.read_text()) for p in args.reports]
    names = [p.parent.name for p in args.reports]
    width = max(len(n) for n in names)
    for metric in METRICS:
        k = args.k or (min(docs[0]["settings"]["ks"]) if metric == "false_abstention_rate"
                       else max(docs[0]["settings"]["ks"]))
        tables = [by_level(d, metric, k) for d in docs]
        levels = sorted({lv for t in tables for row in t.values() for lv in row})
        print(f"\n{metric}@{k}: " + " | ".join(f"{lv * 100:g}%" for lv in levels))
        for key in tables[0]:
            worst = 0.0
            for name, table in zip(names, tables, strict=True):
                row = table.get(key, {})
                cells = " ".join(f"{row[lv]:.3f}" if lv in row else "  -  " for lv in levels)
                diffs = [abs(row[lv] - tables[0][key][lv]) for lv in levels if lv in row and lv in tables[0][key]]
                worst = max([worst, *diffs])
                print(f"  {key[0]:<12} {key[1]:<20} {name:<{width}} {cells}")
            print(f"  {'':<12} {'':<20} {'max |diff| vs ' + names[0]}: {worst:.3f}")


if __name__ == "__main__":
    main()
