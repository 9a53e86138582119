#!/usr/bin/env bash
# The store's floor: what SQLite alone costs per notification on Herald's accept path (bench/store/README.md).
#
#   bash bench/store/run.sh            # after: swift build -c release --product herald
#   R=7 N=300000 bash bench/store/run.sh
#
# Environment: R (5 runs of each kind), N (200000 notifications per run), BATCH (500), HERALD_BIN
# (.build/release/herald), PIN=0 (no taskset). Needs gcc and SQLite's headers (Debian: gcc libsqlite3-dev).
# Prints the runs and the medians (CPU µs per notification: insert + journal update, insert alone, and — not Herald,
# for comparison — the same fields appended to a log file of its own, one write and fdatasync per batch).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
R=${R:-5}
N=${N:-200000}
BATCH=${BATCH:-500}
HERALD_BIN=${HERALD_BIN:-$PWD/.build/release/herald}
PIN=${PIN:-1}

die() { echo "bench/store: $*" >&2; exit 1; }
command -v gcc >/dev/null || die "gcc is missing (apt-get install gcc libsqlite3-dev)"
[ -x "$HERALD_BIN" ] || die "no herald binary at $HERALD_BIN (swift build -c release --product herald)"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
gcc -O2 -Wall -o "$WORK/sqlite_floor" bench/store/sqlite_floor.c -lsqlite3 \
    || die "could not build sqlite_floor.c (apt-get install libsqlite3-dev)"
gcc -O2 -Wall -o "$WORK/log_floor" bench/store/log_floor.c || die "could not build log_floor.c"
# A data file with Herald's current schema (every migration applied).
mkdir -p "$WORK/data" # only `herald serve` creates a data directory
"$HERALD_BIN" tokens register --topic com.example.app --data-dir "$WORK/data" >/dev/null
PINNED=()
[ "$PIN" = 1 ] && command -v taskset >/dev/null && PINNED=(taskset -c 1)

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

both=() insert=() log=()
for run in $(seq 1 "$R"); do
    # Interleaved, so that the machine's noise hits both kinds alike.
    both+=("$("${PINNED[@]}" "$WORK/sqlite_floor" "$WORK/data/herald.sqlite" "$N" "$BATCH" 1)")
    insert+=("$("${PINNED[@]}" "$WORK/sqlite_floor" "$WORK/data/herald.sqlite" "$N" "$BATCH" 0)")
    log+=("$("${PINNED[@]}" "$WORK/log_floor" "$WORK" "$N" "$BATCH")")
    echo "run $run: insert + journal ${both[-1]} µs, insert alone ${insert[-1]} µs, log append ${log[-1]} µs"
done
echo
echo "| SQLite, CPU per notification (median of $R, N = $N, batches of $BATCH) | µs |"
echo "|---|---|"
echo "| group commit INSERT + journal UPDATE | $(printf '%s\n' "${both[@]}" | median) |"
echo "| group commit INSERT alone | $(printf '%s\n' "${insert[@]}" | median) |"
echo "| not Herald: the same fields appended to a log file, one write + fdatasync per batch | $(printf '%s\n' "${log[@]}" | median) |"
