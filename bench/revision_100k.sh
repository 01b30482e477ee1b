#!/usr/bin/env bash
# The revision clause two ways, per backend, at 100k documents: the active map in every query
# (revision=query) against a stored current-revision flag (revision=flag). What matters is the
# filtered query's latency (pre_filter) next to the same backend's unfiltered one (rank_only).
#
#   bench/revision_100k.sh            # results: bench/results/revision_100k/ and bench/results/revision_100k.txt
set -euo pipefail
cd "$(dirname "$0")/.."
RESULTS=bench/results
mkdir -p "$RESULTS"
start=$SECONDS
COLUMNS=200 .venv/bin/filterproof sweep -n 100000 --seed 0 --cases-per-level 10 --latency-samples 5 \
    --candidates 1K,10K --out "$RESULTS/revision_100k" \
    -b reference -b reference:revision=flag \
    -b qdrant-edge -b qdrant-edge:revision=flag \
    -b chroma -b chroma:revision=flag \
    -b pgvector -b pgvector:revision=flag \
    -b lancedb -b lancedb:revision=flag | tee "$RESULTS/revision_100k.txt"
echo "wall clock of 'filterproof sweep' (revision_100k): $((SECONDS - start)) s; load average now: $(cut -d' ' -f1-3 /proc/loadavg)" \
    | tee -a "$RESULTS/revision_100k.txt"
