#!/usr/bin/env bash
# Builds Herald's libFuzzer targets (the package in Fuzz/, release, -sanitize=fuzzer,address) and runs each over a copy
# of its seed corpus. Only the fuzz package and the modules its targets name are built, not the whole server.
#
#   bash Fuzz/run.sh [SECONDS-PER-TARGET] [TARGET...]     # default 60 seconds, all targets
#   FUZZ_BUILD_ONLY=1 bash Fuzz/run.sh [0 TARGET...]        # build them, run nothing
#   FUZZ_JOBS=2 bash Fuzz/run.sh 60                          # two targets at a time (each on a core of its own)
#
# Exits non-zero when a target crashes, leaks, times out or trips a sanitizer, and prints the input that did it
# (kept under $FUZZ_OUT, by default .build-fuzz/out/<target>/). New corpus entries stay in that scratch copy: the
# repository's corpus changes only by hand (docs/fuzzing.md).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

SECONDS_PER_TARGET=${1:-60}
shift || true
ALL_TARGETS=(FuzzHTTP2Frames FuzzHPACK FuzzJSONPayload FuzzJWT FuzzAPNSFile FuzzDeviceLinkFrames FuzzConsoleRelay FuzzHealthAnswer FuzzWebPushContent FuzzVAPID)
if [ "$#" -gt 0 ]; then TARGETS=("$@"); else TARGETS=("${ALL_TARGETS[@]}"); fi
SCRATCH=${FUZZ_SCRATCH:-$ROOT/.build-fuzz}
OUT=${FUZZ_OUT:-$SCRATCH/out}

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH=/opt/swift/usr/bin:$PATH
fi

# The largest input each target is given: a frame reader input holds a few frames; payloads and tokens are limited to
# 4 KB by APNs itself (a VoIP payload may be 5 KB); a header block a client sends is rarely above 4 KB; a device-link
# frame is a payload and a few hundred bytes around it; a console relay message is at most a NOTIFY payload (8000);
# herald health reads at most 16 KiB of an answer (HealthAnswer.maximumBytes); a web push body is at most 4096 octets
# (AES128GCMRules.webPush), and a little more reaches that limit's check; a VAPID Authorization header is read up to
# 8 KiB (VAPIDAuthorization.maximumHeaderLength), with a few request headers after it.
max_len() {
    case "$1" in
    FuzzHTTP2Frames | FuzzHealthAnswer) echo 16384 ;;
    FuzzAPNSFile | FuzzDeviceLinkFrames | FuzzConsoleRelay) echo 8192 ;;
    FuzzWebPushContent) echo 4200 ;;
    FuzzVAPID) echo 8400 ;;
    *) echo 4096 ;;
    esac
}

# lld: gold (swiftc's default on Linux) stops with an internal error on these sanitized executables.
BUILD_FLAGS=(--package-path "$ROOT/Fuzz" -c release --scratch-path "$SCRATCH"
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DHERALD_FUZZ
    -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld)

echo "== building ${TARGETS[*]} (release, fuzzer+address) in $SCRATCH"
# First every module the targets import, in one build (FuzzDependencies), so that independent modules compile side by
# side; then each target. A build of the whole fuzz package would also build every product of the root package it
# names: the server and its tools.
swift build "${BUILD_FLAGS[@]}" --target FuzzDependencies
for target in "${TARGETS[@]}"; do
    swift build "${BUILD_FLAGS[@]}" --product "$target"
done
BIN=$(swift build "${BUILD_FLAGS[@]}" --show-bin-path)
# FUZZ_BUILD_ONLY=1: build, run nothing (.ci/run builds in the background while the tests run, and fuzzes later).
if [ "${FUZZ_BUILD_ONLY:-0}" = 1 ]; then
    echo "== built ${TARGETS[*]} in $BIN"
    exit 0
fi

# One target's run: its log in $OUT/<target>/log, its summary (and, when it failed, the input that did it) printed when
# it ends. Exits with the target's status.
run_target() {
    local target=$1 work=$OUT/$1
    rm -rf "$work"
    mkdir -p "$work/corpus" "$work/artifacts"
    cp "$ROOT/Fuzz/Corpus/$target/"* "$work/corpus/"
    local options=(-max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -max_len="$(max_len "$target")" -timeout=10
        -print_final_stats=1 -artifact_prefix="$work/artifacts/")
    if [ -f "$ROOT/Fuzz/Corpus/$target.dict" ]; then options+=(-dict="$ROOT/Fuzz/Corpus/$target.dict"); fi
    local seeds started status=0
    seeds=$(ls "$work/corpus" | wc -l)
    started=$(date +%s)
    "$BIN/$target" "${options[@]}" "$work/corpus" >"$work/log" 2>&1 || status=$?
    local runs coverage
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
    coverage=$(grep -o 'cov: [0-9]*' "$work/log" | tail -1 || true)
    {
        echo "== $target: ${SECONDS_PER_TARGET}s, $seeds seed inputs"
        echo "   $(($(date +%s) - started))s, ${runs:-?} executions, $coverage, corpus $(ls "$work/corpus" | wc -l) inputs (log: $work/log)"
        if [ "$status" -ne 0 ]; then
            tail -n 60 "$work/log"
            for artifact in "$work"/artifacts/*; do
                [ -e "$artifact" ] || continue
                echo "fuzz: $target failed (exit $status); input: $artifact"
                echo "      reproduce: $BIN/$target $artifact"
            done
        fi
    } >"$work/summary"
    return "$status"
}

# FUZZ_JOBS targets at a time (default 1). Each libFuzzer run is one process on one core, so on a machine with cores to
# spare FUZZ_JOBS=2 halves the wall time and changes nothing else: every target still runs for its seconds.
JOBS=${FUZZ_JOBS:-1}
failed=()
declare -A RUNNING=()
finish_one() {
    # Waits for any running target, prints its summary, records a failure.
    local pid status=0 target
    wait -n -p pid "${!RUNNING[@]}" || status=$?
    target=${RUNNING[$pid]}
    unset "RUNNING[$pid]"
    cat "$OUT/$target/summary"
    if [ "$status" -ne 0 ]; then failed+=("$target"); fi
}
for target in "${TARGETS[@]}"; do
    while [ "${#RUNNING[@]}" -ge "$JOBS" ]; do finish_one; done
    run_target "$target" &
    RUNNING[$!]=$target
done
while [ "${#RUNNING[@]}" -gt 0 ]; do finish_one; done

if [ "${#failed[@]}" -ne 0 ]; then
    echo "fuzz: failed: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz: no crash, leak or sanitizer report in ${TARGETS[*]}"
