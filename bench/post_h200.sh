#!/usr/bin/env bash
# The PoSt measurements of bench/RESULTS.md ("Filecoin PoSt on the H200") on
# one GPU machine, from a bundle made by scripts/bundle.sh:
#   winning  WinningPoSt 32 GiB through cuzk-daemon, parameters resident
#            (preloaded), idle: request to proof bytes with cuzk-bench single
#   load     WinningPoSt 32 GiB in process while the engine proves a
#            10-partition 2^27 synthetic job (cuzk-bench post --load-log 27)
#   window   a 32 GiB WindowPoSt partition (2,349 sectors) by phase
#            (cuzk-bench post --registered-proof 13)
#   params   the load rate of a multi-GiB .params file made by our setup,
#            page cache dropped, through the daemon's preload
#   window-daemon  a 32 GiB WindowPoSt partition through the daemon: test
#            parameters on disk (52 GB), their constraint system in memory
#            (POST_PCE_DIR, default /dev/shm/cuzk-post-pce: with it on the
#            same 64 GB disk the setup ran out of space), preloaded, 2,349
#            generated sectors sent as one request, the proof verified offline
# Usage: bench/post_h200.sh BUNDLE_DIR OUT_DIR [PARTS...]   (default: all)
set -uo pipefail
BD=$1
O=$2
shift 2
parts=${*:-winning load window params window-daemon}
export LD_LIBRARY_PATH="$BD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
B="$BD/bin"
W=${POST_WORK:-/tmp/cuzk-post-bench}
rm -rf "$W" && mkdir -p "$W/params" "$O"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >"$O/gpu.txt" 2>&1
nproc >>"$O/gpu.txt"
R=$(printf '5a%.0s' $(seq 31))05 # 32 bytes, a canonical field element
. "$(dirname "$0")/lib.sh"
STEP_TAIL=3
drop_cache() { # FILE: out of the page cache, so a load reads the disk
    python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"
}
daemon_start() { # LOG args...: a daemon on $W/d.sock; its pid in $DPID
    local log=$1
    shift
    "$B/cuzk-daemon" --listen "unix://$W/d.sock" --log-file "$log" --budget 100GiB "$@" \
        2>>"$log" &
    DPID=$!
    "$B/cuzk-bench" wait-ready --addr "unix://$W/d.sock" --timeout 600
}
daemon_stop() {
    kill -TERM "$DPID" 2>/dev/null
    wait "$DPID" 2>/dev/null
}
winning_daemon() {
    "$B/cuzk" setup --circuit post-winning-32g --out "$W/params" --backend cuda || return 1
    "$B/cuzk" gen post --proof-type winning --sector-size 32GiB --randomness "$R" \
        --out "$W/n" || return 1
    daemon_start "$O/winning-daemon.log" --param-cache "$W/params" --backend cuda \
        --preload post-winning-32g || return 1
    for i in $(seq 12); do
        local t0 t1
        t0=$(date +%s.%N)
        "$B/cuzk-bench" single --addr "unix://$W/d.sock" --kind winning-post \
            --registered-proof 3 --randomness "$R" --vanilla-dir "$W/n" --priority critical \
            --out "$W/n.proof" || {
            daemon_stop
            return 1
        }
        t1=$(date +%s.%N)
        awk -v i="$i" -v a="$t0" -v b="$t1" \
            'BEGIN { printf "winning-daemon i=%d request_to_proof_s=%.3f\n", i, b - a }'
    done
    daemon_stop
}
params_rate() {
    "$B/cuzk" setup --constraints 16777216 --public-inputs 4 --out "$W/params/big" \
        --backend cuda || return 1
    ls -l "$W/params/big.params"
    drop_cache "$W/params/big.params"
    daemon_start "$O/params-daemon.log" --param-cache "$W/params" --backend cuda \
        --preload big || return 1
    grep -E "srs (loading|parsing|parsed|ready) circuit=big" "$O/params-daemon.log" | tail -4
    daemon_stop
    drop_cache "$W/params/big.params"
    daemon_start "$O/params-daemon-devonly.log" --param-cache "$W/params" --backend cuda \
        --set srs.device_only=true --preload big || return 1
    grep -E "srs ready circuit=big" "$O/params-daemon-devonly.log" | tail -1
    daemon_stop
}
window_daemon() {
    local pd=${POST_PCE_DIR:-/dev/shm/cuzk-post-pce}
    rm -rf "$pd" && mkdir -p "$pd" || return 1
    "$B/cuzk" setup --circuit post-window-32g --out "$W/params" --pce-dir "$pd" \
        --backend cuda || return 1
    df -h "$W" "$pd"
    "$B/cuzk" gen post --proof-type window --sector-size 32GiB --sectors 2349 \
        --registered-proof 13 --randomness "$R" --out "$W/w" >/dev/null || return 1
    daemon_start "$O/window-daemon.log" --param-cache "$W/params" --backend cuda \
        --set srs.pce_dir="$pd" --preload post-window-32g --budget 110GiB || return 1
    for i in 1 2; do
        local t0 t1
        t0=$(date +%s.%N)
        "$B/cuzk-bench" single --addr "unix://$W/d.sock" --kind window-post \
            --registered-proof 13 --randomness "$R" --vanilla-dir "$W/w" --priority high \
            --out "$W/w.proof" --public-out "$W/w.public" || {
            daemon_stop
            return 1
        }
        t1=$(date +%s.%N)
        awk -v i="$i" -v a="$t0" -v b="$t1" \
            'BEGIN { printf "window-daemon i=%d request_to_proof_s=%.3f\n", i, b - a }'
    done
    daemon_stop
    rm -rf "$pd"
    "$B/cuzk" verify --vk "$W/params/$(cd "$W/params" && ls *0377ded6*.vk)" \
        --public "$W/w.public" --proof "$W/w.proof"
}
for p in $parts; do
    case $p in
    winning) step winning winning_daemon ;;
    load)
        step load "$B/cuzk-bench" post --registered-proof 3 --backend cuda --reps 3 \
            --load-log 27 --load-partitions 10 --winning 6
        ;;
    window) step window "$B/cuzk-bench" post --registered-proof 13 --backend cuda --reps 3 ;;
    params) step params params_rate ;;
    window-daemon) step window-daemon window_daemon ;;
    *) echo "unknown part $p" >&2 && rc=2 ;;
    esac
done
exit $rc
