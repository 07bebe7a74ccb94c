#!/usr/bin/env bash
# The daemon demo: start cuzk-daemon on a private socket with a parameter
# cache in the build folder (the synthetic circuit's parameters are generated
# there on the first run and reused after), wait until it is ready, prove a
# batch through cuzk-bench, print the summary and the daemon's status, and
# stop the daemon (by its pid) with SIGTERM. Progress goes in whole lines
# (CUZK_PROGRESS=lines); the last line sums up the proofs made and verified
# (the daemon verifies each one: verify_proofs defaults to true) and how fast.
# Usage: scripts/demo_daemon.sh BUILD_DIR [JOBS] [CONSTRAINTS]
set -eu
B=${1:-build}
N=${2:-8}
C=${3:-16384}
CACHE="$B/demo-params"
export CUZK_PROGRESS=lines
RUN=$(mktemp -d /tmp/cuzk-demo.XXXXXX)
ADDR="unix://$RUN/cuzk.sock"
mkdir -p "$CACHE"
[ -x "$B/cuzk-daemon" ] || { echo "demo: $B/cuzk-daemon not built (missing packages? run scripts/deps.sh)" >&2; exit 2; }

"$B/cuzk-daemon" --listen "$ADDR" --param-cache "$CACHE" --set synthetic.enabled=true \
    --set synthetic.param_dir="$CACHE" --log-file "$RUN/cuzk.log" &
D=$!
trap 'kill -TERM $D 2>/dev/null; wait $D 2>/dev/null; rm -rf "$RUN"' EXIT
echo "demo: cuzk-daemon pid $D on $ADDR, log $RUN/cuzk.log"
"$B/cuzk-bench" wait-ready --addr "$ADDR" --timeout 60
echo "demo: proving $N synthetic jobs of $C constraints (the first generates the parameters)"
"$B/cuzk-bench" single --addr "$ADDR" --kind synthetic --constraints "$C" --public-inputs 4 |
    tee "$RUN/single.out"
"$B/cuzk-bench" batch --addr "$ADDR" --kind synthetic --constraints "$C" --public-inputs 4 \
    -n "$N" -j 2 | tee "$RUN/batch.out"
"$B/cuzk-bench" status --addr "$ADDR"
echo "demo: the last lines of the daemon's log"
tail -n 8 "$RUN/cuzk.log"
# The summary: the single job and the batch; the batch's rate is the steady one.
single=$(grep -c "status=COMPLETED" "$RUN/single.out" || true)
awk -v single="$single" -v c="$C" '/^batch / {
    for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    n = single + v["completed"]
    per = v["proofs_per_s"] + 0 > 0 ? 1 / v["proofs_per_s"] : 0
    printf "demo: %d proofs of %d constraints made and verified (1 single job, then %d of %d in a batch: %.2f proofs/s, %.3f s/proof)\n",
        n, c, v["completed"], v["jobs"], v["proofs_per_s"], per
}' "$RUN/batch.out"
