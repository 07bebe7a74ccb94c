#!/usr/bin/env bash
# The GPU measurements of bench/RESULTS.md in one go, for one device machine
# session: device tests first (correctness before speed), then MSM, NTT and
# H benchmarks, then a synthetic PoRep-shaped partition end to end.
# Usage: bench/gpu_suite.sh BIN_DIR OUT_DIR [PARTS...]
#   BIN_DIR holds cuzk-bench and the device tests (test_gpu_*); OUT_DIR gets
#   one log per part. PARTS: any of tests msm g2 ntt h partition profile
#   (default: all but profile); PARTITION_LOG (default 27) and PARTITION_BATCH
#   (default 2) size the partition runs; profile is the partition with
#   CUZK_GPU_MSM_PROFILE=1 (each MSM's phases on stderr, in its log).
set -uo pipefail
B=$1
O=$2
shift 2
parts=${*:-tests msm g2 ntt h partition}
mkdir -p "$O"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader \
    >"$O/gpu.txt" 2>&1
. "$(dirname "$0")/lib.sh"
for p in $parts; do
    case $p in
    tests)
        for t in "$B"/test_gpu_*; do step "$(basename "$t")" "$t"; done
        ;;
    msm) step msm "$B/cuzk-bench" gpu-msm --log-lo 16 --log-hi 27 --reps 3 --cross-check ;;
    g2) step g2 "$B/cuzk-bench" gpu-msm --g2 --log-lo 14 --log-hi 25 --reps 3 --cross-check ;;
    ntt) for k in 20 22 24 26 27; do step ntt "$B/cuzk-bench" gpu-ntt --log $k --reps 5; done ;;
    h) for k in 24 27; do step h "$B/cuzk-bench" gpu-h --log $k --reps 3; done ;;
    partition)
        step partition "$B/cuzk-bench" partition --log "${PARTITION_LOG:-27}" --backend cuda \
            --reps 1 --batch "${PARTITION_BATCH:-2}"
        ;;
    profile) # where each MSM's device time goes (phases of every window chunk)
        step profile env CUZK_GPU_MSM_PROFILE=1 "$B/cuzk-bench" partition \
            --log "${PARTITION_LOG:-27}" --backend cuda --reps 1 --batch 0
        ;;
    *) echo "unknown part $p" >&2 && rc=2 ;;
    esac
done
exit $rc
