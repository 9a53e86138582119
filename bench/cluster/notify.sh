#!/usr/bin/env bash
# What a NOTIFY per group-commit batch costs PostgreSQL (docs/cluster.md, "How a notification reaches its owner"):
# pgbench runs a batch-like transaction — 100 rows of 200 bytes in one INSERT — without and with one NOTIFY of 100
# sequence numbers, interleaved, on a throw-away cluster with PostgreSQL's default durability.
#
#   bash bench/cluster/notify.sh            # T (10 s per run), R (3 rounds), CLIENTS ("1 8")
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
T=${T:-10}
R=${R:-3}
CLIENTS=${CLIENTS:-"1 8"}
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$PG_BIN/initdb" ] || { echo "PostgreSQL is missing (apt-get install postgresql)" >&2; exit 1; }
AS_PG=()
[ "$(id -u)" -eq 0 ] && AS_PG=(runuser -u postgres --)
WORK=$(mktemp -d /tmp/herald-notify.XXXXXX)
chmod 755 "$WORK"
[ "$(id -u)" -eq 0 ] && chown postgres "$WORK"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cleanup() { "${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$WORK/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT
"${AS_PG[@]}" "$PG_BIN/initdb" -D "$WORK/data" -U postgres -A trust >/dev/null
"${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$WORK/data" -l "$WORK/log" -w -o "-p $PORT -k $WORK -c listen_addresses=127.0.0.1" start >/dev/null
PSQL=(psql -X -q -h 127.0.0.1 -p "$PORT" -U postgres)
"${PSQL[@]}" -c "CREATE TABLE t (seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, payload text NOT NULL)"
SEQS=$(seq -s, 1000001 1000100)
cat >"$WORK/plain.sql" <<SQL
BEGIN;
INSERT INTO t (payload) SELECT repeat('x', 200) FROM generate_series(1, 100);
COMMIT;
SQL
cat >"$WORK/notify.sql" <<SQL
BEGIN;
INSERT INTO t (payload) SELECT repeat('x', 200) FROM generate_series(1, 100);
NOTIFY herald_node_b, '$SEQS';
COMMIT;
SQL
declare -A TPS
for round in $(seq "$R"); do
    for clients in $CLIENTS; do
        for script in plain notify; do
            tps=$(pgbench -n -h 127.0.0.1 -p "$PORT" -U postgres -c "$clients" -j "$clients" -T "$T" -f "$WORK/$script.sql" postgres 2>/dev/null \
                | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
            TPS[$script-$clients]+="${tps%.*} "
            echo "[notify] round $round, $clients clients, $script: $tps batches/s" >&2
        done
    done
done
median() { tr ' ' '\n' <<<"$1" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
echo "### $(date -u '+%F %H:%M') UTC — 100-row batches, without and with one NOTIFY each, pgbench -T $T, $R interleaved rounds"
echo
echo "| clients | batches/s without | batches/s with NOTIFY | with / without |"
echo "|---|---|---|---|"
for clients in $CLIENTS; do
    a=$(median "${TPS[plain-$clients]}") b=$(median "${TPS[notify-$clients]}")
    printf '| %s | %s | %s | %s |\n' "$clients" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b / a }')"
done
