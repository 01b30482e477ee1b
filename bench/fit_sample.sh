#!/usr/bin/env bash
# What fitting the embedding on a sample costs in scores: the 100k corpus through the reference backend,
# the embedding fitted on every document (as before issue 14), on 25,000 and on 10,000 of them.
#
#   bench/fit_sample.sh
#
# Results: bench/results/fit_sample_100k/{all,25k,10k}/ and bench/results/fit_sample_100k.txt (side by side).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=fit_sample_100k
for sample in all:0 25k:25000 10k:10000; do
    bench/sweep.sh "$dir/${sample%%:*}" -n 100000 --seed 0 --latency-samples 0 --no-plots -b reference \
        --fit-sample "${sample##*:}"
done
.venv/bin/python bench/side_by_side.py bench/results/$dir/{all,25k,10k}/report.json | tee bench/results/$dir.txt
