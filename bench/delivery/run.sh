#!/usr/bin/env bash
# Delivery benchmark: provider request → device receipt through `herald serve`, with D simulated devices on the
# device link and a provider at steady rates, all in one `herald-bench` process; then the server's memory per
# idle connected device; and, in the same run on the same pinned core, the server's durable accept rate with no
# device connected (h2load), so that delivery is compared with acceptance measured minutes apart, not days.
# The results end with the line `delivery/accept: R (D/s with p99 < 50 ms / A/s accepted durably)`.
# See bench/delivery/README.md for how to read the table.
#
#   swift build -c release
#   bash bench/delivery/run.sh                          # defaults: D=1000, STEADY=500, sweep, RUNS=3, T=10, IDLE=10000
#   R="2000 3000" RUNS=5 bash bench/delivery/run.sh     # only these sweep rates, more runs
#   IDLE=0 bash bench/delivery/run.sh                   # skip the idle-memory phase
#   ACCEPT_RUNS=0 bash bench/delivery/run.sh            # skip the same-run accept rate
#
# Environment: D (1000 devices), R (sweep rates, "1000 2000 2500 3000 3500 4000 5000 … 12000"; the sweep stops
# after the first failing rate), PACED (1: the sweep again with every device offline, judged by the 200's p99;
# 0 skips), PACED_R (its rates: R and 5000 6000 7000 8000 10000 12000), STEADY (500/s, the fixed moderate rate;
# 0 skips), T (10 s per run), RUNS (3 per rate), OVERLOAD (an extra rate above the sweep, 12000/s; 0 skips),
# CONNECTIONS (4 provider connections), IDLE (10000 idle devices; 0 skips), IDLE_RUNS (1), SETTLE (10 s before each memory reading), PIN=0 (no taskset),
# SERVE_ARGS (more `herald serve` options for every server, split on spaces, e.g. "--sent-trace-hold-ms 0"),
# HERALD_BIN (.build/release/herald), BENCH_BIN (.build/release/herald-bench), ACCEPT_RUNS (3 h2load runs of the
# durable accept rate; 0 skips), ACCEPT_N (200000 requests each), ACCEPT_C / ACCEPT_M (16 connections × 100 streams,
# as bench/gateway), RESULTS (output, default bench/delivery/results-<date>.md), KEEP_TMP=1 (keep logs, JSON lines),
# CLUSTER=1 with HERALD_DATABASE_URL (bench/cluster/delivery.sh): two `--cluster` nodes, the provider on one and the
# devices on the other (the server's CPU and memory readings are the devices' node's).
# Exit: 0; 1 on a setup error; 2 when a run lost notifications, a request failed, or the server exited.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
D=${D:-1000}
R=${R:-1000 2000 2500 3000 3500 4000 5000 6000 8000 10000 12000}
STEADY=${STEADY:-500}
T=${T:-10}
RUNS=${RUNS:-3}
OVERLOAD=${OVERLOAD:-12000}
CONNECTIONS=${CONNECTIONS:-4}
IDLE=${IDLE:-10000}
IDLE_RUNS=${IDLE_RUNS:-1}
SETTLE=${SETTLE:-10}
HERALD_BIN=${HERALD_BIN:-$ROOT/.build/release/herald}
SERVE_ARGS=${SERVE_ARGS:-}
BENCH_BIN=${BENCH_BIN:-$ROOT/.build/release/herald-bench}
ACCEPT_RUNS=${ACCEPT_RUNS:-3}
PACED=${PACED:-1}
ACCEPT_N=${ACCEPT_N:-200000}
ACCEPT_C=${ACCEPT_C:-16}
ACCEPT_M=${ACCEPT_M:-100}
RESULTS=${RESULTS:-$ROOT/bench/delivery/results-$(date +%F).md}
KEY_ID=BENCH12345
TEAM_ID=TEAM123456

say() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] error: %s\n' "$*" >&2; exit 1; }

for bin in "$HERALD_BIN" "$BENCH_BIN"; do
    [ -x "$bin" ] || die "no binary at $bin (swift build -c release)"
done
command -v python3 >/dev/null 2>&1 || die "python3 is needed to pick free ports"
if [ "$ACCEPT_RUNS" -gt 0 ]; then
    command -v h2load >/dev/null 2>&1 || die "h2load is needed for the accept rate (apt-get install nghttp2-client; or ACCEPT_RUNS=0)"
fi

# Pin the benchmark (devices and provider) to one core and the server to the other, as the gateway benchmark does.
BENCH_PIN=() SERVER_PIN=() PINNING="none"
if [ "${PIN:-1}" = 1 ] && command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    BENCH_PIN=(taskset -c 0) SERVER_PIN=(taskset -c 1) PINNING="herald-bench on CPU 0, herald serve on CPU 1"
fi
# Each device link is one socket in the server and one in herald-bench.
NEED_FILES=$((IDLE > D ? IDLE : D))
NEED_FILES=$((NEED_FILES + 1024))
ulimit -Hn 65536 2>/dev/null || true
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge "$NEED_FILES" ] || die "ulimit -n is $(ulimit -n); $NEED_FILES open files are needed (raise the hard limit, or lower IDLE/D)"

WORK=$(mktemp -d /tmp/herald-delivery-bench.XXXXXX)
SERVER_PID=""
cleanup() {
    stop_server
    if [ "${KEEP_TMP:-0}" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
vm() { # vm PID FIELD -> kB
    awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null || true
}
load_now() { sed 's/.*load average: //' <<<"$(uptime)"; }

CLUSTER_OPTIONS=()
[ "${CLUSTER:-0}" = 1 ] && CLUSTER_OPTIONS=(--cluster --node-id bench-provider)
# start_server NAME [SERVE OPTION…]: a new data dir, a signing key, `herald serve --allow-enrol`; sets SERVER_PID, H2C, LINK.
start_server() {
    local name=$1
    DATA=$WORK/$name-data
    H2C=$(free_port)
    LINK=$(free_port)
    mkdir -p "$DATA" # only `herald serve` creates a data directory; the key comes first here
    "$HERALD_BIN" keys generate --key-id "$KEY_ID" --team-id "$TEAM_ID" --out "$WORK/key.p8" \
        --environment both --data-dir "$DATA" >"$WORK/$name-keys.log" 2>&1 || { cat "$WORK/$name-keys.log" >&2; die "herald keys generate failed"; }
    "${SERVER_PIN[@]}" "$HERALD_BIN" serve --data-dir "$DATA" --host 127.0.0.1 --h2c-port "$H2C" --tls-port=-1 \
        --link-port "$LINK" --environment sandbox --allow-enrol ${SERVER_PIN:+--event-loops 1} "${@:2}" "${CLUSTER_OPTIONS[@]}" $SERVE_ARGS \
        >"$WORK/$name-herald.log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 600); do
        grep -q '^herald: ready' "$WORK/$name-herald.log" && break
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/$name-herald.log" >&2; die "herald serve exited"; }
        sleep 0.1
    done
    grep -q '^herald: ready' "$WORK/$name-herald.log" || { tail -20 "$WORK/$name-herald.log" >&2; die "herald not ready after 60 s"; }
    say "$name: herald serve pid $SERVER_PID, h2c $H2C, device link $LINK (data $DATA)"
    if [ "${CLUSTER:-0}" = 1 ]; then
        # Two nodes of a cluster on HERALD_DATABASE_URL (docs/cluster.md): the provider sends through the first, the
        # devices connect to the second, so that every notification is handed off between nodes.
        PEER_PID=$SERVER_PID
        local peer_h2c=$H2C
        mkdir -p "$DATA-devices"
        LINK=$(free_port)
        "${SERVER_PIN[@]}" "$HERALD_BIN" serve --data-dir "$DATA-devices" --host 127.0.0.1 --h2c-port "$(free_port)" --tls-port=-1 \
            --link-port "$LINK" --environment sandbox --allow-enrol ${SERVER_PIN:+--event-loops 1} "${@:2}" --cluster --node-id bench-devices $SERVE_ARGS \
            >"$WORK/$name-devices-herald.log" 2>&1 &
        SERVER_PID=$!
        for _ in $(seq 600); do grep -q '^herald: ready' "$WORK/$name-devices-herald.log" && break; sleep 0.1; done
        grep -q '^herald: ready' "$WORK/$name-devices-herald.log" || { tail -20 "$WORK/$name-devices-herald.log" >&2; die "second node not ready"; }
        H2C=$peer_h2c
        say "$name: second cluster node pid $SERVER_PID, device link $LINK; the provider sends through pid $PEER_PID"
    fi
}
# stop_server: SIGTERM, then SIGKILL after 20 s. Sets SERVER_EXIT ("alive" when it was still running when asked).
stop_server() {
    if [ -n "${PEER_PID:-}" ]; then
        kill -TERM "$PEER_PID" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$PEER_PID" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$PEER_PID" 2>/dev/null || true
        wait "$PEER_PID" 2>/dev/null || true
        PEER_PID=""
    fi
    [ -n "$SERVER_PID" ] || return 0
    if kill -0 "$SERVER_PID" 2>/dev/null; then
        SERVER_EXIT=alive
        kill -TERM "$SERVER_PID" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$SERVER_PID" 2>/dev/null || true
    else
        SERVER_EXIT=exited
    fi
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
}

FLAGGED=()
LOAD_BEFORE=$(load_now)

# bench_delivery OPTION…: `herald-bench delivery` against the running server with D devices, T s × RUNS runs.
bench_delivery() {
    "${BENCH_PIN[@]}" "$BENCH_BIN" delivery --host 127.0.0.1 --link-port "$LINK" --h2c-port "$H2C" --server-pid "$SERVER_PID" \
        --p8 "$WORK/key.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID" --devices "$D" --seconds "$T" --runs "$RUNS" \
        --connections "$CONNECTIONS" "$@"
}

# --- (a) latency and rate sweep with D devices --------------------------------------------------
SWEEP_HWM="" SWEEP_DB=""
if [ "$D" -gt 0 ]; then
    start_server delivery
    rates=$(tr ' ' ',' <<<"$R" | sed 's/,,*/,/g; s/^,//; s/,$//')
    say "delivery: $D devices, steady ${STEADY}/s, sweep $rates, overload ${OVERLOAD}/s, ${T} s × $RUNS runs"
    bench_delivery --steady-rate "$STEADY" --rates "$rates" --overload-rate "$OVERLOAD" --json "$WORK/runs.jsonl" \
        || FLAGGED+=("herald-bench delivery exited with status $?")
    SWEEP_HWM=$(vm "$SERVER_PID" VmHWM)
    SWEEP_DB=$(du -sk "$DATA" | cut -f1)
    stop_server
    [ "$SERVER_EXIT" = alive ] || FLAGGED+=("herald serve exited during the delivery runs (see $WORK/delivery-herald.log)")
fi

# --- (a') the same provider and sweep with every device offline: paced acceptance -----------------
# The devices enrol and close their links, so each notification is checked, committed, stored for an offline token
# (replacing the one before it) and answered, and nothing is sent: the highest rate answered with p99 < 50 ms is what
# the provider API sustains at this load's pace, to compare delivery with.
if [ "$D" -gt 0 ] && [ "$PACED" = 1 ]; then
    start_server paced
    # The offline sweep goes on above R (PACED_R), since acceptance alone goes further than delivery.
    paced_rates=$(tr ' ,' '\n\n' <<<"${PACED_R:-$R 5000 6000 7000 8000 10000 12000}" | awk 'NF' | sort -gu | paste -sd, -)
    say "paced acceptance: $D devices offline, sweep $paced_rates, ${T} s × $RUNS runs"
    bench_delivery --offline --steady-rate 0 --rates "$paced_rates" --overload-rate 0 --json "$WORK/offline.jsonl" \
        || FLAGGED+=("herald-bench delivery --offline exited with status $?")
    stop_server
    [ "$SERVER_EXIT" = alive ] || FLAGGED+=("herald serve exited during the offline runs (see $WORK/paced-herald.log)")
fi
LOAD_MIDDLE=$(load_now)

# --- (b) the durable accept rate, same server flags, same core, no device connected -------------
# As bench/gateway: h2load posts the same 200-byte alert to one registered token whose device is not connected, so
# every request is checked, committed durably (group commit) and replaces the one before (one offline slot per app).
ACCEPT_RATES=""
if [ "$ACCEPT_RUNS" -gt 0 ]; then
    python3 "$ROOT/bench/lib/alert_body.py" "$WORK/body.json"
    # h2load opens its 100 streams at once: as in bench/gateway, the first token's connection may have them all.
    start_server accept --initial-streams "$ACCEPT_M"
    TOKEN=$("$HERALD_BIN" tokens register --topic com.example.bench --environment sandbox --data-dir "$DATA" 2>"$WORK/tokens.log" | tail -1) \
        || { cat "$WORK/tokens.log" >&2; die "herald tokens register failed"; }
    JWT=$("$HERALD_BIN" keys token --p8 "$WORK/key.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID" | tail -1)
    accept_run() { # accept_run N LABEL
        local out rps
        out=$(timeout 600 "${BENCH_PIN[@]}" h2load -n "$1" -c "$ACCEPT_C" -m "$ACCEPT_M" -d "$WORK/body.json" \
            -H "apns-topic: com.example.bench" -H 'apns-push-type: alert' -H 'apns-priority: 10' -H "authorization: bearer $JWT" \
            "http://127.0.0.1:$H2C/3/device/$TOKEN" 2>&1) || true
        rps=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' <<<"$out")
        if ! grep -q "^status codes: $1 2xx" <<<"$out"; then
            echo "$out" | tail -8 >&2
            FLAGGED+=("accept run $2: not every answer was 200")
            return 0
        fi
        [ "$2" = warmup ] && return 0
        ACCEPT_RATES+="${rps%.*} "
        say "accept run $2: ${rps%.*} req/s"
    }
    accept_run 20000 warmup
    for run in $(seq "$ACCEPT_RUNS"); do accept_run "$ACCEPT_N" "$run"; done
    stop_server
    [ "$SERVER_EXIT" = alive ] || FLAGGED+=("herald serve exited during the accept runs (see $WORK/accept-herald.log)")
fi
median() { tr ' ' '\n' <<<"$1" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit; if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ACCEPT_MEDIAN=$(median "$ACCEPT_RATES")

# --- (c) memory per idle device, a fresh server each run -----------------------------------------
if [ "$IDLE" -gt 0 ]; then
    for run in $(seq "$IDLE_RUNS"); do
        start_server "idle-$run"
        say "idle run $run: $IDLE devices, ${SETTLE} s settle before each reading"
        "${BENCH_PIN[@]}" "$BENCH_BIN" idle --host 127.0.0.1 --link-port "$LINK" --server-pid "$SERVER_PID" \
            --devices "$IDLE" --checkpoint $((IDLE / 10)) --settle-seconds "$SETTLE" --json "$WORK/idle.jsonl" \
            || FLAGGED+=("herald-bench idle run $run exited with status $?")
        stop_server
        [ "$SERVER_EXIT" = alive ] || FLAGGED+=("herald serve exited during idle run $run (see $WORK/idle-$run-herald.log)")
    done
fi
LOAD_AFTER=$(load_now)

# --- (d) the results file ----------------------------------------------------------------------
report=()
[ -s "$WORK/runs.jsonl" ] && report+=(--runs "$WORK/runs.jsonl")
[ -s "$WORK/idle.jsonl" ] && report+=(--idle "$WORK/idle.jsonl")
[ -s "$WORK/offline.jsonl" ] && report+=(--offline-runs "$WORK/offline.jsonl")
[ -n "$ACCEPT_MEDIAN" ] && [ -s "$WORK/runs.jsonl" ] && report+=(--gateway-accept "$ACCEPT_MEDIAN")
[ "${#report[@]}" -gt 0 ] || die "no run produced a result"
TABLES=$("$BENCH_BIN" report "${report[@]}")
if [ -s "$WORK/runs.jsonl" ] && grep -q '"lost":[1-9]\|"failed":[1-9]' "$WORK/runs.jsonl"; then
    FLAGGED+=("a run lost notifications or had failed requests (see the Lost column)")
fi

HERALD_REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "uncommitted")
kib_mib() { awk -v k="$1" 'BEGIN { if (k == "") print "—"; else printf "%.1f MiB", k / 1024 }'; }
{
    echo "# Delivery benchmark, $(date '+%F %H:%M %Z')"
    echo
    if [ -s "$WORK/runs.jsonl" ]; then
        echo "Provider request → device receipt through \`herald serve\` (SQLite, \`synchronous=FULL\`), $D devices connected over"
        echo "the device link, each with one app; a provider on $CONNECTIONS h2c connections (token auth) posting a 200-byte alert,"
        echo "priority 10, to random devices at a steady rate for $T s per run, $RUNS run(s) per rate after one unrecorded warm-up;"
        echo "medians. One server for all the delivery runs."
    fi
    if [ -s "$WORK/offline.jsonl" ]; then
        echo "Paced acceptance: a fresh server with the same flags, the same $D devices enrolled and then offline, the same provider"
        echo "and sweep; a run is judged by the 200's p99."
    fi
    if [ -n "$ACCEPT_MEDIAN" ]; then
        echo "Durable accept rate: a fresh server with the same flags on the same core, no device connected, h2load"
        echo "\`-n $ACCEPT_N -c $ACCEPT_C -m $ACCEPT_M\` posting the same alert to one registered token (each replaces the one before),"
        echo "$ACCEPT_RUNS run(s) after a warm-up: $(tr -s ' ' <<<"$ACCEPT_RATES" | sed 's/ $//; s/ /, /g') req/s, median $ACCEPT_MEDIAN."
    fi
    if [ -s "$WORK/idle.jsonl" ]; then
        echo "Idle memory: $IDLE devices enrolled and connected to a fresh server, ${SETTLE} s settle before each reading; $IDLE_RUNS run(s)."
    fi
    echo "Machine: $(nproc) × $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), pinning: $PINNING,"
    echo "herald ${HERALD_REV}. Load average (1/5/15 min) before: $LOAD_BEFORE; after the delivery runs: $LOAD_MIDDLE;"
    echo "at the end: $LOAD_AFTER."
    echo
    echo "$TABLES"
    echo
    if [ -n "$SWEEP_HWM" ]; then
        echo "Server peak RSS (VmHWM) over the delivery runs: $(kib_mib "$SWEEP_HWM"); data directory at the end: $(kib_mib "$SWEEP_DB")."
        echo
    fi
    if [ "${#FLAGGED[@]}" -gt 0 ]; then
        echo "**Flagged:**"
        for line in "${FLAGGED[@]}"; do echo "- $line"; done
        echo
    fi
    # The last lines: delivered with p99 < 50 ms over the paced acceptance with every device offline (when measured),
    # and over the durable accept rate, all from this run.
    grep '^delivery/paced-accept:' <<<"$TABLES" || true
    grep '^delivery/accept:' <<<"$TABLES" || true
} >"$WORK/results.md"

cat "$WORK/results.md"
mkdir -p "$(dirname "$RESULTS")"
cp "$WORK/results.md" "$RESULTS"
say "written to ${RESULTS#"$ROOT"/}"
[ "${#FLAGGED[@]}" -eq 0 ] || exit 2
