#!/usr/bin/env bash
# The fuzzer against releases that shipped known filter bugs, each in a throwaway virtual environment, and every
# finding replayed against the release that fixed it: a finding that fails on the old release and holds on the
# fixed one is a bug that release fixed, found by the generic generator (no case is written for a known bug).
#
#   qdrant-client 1.19.0 local mode, diffed against Qdrant's engine (qdrant-edge-py 0.9.0); fixed in 1.19.1
#     (PR #1333 MatchExcept matched nulls, PR #1308 FieldCondition is_empty/is_null ignored, #1430 [null] not null)
#   qdrant-edge-py 0.8.0 alone, indexed against unindexed; fixed in 0.9.0 (qdrant #10096: IsNull on [null, ...])
#   chromadb 0.4.13 alone, against the neutral evaluator; fixed in 0.4.15 (#1424: string $nin selected everything)
#   lancedb 0.27.1 alone, indexed against unindexed, before and after optimize(), and P / NOT P / (P) IS NULL;
#     fixed by 0.34.0 (lance #4756/#5918/#5895: scalar indexes kept null rows under NOT, which rows appended after the
#     index and optimize() folding them in show too; lance PR #5914: a panic on array_has_any(col, []); datafusion
#     #20526: cardinality([]) null; array_has on a null list neither true, false nor null: in no part of the three)
#
# Usage: bash bench/fuzz_known_bugs.sh [BUDGET]   (default 60s a run; writes bench/results/fuzz_known_bugs/)
# Needs the package registry (pip); nothing else. About 10 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUDGET=${1:-60s}
OUT=$ROOT/bench/results/fuzz_known_bugs
WORK=$(mktemp -d /tmp/filterproof-known-bugs.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
rm -rf "$OUT" && mkdir -p "$OUT"

venv() {  # venv NAME PACKAGE...: filterproof (its core) and the given releases
    python3 -m venv "$WORK/$1"
    "$WORK/$1/bin/python" -m pip install --quiet --upgrade pip uv
    "$WORK/$1/bin/uv" pip install --quiet --python "$WORK/$1/bin/python" -e "$ROOT" "${@:2}"
}

# run OLD FIXED NAME TARGET...: fuzz on the old release, then replay each finding on the fixed one.
run() {
    local old=$1 fixed=$2 name=$3
    shift 3
    local args=()
    for target in "$@"; do args+=(-b "$target"); done
    echo "== $name: $old (fixed: $fixed), targets $*" | tee -a "$OUT/summary.txt"
    "$WORK/$old/bin/filterproof" fuzz "${args[@]}" --budget "$BUDGET" --seed 1 --out "$OUT/$name" \
        --json "$OUT/$name.json" > "$OUT/$name.txt" 2>&1 || true
    grep -E "^fuzz:|^versions:|^FINDING|^no finding|^error|Exception" "$OUT/$name.txt" | tee -a "$OUT/summary.txt" || true
    for finding in "$OUT/$name"/finding-*.json; do
        [ -e "$finding" ] || continue
        if "$WORK/$fixed/bin/filterproof" fuzz --replay "$finding" > "$finding.replay.txt" 2>&1; then
            verdict="FIXED in $fixed: a known bug rediscovered"
        else
            verdict="still fails on $fixed (not the bug $fixed fixed)"
        fi
        echo "  $(basename "$finding" .json): $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['signature'])" "$finding") -> $verdict" | tee -a "$OUT/summary.txt"
    done
}

venv qc-old qdrant-client==1.19.0 qdrant-edge-py==0.9.0
venv qc-fixed qdrant-client==1.19.1 qdrant-edge-py==0.9.0
run qc-old qc-fixed qdrant-client-1.19.0 qdrant-local qdrant-edge

venv edge-old qdrant-edge-py==0.8.0
venv edge-fixed qdrant-edge-py==0.9.0
run edge-old edge-fixed qdrant-edge-0.8.0 qdrant-edge

venv chroma-old chromadb==0.4.13
venv chroma-fixed chromadb==0.4.15
run chroma-old chroma-fixed chromadb-0.4.13 chroma

venv lance-old lancedb==0.27.1
venv lance-fixed lancedb==0.34.0
run lance-old lance-fixed lancedb-0.27.1 lancedb

echo "wrote $OUT (summary.txt)"
