#!/usr/bin/env bash
# What the same work costs on this machine's core when it arrives alone: see README.md.
# R rounds (default 3) of every kind × mode × gap, interleaved, pinned to CPU ${CPU:-1}; COUNT units each (default 200).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
R="${R:-3}" COUNT="${COUNT:-200}" CPU="${CPU:-1}" GAPS="${GAPS:-100 1000 10000}"
command -v gcc >/dev/null || { echo "coldcore: needs gcc and SQLite's headers (apt-get install gcc libsqlite3-dev)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
gcc -O2 -Wall -o "$work/coldcore" "$here/coldcore.c" -lsqlite3
cases=("back 0")
for gap in $GAPS; do cases+=("sleep $gap" "spin $gap"); done
for round in $(seq "$R"); do
  for kind in memory sqlite; do
    for c in "${cases[@]}"; do
      taskset -c "$CPU" "$work/coldcore" "$kind" $c "$COUNT" "$work" >>"$work/all"
    done
  done
done
echo "CPU time per unit (µs), median of $COUNT units, then the median of $R rounds; ratio to back to back"
echo
echo "| work | arrives | µs per unit | × back to back | rounds |"
echo "|---|---|---:|---:|---|"
python3 - "$work/all" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    kind, mode, gap, cost = line.split()
    rows.setdefault((kind, mode, int(float(gap))), []).append(float(cost))
for kind in ("memory", "sqlite"):
    base = statistics.median(rows[(kind, "back", 0)])
    for (k, mode, gap), costs in rows.items():
        if k != kind:
            continue
        what = "back to back" if mode == "back" else f"after {'sleeping' if mode == 'sleep' else 'spinning'} {gap / 1000:g} ms"
        label = "a 512 KiB array pass" if kind == "memory" else "a one-row SQLite commit (WAL, FULL)"
        m = statistics.median(costs)
        print(f"| {label} | {what} | {m:.1f} | {m / base:.2f} | {', '.join(f'{c:.1f}' for c in costs)} |")
PY
