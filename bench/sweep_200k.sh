#!/usr/bin/env bash
# 200,000 documents through reference and qdrant-edge, 5 cases per selectivity level: the memory target's
# small point (issue 14: at most 1.5 GB peak). About 10 minutes on 2 cores.
#
#   MEMORY_LIMIT=1536M bench/sweep_200k.sh      # as committed: inside 1.5 GB (bench/sweep.sh)
#   bench/sweep_200k.sh NAME -b SPEC ...   # the same corpus and settings through other backend specs
#
# Results: bench/results/sweep_200k/ and bench/results/sweep_200k.txt (see bench/sweep.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:-sweep_200k}
shift || true
backends=("$@")
[[ ${#backends[@]} -gt 0 ]] || backends=(-b reference -b qdrant-edge)
exec bench/sweep.sh "$name" -n 200000 --seed 0 --latency-samples 5 --cases-per-level 5 "${backends[@]}"
