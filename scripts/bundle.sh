#!/usr/bin/env bash
# Collects cuzk's programs and the shared libraries they load into one
# folder, for a machine that has no build packages (a GPU host that runs the
# daemon or the benchmarks): DIR/bin/{cuzk,cuzk-bench,cuzk-daemon} and
# DIR/lib/*.so*, every library `ldd` names except the C library and its
# loader (those come with the system), and the device tests (test_gpu_*)
# where the build has them. Run there with
#   LD_LIBRARY_PATH=DIR/lib DIR/bin/cuzk-daemon ...
# With ARCHIVE (a .tar.xz path) the folder is also packed into one file,
# relative to DIR, at xz's highest level: the programs share most of their
# code (the CUDA kernels), and its large window finds that, so four programs
# pack into about a third of what -6 gives (23 against 65 MB for sm_90).
# Usage: scripts/bundle.sh BUILD_DIR OUT_DIR [ARCHIVE.tar.xz]
set -euo pipefail
B=$1
O=$2
A=${3:-}
case $A in
'' | *.tar.xz) ;;
*) echo "bundle: the archive's name ends in .tar.xz: $A" >&2 && exit 2 ;;
esac
rm -rf "$O"
mkdir -p "$O/bin" "$O/lib"
for f in "$B/cuzk" "$B/cuzk-bench" "$B/cuzk-daemon" "$B"/test_gpu_*; do
    [ -x "$f" ] || continue # not built (or no device test: the pattern itself)
    cp "$f" "$O/bin/"
    ldd "$f" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
        case "$(basename "$lib")" in
        libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
        *) cp -L -n "$lib" "$O/lib/" ;;
        esac
    done
done
# Debug information is for the build machine; the bundle travels.
strip --strip-debug "$O"/bin/* "$O"/lib/* 2>/dev/null || true
du -sh "$O" | awk '{print "bundle: " $1 " in '"$O"'"}'
if [ -n "$A" ]; then
    mkdir -p "$(dirname "$A")"
    tar -C "$O" -cf - . | xz -9 -T1 >"$A"
    du -sh "$A" | awk '{print "bundle: " $1 " packed in " $2}'
fi
