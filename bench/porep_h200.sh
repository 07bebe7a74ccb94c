#!/usr/bin/env bash
# The PoRep measurements of bench/RESULTS.md ("Filecoin PoRep C2 on the
# H200") on one GPU machine, from a bundle made by scripts/bundle.sh:
#   gen      cuzk gen porep --sector-size 32GiB (the sparse C1, checked)
#   witness  the witness of all 10 partitions of that C1 on the host's
#            cores (cuzk-bench porep --witness-only)
#   c2       a 32 GiB PoRep C2 in memory: the circuit, its parameters by a
#            setup on the GPU, one request by phase, then JOBS requests
#            sustained through the engine (cuzk-bench porep --jobs JOBS)
#   synth    the CPU's share of a 32 GiB PoRep partition: witness and SpMV
#            (cuzk-bench porep --synthesis-only)
#   snap     a 32 GiB SnapDeals proof the same way (cuzk-bench snap
#            --update-proof 3 --jobs JOBS)
#   seal512  a 512 MiB sector sealed on the host's cores from random data
#            (cuzk seal --registered-proof 7), then its C1 (cuzk seal c1)
# Usage: bench/porep_h200.sh BUNDLE_DIR OUT_DIR [PARTS...]   (default: all)
# Environment: JOBS (4), PARTITIONS (10: of the by-phase request).
set -uo pipefail
BD=$1
O=$2
shift 2
parts=${*:-gen witness c2 synth snap seal512}
export LD_LIBRARY_PATH="$BD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
B="$BD/bin"
W=${POREP_WORK:-/tmp/cuzk-porep-bench}
rm -rf "$W" && mkdir -p "$W" "$O"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >"$O/gpu.txt" 2>&1
nproc >>"$O/gpu.txt"
. "$(dirname "$0")/lib.sh"
for p in $parts; do
    case $p in
    gen) step gen /usr/bin/time -v "$B/cuzk" gen porep --sector-size 32GiB --out "$W/c1.json" ;;
    witness) step witness "$B/cuzk-bench" porep --registered-proof 8 --witness-only ;;
    c2)
        step c2 "$B/cuzk-bench" porep --registered-proof 8 --backend cuda \
            --partitions "${PARTITIONS:-10}" --jobs "${JOBS:-4}"
        ;;
    synth) step synth "$B/cuzk-bench" porep --registered-proof 8 --synthesis-only --partitions 4 ;;
    snap)
        step snap "$B/cuzk-bench" snap --update-proof 3 --backend cuda --partitions 4 \
            --jobs "${JOBS:-4}"
        ;;
    seal512)
        head -c 532676608 /dev/urandom >"$W/data512" &&
            step seal512 /usr/bin/time -v "$B/cuzk" seal --registered-proof 7 \
                --prover-id "$(printf '%064d' 0)" --sector-number 1 \
                --ticket "$(printf '0c%.0s' {1..32})" "$W/data512" --out "$W/s512" &&
            step seal512-c1 /usr/bin/time -v "$B/cuzk" seal c1 --dir "$W/s512" \
                --seed "$(printf '0d%.0s' {1..32})" --out "$W/c1-512.json"
        rm -rf "$W/data512" "$W/s512"
        ;;
    *)
        echo "unknown part $p"
        rc=2
        ;;
    esac
done
rm -rf "$W"
exit $rc
