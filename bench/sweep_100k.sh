#!/usr/bin/env bash
# The 100k-document sweep (target: under 10 minutes on 2 cores), then each backend's exactness settings.
#
#   bench/sweep_100k.sh            # both runs
#   bench/sweep_100k.sh main       # only the reference / chroma / qdrant-edge sweep
#   bench/sweep_100k.sh exactness  # only the exactness variants
#
# Results: bench/results/sweep_100k/ and bench/results/exactness_100k/ (report.json, report.html, PNGs),
# the console report beside them as .txt, and the README figure bench/results/arecall_vs_selectivity.png.
set -euo pipefail
cd "$(dirname "$0")/.."
RESULTS=bench/results
FP=.venv/bin/filterproof
mkdir -p "$RESULTS"

run() {  # name, then filterproof sweep arguments
    local name=$1; shift
    local start=$SECONDS
    COLUMNS=160 "$FP" sweep -n 100000 --seed 0 --force --out "$RESULTS/$name" "$@" | tee "$RESULTS/$name.txt"
    echo "wall clock of 'filterproof sweep' ($name): $((SECONDS - start)) s; load average now: $(cut -d' ' -f1-3 /proc/loadavg)" \
        | tee -a "$RESULTS/$name.txt"
}

if [[ "${1:-all}" != exactness ]]; then
    run sweep_100k -b reference -b chroma -b qdrant-edge
    cp "$RESULTS/sweep_100k/arecall_vs_selectivity.png" "$RESULTS/arecall_vs_selectivity.png"
fi
if [[ "${1:-all}" != main ]]; then
    # Search-time exactness: Qdrant brute force, a wider and a narrower HNSW beam; Chroma's beam.
    run exactness_100k --latency-samples 3 \
        -b qdrant-edge:exact=true -b qdrant-edge:hnsw_ef=512 -b qdrant-edge:hnsw_ef=32 -b chroma:ef_search=16
fi
