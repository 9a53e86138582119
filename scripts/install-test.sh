#!/usr/bin/env bash
# Proof that Herald needs no Swift (docs/install.md, "How the packages are tested"): the release artifacts in dist/,
# each in a Debian root file system made here with debootstrap (nothing of this machine's PATH or /opt inside):
#
#   1. the .deb, installed with `apt-get install ./herald_….deb` (so that its Depends: resolve), run as the unit runs
#      it (its ExecStart, its user, its settings file; there is no systemd in a chroot), then removed and purged;
#   2. the tarball's binary alone, in a root file system where nothing else was installed;
#   3. the OCI image's root file system, unpacked with umoci and its entry point run as its user, in a chroot.
#
# In each, a real client pushes from outside (curl with the CA of Herald's data directory) and gets 200, a
# `herald device` run inside receives the push, `herald health` and /readyz answer. Prints how long each took.
#
#   bash scripts/install-test.sh              # as root (debootstrap, chroot, mount); after bash scripts/release.sh
#   bash scripts/install-test.sh --base-only  # only make (or keep) the cached base root file system; no artifact needed
#
# The base root file system is kept in .build/install-test/base.tar to save its minute the next time.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
DIST=${DIST:-$ROOT/dist}
VERSION=$(tr -d '[:space:]' <VERSION)
SUITE=${INSTALL_TEST_SUITE:-bookworm}
MIRROR=${INSTALL_TEST_MIRROR:-http://deb.debian.org/debian}
CACHE=$ROOT/.build/install-test
WORK=$(mktemp -d /tmp/herald-install-test.XXXXXX)

if [ "$(id -u)" -ne 0 ]; then
    echo "install-test: run as root (debootstrap, chroot and mount need it)" >&2
    exit 1
fi
# Every mount of this script is made in a mount namespace of its own, so that none outlives it or shows outside; and
# no folder of this machine is mounted into a root file system (a recursive delete through such a mount would delete
# this machine's files): each root gets /proc and a few device nodes of its own.
if [ -z "${HERALD_INSTALL_TEST_NAMESPACE:-}" ]; then
    export HERALD_INSTALL_TEST_NAMESPACE=1
    exec unshare --mount --propagation private -- bash "$0" "$@"
fi
for tool in debootstrap umoci curl python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "install-test: $tool is missing (apt-get install debootstrap umoci curl)" >&2; exit 1; }
done
BASE_ONLY=0
for argument in "$@"; do
    case "$argument" in
    --base-only) BASE_ONLY=1 ;;
    *)
        echo "install-test: unknown argument $argument (usage: bash scripts/install-test.sh [--base-only])" >&2
        exit 2
        ;;
    esac
done
if [ "$BASE_ONLY" -eq 1 ]; then
    DEB="" TARBALL="" OCI=""
else
    DEB=$(ls "$DIST"/herald_"$VERSION"_*.deb)
    TARBALL=$(ls "$DIST"/herald-"$VERSION"-linux-*.tar.gz)
    OCI=$DIST/herald-$VERSION-oci.tar
    for artifact in "$DEB" "$TARBALL" "$OCI"; do
        [ -f "$artifact" ] || { echo "install-test: $artifact is missing (run bash scripts/release.sh)" >&2; exit 1; }
    done
fi

PIDS=()
# mounts_under DIR: the mount points below DIR, deepest first.
mounts_under() { awk -v dir="$1/" 'index($2, dir) == 1 { print $2 }' /proc/self/mounts | sort -r; }
cleanup() {
    local pid mount
    for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    for mount in $(mounts_under "$WORK"); do umount -l "$mount" 2>/dev/null || true; done
    if [ -n "$(mounts_under "$WORK")" ]; then
        echo "install-test: $WORK still has mounts; left in place" >&2
        return
    fi
    rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT

step_started=$SECONDS
say() { printf '== install-test: %s\n' "$*"; }
took() { printf '   %s: %d s\n' "$1" "$((SECONDS - step_started))"; step_started=$SECONDS; }

# --- A Debian root file system -------------------------------------------------------------------------------------
mkdir -p "$CACHE"
if [ ! -f "$CACHE/base-$SUITE.tar" ]; then
    say "debootstrap --variant=minbase $SUITE"
    debootstrap --variant=minbase "$SUITE" "$WORK/base" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
        || { tail -30 "$WORK/debootstrap.log" >&2; echo "install-test: debootstrap failed" >&2; exit 1; }
    tar -C "$WORK/base" -cf "$CACHE/base-$SUITE.tar" .
    rm -rf "$WORK/base"
    took "debootstrap"
fi
if [ "$BASE_ONLY" -eq 1 ]; then
    say "base root file system: $CACHE/base-$SUITE.tar"
    exit 0
fi
# give_proc_and_devices ROOT: /proc, and the device nodes a program needs (no folder of this machine mounted in).
give_proc_and_devices() {
    local root=$1 node
    mkdir -p "$root/proc" "$root/dev"
    mount -t proc proc "$root/proc"
    for node in "null 1 3" "zero 1 5" "full 1 7" "random 1 8" "urandom 1 9" "tty 5 0"; do
        set -- $node
        [ -c "$root/dev/$1" ] || { rm -f "$root/dev/$1"; mknod -m 666 "$root/dev/$1" c "$2" "$3"; }
    done
    [ -e "$root/dev/fd" ] || ln -s /proc/self/fd "$root/dev/fd"
}
# new_root NAME: sets ROOTFS to a fresh copy of the base, with /proc, device nodes and this machine's resolver for apt.
new_root() {
    ROOTFS=$WORK/$1
    mkdir -p "$ROOTFS"
    tar -C "$ROOTFS" -xf "$CACHE/base-$SUITE.tar"
    cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
    give_proc_and_devices "$ROOTFS"
    # No Swift anywhere inside: the toolchain's folder and library names must not be found.
    if [ -e "$ROOTFS/opt/swift" ] || find "$ROOTFS/usr" "$ROOTFS/opt" -name 'libswiftCore*' -o -name 'libFoundation*.so' | grep -q .; then
        echo "install-test: a Swift runtime is in the root file system" >&2
        exit 1
    fi
}
# inside ROOT USER COMMAND...: COMMAND in the chroot as USER, with a clean environment (nothing of this shell's PATH).
# Leading NAME=value arguments are the environment. The chroot program is this machine's, so that a root file system
# without env or a shell (the OCI image's) works the same. command_inside sets COMMAND to the command line instead of
# running it, for a process started in the background: env and chroot exec, so that $! is the program itself.
command_inside() {
    local root=$1 user=$2
    shift 2
    local variables=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME=/tmp)
    while [ "$#" -gt 0 ] && [[ "$1" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
        variables+=("$1")
        shift
    done
    COMMAND=(env -i "${variables[@]}" "$(command -v chroot)" --userspec="$user" "$root" "$@")
}
inside() {
    command_inside "$@"
    "${COMMAND[@]}"
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# wait_for SECONDS COMMAND...: until COMMAND succeeds.
wait_for() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        if [ "$SECONDS" -ge "$deadline" ]; then return 1; fi
        sleep 0.1
    done
}
ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/readyz")" = "200" ]; }
# seconds_since START_NS: seconds (3 decimals) since a `date +%s%N`.
seconds_since() { python3 -c "import sys,time; print('%.2f' % ((time.time_ns() - int(sys.argv[1])) / 1e9))" "$1"; }

# push_and_receive ROOT USER DATA-DIR TLS-PORT LINK-PORT [ENV...]: a device inside, a push from outside, its receipt.
push_and_receive() {
    local root=$1 user=$2 data=$3 tls_port=$4 link_port=$5
    shift 5
    local environment=(HERALD_DATA_DIR="$data" "$@")
    command_inside "$root" "$user" "${environment[@]}" herald device --app com.example.app \
        --server "ws://127.0.0.1:$link_port/device-link"
    "${COMMAND[@]}" >"$WORK/device.log" 2>&1 &
    PIDS+=($!)
    local device=$!
    wait_for 30 grep -q "token" "$WORK/device.log" || { cat "$WORK/device.log" >&2; echo "install-test: the device did not register" >&2; exit 1; }
    local token jwt status
    token=$(inside "$root" "$user" "${environment[@]}" herald devices list | awk '$1 == "com.example.app" { print $3; exit }')
    jwt=$(inside "$root" "$user" "${environment[@]}" herald keys token)
    [ -n "$token" ] && [ -n "$jwt" ] || { echo "install-test: no device token or provider token" >&2; exit 1; }
    status=$(curl -s -o "$WORK/answer" -w '%{http_code}' --http2 --cacert "$root$data/tls/ca.pem" \
        -H "authorization: bearer $jwt" -H "apns-topic: com.example.app" -H "apns-push-type: alert" \
        -d '{"aps":{"alert":"Hello from a machine without Swift"}}' "https://localhost:$tls_port/3/device/$token")
    if [ "$status" != "200" ]; then
        cat "$WORK/answer" >&2
        echo "install-test: the push got $status, not 200" >&2
        exit 1
    fi
    wait_for 30 grep -q "Hello from a machine without Swift" "$WORK/device.log" \
        || { cat "$WORK/device.log" >&2; echo "install-test: the device did not show the push" >&2; exit 1; }
    inside "$root" "$user" "${environment[@]}" herald health --link-port "$link_port" \
        || { echo "install-test: herald health failed" >&2; exit 1; }
    kill "$device" 2>/dev/null || true
    wait "$device" 2>/dev/null || true
}

# stop PID: SIGTERM, as systemd or a container runtime stops it; it must exit 0 within the unit's TimeoutStopSec.
stop() {
    kill -TERM "$1"
    local status=0
    timeout 45 tail --pid="$1" -f /dev/null || { echo "install-test: herald serve did not stop within 45 s" >&2; exit 1; }
    wait "$1" || status=$?
    [ "$status" -eq 0 ] || { echo "install-test: herald serve exited $status after SIGTERM" >&2; exit 1; }
}

# --- 1. The Debian package -----------------------------------------------------------------------------------------
say "1. $(basename "$DEB") in a $SUITE root file system"
new_root deb
root=$ROOTFS
cp "$DEB" "$root/tmp/"
started=$(date +%s%N)
inside "$root" 0:0 DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "/tmp/$(basename "$DEB")" \
    >"$WORK/apt.log" 2>&1 || { cat "$WORK/apt.log" >&2; echo "install-test: apt-get install of the .deb failed" >&2; exit 1; }
inside "$root" 0:0 getent passwd herald >/dev/null || { echo "install-test: the package made no herald user" >&2; exit 1; }
[ "$(inside "$root" 0:0 stat -c %U /var/lib/herald)" = "herald" ] || { echo "install-test: /var/lib/herald does not belong to herald" >&2; exit 1; }
if inside "$root" 0:0 ldd /usr/bin/herald | grep -E 'not found|swift|/opt/'; then
    echo "install-test: the installed binary misses a library (above)" >&2
    exit 1
fi
# A user who runs a command elsewhere is told where the service's data is.
hint=$(inside "$root" 0:0 /bin/sh -c 'cd /tmp && herald devices list' 2>&1 || true)
grep -q "HERALD_DATA_DIR=/var/lib/herald" <<<"$hint" || { echo "install-test: no hint at /var/lib/herald: $hint" >&2; exit 1; }
# The unit, as systemd would run it: its user, its environment and settings file, its ExecStart.
unit=$root/lib/systemd/system/herald.service
unit_value() { sed -n "s/^$1=//p" "$unit" | head -1; }
user=$(unit_value User)
exec_start=$(unit_value ExecStart)
environment=$(unit_value Environment)
working_directory=$(unit_value WorkingDirectory)
[ "$user" = "herald" ] && [ -n "$exec_start" ] || { echo "install-test: the unit has no User= or ExecStart=" >&2; exit 1; }
tls_port=$(free_port) h2c_port=$(free_port) link_port=$(free_port)
# The operator's change: other ports, in the settings file the unit reads.
sed -i "s|^HERALD_OPTIONS=.*|HERALD_OPTIONS=\"--log-level info --tls-port $tls_port --h2c-port $h2c_port --link-port $link_port\"|" "$root/etc/default/herald"
command_inside "$root" "$user:$user" "$environment" /bin/sh -c "cd '$working_directory' && set -a && . /etc/default/herald && set +a && exec $exec_start"
"${COMMAND[@]}" >"$WORK/serve.log" 2>&1 &
serve=$!
PIDS+=("$serve")
wait_for 30 ready "$link_port" || { cat "$WORK/serve.log" >&2; echo "install-test: /readyz did not answer 200" >&2; exit 1; }
push_and_receive "$root" "$user:$user" /var/lib/herald "$tls_port" "$link_port"
echo "   from nothing to a delivered push (apt-get install, serve, device, send): $(seconds_since "$started") s"
stop "$serve"
inside "$root" 0:0 DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq herald >>"$WORK/apt.log" 2>&1
[ -d "$root/var/lib/herald/tls" ] && inside "$root" 0:0 getent passwd herald >/dev/null \
    || { echo "install-test: remove (not purge) took the data or the user" >&2; exit 1; }
inside "$root" 0:0 DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq herald >>"$WORK/apt.log" 2>&1
if [ -e "$root/var/lib/herald" ] || inside "$root" 0:0 getent passwd herald >/dev/null || [ -e "$root/etc/default/herald" ]; then
    echo "install-test: purge left /var/lib/herald, /etc/default/herald or the herald user" >&2
    exit 1
fi
took "1. .deb: install, serve, push, receive, remove, purge"

# --- 2. The tarball's binary alone ----------------------------------------------------------------------------------
say "2. $(basename "$TARBALL"), its binary alone"
new_root tarball
root=$ROOTFS
tar -C "$root/tmp" -xzf "$TARBALL"
install -m 0755 "$root/tmp/$(basename "$TARBALL" .tar.gz)/herald" "$root/usr/local/bin/herald"
inside "$root" 0:0 herald --version | grep -qx "$VERSION" || { echo "install-test: the tarball's herald --version is not $VERSION" >&2; exit 1; }
mkdir -p "$root/srv/herald" && chown nobody:nogroup "$root/srv/herald"
tls_port=$(free_port) h2c_port=$(free_port) link_port=$(free_port)
started=$(date +%s%N)
command_inside "$root" nobody:nogroup HERALD_DATA_DIR=/srv/herald herald serve --tls-port "$tls_port" --h2c-port "$h2c_port" \
    --link-port "$link_port"
"${COMMAND[@]}" >"$WORK/serve.log" 2>&1 &
serve=$!
PIDS+=("$serve")
wait_for 30 ready "$link_port" || { cat "$WORK/serve.log" >&2; echo "install-test: /readyz did not answer 200" >&2; exit 1; }
echo "   start to /readyz 200 on a new data directory: $(seconds_since "$started") s"
push_and_receive "$root" nobody:nogroup /srv/herald "$tls_port" "$link_port"
stop "$serve"
took "2. tarball: serve, push, receive"

# --- 3. The OCI image ------------------------------------------------------------------------------------------------
say "3. $(basename "$OCI"), its root file system and entry point"
mkdir -p "$WORK/oci/layout"
tar -C "$WORK/oci/layout" -xf "$OCI"
# The archive names its image as podman and docker read it (localhost/herald:VERSION); umoci finds it by a plain tag.
python3 - "$WORK/oci/layout/index.json" "$VERSION" <<'PYTHON'
import json, sys
path, tag = sys.argv[1], sys.argv[2]
index = json.load(open(path))
names = [m.get("annotations", {}).get("org.opencontainers.image.ref.name") for m in index["manifests"]]
assert names == ["localhost/herald:" + tag], names
index["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"] = tag
json.dump(index, open(path, "w"))
PYTHON
umoci unpack --image "$WORK/oci/layout:$VERSION" "$WORK/oci/bundle" >/dev/null
root=$WORK/oci/bundle/rootfs
give_proc_and_devices "$root"
[ "$(stat -c %u "$root/var/lib/herald")" = "65532" ] || { echo "install-test: the image's /var/lib/herald does not belong to uid 65532" >&2; exit 1; }
# The runtime configuration umoci wrote from the image's: user, environment, working directory, arguments.
read -r image_user image_cwd < <(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["process"]; print("%d:%d" % (p["user"]["uid"], p["user"]["gid"]), p["cwd"])' "$WORK/oci/bundle/config.json")
mapfile -t image_env < <(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["process"]["env"]))' "$WORK/oci/bundle/config.json")
mapfile -t image_args < <(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["process"]["args"]))' "$WORK/oci/bundle/config.json")
[ "$image_user" = "65532:65532" ] || { echo "install-test: the image runs as $image_user, not the herald user" >&2; exit 1; }
tls_port=$(free_port) h2c_port=$(free_port) link_port=$(free_port)
token=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
# As `podman run -e HERALD_API_TOKEN=… herald:VERSION` with the image's command and other ports (this test shares the
# machine's network; a container would publish 2195–2197).
started=$(date +%s%N)
[ "$image_cwd" = "/var/lib/herald" ] || { echo "install-test: the image's working directory is $image_cwd" >&2; exit 1; }
inside "$root" "$image_user" "${image_env[@]}" /usr/bin/herald --version | grep -qx "$VERSION" \
    || { echo "install-test: the image's herald --version is not $VERSION" >&2; exit 1; }
command_inside "$root" "$image_user" "${image_env[@]}" HERALD_API_TOKEN="$token" "${image_args[@]}" \
    --tls-port "$tls_port" --h2c-port "$h2c_port" --link-port "$link_port"
"${COMMAND[@]}" >"$WORK/serve.log" 2>&1 &
serve=$!
PIDS+=("$serve")
wait_for 30 ready "$link_port" || { cat "$WORK/serve.log" >&2; echo "install-test: /readyz did not answer 200" >&2; exit 1; }
echo "   start to /readyz 200 on a new data directory: $(seconds_since "$started") s"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$link_port/api/v1/devices")" = "401" ] \
    || { echo "install-test: the image's API answers without its token" >&2; exit 1; }
push_and_receive "$root" "$image_user" /var/lib/herald "$tls_port" "$link_port" HERALD_API_TOKEN="$token"
stop "$serve"
took "3. OCI image: serve, push, receive"
say "all three ways in work without Swift"
