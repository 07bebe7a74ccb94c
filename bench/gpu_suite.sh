#!/usr/bin/env bash
# The GPU measurements of bench/RESULTS.md in one go, for one device machine
# session: device tests first (correctness before speed), then MSM, NTT and
# H benchmarks, then a synthetic PoRep-shaped partition end to end.
# Usage: bench/gpu_suite.sh BIN_DIR OUT_DIR [PARTS...]
#   BIN_DIR holds cuzk-bench and the device tests (test_gpu_*); OUT_DIR gets
#   one log per part. PARTS: any of tests msm g2 ntt h partition profile
#   engine engine-cover engine-device-only keep-blocks (default: tests msm g2 ntt h
#   partition); PARTITION_LOG (default 27) and PARTITION_BATCH
#   (default 2) size the partition runs; profile is the partition with
#   CUZK_GPU_MSM_PROFILE=1 (each MSM's phases on stderr, in its log).
#   engine, engine-cover, engine-nocover and engine-device-only: ENGINE_JOBS
#   (3) jobs of 10 partitions at once through the engine with lookahead;
#   engine-cover with CUZK_GPU_SHED_COVER=1 (the default), engine-nocover
#   with 0, engine-device-only with --device-only (--budget
#   ENGINE_BUDGET, default 60GiB); logged at ENGINE_LOG_LEVEL
#   (info); after each, how often base sets went up, went up ahead of their
#   MSM, gave way and were not sent ahead (those two logged at debug only),
#   and what srs.device_only did. BACKEND (cuda) runs the
#   same on another backend (cpu, for a dry run with a small
#   PARTITION_LOG).
#   keep-blocks: the engine (ENGINE_JOBS jobs, --device-only) and a 32 GiB
#   WindowPoSt partition (cuzk-bench post --registered-proof POST_PROOF, 13
#   unless set; 10 is its 2 KiB form, for a dry run; 2 requests,
#   MSM phases profiled) each with CUZK_GPU_KEEP_BLOCKS=1 and =0, back to
#   back, for the default of kept device blocks (needs ~116 GiB of device
#   memory: an H200); keep-blocks-engine and keep-blocks-post run one half.
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
    engine | engine-cover | engine-nocover | engine-device-only)
        extra=()
        [ "$p" = engine-device-only ] && extra=(--device-only --budget "${ENGINE_BUDGET:-60GiB}")
        cover=1
        [ "$p" = engine-nocover ] && cover=0
        step "$p" env CUZK_GPU_SHED_COVER=$cover "$B/cuzk-bench" engine --log-level "${ENGINE_LOG_LEVEL:-info}" \
            --log "${PARTITION_LOG:-27}" --partitions 10 --jobs "${ENGINE_JOBS:-3}" \
            --backend "${BACKEND:-cuda}" --lookahead "${extra[@]}"
        for ev in bases_uploaded bases_uploaded_ahead bases_given_back bases_ahead_skipped \
            srs_device_only_off srs_on_device srs_host_released; do
            echo "$p: event=$ev $(grep -c "event=$ev " "$O/$p.log")"
        done
        ;;
    keep-blocks | keep-blocks-engine | keep-blocks-post)
        [ "$p" = keep-blocks-post ] || for kb in 1 0; do
            step "keep-blocks-engine-$kb" env CUZK_GPU_KEEP_BLOCKS=$kb "$B/cuzk-bench" engine \
                --log "${PARTITION_LOG:-27}" --partitions 10 --jobs "${ENGINE_JOBS:-3}" \
                --backend "${BACKEND:-cuda}" --device-only --budget "${ENGINE_BUDGET:-60GiB}" --lookahead
        done
        [ "$p" = keep-blocks-engine ] || for kb in 0 1; do
            step "keep-blocks-post-$kb" env CUZK_GPU_KEEP_BLOCKS=$kb CUZK_GPU_MSM_PROFILE=1 \
                "$B/cuzk-bench" post --registered-proof "${POST_PROOF:-13}" --backend "${BACKEND:-cuda}" --reps 2
        done
        ;;
    *) echo "unknown part $p" >&2 && rc=2 ;;
    esac
done
exit $rc
