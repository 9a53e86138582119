#!/usr/bin/env bash
# The JSON layer's hot paths before and after a change, measured in the same run (docs/performance.md, "JSON layer").
#
#   bash bench/json/run.sh [BASE-REVISION] [ROUNDS] [ITERATIONS]
#
# Builds bench/json/main.swift twice with `swiftc -O -wmo`, once with the JSON sources of BASE-REVISION (default:
# main) and once with the working tree's, then runs the two programs in turn ROUNDS times (default 41, each timing
# ITERATIONS calls of every operation, default 20000: short runs, so the load of a shared machine falls on both alike),
# and prints a markdown table: each operation's median nanoseconds per call before and after, their ratio, and the
# fastest run of each (the least disturbed by other work).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
BASE=${1:-main}
ROUNDS=${2:-41}
ITERATIONS=${3:-20000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# build NAME REVISION: the program from REVISION's sources (`WORKTREE` for the files on disk).
build() {
    local name=$1 revision=$2 dir=$WORK/$1 flags=()
    # The files the program needs, as globs under Sources/: HeraldCore's JSON folder since the frame reader moved there
    # as JSONObjectReader (aaea069); before, HeraldDeviceLink's JSONFrameReader with the device-link error types.
    local files=(HeraldCore/JSON)
    if [ "$revision" = WORKTREE ] && [ -e Sources/HeraldCore/JSON/JSONObjectReader.swift ] ||
        git cat-file -e "$revision:Sources/HeraldCore/JSON/JSONObjectReader.swift" 2>/dev/null; then
        flags=(-D HERALD_JSON_OBJECT_READER)
    else
        files+=(HeraldDeviceLink/JSON/JSONFrameReader.swift HeraldDeviceLink/JSON/JSONTextWriter.swift
            HeraldDeviceLink/Messages/DeviceLinkError.swift HeraldDeviceLink/Messages/DeviceLinkErrorCode.swift)
    fi
    mkdir -p "$dir/src"
    for path in "${files[@]}"; do
        if [ "$revision" = WORKTREE ]; then
            find "Sources/$path" -name '*.swift' | while read -r file; do cp "$file" "$dir/src/$(echo "$file" | tr / _)"; done
        else
            git ls-tree -r --name-only "$revision" -- "Sources/$path" | grep '\.swift$' | while read -r file; do
                git show "$revision:$file" >"$dir/src/$(echo "$file" | tr / _)"
            done
        fi
    done
    # One module: the imports between Herald's modules go.
    sed -i '/^import Herald/d' "$dir"/src/*.swift
    swiftc -O -wmo -package-name Herald -module-name JSONBench "${flags[@]}" -o "$dir/bench" "$dir"/src/*.swift "$ROOT/bench/json/main.swift"
    [ -x "$dir/bench" ] || { echo "bench/json: the $name build failed" >&2; exit 1; }
}

echo "== building: before ($BASE, $(git rev-parse --short "$BASE")) and after (working tree)"
build before "$BASE"
build after WORKTREE

for round in $(seq 1 "$ROUNDS"); do
    "$WORK/before/bench" "$ITERATIONS" | sed 's/^/before /' >>"$WORK/results"
    "$WORK/after/bench" "$ITERATIONS" | sed 's/^/after /' >>"$WORK/results"
done

python3 - "$WORK/results" "$ROUNDS" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
ops = list(dict.fromkeys(r[1] for r in rows))
print(f"\n| operation | before ns/op | after ns/op | after/before | best before | best after |")
print("|---|---:|---:|---:|---:|---:|")
for op in ops:
    before = [float(r[2]) for r in rows if r[0] == "before" and r[1] == op]
    after = [float(r[2]) for r in rows if r[0] == "after" and r[1] == op]
    b, a = statistics.median(before), statistics.median(after)
    print(f"| {op} | {b:.0f} | {a:.0f} | {a / b:.3f} | {min(before):.0f} | {min(after):.0f} |")
print(f"\nmedians and minimums of {sys.argv[2]} interleaved runs")
PY
