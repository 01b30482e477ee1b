#!/usr/bin/env bash
# Milvus Lite at 100k documents beside the reference and the Qdrant engine (issue 23; long: run in the background).
#
#   bench/sweep_milvus_100k.sh
#
# Milvus Lite runs under revision=flag: under revision=query each filter carries the tenant's active keys
# (58k for the largest tenant), which Milvus Lite's row-by-row evaluator tests against every row
# (bench/repro/milvus_evaluator_cost.py). Consistency level Strong (the backend's default; Milvus Lite reads are
# always current). Milvus Lite's filtered search takes seconds here, so: 10 cases per selectivity (20 in
# sweep_100k), 2 latency samples per level and strategy (10), and post_filter depths up to 10K (100K in sweep_100k:
# an unfiltered top-100,000 through Lite's gRPC took seconds a query). An HNSW run (index=hnsw) did not fit the
# session that measured this.
# Results: bench/results/milvus_100k/ (report.json, report.html, PNGs) and bench/results/milvus_100k.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
RESULTS=bench/results
FP=.venv/bin/filterproof
mkdir -p "$RESULTS"
name=milvus_100k
start=$SECONDS
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$RESULTS/$name.txt"
COLUMNS=160 "$FP" sweep -n 100000 --seed 0 --cases-per-level 10 --latency-samples 2 --candidates 1K,2K,10K \
    --out "$RESULTS/$name" -b reference -b qdrant-edge -b milvus:revision=flag | tee -a "$RESULTS/$name.txt"
echo "wall clock of 'filterproof sweep' ($name): $((SECONDS - start)) s; load average now: $(cut -d' ' -f1-3 /proc/loadavg)" \
    | tee -a "$RESULTS/$name.txt"
