#!/usr/bin/env bash
# One million documents through reference and qdrant-edge (chroma is left out: at 100k its filtered
# queries already take about a second each). Long (about 25 minutes on 2 cores): run it in the background.
#
#   MEMORY_LIMIT=6G nohup bench/sweep_1m.sh > /tmp/sweep_1m.log 2>&1 &   # as committed: inside 6 GB
#   bench/sweep_1m.sh NAME -b SPEC ...     # the same corpus and settings through other backend specs,
#                                          # e.g. bench/sweep_1m.sh sweep_1m_flag -b qdrant-edge:revision=flag
#
# Results: bench/results/sweep_1m/ (report.json, report.html, PNGs) and bench/results/sweep_1m.txt
# (the exact command, console tables, wall clock, peak memory, load average); see bench/sweep.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:-sweep_1m}
shift || true
backends=("$@")
[[ ${#backends[@]} -gt 0 ]] || backends=(-b reference -b qdrant-edge)
exec bench/sweep.sh "$name" -n 1000000 --seed 0 --latency-samples 5 "${backends[@]}"
