#!/usr/bin/env bash
# Two herald binaries on the same load, interleaved in one run: did a change slow the provider port down?
#
#   BASE_BIN=/tmp/herald-before HERALD_BIN=.build/release/herald bash bench/gateway/compare.sh
#
# For each of R rounds it loads, in turn, base then new on the accept path (a valid push, 200 after the commit) and
# base then new on the reject path (an unknown device token, 400 BadDeviceToken: HTTP/2, checks and the answer, no
# store). Both servers run all the time, each on its own data directory, pinned to CPU 1 (h2load on CPU 0); only one
# is loaded at a time. Prints markdown tables of medians and new/base ratios (and appends them to RESULTS when set):
# requests a second, and the server's CPU time a request (user + system from /proc/PID/stat over each run), which moves
# less with what else the machine does.
#
# Environment: BASE_BIN (required), HERALD_BIN (.build/release/herald), N (100000 requests per run), R (5 rounds),
# C (16 connections), M (100 streams per connection), PIN=0 (no taskset), RESULTS (a file to append the table to).
# Exit: 0; 1 on a setup error.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
N=${N:-100000}
R=${R:-5}
C=${C:-16}
M=${M:-100}
HERALD_BIN=${HERALD_BIN:-$ROOT/.build/release/herald}
BASE_BIN=${BASE_BIN:?set BASE_BIN to the herald binary to compare against}
TOPIC=com.example.app
KEY_ID=BENCH12345
TEAM_ID=TEAM123456

say() { printf '[compare] %s\n' "$*" >&2; }
die() { printf '[compare] error: %s\n' "$*" >&2; exit 1; }
command -v h2load >/dev/null 2>&1 || die "h2load is missing (apt-get install nghttp2-client)"
for bin in "$BASE_BIN" "$HERALD_BIN"; do [ -x "$bin" ] || die "no herald binary at $bin"; done

LOAD_PIN=() SERVER_PIN=()
if [ "${PIN:-1}" = 1 ] && command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    LOAD_PIN=(taskset -c 0) SERVER_PIN=(taskset -c 1)
fi
ulimit -n 65536 2>/dev/null || true

WORK=$(mktemp -d /tmp/herald-compare.XXXXXX)
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
python3 "$ROOT/bench/lib/alert_body.py" "$WORK/body.json"
UNKNOWN_TOKEN=$(python3 -c 'import secrets; print(secrets.token_hex(32))')

declare -A PORT TOKEN JWT SERVER_PID
# The server's CPU time so far (user + system, in clock ticks), from /proc: what a run cost it, whatever else ran.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
start() { # start NAME BINARY
    local name=$1 bin=$2 data=$WORK/$1-data
    mkdir -p "$data"
    "$bin" keys generate --key-id "$KEY_ID" --team-id "$TEAM_ID" --out "$WORK/$name.p8" --environment both --data-dir "$data" >/dev/null \
        || die "$name: keys generate failed"
    TOKEN[$name]=$("$bin" tokens register --topic "$TOPIC" --environment sandbox --data-dir "$data" | tail -1)
    JWT[$name]=$("$bin" keys token --p8 "$WORK/$name.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID" | tail -1)
    PORT[$name]=$(free_port)
    "${SERVER_PIN[@]}" "$bin" serve --data-dir "$data" --host 127.0.0.1 --h2c-port "${PORT[$name]}" --tls-port -1 --link-port -1 \
        --environment sandbox --initial-streams "$M" ${SERVER_PIN:+--event-loops 1} >"$WORK/$name.log" 2>&1 &
    PIDS+=("$!")
    SERVER_PID[$name]=$!
    for _ in $(seq 600); do grep -q '^herald: ready' "$WORK/$name.log" && return 0; sleep 0.1; done
    tail -20 "$WORK/$name.log" >&2
    die "$name: not ready after 60 s"
}
start base "$BASE_BIN"
start new "$HERALD_BIN"

declare -A RPS CPU
TICKS=$(getconf CLK_TCK)
load() { # load NAME PATH(accept|reject) RUN
    local name=$1 path=$2 run=$3 token out rps ok before cpu
    token=${TOKEN[$name]}
    [ "$path" = reject ] && token=$UNKNOWN_TOKEN
    before=$(cpu_ticks "${SERVER_PID[$name]}")
    out=$(timeout 600 "${LOAD_PIN[@]}" h2load -n "$N" -c "$C" -m "$M" -d "$WORK/body.json" -H "apns-topic: $TOPIC" \
        -H 'apns-push-type: alert' -H 'apns-priority: 10' -H "authorization: bearer ${JWT[$name]}" \
        "http://127.0.0.1:${PORT[$name]}/3/device/$token" 2>&1) || true
    rps=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' <<<"$out")
    # Microseconds of the server's CPU a request (the accept path's commits included: the writer is in the process).
    cpu=$(awk -v t="$(($(cpu_ticks "${SERVER_PID[$name]}") - before))" -v hz="$TICKS" -v n="$N" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }')
    # The accept path must be all 2xx, the reject path all 4xx; anything else is not the path measured.
    if [ "$path" = accept ]; then ok=$(sed -n "s/^status codes: \\($N\\) 2xx.*/ok/p" <<<"$out"); else ok=$(sed -n "s/^status codes: 0 2xx, 0 3xx, \\($N\\) 4xx.*/ok/p" <<<"$out"); fi
    [ "$run" = warmup ] && return 0
    [ -n "$ok" ] || { echo "$out" | tail -8 >&2; die "$name $path run $run: not every answer was as expected"; }
    RPS[$name-$path]+="${rps%.*} "
    CPU[$name-$path]+="$cpu "
    say "$name $path run $run: ${rps%.*} req/s, server CPU $cpu µs a request"
}
for name in base new; do load "$name" accept warmup; load "$name" reject warmup; done
for run in $(seq "$R"); do
    for path in accept reject; do
        for name in base new; do load "$name" "$path" "$run"; done
    done
done

median() { tr ' ' '\n' <<<"$1" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# table TITLE FORMAT ARRAY: one markdown table of medians, ratio and runs, for each path.
table() {
    local title=$1 format=$2 path b n runs_base runs_new
    local -n values=$3
    echo "| path | base $title (median) | new (median) | new / base | base runs | new runs |"
    echo "|---|---|---|---|---|---|"
    for path in accept reject; do
        runs_base=${values[base-$path]} runs_new=${values[new-$path]}
        b=$(median "$runs_base") n=$(median "$runs_new")
        printf "| %s | $format | $format | %s | %s | %s |\n" "$path" "$b" "$n" "$(awk -v a="$n" -v b="$b" 'BEGIN { printf "%.3f", a / b }')" \
            "${runs_base% }" "${runs_new% }"
    done
}
{
    echo
    echo "### $(date -u '+%F %H:%M') UTC — $(basename "$BASE_BIN") vs $(basename "$HERALD_BIN"), h2c, h2load -n $N -c $C -m $M, $R interleaved rounds"
    echo
    table "req/s" "%.0f" RPS
    echo
    table "server CPU µs/request" "%.2f" CPU
} | tee -a "${RESULTS:-/dev/null}"
