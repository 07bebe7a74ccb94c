#!/usr/bin/env bash
# Daemon overhead, for bench/RESULTS.md:
#   1. start -> ready with no preload (median of 3), and the idle RSS;
#   2. per-proof overhead of the daemon path on a small synthetic circuit:
#      client wall time per proof (one client, one job at a time) minus the
#      daemon's own synthesis + prove time, and the offline CLI's time for
#      the same proof;
#   3. with PARAMS_DIR and CIRCUIT given: start -> ready with that circuit
#      preloaded, its size and the load rate (from the daemon's log).
# Usage: bench/daemon.sh BUILD_DIR [PARAMS_DIR CIRCUIT_ID]
set -eu
B=$1
PDIR=${2:-}
CID=${3:-}
T=$(mktemp -d /tmp/cuzk-bench.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
mkdir -p "$T/params"
ADDR="unix://$T/d.sock"

start() { # args...: starts a daemon, waits for ready, prints "ready after X s"
    "$B/cuzk-daemon" --listen "$ADDR" --log-file "$T/d.log" "$@" 2>/dev/null &
    D=$!
    pids+=("$D")
    "$B/cuzk-bench" wait-ready --addr "$ADDR" --timeout 600
}
stop() {
    kill -TERM "$D"
    wait "$D" || true
}

echo "== start -> ready, no preload"
for i in 1 2 3; do
    start --param-cache "$T/params"
    grep -o 'ready startup_ms.*' "$T/d.log" | tail -1
    [ "$i" = 3 ] || stop
done
echo "idle $("$B/cuzk-bench" status --addr "$ADDR" | grep -o 'rss_bytes=[0-9]*')"
stop

echo "== per-proof overhead: synthetic 2^10, verify_proofs off, 1 client, 1 job at a time"
start --param-cache "$T/params" --no-verify --set synthetic.enabled=true \
    --set synthetic.param_dir="$T/params" >/dev/null
SPEC=(--kind synthetic --constraints 1024 --public-inputs 2 --seed 1)
"$B/cuzk-bench" batch --addr "$ADDR" "${SPEC[@]}" -n 5 -j 1 >/dev/null # generate + warm up
"$B/cuzk-bench" batch --addr "$ADDR" "${SPEC[@]}" -n 200 -j 1 --json | tee "$T/batch.json"
/usr/bin/python3 - "$T/batch.json" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))
per = 1000 * b["wall_s"] / b["jobs"]
inner = b["mean_synthesis_ms"] + b["mean_prove_ms"] + b["mean_queue_ms"] + b["mean_srs_load_ms"]
print("per_proof_ms=%.2f daemon_work_ms=%.2f overhead_ms=%.2f" % (per, inner, per - inner))
EOF
stop
P="$T/params/synthetic-n1024-p2-s1"
"$B/cuzk" prove --params "$P.params" --pce "$P.pce" --synthetic-seed 1 --out "$T/p.proof" |
    grep -o 'load_pce_s=[0-9.]* load_params_s=[0-9.]*\|total_s=[0-9.]*' | tr '\n' ' '
echo "(offline CLI, one proof)"
/usr/bin/time -f "offline CLI wall_s=%e (process start, loads, synthesis, prove)" \
    "$B/cuzk" prove --params "$P.params" --pce "$P.pce" --synthetic-seed 1 --out "$T/p.proof" \
    >/dev/null

if [ -n "$PDIR" ]; then
    for cache in warm cold; do
        if [ $cache = cold ]; then # drop this file's pages (only its) from the page cache
            /usr/bin/python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$PDIR/$CID.params"
        fi
        echo "== start -> ready with $CID preloaded ($(du -h "$PDIR/$CID.params" | cut -f1)" \
            ".params, $cache page cache)"
        start --param-cache "$PDIR" --preload "$CID"
        grep -o 'srs \(parsing\|parsed\|ready\).*\|ready startup_ms.*' "$T/d.log" | tail -4
        "$B/cuzk-bench" status --addr "$ADDR" | grep -o 'rss_bytes=[0-9]*'
        stop
    done
fi
