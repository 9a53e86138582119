#!/usr/bin/env bash
# Broadcast benchmark: one channel, D simulated devices subscribed to it over the device link, a provider
# broadcasting on it; for each broadcast, request → 200 and request → each device's receipt, and the server's CPU
# time. See bench/broadcast/README.md.
#
#   swift build -c release
#   bash bench/broadcast/run.sh                    # D=10000, 10 broadcasts per case, policy 0 and 1, 1-device reference
#   D=2000 N=5 bash bench/broadcast/run.sh
#
# Environment: D (10000 devices), N (10 measured broadcasts per case), WARMUP (2), PIN=0 (no taskset), HERALD_BIN,
# BENCH_BIN, RESULTS (default bench/broadcast/results-<date>.md), KEEP_TMP=1.
# Exit: 0; 1 on a setup error; 2 when a broadcast did not reach every device.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
D=${D:-10000}
N=${N:-10}
WARMUP=${WARMUP:-2}
HERALD_BIN=${HERALD_BIN:-$ROOT/.build/release/herald}
BENCH_BIN=${BENCH_BIN:-$ROOT/.build/release/herald-bench}
RESULTS=${RESULTS:-$ROOT/bench/broadcast/results-$(date +%F).md}
KEY_ID=BENCH12345
TEAM_ID=TEAM123456

say() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] error: %s\n' "$*" >&2; exit 1; }
for bin in "$HERALD_BIN" "$BENCH_BIN"; do [ -x "$bin" ] || die "no binary at $bin (swift build -c release)"; done

BENCH_PIN=() SERVER_PIN=() PINNING="none"
if [ "${PIN:-1}" = 1 ] && command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    BENCH_PIN=(taskset -c 0) SERVER_PIN=(taskset -c 1) PINNING="herald-bench on CPU 0, herald serve on CPU 1 (one event loop)"
fi
ulimit -Hn 65536 2>/dev/null || true
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge $((D + 1024)) ] || die "ulimit -n is $(ulimit -n); $((D + 1024)) are needed"

WORK=$(mktemp -d /tmp/herald-broadcast-bench.XXXXXX)
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

# start_server NAME: a fresh data dir and key, `herald serve --allow-enrol`; sets SERVER_PID, H2C, LINK.
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

# run_case NAME DEVICES POLICY: a fresh server, DEVICES subscribed, N broadcasts; JSON lines in $WORK/NAME.jsonl.
run_case() {
    local name=$1 devices=$2 policy=$3
    start_server "$name"
    say "$name: $devices devices, storage policy $policy, $N broadcasts after $WARMUP warm-up"
    "${BENCH_PIN[@]}" "$BENCH_BIN" broadcast --host 127.0.0.1 --link-port "$LINK" --h2c-port "$H2C" --server-pid "$SERVER_PID" \
        --p8 "$WORK/key.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID" --devices "$devices" --broadcasts "$N" --warmup "$WARMUP" \
        --storage-policy "$policy" --json "$WORK/$name.jsonl" || die "herald-bench broadcast failed ($name)"
    stop_server
}

LOAD_BEFORE=$(uptime | sed 's/.*load average: //')
run_case reference 1 0
run_case policy-0 "$D" 0
run_case policy-1 "$D" 1
LOAD_AFTER=$(uptime | sed 's/.*load average: //')

HERALD_REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "uncommitted")
status=0
python3 - "$WORK" "$D" "$N" "$PINNING" "$HERALD_REV" "$LOAD_BEFORE" "$LOAD_AFTER" >"$WORK/results.md" <<'PY' || status=$?
import json, statistics, sys, datetime, os
work, d, n, pinning, rev, load_before, load_after = sys.argv[1:8]
def rows(name):
    with open(os.path.join(work, name + ".jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]
def med(values):
    return statistics.median(values) if values else float("nan")
cases = [("1 device (reference)", "reference"), (f"{int(d):,} devices, storage policy 0", "policy-0"), (f"{int(d):,} devices, storage policy 1", "policy-1")]
print(f"# Broadcast benchmark, {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}")
print()
print(f"One channel; the devices subscribed to it over the device link (one `herald-bench` process, shared event loops);")
print(f"a provider on one h2c connection broadcasts a Live Activity update, one at a time; {n} measured broadcasts per case")
print(f"after warm-up, medians. A fresh `herald serve` (SQLite, synchronous=FULL) per case. Pinning: {pinning}. herald {rev}.")
print(f"Load average before: {load_before}; after: {load_after}.")
print()
print("| Case | Received | 200 (ms) | p50 receipt (ms) | p99 receipt (ms) | last receipt (ms) | server CPU per broadcast (ms) |")
print("|---|---|---|---|---|---|---|")
flagged = []
for title, name in cases:
    r = rows(name)
    received = min(x["received"] for x in r)
    if received < r[0]["devices"]:
        flagged.append(f"{title}: a broadcast reached {received} of {r[0]['devices']} devices")
    cpu = [x["serverCPUMilliseconds"] for x in r if x.get("serverCPUMilliseconds") is not None]
    print(f"| {title} | {received:,}/{r[0]['devices']:,} (min) | {med([x['answerMilliseconds'] for x in r]):.2f} | "
          f"{med([x['receipt']['p50'] for x in r]):.1f} | {med([x['receipt']['p99'] for x in r]):.1f} | "
          f"{med([x['lastMilliseconds'] for x in r]):.1f} | {med(cpu):.0f} |")
print()
print("Each figure is the median over the broadcasts of that case; the times are from the provider's request, on the")
print("monotonic clock of `herald-bench`, which also stamps each receipt. Server CPU is user+system time of `herald serve`")
print("from the request to the last receipt (the clock ticks every 10 ms).")
if flagged:
    print()
    print("**Flagged:**")
    for line in flagged:
        print(f"- {line}")
    sys.exit(2)
PY
cat "$WORK/results.md"
mkdir -p "$(dirname "$RESULTS")"
cp "$WORK/results.md" "$RESULTS"
say "written to ${RESULTS#"$ROOT"/}"
exit $status
