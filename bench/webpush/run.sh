#!/usr/bin/env bash
# Web push benchmark: the push service (POST /push/<subscription>) against POST /3/device in the same run, and
# provider request → shown on the web app with 1,000 web apps subscribed. See bench/webpush/README.md.
#
#   swift build -c release --product herald && swift build -c release --product herald-bench
#   bash bench/webpush/run.sh                      # 3 runs: throughput (N=20000, C=64) and latency (100/s, 20 s)
#   RUNS=5 N=50000 bash bench/webpush/run.sh
#
# Environment: RUNS (3), S (1000 web apps in the throughput case), N (20000 requests of each kind), C (64 in flight),
# K (4 connections of each kind), WARMUP (2000 requests of each kind), APPS (1000 web apps in the latency case),
# RATE (100/s), DURATION (20 s per latency run), WORKER_PUSHES (20; 0 skips the service worker's timing), PIN=0 (no taskset),
# HERALD_BIN, BENCH_BIN, NODE, RESULTS (default bench/webpush/results-<date>.md), KEEP_TMP=1.
# Exit: 0; 1 on a setup error; 2 when a run was flagged (an answer that was not 2xx, a message not shown).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
RUNS=${RUNS:-3}
S=${S:-1000}
N=${N:-20000}
C=${C:-64}
K=${K:-4}
WARMUP=${WARMUP:-2000}
APPS=${APPS:-1000}
RATE=${RATE:-100}
DURATION=${DURATION:-20}
WORKER_PUSHES=${WORKER_PUSHES:-20}
HERALD_BIN=${HERALD_BIN:-$ROOT/.build/release/herald}
BENCH_BIN=${BENCH_BIN:-$ROOT/.build/release/herald-bench}
RESULTS=${RESULTS:-$ROOT/bench/webpush/results-$(date +%F).md}
KEY_ID=BENCH12345
TEAM_ID=TEAM123456

say() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] error: %s\n' "$*" >&2; exit 1; }
for bin in "$HERALD_BIN" "$BENCH_BIN"; do [ -x "$bin" ] || die "no binary at $bin (swift build -c release --product herald, then --product herald-bench)"; done
NODE_ARGS=()
if [ -n "${NODE:-}" ]; then NODE_ARGS=(--node "$NODE"); fi
if [ "$WORKER_PUSHES" != 0 ] && [ -z "${NODE:-}" ] && ! command -v node >/dev/null 2>&1; then
    die "no node on PATH for the service worker's timing (NODE=/path/to/node, or WORKER_PUSHES=0)"
fi

BENCH_PIN=() SERVER_PIN=() PINNING="none"
if [ "${PIN:-1}" = 1 ] && command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    BENCH_PIN=(taskset -c 0) SERVER_PIN=(taskset -c 1) PINNING="herald-bench (and its node) on CPU 0, herald serve on CPU 1 (one event loop)"
fi
DEVICES=$((S > APPS ? S : APPS))
ulimit -Hn 65536 2>/dev/null || true
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge $((DEVICES + 1024)) ] || die "ulimit -n is $(ulimit -n); $((DEVICES + 1024)) are needed"

WORK=$(mktemp -d /tmp/herald-webpush-bench.XXXXXX)
SERVER_PID=""
stop_server() {
    [ -n "$SERVER_PID" ] || return 0
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}
cleanup() {
    stop_server
    if [ "${KEEP_TMP:-0}" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_server NAME: a fresh data dir and key, `herald serve --allow-enrol` with h2c only (the endpoints are then
# http://127.0.0.1:H2C/push/<id>); sets SERVER_PID, H2C, LINK.
start_server() {
    local name=$1
    DATA=$WORK/$name-data
    H2C=$(free_port)
    LINK=$(free_port)
    mkdir -p "$DATA"
    "$HERALD_BIN" keys generate --key-id "$KEY_ID" --team-id "$TEAM_ID" --out "$WORK/key.p8" --environment both \
        --data-dir "$DATA" >"$WORK/$name-keys.log" 2>&1 || { cat "$WORK/$name-keys.log" >&2; die "herald keys generate failed"; }
    "${SERVER_PIN[@]}" "$HERALD_BIN" serve --data-dir "$DATA" --host 127.0.0.1 --h2c-port "$H2C" --tls-port=-1 \
        --link-port "$LINK" --environment sandbox --allow-enrol ${SERVER_PIN:+--event-loops 1} >"$WORK/$name-herald.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 600); do
        grep -q '^herald: ready' "$WORK/$name-herald.log" && break
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/$name-herald.log" >&2; die "herald serve exited"; }
        sleep 0.1
    done
    grep -q '^herald: ready' "$WORK/$name-herald.log" || die "herald not ready after 60 s"
}

FLAGGED=()
# run_case NAME DESCRIPTION PHASE ARGS...: a fresh server, `herald-bench webpush --phase PHASE ARGS`; JSON lines in
# $WORK/PHASE.jsonl.
run_case() {
    local name=$1 description=$2 phase=$3
    shift 3
    start_server "$name"
    say "$name: $description"
    local status=0
    "${BENCH_PIN[@]}" "$BENCH_BIN" webpush --phase "$phase" --host 127.0.0.1 --link-port "$LINK" --h2c-port "$H2C" \
        --server-pid "$SERVER_PID" --p8 "$WORK/key.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID" --json "$WORK/$phase.jsonl" \
        "$@" || status=$?
    stop_server
    case $status in
        0) ;;
        2) FLAGGED+=("$name") ;;
        *) die "herald-bench webpush failed ($name, status $status)" ;;
    esac
}

LOAD_BEFORE=$(uptime | sed 's/.*load average: //')
for run in $(seq "$RUNS"); do
    # Odd runs send the web pushes first, even runs the APNs pushes: neither kind always meets the fuller store.
    first=web-push
    [ $((run % 2)) = 1 ] || first=apns
    run_case "throughput-$run" "$S web apps, $N requests of each kind at concurrency $C over $K connections, $first first" throughput \
        --web-apps "$S" --pushes "$N" --concurrency "$C" --connections "$K" --warmup "$WARMUP" --first "$first"
    run_case "latency-$run" "$APPS web apps, $RATE/s for $DURATION s" latency \
        --web-apps "$APPS" --rate "$RATE" --seconds "$DURATION" --connections "$K" --worker-pushes "$WORKER_PUSHES" \
        --service-worker "$ROOT/Examples/WebPush/sw.js" "${NODE_ARGS[@]}"
done
LOAD_AFTER=$(uptime | sed 's/.*load average: //')

HERALD_REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "uncommitted")
NODE_VERSION=$("${NODE:-node}" --version 2>/dev/null || echo "none")
status=0
python3 "$ROOT/bench/webpush/table.py" "$WORK" "$PINNING" "$HERALD_REV" "$NODE_VERSION" "$LOAD_BEFORE" "$LOAD_AFTER" \
    "${FLAGGED[@]}" >"$WORK/results.md" || status=$?
cat "$WORK/results.md"
mkdir -p "$(dirname "$RESULTS")"
cp "$WORK/results.md" "$RESULTS"
say "written to ${RESULTS#"$ROOT"/}"
[ "${#FLAGGED[@]}" -eq 0 ] || status=2
exit $status
