#!/usr/bin/env bash
# The delivery engine alone: CPU time per delivered notification (bench/engine/README.md).
#
#   swift build -c release --product herald-bench
#   bash bench/engine/run.sh                                  # R=5 runs of .build/release/herald-bench engine
#   BASE_BIN=/tmp/herald-bench-before R=7 bash bench/engine/run.sh   # against another build, interleaved
#
# Environment: BENCH_BIN (.build/release/herald-bench), BASE_BIN (a herald-bench built from another revision; runs
# alternate with BENCH_BIN's), R (5 runs each), N (50000 notifications per round), ROUNDS (4 per run, the first a
# warm-up), GROUP (100 notifications per group), D (1000 devices), PIN (1: on CPU 1 with taskset, like `herald serve`
# in bench/delivery; 0: unpinned).
# Prints each run's figure, then each binary's median, and with BASE_BIN the ratio after/before.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BENCH_BIN=${BENCH_BIN:-$PWD/.build/release/herald-bench}
R=${R:-5}
N=${N:-50000}
ROUNDS=${ROUNDS:-4}
GROUP=${GROUP:-100}
D=${D:-1000}
PINNED=()
if [ "${PIN:-1}" = 1 ] && command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then PINNED=(taskset -c 1); fi

for bin in "$BENCH_BIN" ${BASE_BIN:+"$BASE_BIN"}; do
    [ -x "$bin" ] || { echo "bench/engine: no binary at $bin (swift build -c release --product herald-bench)" >&2; exit 1; }
done

# run BIN: one run's median µs CPU per delivered notification.
run() {
    "${PINNED[@]}" "$1" engine --devices "$D" --notifications "$N" --rounds "$ROUNDS" --group "$GROUP" |
        sed -n 's/^engine: \([0-9.]*\) µs CPU.*/\1/p'
}

after=() before=()
for i in $(seq "$R"); do
    if [ -n "${BASE_BIN:-}" ]; then
        before+=("$(run "$BASE_BIN")")
        echo "run $i before: ${before[-1]} µs"
    fi
    after+=("$(run "$BENCH_BIN")")
    echo "run $i after:  ${after[-1]} µs"
done

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "engine, ${PINNED:+pinned to CPU 1, }$D devices, groups of $GROUP, $R runs:"
if [ -n "${BASE_BIN:-}" ]; then
    b=$(median "${before[@]}")
    a=$(median "${after[@]}")
    echo "before: $b µs CPU per delivered notification (median)"
    echo "after:  $a µs CPU per delivered notification (median)"
    awk -v a="$a" -v b="$b" 'BEGIN { printf "after/before: %.2f\n", a / b }'
else
    echo "$(median "${after[@]}") µs CPU per delivered notification (median)"
fi
