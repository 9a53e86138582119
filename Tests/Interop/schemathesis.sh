#!/usr/bin/env bash
# Checks that the inspection API and docs/inspection-api.json agree: starts a real `herald serve` on free ports in a
# temporary data directory, gives it a simulated device and a few notifications, then runs schemathesis against the
# document with every check, a fixed number of examples per operation and a fixed seed (docs/console.md, "The API and its document").
# Every answer must come within 30 s: the slowest the document allows (a wait's timeoutMs, the events long poll's 25 s).
#
#   bash Tests/Interop/schemathesis.sh [HERALD] [SCHEMATHESIS]
#
# HERALD: the herald binary (default .build/debug/herald). SCHEMATHESIS: the schemathesis command (default
# .build/schemathesis-venv/bin/schemathesis; .ci/run installs the pinned version there). Exits non-zero on any failure.
# Environment: SCHEMATHESIS_EXAMPLES (default 100), SCHEMATHESIS_SEED (default 20261125).
set -euo pipefail

# Paths given are relative to where the script is run from; it then works from the repository root.
absolute() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
HERALD=${1:+$(absolute "$1")}
SCHEMATHESIS=${2:+$(absolute "$2")}
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
HERALD=${HERALD:-$ROOT/.build/debug/herald}
SCHEMATHESIS=${SCHEMATHESIS:-$ROOT/.build/schemathesis-venv/bin/schemathesis}
EXAMPLES=${SCHEMATHESIS_EXAMPLES:-100}
SEED=${SCHEMATHESIS_SEED:-20261125}

for tool in "$HERALD" "$SCHEMATHESIS"; do
    [ -x "$tool" ] || { echo "schemathesis.sh: $tool is not an executable (build herald; run .ci/run for schemathesis)" >&2; exit 2; }
done

WORK=$(mktemp -d)
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() {
    # wait_for WHAT COMMAND...: retries COMMAND for 30 s.
    local what=$1
    shift
    for _ in $(seq 1 300); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.1
    done
    echo "schemathesis.sh: timed out waiting for $what; server log:" >&2
    cat "$WORK/serve.log" >&2
    exit 1
}

DATA=$WORK/data
H2C_PORT=$(free_port)
WEB_PORT=$(free_port)
WEB=http://127.0.0.1:$WEB_PORT
# With an API token, so that the document's security schemes and its 401s are checked too (schemathesis sends the
# token, and leaves it out for its ignored_auth check).
API_TOKEN=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
AUTH="authorization: Bearer $API_TOKEN"
"$HERALD" serve --data-dir "$DATA" --tls-port -1 --h2c-port "$H2C_PORT" --link-port "$WEB_PORT" --api-token "$API_TOKEN" \
    >"$WORK/serve.log" 2>&1 &
pids+=($!)
api() { curl -sf -H "$AUTH" "$WEB/api/v1/$1"; }
wait_for "herald serve on $WEB" api devices

# A simulated device with two apps, and notifications for it: the API then has devices, tokens, traces and a screen.
"$HERALD" device --data-dir "$DATA" --server "ws://127.0.0.1:$WEB_PORT/device-link" --app com.example.app --app com.example.other \
    >"$WORK/device.log" 2>&1 &
pids+=($!)
tokens_registered() { [ "$(api devices | grep -o '"token"' | wc -l)" -ge 2 ]; }
wait_for "the device's two tokens" tokens_registered
for text in "Hello from Herald" "Second" "Third"; do
    "$HERALD" send --data-dir "$DATA" --server "http://127.0.0.1:$H2C_PORT" --topic com.example.app --alert "$text" >/dev/null
done
"$HERALD" send --data-dir "$DATA" --server "http://127.0.0.1:$H2C_PORT" --topic com.example.other --alert "Other app" >/dev/null
DEVICE_ID=$(api devices | python3 -c 'import json, sys; print(json.load(sys.stdin)["devices"][0]["id"])')
wait_for "the device's screen" api "devices/$DEVICE_ID/screen"

echo "schemathesis: $("$SCHEMATHESIS" --version), $EXAMPLES examples per operation, seed $SEED, against $WEB"
mkdir -p "$ROOT/.build/test-output"
started=$SECONDS
status=0
# From the temporary directory: schemathesis keeps a cache (.schemathesis/) where it runs.
(cd "$WORK" && "$SCHEMATHESIS" --config-file "$ROOT/Tests/Interop/schemathesis.toml" run "$ROOT/docs/inspection-api.json" --url "$WEB" --header "$AUTH" --checks all --max-response-time 30 --max-examples "$EXAMPLES" --seed "$SEED" \
    --workers 1 --request-timeout 40 --no-color --output-sanitize false --report junit --report-junit-path "$ROOT/.build/test-output/schemathesis.xml") || status=$?
echo "schemathesis: exit $status after $((SECONDS - started)) s"
if [ "$status" -ne 0 ]; then
    echo "--- herald serve log (last 40 lines)" >&2
    tail -40 "$WORK/serve.log" >&2
fi
exit "$status"
