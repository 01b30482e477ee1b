#!/usr/bin/env bash
# One million documents through reference and qdrant-edge (chroma is left out: at 100k its filtered
# queries already take about a second each). Long: run it in the background.
#
#   nohup bench/sweep_1m.sh > /tmp/sweep_1m.log 2>&1 &
#
# Results: bench/results/sweep_1m/ (report.json, report.html, PNGs) and bench/results/sweep_1m.txt
# (console tables, wall clock, peak memory).
set -euo pipefail
cd "$(dirname "$0")/.."
RESULTS=bench/results
mkdir -p "$RESULTS"
STDERR=$(mktemp)  # progress bars and GNU time's report; only the time and memory lines are kept
start=$SECONDS
COLUMNS=160 /usr/bin/env time -v .venv/bin/filterproof sweep -n 1000000 --seed 0 --latency-samples 5 \
    -b reference -b qdrant-edge --out "$RESULTS/sweep_1m" 2> "$STDERR" | tee "$RESULTS/sweep_1m.txt"
echo "wall clock of 'filterproof sweep' (sweep_1m): $((SECONDS - start)) s; load average now: $(cut -d' ' -f1-3 /proc/loadavg)" \
    | tee -a "$RESULTS/sweep_1m.txt"
grep -E "Maximum resident|Elapsed" "$STDERR" | tee -a "$RESULTS/sweep_1m.txt"
rm -f "$STDERR"
