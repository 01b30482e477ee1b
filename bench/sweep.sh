#!/usr/bin/env bash
# Run one `filterproof sweep` under GNU time and record, beside its console report, what a shared machine
# needs said: the exact command, the wall clock, the peak memory and the load average (other jobs share the
# 2 CPUs: wall times depend on them, peak memory does not).
#
#   bench/sweep.sh NAME [filterproof sweep arguments ...]
#   MEMORY_LIMIT=6G bench/sweep.sh NAME ...    # inside a memory cgroup of that size (cgroup v1, as root):
#                                             # the kernel kills the run if what it needs does not fit
#
# Peak memory is reported three ways: GNU time's maximum resident set size (since each backend runs in a worker
# process, the largest single process); the peak of the processes' (main and worker, summed)
# anonymous memory (RssAnon: heap and stacks, what must stay in RAM), sampled every 2 s; and the peak of its
# file-backed resident pages (RssFile: memory-mapped files such as qdrant-edge's shard, which the kernel can
# drop and read back). Results: bench/results/NAME/ (report.json, report.html, PNGs) and bench/results/NAME.txt.
# Used by sweep_200k.sh, sweep_1m.sh and sweep_2m.sh; long runs belong in the background (nohup).
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1
shift
RESULTS=bench/results
mkdir -p "$RESULTS"
txt="$RESULTS/$name.txt"
mkdir -p "$(dirname "$txt")"
# The record is written beside the committed one and replaces it only when the run ends by itself (exit 0, or
# 1 for a leak or a failed backend: a finding): a run stopped by a signal (by hand, or killed by the cgroup)
# leaves NAME.partial.txt and never clobbers the last complete record.
final=$txt
txt="$RESULTS/$name.partial.txt"
# FILTERPROOF: another build of the command (the "before" measurements ran the code of d11ba2c this way).
cmd=(${FILTERPROOF:-.venv/bin/filterproof} sweep "$@" --force --out "$RESULTS/$name")
shown="/usr/bin/time -v ${cmd[*]}"
stderr=$(mktemp)
loads=$(mktemp)
mem=$(mktemp)
group=""
if [[ -n "${MEMORY_LIMIT:-}" ]]; then
    group=/sys/fs/cgroup/memory/filterproof-bench-$$
    mkdir "$group"
    echo "$MEMORY_LIMIT" > "$group/memory.limit_in_bytes"
    cmd=(sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$group" "${cmd[@]}")
fi
(while sleep 30; do cut -d' ' -f1 /proc/loadavg >> "$loads"; done) &
sampler=$!
cleanup() {
    kill "$sampler" "${watcher:-}" 2>/dev/null || true
    rm -f "$stderr" "$loads" "$mem"
    [[ -z "$group" ]] || rmdir "$group" 2>/dev/null || true
}
trap cleanup EXIT

{
    echo "command: $shown"
    [[ -z "$group" ]] || echo "run inside a memory cgroup limited to $MEMORY_LIMIT ($group)"
    echo "started $(date -u +%FT%TZ); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$txt"
start=$SECONDS
status=0
# The Python processes are the ones whose command line holds " sweep ": the main one and the worker that runs
# the current backend (a fork: the same command line). Their RssAnon and RssFile every 2 s, summed per sample
# (pages the fork still shares are counted twice: an upper bound).
(while sleep 2; do
    for pid in $(pgrep -f -- " sweep .*--out $RESULTS/$name\$" || true); do
        awk '/^RssAnon|^RssFile/ {printf "%s ", $2} END {print ""}' "/proc/$pid/status" 2>/dev/null || true
    done | awk 'NF == 2 {a += $1; f += $2} END {if (a + f) print a, f}' >> "$mem"
done) &
watcher=$!
# Progress bars go to stderr: shown on the terminal (or the nohup log) and kept for GNU time's report.
COLUMNS=160 /usr/bin/time -v "${cmd[@]}" 2> >(tee "$stderr" >&2) | tee -a "$txt" || status=$?
wall=$((SECONDS - start))
kill $sampler $watcher 2>/dev/null || true
{
    echo "exit status $status; wall clock of 'filterproof sweep' ($name): $wall s"
    echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg); 1-min load average sampled every 30 s:" \
         "$(awk '{s += $1; if (min == "" || $1 < min) min = $1; if ($1 > max) max = $1} END {
                 if (NR) printf "min %.2f, mean %.2f, max %.2f over %d samples", min, s / NR, max, NR; else printf "none (shorter than 30 s)"}' "$loads")" \
         "(2 CPUs, shared with other jobs)"
    grep -E "Maximum resident|Elapsed|Percent of CPU|User time|System time" "$stderr" || echo "(no GNU time report)"
    awk 'NF == 2 {if ($1 > a) a = $1; if ($2 > f) f = $2; if ($1 + $2 > t) t = $1 + $2} END {
             printf "peak anonymous memory (RssAnon, sampled every 2 s): %.0f MB; peak file-backed resident pages (RssFile): %.0f MB; peak of their sum: %.0f MB\n", a / 1024, f / 1024, t / 1024}' "$mem"
    if [[ -n "$group" ]]; then
        echo "cgroup: limit $MEMORY_LIMIT, peak usage (page cache included) $(( $(cat "$group/memory.max_usage_in_bytes") >> 20 )) MB, times at the limit $(cat "$group/memory.failcnt")"
    fi
} | tee -a "$txt"
if [[ $status -lt 128 ]]; then mv "$txt" "$final"; else echo "exit status $status: the record stays in $txt" >&2; fi
exit "$status"
