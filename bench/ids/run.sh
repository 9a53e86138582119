#!/usr/bin/env bash
# What the sandbox's apns-unique-id costs per answer: NotificationID.random() (before) against NotificationID.uniqueID
# derived from the apns-id (after), interleaved in one program (bench/ids/README.md).
#
#   bash bench/ids/run.sh [ROUNDS] [ITERATIONS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp Sources/HeraldCore/Wire/NotificationID.swift Sources/HeraldCore/Wire/NotificationID+UniqueID.swift \
    Sources/HeraldCore/Wire/PooledRandomGenerator.swift Sources/HeraldCore/Time/WallClock.swift "$WORK/"
cp bench/ids/main.swift "$WORK/main.swift"
swiftc -O -wmo -module-name IDs -o "$WORK/ids" "$WORK"/*.swift
"$WORK/ids" "${1:-41}" "${2:-200000}"
