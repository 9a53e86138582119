#!/usr/bin/env bash
# End-to-end delivery, one node on SQLite, one on PostgreSQL and two cluster nodes on PostgreSQL (the provider sending
# through one, the devices on the other: every notification handed off), interleaved: bench/delivery/run.sh at one
# fixed rate (1000 devices, 10 s) with the store in the data directory, then in a new database of a throw-away
# PostgreSQL cluster (every herald command of run.sh reads HERALD_DATABASE_URL; CLUSTER=1 for the two nodes). Prints
# one line per run.
#
#   bash bench/cluster/delivery.sh 4000 3          # RATE ROUNDS; release builds of herald and herald-bench
#   STORES=cluster2 bash bench/cluster/delivery.sh 3000 1   # only some of sqlite, postgres, cluster2
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
RATE=${1:-4000}
ROUNDS=${2:-3}
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$PG_BIN/initdb" ] || { echo "PostgreSQL is missing (apt-get install postgresql)" >&2; exit 1; }
AS_PG=()
[ "$(id -u)" -eq 0 ] && AS_PG=(runuser -u postgres --)
WORK=$(mktemp -d /tmp/herald-cluster-delivery.XXXXXX)
chmod 755 "$WORK"
[ "$(id -u)" -eq 0 ] && chown postgres "$WORK"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cleanup() { "${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$WORK/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT
"${AS_PG[@]}" "$PG_BIN/initdb" -D "$WORK/data" -U postgres -A trust >/dev/null
"${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$WORK/data" -l "$WORK/log" -w -o "-p $PORT -k $WORK -c listen_addresses=127.0.0.1" start >/dev/null
for round in $(seq "$ROUNDS"); do
    for store in ${STORES:-sqlite postgres cluster2}; do
        CLUSTER=0
        [ "$store" = cluster2 ] && CLUSTER=1
        export CLUSTER
        if [ "$store" != sqlite ]; then
            db=bench_${store}_$round
            psql -X -q -h 127.0.0.1 -p "$PORT" -U postgres -c "CREATE DATABASE $db" >/dev/null
            export HERALD_DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/$db?sslmode=disable"
        else
            unset HERALD_DATABASE_URL
        fi
        line=$(HERALD_BIN=${HERALD_BIN:-.build-release/release/herald} BENCH_BIN=${BENCH_BIN:-.build-release/release/herald-bench} \
            STEADY=0 R="$RATE" OVERLOAD=0 IDLE=0 RUNS=1 T=10 ACCEPT_RUNS=0 RESULTS="$WORK/results.md" \
            bash bench/delivery/run.sh 2>&1 >/dev/null | grep "sweep $RATE/s run" | head -1 || true)
        acc=$(sed -n 's/.*accepted [0-9]*\/[0-9]* (\([0-9]*\)\/s).*/\1/p' <<<"$line")
        del=$(sed -n 's/.*delivered [0-9]* (\([0-9]*\)\/s).*/\1/p' <<<"$line")
        p99=$(sed -n 's/.*latency p50 [0-9.]* p99 \([0-9.]*\) .*/\1/p' <<<"$line")
        counts=$(sed -n 's/.*accepted \([0-9]*\/[0-9]*\) .*delivered \([0-9]*\) .*/accepted \1, delivered \2/p' <<<"$line")
        echo "$store round $round at $RATE/s: accepted ${acc:-?}/s delivered ${del:-?}/s p99 ${p99:-?} ms (${counts:-no counts})"
    done
done
