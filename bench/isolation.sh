#!/usr/bin/env bash
# What running each backend in a worker process of its own costs (filterproof.evaluation.isolation), against --in-process.
#
#   bench/isolation.sh main     # the README's main job, 3 runs in each mode, alternating
#   bench/isolation.sh sweep    # a 100k-document sweep (reference, qdrant-edge, lancedb), once in each mode
#
# Prints each run's wall clock and the load average; results: bench/results/isolation_{main,sweep}.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
FP=.venv/bin/filterproof
RESULTS=bench/results
mkdir -p "$RESULTS"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

timed() {  # label, then the command; prints "label: N.N s (load average ...)"
    local label=$1; shift
    local start end
    start=$(date +%s.%N)
    "$@" > "$work/out.txt" 2>&1 || { echo "$label failed:"; tail -5 "$work/out.txt"; return 1; }
    end=$(date +%s.%N)
    printf '%-28s %7.1f s   load average %s\n' "$label" "$(echo "$end - $start" | bc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
}

main() {
    echo "# bench/isolation.sh main, $(date -u +%F), $(nproc) cores: filterproof compare fixtures/freshness-lab.json fixtures/authorized-recall"
    for round in 1 2 3; do
        timed "main job, workers ($round)" "$FP" compare fixtures/freshness-lab.json fixtures/authorized-recall --json "$work/w.json"
        timed "main job, in process ($round)" "$FP" compare fixtures/freshness-lab.json fixtures/authorized-recall --in-process --json "$work/p.json"
    done
    # The two reports agree on every case row (the timings differ, nothing else).
    .venv/bin/python - "$work/w.json" "$work/p.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
print("case rows identical in both modes:", a["cases"] == b["cases"], f"({len(a['cases'])} rows)")
PY
}

sweep() {
    echo "# bench/isolation.sh sweep, $(date -u +%F), $(nproc) cores: filterproof sweep -n 100000 -b reference -b qdrant-edge -b lancedb"
    for mode in workers in-process; do
        flag=(); [[ $mode == in-process ]] && flag=(--in-process)
        timed "100k sweep, $mode" "$FP" sweep -n 100000 --seed 0 -b reference -b qdrant-edge -b lancedb \
            --out "$work/sweep-$mode" "${flag[@]}"
        .venv/bin/python - "$work/sweep-$mode/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
print("   ", ", ".join(f"{b['label']} {b['timings'].get('wall_s', 0):.1f} s" for b in report["backends"]))
PY
    done
}

case "${1:-main}" in
    main) main | tee "$RESULTS/isolation_main.txt" ;;
    sweep) sweep | tee "$RESULTS/isolation_sweep.txt" ;;
    *) echo "usage: $0 main|sweep" >&2; exit 2 ;;
esac
