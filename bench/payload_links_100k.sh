#!/usr/bin/env bash
# qdrant-edge with Qdrant's per-value payload links on every indexed field (its default) against
# payload_links=split (only tenant, status, groups): what the links cost in build time, and what
# filtered search loses without them.
#
#   bench/payload_links_100k.sh       # results: bench/results/payload_links_100k/ and bench/results/payload_links_100k.txt
set -euo pipefail
cd "$(dirname "$0")/.."
RESULTS=bench/results
mkdir -p "$RESULTS"
start=$SECONDS
COLUMNS=200 .venv/bin/filterproof sweep -n 100000 --seed 0 --latency-samples 0 --cases-per-level 5 \
    -b qdrant-edge -b qdrant-edge:payload_links=split --out "$RESULTS/payload_links_100k" \
    | tee "$RESULTS/payload_links_100k.txt"
echo "wall clock of 'filterproof sweep' (payload_links_100k): $((SECONDS - start)) s; load average now: $(cut -d' ' -f1-3 /proc/loadavg)" \
    | tee -a "$RESULTS/payload_links_100k.txt"
