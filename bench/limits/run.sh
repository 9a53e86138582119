#!/usr/bin/env bash
# What one provider connection can make `herald serve` hold (bench/limits/README.md).
#
#   bash bench/limits/run.sh            # after: swift build --product herald (or HERALD_BIN=.build/release/herald)
#   R=5 bash bench/limits/run.sh
#
# Environment: R (3 connections of each kind), HERALD_BIN (.build/debug/herald). Starts its own `herald serve` on a
# temporary data directory (h2c only, ephemeral ports), runs bench/limits/header_blocks.py R times in each mode and
# prints each run's memory line: 999 streams of 60 KB header blocks (past the 32,000-octet bound: refused at once),
# 999 of 30 KB blocks (under the bound, over the 8000-octet list: answered 431), and 999 streams left open with the
# most a stream may hold.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
R=${R:-3}
HERALD_BIN=${HERALD_BIN:-$PWD/.build/debug/herald}
die() { echo "bench/limits: $*" >&2; exit 1; }
[ -x "$HERALD_BIN" ] || die "no herald binary at $HERALD_BIN (swift build --product herald)"
command -v python3 >/dev/null || die "python3 is missing"

WORK=$(mktemp -d)
SERVER=
cleanup() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
cd "$WORK"
"$HERALD_BIN" serve --tls-port -1 --h2c-port 0 --link-port 0 --log-level error >"$WORK/serve.log" 2>&1 &
SERVER=$!
for _ in $(seq 1 600); do
    grep -q '^herald: ready' "$WORK/serve.log" && break
    kill -0 "$SERVER" 2>/dev/null || die "herald serve stopped: $(cat "$WORK/serve.log")"
    sleep 0.1
done
grep -q '^herald: ready' "$WORK/serve.log" || die "herald serve did not start within 60 s"
PORT=$(sed -n 's|.*cleartext: *http://127.0.0.1:\([0-9]*\).*|\1|p' "$WORK/serve.log")
TOKEN=$("$HERALD_BIN" tokens register --topic com.example.app | tail -1)
JWT=$("$HERALD_BIN" keys token)
PROBE=(python3 "$OLDPWD/bench/limits/header_blocks.py" --port "$PORT" --pid "$SERVER" --jwt "$JWT" --token "$TOKEN")
echo "herald: $HERALD_BIN (pid $SERVER, h2c port $PORT)"
for mode in "60 KB blocks:--block 61440" "30 KB blocks:--block 30720" "open streams:--open"; do
    echo "== ${mode%%:*}"
    for _ in $(seq 1 "$R"); do
        # shellcheck disable=SC2086
        "${PROBE[@]}" ${mode#*:} | tail -2
    done
done
