#!/usr/bin/env bash
# Herald's release artifacts, from this checkout (docs/install.md):
#
#   bash scripts/release.sh            # build (release, Swift runtime and Foundation linked statically), then package
#   bash scripts/release.sh --no-build # package the binary the last run built
#   bash scripts/release.sh --link-debug-build
#                                      # CI's way (.ci/run): no release compile; link the objects of the debug build
#                                      # (`swift build`, which must have run) with the Swift runtime and Foundation
#                                      # statically, then package. A debug binary: for the install test, not to publish.
#
# Writes to $DIST (default dist/), for VERSION's version and this machine's architecture:
#   herald-<version>-linux-<arch>.tar.gz   the stripped binary, LICENSE, README, CHANGELOG, the systemd unit and its
#                                          settings file, shell completions, third-party licences
#   herald_<version>_<debarch>.deb         /usr/bin/herald, the herald user, /var/lib/herald, /etc/default/herald,
#                                          herald.service (dpkg-deb; Depends: from dpkg-shlibdeps)
#   herald-<version>-oci.tar               an OCI image archive (umoci; no base image, no registry)
#   SHA256SUMS                             of the three
# and checks what it wrote: the binary's version, that it names no toolchain path (ldd, readelf -d), the
# checksums. Needs: swift, binutils, dpkg-dev, umoci (Debian packages; .ci/run installs them).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

BUILD=1
LINK_DEBUG_BUILD=0
for argument in "$@"; do
    case "$argument" in
    --no-build) BUILD=0 ;;
    --link-debug-build) LINK_DEBUG_BUILD=1 ;;
    *)
        echo "release: unknown argument $argument (usage: bash scripts/release.sh [--no-build | --link-debug-build])" >&2
        exit 2
        ;;
    esac
done

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH=/opt/swift/usr/bin:$PATH
fi
for tool in strip readelf dpkg-deb dpkg-shlibdeps umoci sha256sum python3; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "release: $tool is missing (apt-get install binutils dpkg-dev umoci)" >&2
        exit 1
    fi
done

VERSION=$(tr -d '[:space:]' <VERSION)
ARCH=$(uname -m)
DEB_ARCH=$(dpkg --print-architecture)
SCRATCH=${RELEASE_SCRATCH:-$ROOT/.build-release}
DIST=${DIST:-$ROOT/dist}
WORK=$DIST/.work
NAME=herald-$VERSION-linux-$ARCH
TARBALL=$NAME.tar.gz
DEB=herald_${VERSION}_$DEB_ARCH.deb
OCI=herald-$VERSION-oci.tar
IMAGE_NAME=localhost/herald:$VERSION
MAINTAINER="Herald developers <herald-push@users.noreply.github.com>"

# The Swift runtime and Foundation go into the binary (--static-swift-stdlib), and so does SQLite: the SQLite
# targets (Herald's and GRDB's) ask the linker for -lsqlite3, and a folder searched first that holds only Debian's
# libsqlite3.a answers it with the archive. What is left is glibc, libstdc++, libgcc_s and zlib, which every Debian
# and Ubuntu has (docs/install.md).
STATIC_LIBS=$SCRATCH/static-libs
SQLITE_ARCHIVE=$(ls /usr/lib/*/libsqlite3.a /usr/lib/libsqlite3.a 2>/dev/null | head -1 || true)
[ -n "$SQLITE_ARCHIVE" ] || { echo "release: libsqlite3.a is missing (apt-get install libsqlite3-dev)" >&2; exit 1; }
mkdir -p "$STATIC_LIBS"
ln -sf "$SQLITE_ARCHIVE" "$STATIC_LIBS/libsqlite3.a"
BUILD_FLAGS=(-c release --static-swift-stdlib --scratch-path "$SCRATCH" -Xlinker -L"$STATIC_LIBS")

started=$SECONDS
CHECKOUTS=$SCRATCH/checkouts
if [ "$LINK_DEBUG_BUILD" -eq 1 ]; then
    # The debug build's objects, linked again as `swift build --static-swift-stdlib` would link them: SwiftPM's own link
    # command for herald (from its build manifest, .build/debug.yaml), with the static Swift runtime, and Foundation's
    # static libraries named (a static link does not find them by itself: the objects were compiled against the shared
    # ones). Takes seconds where a release compile takes CI's quarter of an hour: the install test then proves the
    # packages, the static link and a machine without Swift, and leaves optimisation to the release build.
    DEBUG_BIN=$(swift build --show-bin-path)
    MANIFEST=$(dirname "$(dirname "$DEBUG_BIN")")/debug.yaml
    [ -f "$DEBUG_BIN/herald.product/Objects.LinkFileList" ] && [ -f "$MANIFEST" ] \
        || { echo "release: no debug build of herald to link (run swift build first)" >&2; exit 1; }
    mkdir -p "$SCRATCH/linked"
    BIN=$SCRATCH/linked/herald
    mapfile -t LINK < <(python3 - "$MANIFEST" "$DEBUG_BIN/herald" <<'PYTHON'
import json, re, sys
manifest, binary = sys.argv[1], sys.argv[2]
for match in re.finditer(r'args: (\[.*\])$', open(manifest).read(), re.M):
    arguments = json.loads(match.group(1))
    if "-emit-executable" in arguments and arguments[arguments.index("-o") + 1] == binary:
        print("\n".join(arguments))
        break
PYTHON
    )
    [ "${#LINK[@]}" -gt 0 ] || { echo "release: herald's link command is not in $MANIFEST" >&2; exit 1; }
    for index in "${!LINK[@]}"; do
        [ "${LINK[$index]}" = "-o" ] && LINK[index + 1]=$BIN
    done
    echo "== linking the debug build's objects with the Swift runtime and Foundation statically: $BIN"
    rm -f "$BIN"
    if ! "${LINK[@]}" -static-stdlib -L"$STATIC_LIBS" -Xlinker --gc-sections \
        -Xlinker --start-group -lFoundation -lFoundationInternationalization -lFoundationEssentials -lCoreFoundation \
        -l_FoundationICU -l_FoundationCShims -l_FoundationCollections -lswiftDispatch -ldispatch -lBlocksRuntime \
        -lswiftSynchronization -Xlinker --end-group >"$SCRATCH/linked/link.log" 2>&1 || [ ! -x "$BIN" ]; then
        cat "$SCRATCH/linked/link.log" >&2
        echo "release: the static link of the debug build failed (above)" >&2
        exit 1
    fi
    CHECKOUTS=$(dirname "$(dirname "$DEBUG_BIN")")/checkouts
elif [ "$BUILD" -eq 1 ]; then
    # Both executables, not only `herald`: this is also the build that shows a release build of the package still works
    # (a debug-only CI once missed a broken one for 41 commits); herald-bench costs little more, what it is made of is in
    # herald already. Not every target: the test tiers' target imports Testing, which has no static build.
    for product in herald herald-bench; do
        echo "== swift build ${BUILD_FLAGS[*]} --product $product"
        swift build "${BUILD_FLAGS[@]}" --product "$product"
    done
fi
if [ "$LINK_DEBUG_BUILD" -eq 0 ]; then
    BIN=$(swift build "${BUILD_FLAGS[@]}" --show-bin-path)/herald
fi
[ -x "$BIN" ] || { echo "release: no binary at $BIN (run without --no-build)" >&2; exit 1; }

rm -rf "$WORK"
mkdir -p "$WORK" "$DIST"
rm -f "$DIST/$TARBALL" "$DIST/$DEB" "$DIST/$OCI" "$DIST/SHA256SUMS"

# --- The binary ------------------------------------------------------------------------------------------------------
strip --strip-all -o "$WORK/herald" "$BIN"
chmod 0755 "$WORK/herald"
reported=$("$WORK/herald" --version)
if [ "$reported" != "$VERSION" ]; then
    echo "release: herald --version says '$reported', VERSION says '$VERSION'" >&2
    exit 1
fi
# Nothing of the toolchain may be needed at run time: no toolchain path (a RUNPATH of $ORIGIN is harmless), no library
# of the toolchain.
if readelf -d "$WORK/herald" | grep -E '/opt/|/usr/lib/swift|swift|Foundation|toolchain' >&2; then
    echo "release: the binary names a toolchain path or library (readelf -d above)" >&2
    exit 1
fi
LIBRARIES=$(ldd "$WORK/herald")
if grep -E 'not found|/opt/|swift|Foundation' <<<"$LIBRARIES" >&2; then
    echo "release: the binary loads a toolchain library (ldd above)" >&2
    exit 1
fi
echo "== herald $VERSION: $(du -k "$WORK/herald" | cut -f1) KiB stripped; loads:"
sed 's/^/   /' <<<"$LIBRARIES"

mkdir -p "$WORK/completions"
"$WORK/herald" --generate-completion-script bash >"$WORK/completions/herald.bash"
"$WORK/herald" --generate-completion-script zsh >"$WORK/completions/_herald"
"$WORK/herald" --generate-completion-script fish >"$WORK/completions/herald.fish"

# Third-party licences: each Swift package linked in, and the Swift runtime and Foundation.
mkdir -p "$WORK/licenses"
for checkout in "$CHECKOUTS"/*; do
    package=$(basename "$checkout")
    for file in "$checkout"/LICENSE* "$checkout"/NOTICE*; do
        [ -f "$file" ] && cp "$file" "$WORK/licenses/$package-$(basename "$file")"
    done
done
swift_license=$(dirname "$(dirname "$(command -v swift)")")/share/swift/LICENSE.txt
[ -f "$swift_license" ] && cp "$swift_license" "$WORK/licenses/swift-LICENSE.txt"
cp /usr/share/doc/libsqlite3-dev/copyright "$WORK/licenses/sqlite-copyright" 2>/dev/null || true

# --- The tarball -----------------------------------------------------------------------------------------------------
stage=$WORK/tar/$NAME
mkdir -p "$stage"
cp "$WORK/herald" "$stage/herald"
cp LICENSE README.md CHANGELOG.md VERSION "$stage/"
cp packaging/herald.service "$stage/herald.service"
cp packaging/herald.default "$stage/herald.default"
cp -r "$WORK/completions" "$WORK/licenses" "$stage/"
cp docs/install.md "$stage/INSTALL.md"
tar -C "$WORK/tar" --owner=0 --group=0 --numeric-owner --sort=name -czf "$DIST/$TARBALL" "$NAME"

# --- The Debian package ----------------------------------------------------------------------------------------------
deb=$WORK/deb
install -D -m 0755 "$WORK/herald" "$deb/usr/bin/herald"
install -D -m 0644 packaging/herald.service "$deb/lib/systemd/system/herald.service"
install -D -m 0644 packaging/herald.default "$deb/etc/default/herald"
# bash-completion sources the file: no #! line (lintian: bash-completion-with-hashbang).
install -d "$deb/usr/share/bash-completion/completions"
sed '1{/^#!/d}' "$WORK/completions/herald.bash" >"$deb/usr/share/bash-completion/completions/herald"
chmod 0644 "$deb/usr/share/bash-completion/completions/herald"
install -D -m 0644 "$WORK/completions/_herald" "$deb/usr/share/zsh/vendor-completions/_herald"
install -D -m 0644 "$WORK/completions/herald.fish" "$deb/usr/share/fish/vendor_completions.d/herald.fish"
install -D -m 0644 README.md "$deb/usr/share/doc/herald/README.md"
install -D -m 0644 docs/install.md "$deb/usr/share/doc/herald/install.md"
# A native package's changelog.gz is in Debian's format: one entry pointing at CHANGELOG.md, which is shipped beside it.
gzip -9n -c CHANGELOG.md >"$deb/usr/share/doc/herald/CHANGELOG.md.gz"
changelog_date=$(date -R -d "$(git log -1 --format=%cI 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)")
printf 'herald (%s) unstable; urgency=medium\n\n  * Herald %s: see /usr/share/doc/herald/CHANGELOG.md.gz.\n\n -- %s  %s\n' \
    "$VERSION" "$VERSION" "$MAINTAINER" "$changelog_date" | gzip -9n >"$deb/usr/share/doc/herald/changelog.gz"
chmod 0644 "$deb/usr/share/doc/herald/changelog.gz" "$deb/usr/share/doc/herald/CHANGELOG.md.gz"
{
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: Herald"
    echo
    echo "Files: *"
    echo "License: Apache-2.0"
    echo
    echo "License: Apache-2.0"
    echo " On Debian systems, the full text of the Apache License, Version 2.0 is in"
    echo " /usr/share/common-licenses/Apache-2.0."
    echo " The binary also holds, linked statically: the Swift runtime and Foundation"
    echo " (Apache-2.0 with the Runtime Library Exception), SQLite (public domain), and"
    echo " the Swift packages listed in Package.swift (Apache-2.0 or MIT)."
} >"$deb/usr/share/doc/herald/copyright"
chmod 0644 "$deb/usr/share/doc/herald/copyright"
mkdir -p "$deb/DEBIAN"
install -m 0755 packaging/deb/postinst packaging/deb/prerm packaging/deb/postrm "$deb/DEBIAN/"
echo "/etc/default/herald" >"$deb/DEBIAN/conffiles"
# Depends: what the binary loads, as dpkg-shlibdeps finds it (with the versions this build needs), and adduser for the
# postinst.
mkdir -p "$WORK/shlibdeps/debian"
printf 'Source: herald\n\nPackage: herald\nArchitecture: any\n' >"$WORK/shlibdeps/debian/control"
shlib_depends=$(cd "$WORK/shlibdeps" && dpkg-shlibdeps -O "$deb/usr/bin/herald" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$shlib_depends" ] || { echo "release: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
installed_size=$(du -sk --exclude=DEBIAN "$deb" | cut -f1)
# Suggests: nodejs runs a web app's service worker (`herald device --service-worker sw.js`, docs/web-push.md); nothing
# else needs it.
cat >"$deb/DEBIAN/control" <<EOF
Package: herald
Version: $VERSION
Architecture: $DEB_ARCH
Maintainer: $MAINTAINER
Installed-Size: $installed_size
Depends: adduser, $shlib_depends
Suggests: nodejs
Section: net
Priority: optional
Homepage: https://github.com/herald-push/herald
Description: push notification server compatible with Apple's APNs
 Herald answers APNs provider requests (HTTP/2, token and certificate
 authentication, Apple's status codes and reasons), stores what it accepts
 durably and delivers it to simulated devices, with an inspection API, a web
 console and a command-line tool to see what each device showed and why.
EOF
dpkg-deb --root-owner-group -Zxz --build "$deb" "$DIST/$DEB" >/dev/null

# --- The OCI image ---------------------------------------------------------------------------------------------------
# No base image: the root file system is the binary, the shared libraries ldd names (from this machine, with their
# paths), a passwd/group with the herald user (uid 65532), and /var/lib/herald as a volume.
layout=$WORK/oci
umoci init --layout "$layout"
umoci new --image "$layout:$VERSION"
bundle=$WORK/oci-bundle
umoci unpack --rootless --image "$layout:$VERSION" "$bundle" >/dev/null
rootfs=$bundle/rootfs
install -D -m 0755 "$WORK/herald" "$rootfs/usr/bin/herald"
while read -r library; do
    [ -n "$library" ] || continue
    resolved=$(readlink -f "$library")
    install -D -m 0755 "$resolved" "$rootfs$library"
done < <(ldd "$WORK/herald" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }')
mkdir -p "$rootfs/etc" "$rootfs/tmp" "$rootfs/var/lib/herald"
chmod 1777 "$rootfs/tmp"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nherald:x:65532:65532:Herald:/var/lib/herald:/usr/sbin/nologin\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\nherald:x:65532:\n' >"$rootfs/etc/group"
printf 'hosts: files dns\n' >"$rootfs/etc/nsswitch.conf"
install -D -m 0644 LICENSE "$rootfs/usr/share/doc/herald/LICENSE"
cp -r "$WORK/licenses" "$rootfs/usr/share/doc/herald/licenses"
umoci repack --image "$layout:$VERSION" "$bundle" >/dev/null
# umoci (rootless) records the files as the user who ran it: the data directory belongs to herald in the image.
umoci raw add-layer --image "$layout:$VERSION" <(
    mkdir -p "$WORK/owned/var/lib/herald"
    tar -C "$WORK/owned" --owner=65532 --group=65532 --numeric-owner -cf - var/lib/herald
) >/dev/null
created=$(git log -1 --format=%cI 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)
umoci config --image "$layout:$VERSION" \
    --created "$created" --author "Herald developers" --architecture "$DEB_ARCH" --os linux \
    --config.user 65532:65532 \
    --config.workingdir /var/lib/herald \
    --config.env HERALD_DATA_DIR=/var/lib/herald \
    --config.env PATH=/usr/bin \
    --config.entrypoint /usr/bin/herald \
    --config.cmd serve --config.cmd --host --config.cmd 0.0.0.0 \
    --config.exposedports 2195/tcp --config.exposedports 2196/tcp --config.exposedports 2197/tcp \
    --config.volume /var/lib/herald \
    --config.stopsignal SIGTERM \
    --config.label org.opencontainers.image.title=herald \
    --config.label org.opencontainers.image.version="$VERSION" \
    --config.label org.opencontainers.image.licenses=Apache-2.0 \
    --config.label io.herald.healthcheck="/usr/bin/herald health" \
    --tag "$VERSION" >/dev/null
umoci gc --layout "$layout"
# The image's name as podman load and docker load (25 and later) read it: a full reference, which umoci's tags cannot
# hold ("0.1.0" would load as localhost/0.1.0).
python3 - "$layout/index.json" "$IMAGE_NAME" <<'PYTHON'
import json, sys
path, name = sys.argv[1], sys.argv[2]
index = json.load(open(path))
for manifest in index["manifests"]:
    manifest.setdefault("annotations", {}).update({"org.opencontainers.image.ref.name": name, "io.containerd.image.name": name})
json.dump(index, open(path, "w"), separators=(",", ":"))
PYTHON
tar -C "$layout" --owner=0 --group=0 --numeric-owner --sort=name -cf "$DIST/$OCI" .

# --- Checksums and checks ----------------------------------------------------------------------------------------------
(cd "$DIST" && sha256sum "$TARBALL" "$DEB" "$OCI" >SHA256SUMS && sha256sum --check --quiet SHA256SUMS)
listing=$(tar -tzf "$DIST/$TARBALL")
for file in "$NAME/herald" "$NAME/LICENSE" "$NAME/README.md" "$NAME/herald.service" "$NAME/completions/herald.bash" "$NAME/licenses/"; do
    grep -qxF "$file" <<<"$listing" || { echo "release: $TARBALL lacks $file" >&2; exit 1; }
done
dpkg-deb --field "$DIST/$DEB" Depends >/dev/null

echo "== release $VERSION in $DIST ($((SECONDS - started)) s)"
(cd "$DIST" && ls -l "$TARBALL" "$DEB" "$OCI" SHA256SUMS | awk '{ printf "   %10d  %s\n", $5, $9 }')
rm -rf "$WORK"
