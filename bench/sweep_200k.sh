#!/usr/bin/env bash
# 200,000 documents through reference and qdrant-edge, 5 cases per selectivity level: the memory target's
# small point (issue 14: at most 1.5 GB peak), with qdrant-edge configured as in sweep_1m.sh (segments of
# 50k documents here). Measured: 2.5 min and 0.95 GiB maximum RSS (results/sweep_200k_cold.txt).
#
#   bench/sweep_200k.sh                    # as committed (no memory limit)
#   MEMORY_LIMIT=1536M bench/sweep_200k.sh # inside 1.5 GB (bench/sweep.sh)
#   bench/sweep_200k.sh NAME -b SPEC ...   # the same corpus and settings through other backend specs; the
#                                          # earlier run: bench/sweep_200k.sh sweep_200k -b reference -b qdrant-edge
#
# Results: bench/results/NAME/ and bench/results/NAME.txt (see bench/sweep.sh); NAME defaults to sweep_200k_cold.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:-sweep_200k_cold}
shift || true
backends=("$@")
[[ ${#backends[@]} -gt 0 ]] || backends=(-b reference -b qdrant-edge:memory=cold,segment_docs=50000,revision=flag)
exec bench/sweep.sh "$name" -n 200000 --seed 0 --latency-samples 5 --cases-per-level 5 "${backends[@]}"
