#!/usr/bin/env bash
# DuckDB under filters: exact scan against the vss extension's HNSW index with the adapter's widened window
# (adapters/duckdb/store.py), beside the reference, at 20,000 generated documents.
#
#   bench/sweep_duckdb.sh
#
# Results: bench/results/duckdb_20k/ (report.json, report.html: not in git) and the console report beside it as
# duckdb_20k.txt, with the wall clock and the load average.
set -euo pipefail
cd "$(dirname "$0")/.."
RESULTS=bench/results
name=duckdb_20k
start=$SECONDS
mkdir -p "$RESULTS"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$RESULTS/$name.txt"
COLUMNS=160 .venv/bin/filterproof sweep -n 20000 --seed 0 --force --no-plots --out "$RESULTS/$name" \
    -b reference -b duckdb -b duckdb:index=hnsw | tee -a "$RESULTS/$name.txt"
echo "wall clock of 'filterproof sweep' ($name): $((SECONDS - start)) s; load average now: $(cut -d' ' -f1-3 /proc/loadavg)" \
    | tee -a "$RESULTS/$name.txt"
