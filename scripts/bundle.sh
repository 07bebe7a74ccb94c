#!/usr/bin/env bash
# Collects cuzk's programs and the shared libraries they load into one
# folder, for a machine that has no build packages (a GPU host that runs the
# daemon or the benchmarks): DIR/bin/{cuzk,cuzk-bench,cuzk-daemon} and
# DIR/lib/*.so*, every library `ldd` names except the C library and its
# loader (those come with the system). Run there with
#   LD_LIBRARY_PATH=DIR/lib DIR/bin/cuzk-daemon ...
# Usage: scripts/bundle.sh BUILD_DIR OUT_DIR
set -euo pipefail
B=$1
O=$2
rm -rf "$O"
mkdir -p "$O/bin" "$O/lib"
for p in cuzk cuzk-bench cuzk-daemon; do
    [ -x "$B/$p" ] || continue
    cp "$B/$p" "$O/bin/"
    ldd "$B/$p" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
        case "$(basename "$lib")" in
        libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
        *) cp -L -n "$lib" "$O/lib/" ;;
        esac
    done
done
# Debug information is for the build machine; the bundle travels.
strip --strip-debug "$O"/bin/* "$O"/lib/* 2>/dev/null || true
du -sh "$O" | awk '{print "bundle: " $1 " in '"$O"'"}'
