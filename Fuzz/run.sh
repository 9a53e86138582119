#!/usr/bin/env bash
# Builds Herald's libFuzzer targets (the package in Fuzz/, release, -sanitize=fuzzer,address) and runs each over a copy
# of its seed corpus. Only the fuzz package and the modules its targets name are built, not the whole server.
#
#   bash Fuzz/run.sh [SECONDS-PER-TARGET] [TARGET...]     # default 60 seconds, all targets
#   FUZZ_BUILD_ONLY=1 bash Fuzz/run.sh [0 TARGET...]        # build them, run nothing
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

failed=()
for target in "${TARGETS[@]}"; do
    work=$OUT/$target
    rm -rf "$work"
    mkdir -p "$work/corpus" "$work/artifacts"
    cp "$ROOT/Fuzz/Corpus/$target/"* "$work/corpus/"
    options=(-max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -max_len="$(max_len "$target")" -timeout=10
        -print_final_stats=1 -artifact_prefix="$work/artifacts/")
    if [ -f "$ROOT/Fuzz/Corpus/$target.dict" ]; then options+=(-dict="$ROOT/Fuzz/Corpus/$target.dict"); fi
    echo "== $target: ${SECONDS_PER_TARGET}s, $(ls "$work/corpus" | wc -l) seed inputs"
    started=$(date +%s)
    status=0
    "$BIN/$target" "${options[@]}" "$work/corpus" >"$work/log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
    coverage=$(grep -o 'cov: [0-9]*' "$work/log" | tail -1 || true)
    echo "   $((  $(date +%s) - started ))s, ${runs:-?} executions, $coverage, corpus $(ls "$work/corpus" | wc -l) inputs (log: $work/log)"
    if [ "$status" -ne 0 ]; then
        failed+=("$target")
        tail -n 60 "$work/log"
        for artifact in "$work"/artifacts/*; do
            [ -e "$artifact" ] || continue
            echo "fuzz: $target failed (exit $status); input: $artifact"
            echo "      reproduce: $BIN/$target $artifact"
        done
    fi
done

if [ "${#failed[@]}" -ne 0 ]; then
    echo "fuzz: failed: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz: no crash, leak or sanitizer report in ${TARGETS[*]}"
