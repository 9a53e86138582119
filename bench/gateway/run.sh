#!/usr/bin/env bash
# Gateway benchmark: herald's provider API against nginx `return 200`, same load, same machine,
# interleaved runs. See bench/gateway/README.md for how to read the table.
#
#   bash bench/gateway/run.sh                  # build first: swift build -c release
#   N=300000 R=5 bash bench/gateway/run.sh     # more requests, more runs
#   SERVERS=nginx bash bench/gateway/run.sh    # nginx only (a sanity check of the machine)
#
# Environment: N (200000 requests per run), R (3 runs per target), C (16 connections),
# M (100 streams per connection), HERALD_BIN (.build/release/herald), SERVERS ("nginx herald"),
# IDLE (1000 idle connections for the memory row; 0 skips), HOLD (10 s), PIN=0 (no taskset), RESULTS (output file,
# default bench/gateway/results-<date>.md), KEEP_TMP=1 keeps the temp dir (logs, configs).
# Exit: 0; 1 on a setup error; 2 when a run is flagged (non-2xx answers or a failed h2load).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
N=${N:-200000}
R=${R:-3}
C=${C:-16}
M=${M:-100}
HERALD_BIN=${HERALD_BIN:-$ROOT/.build/release/herald}
SERVERS=${SERVERS:-nginx herald}
IDLE=${IDLE:-1000}
HOLD=${HOLD:-10}
RESULTS=${RESULTS:-$ROOT/bench/gateway/results-$(date +%F).md}
TOPIC=com.example.app
KEY_ID=BENCH12345
TEAM_ID=TEAM123456

say() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] error: %s\n' "$*" >&2; exit 1; }
has() { case " $SERVERS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# --- (a) tools --------------------------------------------------------------------------------
missing=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v h2load >/dev/null 2>&1 || missing+=(nghttp2-client)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ "${#missing[@]}" -gt 0 ]; then
    [ "$(id -u)" -eq 0 ] || die "missing ${missing[*]}: install them (apt-get install ${missing[*]})"
    say "installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
if has herald; then
    [ -x "$HERALD_BIN" ] || die "no herald binary at $HERALD_BIN (swift build -c release, or set HERALD_BIN; SERVERS=nginx for nginx alone)"
fi

# Pin the load generator to one core and the servers to the other, when there are two.
LOAD_PIN=() SERVER_PIN=() PINNING="none"
if [ "${PIN:-1}" = 1 ] && command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    LOAD_PIN=(taskset -c 0) SERVER_PIN=(taskset -c 1) PINNING="h2load on CPU 0, server on CPU 1"
fi
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

WORK=$(mktemp -d /tmp/herald-bench.XXXXXX)
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    if [ "${KEEP_TMP:-0}" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_port() { # wait_port PORT SECONDS
    local deadline=$((SECONDS + $2))
    until (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.1
    done
}
vm() { # vm PID FIELD -> kB
    awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null || true
}

# A 200-byte alert body.
python3 "$ROOT/bench/lib/alert_body.py" "$WORK/body.json"

DEVICE_TOKEN=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
JWT=""

# --- (c) herald -------------------------------------------------------------------------------
HERALD_PID=""
if has herald; then
    DATA=$WORK/herald-data
    HERALD_H2C=$(free_port)
    HERALD_TLS=$(free_port)
    say "herald: keys, token, serve (data dir $DATA)"
    mkdir -p "$DATA" # only `herald serve` creates a data directory; keys and tokens come first here
    "$HERALD_BIN" keys generate --key-id "$KEY_ID" --team-id "$TEAM_ID" --out "$WORK/key.p8" \
        --environment both --data-dir "$DATA" >"$WORK/keys.log" 2>&1 || { cat "$WORK/keys.log" >&2; die "herald keys generate failed"; }
    DEVICE_TOKEN=$("$HERALD_BIN" tokens register --topic "$TOPIC" --environment sandbox --data-dir "$DATA" 2>"$WORK/tokens.log" | tail -1) \
        || { cat "$WORK/tokens.log" >&2; die "herald tokens register failed"; }
    [[ $DEVICE_TOKEN =~ ^[0-9a-f]{64}$ ]] || die "herald tokens register printed '$DEVICE_TOKEN', not a 64-hex token"
    "${SERVER_PIN[@]}" "$HERALD_BIN" serve --data-dir "$DATA" --host 127.0.0.1 \
        --h2c-port "$HERALD_H2C" --tls-port "$HERALD_TLS" --environment sandbox --initial-streams "$M" ${SERVER_PIN:+--event-loops 1} >"$WORK/herald.log" 2>&1 &
    HERALD_PID=$!
    PIDS+=("$HERALD_PID")
    for _ in $(seq 600); do
        grep -q '^herald: ready' "$WORK/herald.log" && break
        kill -0 "$HERALD_PID" 2>/dev/null || { cat "$WORK/herald.log" >&2; die "herald serve exited"; }
        sleep 0.1
    done
    grep -q '^herald: ready' "$WORK/herald.log" || { tail -20 "$WORK/herald.log" >&2; die "herald not ready after 60 s"; }
fi
new_jwt() {
    JWT=$("$HERALD_BIN" keys token --p8 "$WORK/key.p8" --key-id "$KEY_ID" --team-id "$TEAM_ID" | tail -1)
    JWT_AT=$SECONDS
}

# --- (b) nginx --------------------------------------------------------------------------------
NGINX_PID=""
if has nginx; then
    NGINX_H2C=$(free_port)
    NGINX_TLS=$(free_port)
    if [ -n "$HERALD_PID" ] && [ -f "$DATA/tls/server.pem" ] && [ -f "$DATA/tls/server-key.pem" ]; then
        CERT=$DATA/tls/server.pem KEY=$DATA/tls/server-key.pem   # same certificate and key type as herald
    else
        CERT=$WORK/nginx.pem KEY=$WORK/nginx-key.pem
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
            -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$KEY" -out "$CERT" 2>/dev/null
    fi
    mkdir -p "$WORK/nginx"
    cat >"$WORK/nginx/nginx.conf" <<EOF
worker_processes 1;
worker_rlimit_nofile 16384;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 8192; }
http {
    access_log off;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    # The default keepalive_requests (1000) closes each connection after 1000 requests; in
    # nginx >= 1.19.7 it also bounds HTTP/2 connections (http2_max_requests is obsolete).
    keepalive_requests 100000000;
    keepalive_timeout 600s;
    http2_max_concurrent_streams 1000;
    server {
        listen 127.0.0.1:$NGINX_H2C http2;
        listen 127.0.0.1:$NGINX_TLS ssl http2;
        ssl_certificate $CERT;
        ssl_certificate_key $KEY;
        location / {
            add_header apns-id \$request_id always;
            return 200;
        }
    }
}
EOF
    "$NGINX" -t -q -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" \
        || { cat "$WORK/nginx/error.log" >&2; die "nginx config rejected"; }
    "${SERVER_PIN[@]}" "$NGINX" -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" -g 'daemon off;' &
    NGINX_PID=$!
    PIDS+=("$NGINX_PID")
    if ! { wait_port "$NGINX_H2C" 10 && wait_port "$NGINX_TLS" 10; }; then die "nginx did not listen"; fi
fi
nginx_worker() { pgrep -P "$NGINX_PID" | head -1; }

# --- (f) memory with idle connections (before any load, so the peak is the idle one) ------------
declare -A IDLE_RESULT
idle_test() { # idle_test NAME PORT PID
    local out
    say "$1: $IDLE idle TLS connections held ${HOLD}s"
    out=$("${LOAD_PIN[@]}" python3 "$ROOT/bench/gateway/idle_connections.py" --tls --port "$2" \
        --count "$IDLE" --hold "$HOLD" --pid "$3") || true
    IDLE_RESULT[$1]=$out
    say "$1: $out"
}
if [ "$IDLE" -gt 0 ]; then
    if [ -n "$NGINX_PID" ]; then idle_test nginx "$NGINX_TLS" "$(nginx_worker)"; fi
    if [ -n "$HERALD_PID" ]; then idle_test herald "$HERALD_TLS" "$HERALD_PID"; fi
fi

# --- (d) load ---------------------------------------------------------------------------------
declare -A RPS DETAIL FLAGGED_TARGET
FLAGGED=()
load() { # load TARGET URL REQUESTS RUN
    local target=$1 url=$2 n=$3 run=$4 out rps s2xx s4xx s5xx failed errored auth=()
    if [[ $target == herald-* ]]; then
        [ $((SECONDS - JWT_AT)) -lt 1800 ] || new_jwt
        auth=(-H "authorization: bearer $JWT")
    fi
    out=$(timeout 600 "${LOAD_PIN[@]}" h2load -n "$n" -c "$C" -m "$M" -d "$WORK/body.json" \
        -H "apns-topic: $TOPIC" -H 'apns-push-type: alert' -H 'apns-priority: 10' "${auth[@]}" "$url" 2>&1) || true
    [ "$run" = warmup ] && return 0
    echo "$out" >"$WORK/h2load-$target-$run.log"
    rps=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' <<<"$out")
    read -r s2xx s4xx s5xx < <(sed -n 's/^status codes: \([0-9]*\) 2xx, [0-9]* 3xx, \([0-9]*\) 4xx, \([0-9]*\) 5xx.*/\1 \2 \3/p' <<<"$out") || true
    read -r failed errored < <(sed -n 's/^requests: .* \([0-9]*\) failed, \([0-9]*\) errored.*/\1 \2/p' <<<"$out") || true
    rps=${rps:-0} s2xx=${s2xx:-0} s4xx=${s4xx:-0} s5xx=${s5xx:-0} failed=${failed:-?} errored=${errored:-?}
    DETAIL[$target]+="| $target | $run | ${rps%.*} | $s2xx | $s4xx | $s5xx | $failed | $errored |"$'\n'
    if [ "$s2xx" = "$n" ]; then
        RPS[$target]+="$rps "
    else
        FLAGGED+=("$target run $run: $s2xx of $n answered 2xx ($s4xx 4xx, $s5xx 5xx, $failed failed)")
        FLAGGED_TARGET[$target]=1
        if [ "$s2xx" = 0 ]; then echo "$out" | tail -12 >&2; fi
    fi
    say "$target run $run: ${rps%.*} req/s, 2xx $s2xx/$n"
}

TARGETS=()
declare -A URL
if has nginx; then URL[nginx-h2c]=http://127.0.0.1:$NGINX_H2C/3/device/$DEVICE_TOKEN; URL[nginx-tls]=https://127.0.0.1:$NGINX_TLS/3/device/$DEVICE_TOKEN; fi
if has herald; then URL[herald-h2c]=http://127.0.0.1:$HERALD_H2C/3/device/$DEVICE_TOKEN; URL[herald-tls]=https://127.0.0.1:$HERALD_TLS/3/device/$DEVICE_TOKEN; new_jwt; fi
for target in nginx-h2c herald-h2c nginx-tls herald-tls; do
    [ -n "${URL[$target]:-}" ] && TARGETS+=("$target")
done

for target in "${TARGETS[@]}"; do load "$target" "${URL[$target]}" $((N / 10 < 10000 ? N / 10 : 10000)) warmup; done
for run in $(seq "$R"); do
    for target in "${TARGETS[@]}"; do load "$target" "${URL[$target]}" "$N" "$run"; done
done

# --- (e) table --------------------------------------------------------------------------------
median() { tr ' ' '\n' <<<"$1" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
fmt_k() { awk -v v="$1" 'BEGIN { if (v == "" || v == 0) print "—"; else printf "%.1fk", v / 1000 }'; }
cell() { # cell TARGET: the median, marked when a run of that target was flagged
    printf '%s%s' "$(fmt_k "${MED[$1]:-}")" "${FLAGGED_TARGET[$1]:+ ⚠ flagged}"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0 || a == 0) print "—"; else printf "%.2f", a / b }'; }
mib() { awk -v k="$1" 'BEGIN { if (k == "") print "—"; else printf "%.1f MiB", k / 1024 }'; }
jget() { python3 -c 'import json,sys; d=json.loads(sys.argv[1] or "{}"); v=d.get(sys.argv[2]); print("" if v is None else v)' "$1" "$2" 2>/dev/null || true; }

declare -A MED
for target in "${TARGETS[@]}"; do MED[$target]=$(median "${RPS[$target]:-}"); done
HWM_AFTER_HERALD="" HWM_AFTER_NGINX=""
[ -n "$HERALD_PID" ] && HWM_AFTER_HERALD=$(vm "$HERALD_PID" VmHWM)
[ -n "$NGINX_PID" ] && HWM_AFTER_NGINX=$(vm "$(nginx_worker)" VmHWM)

memory_cells() { # memory_cells NAME AFTER_LOAD_HWM
    local json=${IDLE_RESULT[$1]:-} open before held hwm per
    open=$(jget "$json" open) before=$(jget "$json" rss_before_kib) held=$(jget "$json" rss_held_kib) hwm=$(jget "$json" hwm_held_kib)
    per=$(awk -v a="$held" -v b="$before" -v n="$open" 'BEGIN { if (a == "" || b == "" || n == "" || n == 0) print "—"; else printf "%.1f KiB", (a - b) / n }')
    printf '%s | %s | %s | %s | %s' "$(mib "$before")" "$(mib "$held") (${open:-0} open)" "$per" "$(mib "$hwm")" "$(mib "$2")"
}

HERALD_REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "uncommitted")
{
    echo "# Gateway benchmark, $(date '+%F %H:%M %Z')"
    echo
    echo "\`POST /3/device/<64 hex>\`, 200-byte alert body, \`h2load -n $N -c $C -m $M\`, $R interleaved run(s) per target"
    echo "(plus one unrecorded warm-up each); medians. Machine: $(nproc) × $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1),"
    echo "pinning: $PINNING. $($NGINX -v 2>&1 | sed 's/.*: //'), $(h2load --version | head -1), herald ${HERALD_REV}."
    echo
    echo "| Server | h2c req/s | TLS req/s | vs nginx (h2c / TLS) |"
    echo "|---|---|---|---|"
    if has nginx; then echo "| nginx \`return 200\` (1 worker) | $(cell nginx-h2c) | $(cell nginx-tls) | 1 / 1 |"; fi
    if has herald; then
        echo "| herald | $(cell herald-h2c) | $(cell herald-tls) | $(ratio "${MED[herald-h2c]:-}" "${MED[nginx-h2c]:-}") / $(ratio "${MED[herald-tls]:-}" "${MED[nginx-tls]:-}") |"
    fi
    if [ "$IDLE" -gt 0 ]; then
        echo
        echo "Memory: $IDLE idle provider connections over TLS (preface + SETTINGS, no request), held ${HOLD} s, measured"
        echo "before any load; then the peak over the whole benchmark. nginx: its one worker process."
        echo
        echo "| Server | RSS before | RSS with $IDLE idle | per connection | peak (VmHWM) idle | peak after load |"
        echo "|---|---|---|---|---|---|"
        if has nginx; then echo "| nginx | $(memory_cells nginx "$HWM_AFTER_NGINX") |"; fi
        if has herald; then echo "| herald | $(memory_cells herald "$HWM_AFTER_HERALD") |"; fi
    fi
    echo
    echo "<details><summary>Every run</summary>"
    echo
    echo "| Target | Run | req/s | 2xx | 4xx | 5xx | failed | errored |"
    echo "|---|---|---|---|---|---|---|---|"
    for run in $(seq "$R"); do
        for target in "${TARGETS[@]}"; do grep "^| $target | $run |" <<<"${DETAIL[$target]:-}" || true; done
    done
    echo
    echo "</details>"
    if [ "${#FLAGGED[@]}" -gt 0 ]; then
        echo
        echo "**Flagged runs** (not every request answered 2xx; left out of the medians):"
        for line in "${FLAGGED[@]}"; do echo "- $line"; done
    fi
} >"$WORK/results.md"

cat "$WORK/results.md"
mkdir -p "$(dirname "$RESULTS")"
cp "$WORK/results.md" "$RESULTS"
say "written to ${RESULTS#"$ROOT"/}"
[ "${#FLAGGED[@]}" -eq 0 ] || exit 2
