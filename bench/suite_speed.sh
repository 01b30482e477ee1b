#!/usr/bin/env bash
# The conformance suite as a user runs it, once per embedded engine at the default budgets, on two workers:
#   bench/suite_speed.sh [ENGINE ...] > bench/results/suite_speed.txt
# Prints, per engine, the exit code, the wall time (interpreter start included) and pytest's own summary line,
# then the load average (the machine is shared: a busy one reads slower).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
engines=("$@")
if [ ${#engines[@]} -eq 0 ]; then  # every built-in engine that runs here without a server to point at
  read -ra engines <<< "$("$root/.venv/bin/python" -c 'from filterproof.adapters.descriptor import stores
print(" ".join(s.name for s in stores() if s.kind != "bridge" and not s.name.endswith("-server")))')"
fi
echo "# bench/suite_speed.sh ${engines[*]}  ($(date -u +%F), load average: $(cut -d' ' -f1-3 /proc/loadavg))"
work="$(mktemp -d)"
cd "$work" || exit 1
for engine in "${engines[@]}"; do
  start=$(date +%s.%N)
  "$root/.venv/bin/python" -m pytest --pyargs filterproof.conformance --backend "$engine" -n 2 -q \
    -p no:cacheprovider > "$work/$engine.txt" 2>&1
  rc=$?
  end=$(date +%s.%N)
  printf '%-13s exit %d  %6.1f s wall   %s\n' "$engine" "$rc" "$(echo "$end - $start" | bc)" "$(tail -1 "$work/$engine.txt")"
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$work"
