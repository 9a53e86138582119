#!/usr/bin/env bash
# One Herald node on SQLite, one on PostgreSQL, one cluster node and two cluster nodes on PostgreSQL (docs/cluster.md),
# same binary, same load, interleaved in one run: the accept rate (a valid push, 200 after the commit) and the CPU each
# notification costs Herald and PostgreSQL (docs/postgresql.md). The token has no device, so a cluster node's group
# commit also traces `stored` for each notification in the commit (what a node does for an offline device); the two
# nodes share Herald's core and take half the load each, at the same time.
#
#   bash bench/cluster/run.sh                       # release build at .build-release/release/herald
#
# The PostgreSQL server is a throw-away cluster this script starts (Debian's initdb and pg_ctl, as the postgres user
# under root) with PostgreSQL's default durability (fsync and synchronous_commit on, as SQLite's synchronous=FULL).
# Herald is pinned to CPU 1; h2load and PostgreSQL share CPU 0 (a 2-core machine has no third core: PostgreSQL's CPU is
# reported so that the rate can be read against it). Prints a markdown table of medians (appended to RESULTS when set).
#
# Environment: HERALD_BIN, N (50000 requests per run), R (5 rounds), C (16 connections), M (100 streams per connection),
# RESULTS. Exit: 0; 1 on a setup error.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
N=${N:-50000}
R=${R:-5}
C=${C:-16}
M=${M:-100}
HERALD_BIN=${HERALD_BIN:-$ROOT/.build-release/release/herald}
TOPIC=com.example.app
KEY_ID=BENCH12345
TEAM_ID=TEAM123456

say() { printf '[cluster] %s\n' "$*" >&2; }
die() { printf '[cluster] error: %s\n' "$*" >&2; exit 1; }
command -v h2load >/dev/null 2>&1 || die "h2load is missing (apt-get install nghttp2-client)"
[ -x "$HERALD_BIN" ] || die "no herald binary at $HERALD_BIN (swift build -c release --scratch-path .build-release --product herald)"
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$PG_BIN/initdb" ] || die "PostgreSQL is missing (apt-get install postgresql)"

LOAD_PIN=() SERVER_PIN=() PG_PIN=()
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    LOAD_PIN=(taskset -c 0) SERVER_PIN=(taskset -c 1) PG_PIN=(taskset -c 0)
fi
AS_PG=()
[ "$(id -u)" -eq 0 ] && AS_PG=(runuser -u postgres --)
ulimit -n 65536 2>/dev/null || true

WORK=$(mktemp -d /tmp/herald-cluster.XXXXXX)
chmod 755 "$WORK"
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    [ -d "$WORK/pg" ] && "${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$WORK/pg/data" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
python3 "$ROOT/bench/lib/alert_body.py" "$WORK/body.json"

# The PostgreSQL server.
mkdir -p "$WORK/pg"
[ "$(id -u)" -eq 0 ] && chown postgres "$WORK/pg"
PG_PORT=$(free_port)
"${AS_PG[@]}" "$PG_BIN/initdb" -D "$WORK/pg/data" -U postgres -A trust -E UTF8 >/dev/null
"${PG_PIN[@]}" "${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$WORK/pg/data" -l "$WORK/pg/log" -w \
    -o "-p $PG_PORT -k $WORK/pg -c listen_addresses=127.0.0.1 -c max_connections=100" start >/dev/null
psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -c "CREATE DATABASE herald" >/dev/null
DATABASE="postgres://postgres@127.0.0.1:$PG_PORT/herald?sslmode=disable"
PG_VERSION=$("$PG_BIN/postgres" --version | awk '{ print $3 }')

psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -c "CREATE DATABASE herald_cluster1" -c "CREATE DATABASE herald_cluster2" >/dev/null

declare -A PORT TOKEN JWT PID
start() { # start NAME [serve options...]; SAME_AS=NAME: a node of NAME's database, with its key and token
    local name=$1 data=$WORK/$1-data store=()
    shift
    [ "${1:-}" = --database ] && store=(--database "$2")
    mkdir -p "$data"
    if [ -n "${SAME_AS:-}" ]; then
        TOKEN[$name]=${TOKEN[$SAME_AS]} JWT[$name]=${JWT[$SAME_AS]}
    else
        "$HERALD_BIN" keys generate --key-id "$KEY_ID" --team-id "$TEAM_ID" --out "$WORK/$name.p8" --environment both --data-dir "$data" "${store[@]}" >/dev/null \
            || die "$name: keys generate failed"
        TOKEN[$name]=$("$HERALD_BIN" tokens register --topic "$TOPIC" --environment sandbox --data-dir "$data" "${store[@]}" | tail -1)
        JWT[$name]=$("$HERALD_BIN" keys token --p8 "$WORK/$name.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID" | tail -1)
    fi
    PORT[$name]=$(free_port)
    "${SERVER_PIN[@]}" "$HERALD_BIN" serve --data-dir "$data" --host 127.0.0.1 --h2c-port "${PORT[$name]}" --tls-port -1 --link-port -1 \
        --environment sandbox --initial-streams "$M" ${SERVER_PIN:+--event-loops 1} --retention-hours 0 "$@" >"$WORK/$name.log" 2>&1 &
    PID[$name]=$!
    PIDS+=("$!")
    for _ in $(seq 600); do grep -q '^herald: ready' "$WORK/$name.log" && return 0; sleep 0.1; done
    tail -20 "$WORK/$name.log" >&2
    die "$name: not ready after 60 s"
}
start sqlite
start postgres --database "$DATABASE"
CLUSTER1="postgres://postgres@127.0.0.1:$PG_PORT/herald_cluster1?sslmode=disable"
CLUSTER2="postgres://postgres@127.0.0.1:$PG_PORT/herald_cluster2?sslmode=disable"
start cluster1 --database "$CLUSTER1" --cluster --node-id bench-one
start cluster2a --database "$CLUSTER2" --cluster --node-id bench-a
SAME_AS=cluster2a start cluster2b --database "$CLUSTER2" --cluster --node-id bench-b
NAMES="sqlite postgres cluster1 cluster2"

# CPU seconds (user + system) of a process, or of every process of PostgreSQL's cluster.
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
pg_ticks() { local total=0 pid; for pid in $(pgrep -u postgres -f "postgres" || true); do total=$((total + $(ticks "$pid" 2>/dev/null || echo 0))); done; echo "$total"; }
HZ=$(getconf CLK_TCK)

declare -A RPS HCPU PCPU
h2() { # h2 NODE REQUESTS CONNECTIONS: h2load against one node
    timeout 600 "${LOAD_PIN[@]}" h2load -n "$2" -c "$3" -m "$M" -d "$WORK/body.json" -H "apns-topic: $TOPIC" \
        -H 'apns-push-type: alert' -H 'apns-priority: 10' -H "authorization: bearer ${JWT[$1]}" \
        "http://127.0.0.1:${PORT[$1]}/3/device/${TOKEN[$1]}" 2>&1 || true
}
load() { # load NAME RUN; cluster2 is both of its nodes at once, half the requests and connections each
    local name=$1 run=$2 out rps h0 h1 p0 p1 start end
    if [ "$name" = cluster2 ]; then
        h0=$(($(ticks "${PID[cluster2a]}") + $(ticks "${PID[cluster2b]}"))) p0=$(pg_ticks)
        start=$(date +%s.%N)
        h2 cluster2a $((N / 2)) $((C / 2)) >"$WORK/a.out" &
        local first=$!
        h2 cluster2b $((N / 2)) $((C / 2)) >"$WORK/b.out"
        wait "$first"
        end=$(date +%s.%N)
        h1=$(($(ticks "${PID[cluster2a]}") + $(ticks "${PID[cluster2b]}"))) p1=$(pg_ticks)
        out=$(cat "$WORK/a.out" "$WORK/b.out")
        # Both halves as one run: all the requests over the time from the first start to the last end.
        rps=$(awk -v n="$N" -v s="$start" -v e="$end" 'BEGIN { printf "%.0f", n / (e - s) }')
        [ "$run" = warmup ] && return 0
        [ "$(grep -c "^status codes: $((N / 2)) 2xx" <<<"$out")" = 2 ] || { echo "$out" | tail -16 >&2; die "$name run $run: not every answer was 200"; }
    else
        h0=$(ticks "${PID[$name]}") p0=$(pg_ticks)
        out=$(h2 "$name" "$N" "$C")
        h1=$(ticks "${PID[$name]}") p1=$(pg_ticks)
        rps=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' <<<"$out")
        [ "$run" = warmup ] && return 0
        grep -q "^status codes: $N 2xx" <<<"$out" || { echo "$out" | tail -8 >&2; die "$name run $run: not every answer was 200"; }
    fi
    RPS[$name]+="${rps%.*} "
    # Microseconds of CPU per accepted notification.
    HCPU[$name]+="$(awk -v t=$((h1 - h0)) -v hz="$HZ" -v n="$N" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }') "
    PCPU[$name]+="$(awk -v t=$((p1 - p0)) -v hz="$HZ" -v n="$N" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }') "
    say "$name run $run: ${rps%.*} req/s"
}
for name in $NAMES; do load "$name" warmup; done
for run in $(seq "$R"); do
    for name in $NAMES; do load "$name" "$run"; done
done

median() { tr ' ' '\n' <<<"$1" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
{
    echo
    echo "### $(date -u '+%F %H:%M') UTC — SQLite, PostgreSQL $PG_VERSION, one and two cluster nodes (docs/cluster.md), accept path, h2c, h2load -n $N -c $C -m $M, $R interleaved rounds"
    echo
    echo "| store | accepted req/s (median) | / SQLite | Herald CPU µs per notification | PostgreSQL CPU µs per notification | runs (req/s) |"
    echo "|---|---|---|---|---|---|"
    base=$(median "${RPS[sqlite]}")
    for name in $NAMES; do
        r=$(median "${RPS[$name]}")
        printf '| %s | %.0f | %s | %s | %s | %s |\n' "$name" "$r" "$(awk -v a="$r" -v b="$base" 'BEGIN { printf "%.2f", a / b }')" \
            "$(median "${HCPU[$name]}")" "$([ "$name" = sqlite ] && echo — || median "${PCPU[$name]}")" "${RPS[$name]% }"
    done
} | tee -a "${RESULTS:-/dev/null}"
