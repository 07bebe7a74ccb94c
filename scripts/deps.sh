#!/usr/bin/env bash
# Installs what cuzk needs to build on a fresh Debian 12 machine, and nothing else:
#   1. missing Debian packages (compiler, cmake, npm for the blst source tarball);
#   2. Debian's nginx unpacked into $BUILD/deps/nginx (for a test) when
#      nginx is not on the PATH;
#   3. blst 0.3.10 built from the source tree shipped inside the npm package
#      @chainsafe/blst@0.2.11, whose tarball is checked against a pinned sha512
#      before it is unpacked. The result is cached in $BUILD/deps/blst.
# Usage: scripts/deps.sh [BUILD_DIR]   (default: build)
set -euo pipefail

BUILD_DIR=${1:-build}
BLST_PKG="@chainsafe/blst@0.2.11"
BLST_TGZ="chainsafe-blst-0.2.11.tgz"
BLST_SHA512="URyOLq5GtxBoxibOnd2pgLydCy0UZzbiIIBcsRAvGxAsRzjZL04TsQfwRkz5aphU3a1ebeRoMmI/HHyMCiFSQg=="
DEST="$BUILD_DIR/deps/blst"
STAMP="$BLST_SHA512 native"

need_pkgs=()
have() { command -v "$1" >/dev/null 2>&1; }
have cc || need_pkgs+=(gcc)
have make || need_pkgs+=(make)
have cmake || need_pkgs+=(cmake)
have npm || need_pkgs+=(npm)
have openssl || need_pkgs+=(openssl)
have perl || need_pkgs+=(perl)
have dpkg-shlibdeps || need_pkgs+=(dpkg-dev) # the Debian package's dependencies (make package)
# libssl-dev: libcrypto's digests; libjansson-dev: JSON (C1 output). cuzk-daemon: the gRPC C core, protobuf-c (library and protoc-c),
# libmicrohttpd, toml11 (a C++ header library, hence g++), libsystemd
# (sd_notify) and pkg-config to find them; the daemon tests' Python client
# uses python3-grpcio and python3-grpc-tools.
for p in pkg-config g++ libssl-dev libjansson-dev libgrpc-dev libprotobuf-c-dev protobuf-c-compiler libmicrohttpd-dev \
         libsystemd-dev libtoml11-dev python3-grpcio python3-grpc-tools; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need_pkgs+=("$p")
done
if [ ${#need_pkgs[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "deps: missing ${need_pkgs[*]}; run as root or install them" >&2
        exit 1
    fi
    echo "deps: installing ${need_pkgs[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}"
fi

# nginx for the load-balancing test (tests/daemon/test_nginx.sh): Debian's
# package unpacked under the build folder, not installed (so no nginx service
# is started on this machine); an nginx already on the PATH is used instead.
NGINX_DIR="$BUILD_DIR/deps/nginx"
unpack_nginx() {
    local w
    w=$(mktemp -d)
    (cd "$w" && apt-get download nginx >/dev/null 2>&1) ||
        { apt-get update -qq && (cd "$w" && apt-get download nginx >/dev/null); } &&
        mkdir -p "$NGINX_DIR" && dpkg-deb -x "$w"/nginx_*.deb "$NGINX_DIR"
    local r=$?
    rm -rf "$w"
    return $r
}
if ! have nginx && [ ! -x "$NGINX_DIR/usr/sbin/nginx" ]; then
    echo "deps: unpacking Debian's nginx into $NGINX_DIR"
    unpack_nginx || echo "deps: could not fetch nginx; the nginx test (daemon_nginx) will fail" >&2
fi

if [ -f "$DEST/lib/libblst.a" ] && [ -f "$DEST/include/blst.h" ] &&
   [ "$(cat "$DEST/.stamp" 2>/dev/null)" = "$STAMP" ]; then
    exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "deps: fetching $BLST_PKG"
(cd "$work" && npm pack --silent "$BLST_PKG" >/dev/null)
[ -f "$work/$BLST_TGZ" ] || { echo "deps: npm pack did not produce $BLST_TGZ" >&2; exit 1; }
got=$(openssl dgst -sha512 -binary "$work/$BLST_TGZ" | base64 -w0)
if [ "$got" != "$BLST_SHA512" ]; then
    echo "deps: integrity mismatch for $BLST_TGZ: got sha512-$got" >&2
    exit 1
fi
tar -xzf "$work/$BLST_TGZ" -C "$work" package/blst
echo "deps: building blst"
# build.sh picks blst's ADX/BMI2 (mulx) code when this CPU has those
# instructions (every x86-64 server CPU since 2014 does); blst 0.3.10's
# "portable" build would drop that path for good, costing ~25% on every
# field multiplication.
(cd "$work/package/blst" && ./build.sh -fPIC >/dev/null 2>&1)
mkdir -p "$DEST/lib" "$DEST/include"
cp "$work/package/blst/libblst.a" "$DEST/lib/"
cp "$work/package/blst/bindings/blst.h" "$work/package/blst/bindings/blst_aux.h" "$DEST/include/"
cp "$work/package/blst/LICENSE" "$DEST/"
echo "$STAMP" > "$DEST/.stamp"
echo "deps: blst ready in $DEST"
