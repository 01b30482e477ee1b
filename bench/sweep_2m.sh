#!/usr/bin/env bash
# Two million documents through qdrant-edge alone, its shard in a directory of ours on disk and mapped, not
# pinned, in memory (memory=cold), the current revision a stored flag (revision=flag: under revision=query
# every filter of the largest tenant would carry 1.2M keys), a segment built every 250k documents as they arrive
# (segment_docs); no reference backend (the exact ground truth is streamed over the corpus in chunks, whatever
# the backends). 49 min and 3.4 GiB here (results/sweep_2m_segments.txt; in one segment, before the adapter
# reopened the shard after builds: 86 min and 13.6 GiB, results/sweep_2m.txt). Run it in the background.
#
#   nohup bench/sweep_2m.sh > /tmp/sweep_2m.log 2>&1 &
#   bench/sweep_2m.sh NAME -b SPEC ...     # the same corpus and settings through other backend specs
#
# The shard (several GB) goes to $FILTERPROOF_BENCH_DIR (default /tmp/filterproof-bench-2m) and is removed
# afterwards. Results: bench/results/NAME/ and bench/results/NAME.txt (see bench/sweep.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
work=${FILTERPROOF_BENCH_DIR:-/tmp/filterproof-bench-2m}
mkdir -p "$work"
trap 'rm -rf "$work/edge-shard"' EXIT
name=${1:-sweep_2m_segments}
shift || true
backends=("$@")
[[ ${#backends[@]} -gt 0 ]] || backends=(-b "qdrant-edge:path=$work,memory=cold,segment_docs=250000,revision=flag")
bench/sweep.sh "$name" -n 2000000 --seed 0 --latency-samples 5 "${backends[@]}"
