#!/usr/bin/env bash
# PoRep C2 and SnapDeals through cuzk-daemon, as Curio sends them, from a
# bundle (scripts/bundle.sh) or a build's programs:
#   porep  test parameters of the seal proof's circuit (`cuzk setup
#          --circuit`, on disk: 47 GB + a 6.9 GB constraint system at
#          32 GiB), a daemon preloading them, a `cuzk gen porep` C1 in
#          Curio's envelope, JOBS requests at once (`cuzk-bench batch`) with
#          the daemon's RSS and device memory sampled (`cuzk-bench memmon`),
#          then one proof verified offline (`cuzk porep inputs` + `cuzk
#          verify`)
#   snap   the same for SnapDeals (`cuzk gen snap`, the request's
#          commitments from its request.json)
#   mixed  both circuits resident in one daemon, JOBS PoRep and JOBS SnapDeals
#          requests at once (two batches side by side). Both parameter sets do
#          not fit a 64 GB disk: with SET="srs.device_only=true" one PoRep
#          request first (its preparation moves the parameters to the GPU and
#          releases the host copy), then the PoRep .params file is deleted
#          before the SnapDeals parameters are made and preloaded (PreloadSRS)
# Usage: bench/daemon_filecoin.sh BIN_DIR OUT_DIR [PARTS...]   (default: porep snap)
# Environment: SIZE (32GiB; 2KiB for a dry run), BACKEND (cuda; cpu),
# JOBS (4), BUDGET (100GiB), WORK (/tmp/cuzk-daemon-bench), SET (daemon settings,
# space-separated KEY=VALUE, e.g. srs.device_only=true).
set -uo pipefail
BD=$1
O=$2
shift 2
parts=${*:-porep snap}
[ -d "$BD/lib" ] && export LD_LIBRARY_PATH="$BD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
B=$BD
[ -d "$BD/bin" ] && B="$BD/bin"
SIZE=${SIZE:-32GiB} BACKEND=${BACKEND:-cuda} JOBS=${JOBS:-4} BUDGET=${BUDGET:-100GiB}
W=${WORK:-/tmp/cuzk-daemon-bench}
rm -rf "$W" && mkdir -p "$W/params" "$O"
case $SIZE in
2KiB) SEAL=5 UPD=0 ;; 8MiB) SEAL=6 UPD=1 ;; 512MiB) SEAL=7 UPD=2 ;; 32GiB) SEAL=8 UPD=3 ;;
64GiB) SEAL=9 UPD=4 ;; *) echo "SIZE $SIZE: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB" >&2 && exit 2 ;;
esac
circuit() { "$B/cuzk" filecoin list | awk -v f="$1" -v n="$2" '$1 == f && $2 == n {print $10}'; }
. "$(dirname "$0")/lib.sh"
STEP_SHOW="^(batch|memmon|proof is valid|jobs|mixed)|completed=|peak_"
# The daemon on $W/d.sock with circuit ID preloaded (parameters made first);
# its pid in $dpid, log in $O/NAME-daemon.log.
start_daemon() { # NAME ID
    local name=$1 id=$2 sets=() kv
    for kv in ${SET:-}; do sets+=(--set "$kv"); done
    "$B/cuzk" setup --circuit "$id" --out "$W/params" --backend "$BACKEND" || return 1
    du -sh "$W/params"
    "$B/cuzk-daemon" --listen "unix://$W/d.sock" --log-file "$O/$name-daemon.log" \
        --param-cache "$W/params" --backend "$BACKEND" --preload "$id" --budget "$BUDGET" \
        "${sets[@]}" 2>>"$O/$name-daemon.log" &
    dpid=$!
    local t
    for ((t = 0; t < 900; t += 5)); do # until ready, or the daemon has stopped
        kill -0 $dpid 2>/dev/null || break
        "$B/cuzk-bench" wait-ready --addr "unix://$W/d.sock" --timeout 5 >/dev/null 2>&1 &&
            return 0
    done
    echo "daemon not ready: $(tail -n 1 "$O/$name-daemon.log")"
    kill -TERM $dpid 2>/dev/null
    wait $dpid
    return 1
}
memmon_start() { # NAME: samples the daemon into $O/NAME-mem.csv; pid in $mpid
    "$B/cuzk-bench" memmon --addr "unix://$W/d.sock" --pid $dpid --interval-ms 200 \
        --duration 3600 --out "$O/$1-mem.csv" >"$W/memmon.txt" 2>&1 &
    mpid=$!
}
stop_daemon() {
    kill -TERM $dpid
    wait $dpid
    [ -n "${mpid:-}" ] || return 0
    wait $mpid 2>/dev/null # memmon ends with the daemon and prints its peaks
    cat "$W/memmon.txt"
    mpid=
}
single() { # NAME SPEC...: one request alone, its proof verified offline
    local name=$1 vk
    shift
    "$B/cuzk-bench" single --addr "unix://$W/d.sock" "$@" --out "$W/$name.proof" \
        --public-out "$W/$name.public" || return 1
    if [ "$name" = snap ]; then vk=$(ls "$W"/params/*empty-sector-update*.vk | head -1); else
        vk=$(ls "$W"/params/*.vk | grep -v empty-sector-update | head -1); fi
    "$B/cuzk" verify --vk "$vk" --public "$W/$name.public" --proof "$W/$name.proof"
}
# The requests as Curio sends them: porep_spec / snap_spec (cuzk-bench JOB-SPECs).
prep_porep() {
    "$B/cuzk" gen porep --sector-size "$SIZE" --registered-proof "$SEAL" --miner-id 1000 \
        --sector-number 1 --out "$W/c1.json" || return 1
    python3 -c 'import base64, json, sys
c1 = open(sys.argv[1], "rb").read()
open(sys.argv[2], "w").write(json.dumps({"SectorNum": 1,
    "Phase1Out": base64.b64encode(c1).decode(), "SectorSize": int(sys.argv[3])},
    separators=(",", ":")))' "$W/c1.json" "$W/env.json" "$("$B/cuzk" filecoin list --json |
        python3 -c "import json,sys; print([e['sector_size'] for e in json.load(sys.stdin) if e['family']=='seal' and e['number']==$SEAL][0])")" ||
        return 1
    porep_spec=(--kind porep --registered-proof "$SEAL" --vanilla "$W/env.json" --sector-number 1
        --miner-id 1000)
}
prep_snap() {
    "$B/cuzk" gen snap --sector-size "$SIZE" --out "$W/u" >"$W/u.txt" || return 1
    local k
    snap_spec=(--kind snap --registered-proof "$UPD")
    for ((k = 0; ; k++)); do
        [ -e "$W/u/partition-$k.vproof" ] || break
        snap_spec+=(--vanilla "$W/u/partition-$k.vproof")
    done
    key() { sed -n "s/^$1=//p" "$W/u.txt"; }
    snap_spec+=(--comm-r-old "$(key comm_r_old)" --comm-d-new "$(key comm_d_new)"
        --comm-r-new "$(key comm_r_new)")
}
one_kind() { # NAME CIRCUIT SPEC...: JOBS requests at once, then one alone
    local name=$1 id=$2 r=0
    shift 2
    start_daemon "$name" "$id" || return 1
    memmon_start "$name"
    "$B/cuzk-bench" batch --addr "unix://$W/d.sock" -n "$JOBS" -j "$JOBS" "$@" || r=1
    single "$name" "$@" || r=1
    stop_daemon
    return $r
}
porep() {
    prep_porep && one_kind porep "$(circuit seal "$SEAL")" "${porep_spec[@]}"
}
snap() {
    prep_snap && one_kind snap "$(circuit update "$UPD")" "${snap_spec[@]}"
}
mixed() {
    prep_porep && prep_snap || return 1
    local pid=$(circuit seal "$SEAL") uid=$(circuit update "$UPD") r=0
    start_daemon mixed "$pid" || return 1
    case " ${SET:-} " in
    *" srs.device_only=true "*) # a first job moves the PoRep parameters to the GPU
        single porep "${porep_spec[@]}" || r=1
        rm -f "$W"/params/*.params && echo "removed the PoRep .params to make room" ;;
    esac
    "$B/cuzk" setup --circuit "$uid" --out "$W/params" --backend "$BACKEND" &&
        "$B/cuzk-bench" preload "$uid" --addr "unix://$W/d.sock" || r=1
    if [ $r = 0 ]; then
        memmon_start mixed
        local t0=$SECONDS
        "$B/cuzk-bench" batch --addr "unix://$W/d.sock" -n "$JOBS" -j "$JOBS" \
            "${porep_spec[@]}" >"$W/porep-batch.txt" 2>&1 &
        local bp=$!
        "$B/cuzk-bench" batch --addr "unix://$W/d.sock" -n "$JOBS" -j "$JOBS" \
            "${snap_spec[@]}" >"$W/snap-batch.txt" 2>&1 || r=1
        wait $bp || r=1
        echo "mixed jobs=$JOBS+$JOBS wall_s=$((SECONDS - t0))"
        local k
        for k in porep snap; do grep "^batch jobs" "$W/$k-batch.txt" | sed "s/^/mixed $k /"; done
        single snap "${snap_spec[@]}" || r=1
    fi
    stop_daemon
    return $r
}
for p in $parts; do
    case $p in
    porep | snap | mixed) step "$p" "$p" ;;
    *) echo "unknown part $p" >&2 && rc=2 ;;
    esac
    rm -rf "$W/params" && mkdir -p "$W/params" # one circuit's parameters at a time
done
rm -rf "$W"
exit $rc
