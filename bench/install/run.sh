#!/usr/bin/env bash
# The release artifacts' figures (docs/install.md, "Figures"): sizes, and how long `herald serve` takes from start to
# `/readyz` 200, on a new data directory, on one whose store holds 100,000 delivered notifications, and on one with
# 100,000 waiting for an offline device (restored into memory at start).
#
#   bash scripts/release.sh && bash bench/install/run.sh          # R=5 runs of each (default)
#
# Environment: R (5), DIST (dist/), N (100000 notifications). The reference, measured in the same run, is
# `herald --version`: the cost of starting the process at all. Prints a Markdown table of medians.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
R=${R:-5}
N=${N:-100000}
DIST=${DIST:-$ROOT/dist}
VERSION=$(tr -d '[:space:]' <VERSION)
die() { echo "bench/install: $*" >&2; exit 1; }
TARBALL=$(ls "$DIST"/herald-"$VERSION"-linux-*.tar.gz 2>/dev/null) || die "no tarball in $DIST (bash scripts/release.sh)"
DEB=$(ls "$DIST"/herald_"$VERSION"_*.deb)
OCI=$DIST/herald-$VERSION-oci.tar
command -v curl >/dev/null && command -v python3 >/dev/null || die "curl and python3 are needed"

WORK=$(mktemp -d)
SERVER=
DEVICE=
cleanup() {
    if [ -n "$DEVICE" ]; then kill "$DEVICE" 2>/dev/null || true; fi
    if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
tar -C "$WORK" -xzf "$TARBALL"
HERALD=$(ls "$WORK"/herald-*/herald)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
now() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# serve DATA-DIR [OPTIONS...]: starts `herald serve` on free ports (TLS too; H2C and LINK are kept) and returns
# once /readyz answers 200. stop_server: SIGTERM, and waits for it. metric NAME: a value of its /metrics.
serve() {
    local data=$1
    shift
    H2C=$(free_port) LINK=$(free_port)
    "$HERALD" serve --data-dir "$data" --tls-port "$(free_port)" --h2c-port "$H2C" --link-port "$LINK" --log-level error "$@" >"$WORK/serve.log" 2>&1 &
    SERVER=$!
    until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$LINK/readyz")" = "200" ]; do
        kill -0 "$SERVER" 2>/dev/null || die "herald serve stopped: $(cat "$WORK/serve.log")"
        sleep 0.005
    done
}
stop_server() {
    kill -TERM "$SERVER"
    wait "$SERVER" || true
    SERVER=
}
metric() { curl -s "http://127.0.0.1:$LINK/metrics" | sed -n "s/^$1 \([0-9]*\).*/\1/p" | head -1; }

# start_to_ready DATA-DIR [OPTIONS...]: milliseconds from starting `herald serve` to /readyz 200; the server is stopped.
start_to_ready() {
    local started
    started=$(now)
    serve "$@"
    echo $((($(now) - started) / 1000000))
    stop_server
}

# The data directory with N notifications in its store: sent to a device that is online, delivered, and kept for the
# retention period (168 hours by default), with their traces.
echo "bench/install: storing $N delivered notifications ..." >&2
FULL=$WORK/full
serve "$FULL"
"$HERALD" device --data-dir "$FULL" --server "ws://127.0.0.1:$LINK/device-link" --app com.example.app >"$WORK/device.log" 2>&1 &
DEVICE=$!
until grep -q "^token com.example.app" "$WORK/device.log"; do
    kill -0 "$DEVICE" 2>/dev/null || die "herald device stopped: $(cat "$WORK/device.log")"
    sleep 0.05
done
"$HERALD" send --data-dir "$FULL" --server "http://127.0.0.1:$H2C" --topic com.example.app --alert "stored" --repeat "$N" \
    >"$WORK/send.log" 2>&1 || die "herald send failed: $(tail -3 "$WORK/send.log")"
until [ "$(metric herald_notifications_pending)" = "0" ]; do sleep 0.5; done
stored=$(metric herald_notifications_delivered_total)
kill "$DEVICE"
wait "$DEVICE" || true
DEVICE=
stop_server

# And one with N notifications waiting for a device that is offline (one token, N offline slots): restored into memory
# at start.
echo "bench/install: storing $N notifications for an offline device ..." >&2
PENDING=$WORK/pending
serve "$PENDING" --offline-slots "$N"
TOKEN=$("$HERALD" tokens register --data-dir "$PENDING" --topic com.example.app | tail -1)
"$HERALD" send --data-dir "$PENDING" --server "http://127.0.0.1:$H2C" --token "$TOKEN" --topic com.example.app --alert "waiting" \
    --repeat "$N" >"$WORK/send.log" 2>&1 || die "herald send failed: $(tail -3 "$WORK/send.log")"
waiting=$(metric herald_notifications_pending)
stop_server

reference=() fresh=() loaded=() restored=()
for run in $(seq 1 "$R"); do
    started=$(now)
    "$HERALD" --version >/dev/null
    reference+=($((($(now) - started) / 1000000)))
    fresh+=("$(start_to_ready "$WORK/fresh-$run")")
    rm -rf "$WORK/loaded"
    cp -a "$FULL" "$WORK/loaded"
    loaded+=("$(start_to_ready "$WORK/loaded")")
    rm -rf "$WORK/restored"
    cp -a "$PENDING" "$WORK/restored"
    restored+=("$(start_to_ready "$WORK/restored" --offline-slots "$N")")
done

kib() { echo $(($(stat -c %s "$1") / 1024)); }
echo
echo "| figure | median of $R | runs |"
echo "|---|---|---|"
echo "| binary, stripped, Swift runtime, Foundation and SQLite linked in | $(kib "$HERALD") KiB | |"
echo "| $(basename "$TARBALL") | $(kib "$TARBALL") KiB | |"
echo "| $(basename "$DEB") | $(kib "$DEB") KiB | |"
echo "| $(basename "$OCI") | $(kib "$OCI") KiB | |"
echo "| reference: \`herald --version\` (process start) | $(printf '%s\n' "${reference[@]}" | median) ms | ${reference[*]} |"
echo "| \`herald serve\` start to \`/readyz\` 200, new data directory | $(printf '%s\n' "${fresh[@]}" | median) ms | ${fresh[*]} |"
echo "| the same, $N notifications in the store (delivered: ${stored:-?}; $(du -sm "$FULL" | cut -f1) MB) | $(printf '%s\n' "${loaded[@]}" | median) ms | ${loaded[*]} |"
echo "| the same, $N notifications waiting for an offline device (pending: ${waiting:-?}; $(du -sm "$PENDING" | cut -f1) MB) | $(printf '%s\n' "${restored[@]}" | median) ms | ${restored[*]} |"
