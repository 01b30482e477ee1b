#!/usr/bin/env bash
# One million documents through reference and qdrant-edge (chroma is left out: at 100k its filtered
# queries already take about a second each), in bounded memory: qdrant-edge maps its shard from disk
# (memory=cold), builds a segment every 250k documents as they arrive (segment_docs, what a Qdrant server's
# optimizer does) and keeps the current revision as a flag (revision=flag). Measured: 24.8 min and 3.2 GiB
# maximum RSS on 2 cores (results/sweep_1m_cold.txt). Run it in the background:
#
#   nohup bench/sweep_1m.sh > /tmp/sweep_1m.log 2>&1 &     # as committed (no memory limit)
#   MEMORY_LIMIT=6G bench/sweep_1m.sh                      # inside a 6 GB memory cgroup (bench/sweep.sh)
#   bench/sweep_1m.sh NAME -b SPEC ...     # the same corpus and settings through other backend specs; the
#                                          # earlier runs: bench/sweep_1m.sh sweep_1m -b reference -b qdrant-edge
#                                          # (one segment in RAM, revision=query: results/sweep_1m/)
#
# Results: bench/results/NAME/ (report.json, report.html, PNGs) and bench/results/NAME.txt (the exact command,
# console tables, wall clock, peak memory, load average; see bench/sweep.sh). NAME defaults to sweep_1m_cold.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:-sweep_1m_cold}
shift || true
backends=("$@")
[[ ${#backends[@]} -gt 0 ]] || backends=(-b reference -b qdrant-edge:memory=cold,segment_docs=250000,revision=flag)
exec bench/sweep.sh "$name" -n 1000000 --seed 0 --latency-samples 5 "${backends[@]}"
