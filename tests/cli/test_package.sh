#!/usr/bin/env bash
# The Debian package: built with CPack from a build folder, inspected with
# dpkg-deb (control fields, conffiles, maintainer scripts, file list), then
# unpacked into a scratch root (dpkg-deb -x) and run from there: the
# programs start, and `cuzk-daemon --check-config` on the packaged
# /etc/cuzk/cuzk.toml checks as it would on an installed system.
# Usage: test_package.sh BUILD_DIR WORK_DIR
set -u
BD=$1 T=$2
rm -rf "$T" && mkdir -p "$T/out" "$T/root" "$T/params"
. "$(dirname "$0")/../lib/expect.sh"

(cd "$BD" && cpack -G DEB -B "$T/out" >"$T/cpack.log" 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then ok; else bad "cpack: exit $rc: $(tail -5 "$T/cpack.log")"; fi
DEB=$(ls "$T"/out/cuzk_*_*.deb 2>/dev/null | head -1)
if [ -n "$DEB" ]; then ok; else bad "no cuzk_*.deb in $T/out"; fi

dpkg-deb -f "$DEB" Package Version Architecture Depends >"$T/control" 2>&1
field() { sed -n "s/^$1: //p" "$T/control"; }
if [ "$(field Package)" = cuzk ]; then ok; else bad "Package: $(field Package)"; fi
if [ "$(field Architecture)" = "$(dpkg --print-architecture)" ]; then ok; else
    bad "Architecture: $(field Architecture)"; fi
# The shared libraries the binaries need, found by dpkg-shlibdeps.
for dep in libgrpc libprotobuf-c libmicrohttpd libjansson libssl3 libc6; do
    if field Depends | grep -q "$dep"; then ok; else bad "Depends lacks $dep: $(field Depends)"; fi
done
dpkg-deb --ctrl-tarfile "$DEB" | tar -x -C "$T/out" ./conffiles ./postinst ./prerm ./postrm
if grep -qx "/etc/cuzk/cuzk.toml" "$T/out/conffiles"; then ok; else bad "conffiles"; fi
for s in postinst prerm postrm; do
    if [ -x "$T/out/$s" ] && sh -n "$T/out/$s"; then ok; else bad "$s: missing or not sh"; fi
done
if grep -q "adduser --system --group" "$T/out/postinst"; then ok; else bad "postinst: no cuzk user"; fi

dpkg-deb -x "$DEB" "$T/root"
R=$T/root
for f in usr/bin/cuzk usr/bin/cuzk-daemon usr/bin/cuzk-bench lib/systemd/system/cuzk.service \
    etc/cuzk/cuzk.toml usr/share/doc/cuzk/README.md; do
    if [ -e "$R/$f" ]; then ok; else bad "$f not in the package"; fi
done
U=$R/lib/systemd/system/cuzk.service
for line in "ExecStart=/usr/bin/cuzk-daemon --config /etc/cuzk/cuzk.toml" "User=cuzk" \
    "Type=notify" "ExecReload=/bin/kill -HUP \$MAINPID"; do
    if grep -qxF "$line" "$U"; then ok; else bad "unit lacks \"$line\""; fi
done
if cmp -s "$R/etc/cuzk/cuzk.toml" "$(dirname "$0")/../../cuzk.example.toml"; then ok; else
    bad "/etc/cuzk/cuzk.toml is not cuzk.example.toml"; fi

# The unpacked programs run.
expect 0 "usage" -- "$R/usr/bin/cuzk" --help
expect 0 "usage" -- "$R/usr/bin/cuzk-bench" --help
expect 0 "--check-config" -- "$R/usr/bin/cuzk-daemon" --help
# --check-config on the packaged configuration: where this machine lacks
# what it names, one line each and exit 2 ...
expect 2 "srs.param_cache: parameter folder $T/nope" -- "$R/usr/bin/cuzk-daemon" \
    --config "$R/etc/cuzk/cuzk.toml" --check-config --set srs.param_cache="$T/nope"
# ... and "config ok" once they exist (the socket moved to a folder we own).
expect 0 "config ok" -- "$R/usr/bin/cuzk-daemon" --config "$R/etc/cuzk/cuzk.toml" \
    --check-config --listen "unix://$T/cuzk.sock" --set srs.param_cache="$T/params"

echo "test_package: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && rm -rf "$T"
[ "$fail" -eq 0 ]
