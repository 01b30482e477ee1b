#!/usr/bin/env bash
# How long another client's reader still returns a revoked document (filterproof freshness), per backend and setting.
#
#   bench/freshness.sh threads     # the issue's command: readers are threads, each with its own client
#   bench/freshness.sh processes   # readers are child processes (API replicas), stores that allow it
#
# Defaults of the command: 1,000 documents over 10 principals, 4 readers querying continuously, 40 changes
# (revoke, supersede, delete, publish in turn) at 4 a second, 3 s of settling. Results:
# bench/results/freshness_{threads,processes}.{txt,json,html}; run on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
FP=.venv/bin/filterproof
RESULTS=bench/results
mode=${1:-threads}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case "$mode" in
    threads) backends=(-b lancedb -b lancedb:read_consistency_s=0 -b lancedb:read_consistency_s=1 -b chroma
                       -b pgvector) ;;
    processes) backends=(-b lancedb -b lancedb:read_consistency_s=0 -b lancedb:read_consistency_s=1
                         -b "chroma:path=$work/chroma" -b chroma-server -b pgvector) ;;
    *) echo "usage: $0 threads|processes" >&2; exit 2 ;;
esac
out=$RESULTS/freshness_$mode
{
    echo "# bench/freshness.sh $mode, $(date -u +%F), $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# $FP freshness ${backends[*]} --readers-in $mode --json $out.json --html $out.html"
    status=0
    COLUMNS=300 "$FP" freshness "${backends[@]}" --readers-in "$mode" --json "$out.json" --html "$out.html" \
        2>&1 | grep -v "Warning" || status=$?
    echo "# exit status $status (1: a backend leaked past its declared bound); load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | sed "s#$work#WORK#g" | tee "$out.txt"
