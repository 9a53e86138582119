#!/usr/bin/env bash
# Storage benchmark: bytes on disk per delivered notification. `herald serve` on a fresh data directory, D devices
# connected over the device link, a provider posting a 200-byte alert at RATE/s for T s (`herald-bench delivery`);
# then the server is stopped (SIGTERM), the WAL checkpointed into the database (`PRAGMA wal_checkpoint(TRUNCATE)`)
# and the data directory measured. Bytes per notification = data directory size / notifications in the file.
# `dbstat` (SQLite's virtual table) says where the bytes go, per table and index.
#
#   swift build -c release --product herald && swift build -c release --product herald-bench
#   BEFORE_BIN=/path/to/main/.build/release/herald bash bench/storage/run.sh
#
# A last run (BUDGET_MB > 0) starts this tree's binary with `--max-store-mb BUDGET_MB` and samples the data
# directory's size every second: with a budget smaller than the load writes, the size must level off near it while
# every push is still accepted and delivered (delivered notifications are pruned oldest first).
#
# Environment: D (1000 devices), RATE (2000/s), T (60 s), RUNS (3; each run measures every binary, interleaved),
# BUDGET_MB (32; 0 skips the budget run),
# AFTER_BIN (.build/release/herald), BEFORE_BIN (optional: the binary to compare with, e.g. main's), BENCH_BIN
# (.build/release/herald-bench), PIN=0 (no taskset), RESULTS (bench/storage/results-<date>.md), KEEP_TMP=1.
# Needs python3 (free ports) and sqlite3 built with SQLITE_ENABLE_DBSTAT_VTAB (Debian's is).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
D=${D:-1000}
RATE=${RATE:-2000}
T=${T:-60}
RUNS=${RUNS:-3}
BUDGET_MB=${BUDGET_MB:-32}
AFTER_BIN=${AFTER_BIN:-$ROOT/.build/release/herald}
BEFORE_BIN=${BEFORE_BIN:-}
BENCH_BIN=${BENCH_BIN:-$ROOT/.build/release/herald-bench}
RESULTS=${RESULTS:-$ROOT/bench/storage/results-$(date +%F).md}
KEY_ID=BENCH12345
TEAM_ID=TEAM123456

say() { printf '[storage] %s\n' "$*" >&2; }
die() { printf '[storage] error: %s\n' "$*" >&2; exit 1; }

for bin in "$AFTER_BIN" "$BENCH_BIN" ${BEFORE_BIN:+"$BEFORE_BIN"}; do
    [ -x "$bin" ] || die "no binary at $bin"
done
command -v python3 >/dev/null 2>&1 || die "python3 is needed to pick free ports"
command -v sqlite3 >/dev/null 2>&1 || die "sqlite3 is needed (apt-get install sqlite3)"
sqlite3 :memory: 'SELECT count(*) FROM dbstat' >/dev/null 2>&1 || die "this sqlite3 has no dbstat table"

BENCH_PIN=() SERVER_PIN=()
if [ "${PIN:-1}" = 1 ] && command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    BENCH_PIN=(taskset -c 0) SERVER_PIN=(taskset -c 1)
fi
ulimit -n 65536 2>/dev/null || true

WORK=$(mktemp -d /tmp/herald-storage-bench.XXXXXX)
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill -TERM "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    if [ "${KEEP_TMP:-0}" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# measure NAME BIN RUN [SERVE ARGS…]: one server, one load, one measurement; appends a line to $WORK/rows.tsv, keeps
# dbstat, and the data directory's largest size sampled once a second during the load in $WORK/NAME-RUN.peak.
measure() {
    local name=$1 bin=$2 run=$3
    shift 3
    local data=$WORK/$name-$run-data log=$WORK/$name-$run-herald.log
    local h2c link
    h2c=$(free_port) link=$(free_port)
    mkdir -p "$data"
    "$bin" keys generate --key-id "$KEY_ID" --team-id "$TEAM_ID" --out "$WORK/$name-$run.p8" --environment both \
        --data-dir "$data" >"$WORK/$name-$run-keys.log" 2>&1 || { cat "$WORK/$name-$run-keys.log" >&2; die "keys generate failed"; }
    "${SERVER_PIN[@]}" "$bin" serve --data-dir "$data" --host 127.0.0.1 --h2c-port "$h2c" --tls-port=-1 \
        --link-port "$link" --environment sandbox --allow-enrol "$@" >"$log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 600); do
        grep -q '^herald: ready' "$log" && break
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$log" >&2; die "herald serve exited"; }
        sleep 0.1
    done
    say "$name run $run: ${RATE}/s for ${T} s, $D devices${*:+ ($*)}"
    ( peak=0; while kill -0 "$SERVER_PID" 2>/dev/null; do
        size=$(du -sb "$data" 2>/dev/null | cut -f1); [ "${size:-0}" -gt "$peak" ] && peak=$size && echo "$peak" >"$WORK/$name-$run.peak"
        sleep 1
    done ) &
    local sampler=$!
    "${BENCH_PIN[@]}" "$BENCH_BIN" delivery --host 127.0.0.1 --link-port "$link" --h2c-port "$h2c" --server-pid "$SERVER_PID" \
        --p8 "$WORK/$name-$run.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID" --devices "$D" --steady-rate "$RATE" --rates "" \
        --seconds "$T" --runs 1 --warmup-seconds 0 --json "$WORK/$name-$run.jsonl" >"$WORK/$name-$run-bench.log" 2>&1 \
        || { tail -5 "$WORK/$name-$run-bench.log" >&2; die "herald-bench delivery failed"; }
    kill -TERM "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
    wait "$sampler" 2>/dev/null || true
    local db=$data/herald.sqlite
    # The last connection to close checkpoints the WAL into the database and removes it; make sure it happened.
    sqlite3 "$db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
    [ ! -s "$db-wal" ] || die "the WAL could not be checkpointed ($db-wal)"
    local count delivered bytes
    count=$(sqlite3 "$db" 'SELECT count(*) FROM notification')
    delivered=$(sqlite3 "$db" "SELECT count(*) FROM notification WHERE state = 'delivered'")
    bytes=$(du -sb "$data" | cut -f1)
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$run" "$count" "$delivered" "$bytes" >>"$WORK/rows.tsv"
    # Where the bytes go: per table or index, its pages' size, the payload bytes in them, unused bytes, free pages.
    sqlite3 -separator $'\t' "$db" "
        SELECT name, sum(pgsize), sum(payload), sum(unused), count(*) FROM dbstat GROUP BY name
        UNION ALL SELECT '(free pages)', (SELECT freelist_count FROM pragma_freelist_count) * (SELECT page_size FROM pragma_page_size), 0, 0,
            (SELECT freelist_count FROM pragma_freelist_count)" >"$WORK/$name-$run.dbstat"
    say "$name run $run: $count notifications ($delivered delivered), $bytes bytes: $((bytes / (count > 0 ? count : 1))) B each"
}

NAMES=(after) BINS=("$AFTER_BIN")
if [ -n "$BEFORE_BIN" ]; then NAMES=(before after) BINS=("$BEFORE_BIN" "$AFTER_BIN"); fi
for run in $(seq "$RUNS"); do
    # `--max-store-mb 0` only for this tree's binary: the one before the budget has no such option (and no budget).
    for i in "${!NAMES[@]}"; do
        if [ "${NAMES[$i]}" = after ]; then measure after "$AFTER_BIN" "$run" --max-store-mb 0; else measure "${NAMES[$i]}" "${BINS[$i]}" "$run"; fi
    done
done
if [ "$BUDGET_MB" -gt 0 ]; then measure budget "$AFTER_BIN" 1 --max-store-mb "$BUDGET_MB"; fi
# json_field FILE FIELD: a run's field from herald-bench's JSON line (the measured run, not the warm-up).
json_field() { python3 -c 'import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
v = rows[-1].get(sys.argv[2]) if rows else None
print(sum(v.values()) if isinstance(v, dict) else v)' "$1" "$2"; }

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
HERALD_REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "uncommitted")
{
    echo "# Storage benchmark, $(date '+%F %H:%M %Z')"
    echo
    echo "Bytes on disk per notification: \`herald serve\` on a fresh data directory, $D devices on the device link, a provider"
    echo "posting a 200-byte alert to random devices at ${RATE}/s for ${T} s (\`herald-bench delivery\`), then SIGTERM and a"
    echo "\`PRAGMA wal_checkpoint(TRUNCATE)\` and \`du -sb\` of the data directory. $RUNS run(s) of each binary,"
    echo "interleaved; medians. This tree: herald ${HERALD_REV}."
    echo
    echo "Without a budget (this tree with \`--max-store-mb 0\`, so that nothing is pruned):"
    echo
    echo "| Binary | Notifications (median) | Delivered | Data directory | Bytes per notification (median) |"
    echo "|---|---:|---:|---:|---:|"
    for name in "${NAMES[@]}"; do
        n=$(awk -F'\t' -v n="$name" '$1 == n { print $3 }' "$WORK/rows.tsv" | median)
        dl=$(awk -F'\t' -v n="$name" '$1 == n { print $4 }' "$WORK/rows.tsv" | median)
        b=$(awk -F'\t' -v n="$name" '$1 == n { print $5 }' "$WORK/rows.tsv" | median)
        per=$(awk -F'\t' -v n="$name" '$1 == n && $3 > 0 { printf "%.0f\n", $5 / $3 }' "$WORK/rows.tsv" | median)
        printf '| %s | %s | %s | %.1f MiB | %s |\n' "$name" "$n" "$dl" "$(awk -v b="$b" 'BEGIN { print b / 1048576 }')" "$per"
    done
    echo
    if [ "$BUDGET_MB" -gt 0 ]; then
        peak=$(cat "$WORK/budget-1.peak" 2>/dev/null || echo 0)
        final=$(awk -F'\t' '$1 == "budget" { print $5 }' "$WORK/rows.tsv")
        echo "With \`--max-store-mb $BUDGET_MB\` (this tree, one run of the same load):"
        echo
        echo "| Accepted (200) | Refused | Failed | Lost | Data directory, largest sample during the run | At the end (after checkpoint) |"
        echo "|---:|---:|---:|---:|---:|---:|"
        printf '| %s | %s | %s | %s | %.1f MiB | %.1f MiB |\n' "$(json_field "$WORK/budget-1.jsonl" accepted)" \
            "$(json_field "$WORK/budget-1.jsonl" refused)" "$(json_field "$WORK/budget-1.jsonl" failed)" \
            "$(json_field "$WORK/budget-1.jsonl" lost)" "$(awk -v b="$peak" 'BEGIN { print b / 1048576 }')" \
            "$(awk -v b="$final" 'BEGIN { print b / 1048576 }')"
        echo
    fi
    for name in "${NAMES[@]}"; do
        file=$WORK/$name-1.dbstat
        n=$(awk -F'\t' -v n="$name" '$1 == n && $2 == 1 { print $3 }' "$WORK/rows.tsv")
        echo "Where the bytes go, $name, run 1 ($n notifications; per notification):"
        echo
        echo "| Table or index | Pages | Bytes | Per notification | Of which content | Unused in pages |"
        echo "|---|---:|---:|---:|---:|---:|"
        sort -t$'\t' -k2,2nr "$file" | awk -F'\t' -v n="$n" '$2 > 0 {
            printf "| %s | %d | %d | %.0f | %.0f | %.0f |\n", $1, $5, $2, $2 / n, $3 / n, $4 / n }'
        echo
    done
} >"$WORK/results.md"
cat "$WORK/results.md"
mkdir -p "$(dirname "$RESULTS")"
cp "$WORK/results.md" "$RESULTS"
say "written to ${RESULTS#"$ROOT"/}"
