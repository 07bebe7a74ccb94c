#!/usr/bin/env bash
# cuzk-bench's partition benchmark on the CPU backend at a small size: every
# proof it makes is verified (it exits non-zero otherwise), and bad options
# give a clear error. synth-witness at 2^10: the witness alone and the built
# circuit's assignment agree (it exits non-zero otherwise). The GPU
# benchmarks' option errors, which come before any GPU is needed. params-load on
# a small file it writes itself. post at 2 KiB (WindowPoSt by phase).
set -u
BENCH=$1
. "$(dirname "$0")/../lib/expect.sh"

out=$("$BENCH" partition --log 10 --reps 1 --batch 3 --backend cpu 2>&1)
rc=$?
if [ $rc -eq 0 ]; then ok; else bad "partition --log 10 -> rc=$rc: $out"; fi
# 1 warm-up + 1 timed + 3 batched proofs, all verified
if grep -q "proofs_verified=5 " <<<"$out"; then ok; else bad "proofs_verified: $out"; fi
if [ "$(grep -c '^batch i=' <<<"$out")" -eq 3 ]; then ok; else bad "3 batch lines: $out"; fi
if grep -q "^setup backend=cpu " <<<"$out"; then ok; else bad "setup line: $out"; fi
# 97 % of 2^10 by default
if grep -q "^synth constraints=993 domain=2^10 " <<<"$out"; then ok; else bad "synth line: $out"; fi

expect 2 "--log 3: expected 5..28" -- "$BENCH" partition --log 3
expect 2 "--reps and --batch: expected 0..64" -- "$BENCH" partition --log 10 --batch 65
expect 2 "unknown backend \"tpu\"" -- "$BENCH" partition --log 10 --backend tpu
expect 2 "expected cuda:N" -- "$BENCH" partition --log 10 --backend cuda:x
expect 2 "unknown benchmark" -- "$BENCH" partitions

out=$("$BENCH" synth-witness --log 10 --public 3 --seed 5 --reps 2 --compare 2>&1)
rc=$?
if [ $rc -eq 0 ]; then ok; else bad "synth-witness --log 10 -> rc=$rc: $out"; fi
# 1 + 3 inputs and one aux per body row: 1024 - 1 - 2 * 3 = 1017
if grep -q "^synth-witness log=10 constraints=1024 public=3 seed=5 variables=1021 reps=2 " \
    <<<"$out"; then ok; else bad "synth-witness line: $out"; fi
if grep -q "^synth-build log=10 constraints=1024 variables=1021 .* same_witness=yes$" \
    <<<"$out"; then ok; else bad "synth-build line: $out"; fi
out=$("$BENCH" synth-witness --log 10 --public 3 2>&1)
if ! grep -q "^synth-build" <<<"$out"; then ok; else bad "build without --compare: $out"; fi

expect 2 "--log 3: expected 4..31" -- "$BENCH" synth-witness --log 3
expect 2 "--public -1: expected 0..4294967295" -- "$BENCH" synth-witness --log 10 --public -1
expect 2 "--reps 0: expected 1..64" -- "$BENCH" synth-witness --log 10 --reps 0
expect 2 "16 constraints out of range for 5 public inputs (need 19..2^31)" -- \
    "$BENCH" synth-witness --log 4 --public 5

# The engine benchmark: 3 jobs of 3 partitions through the pipeline on two
# CPU lanes, every proof verified by the engine (it exits non-zero
# otherwise), all partitions proved, and the summary line.
out=$("$BENCH" engine --log 10 --partitions 3 --jobs 3 --backend cpu --devices 0,1 2>&1)
rc=$?
if [ $rc -eq 0 ]; then ok; else bad "engine --log 10 -> rc=$rc: $out"; fi
if grep -q "^engine log=10 partitions=3 jobs=3 completed=3 devices=2 " <<<"$out"; then ok
else bad "engine summary: $out"; fi
if [ "$(grep -c '^job [0-2] status=1 ' <<<"$out")" -eq 3 ]; then ok; else bad "3 job lines: $out"; fi
parts=$(grep '^device ' <<<"$out" | awk -F'partitions=' '{split($2, a, " "); s += a[1]} END {print s}')
if [ "$parts" = 9 ]; then ok; else bad "9 partitions proved over the devices: $out"; fi
# The steady figure is the mean of 2 intervals between completions, which lie
# between the shortest and the longest; those match the job lines' end_s.
summary=$(grep '^engine ' <<<"$out")
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$summary"; }
ends=$(grep '^job ' <<<"$out" | sed 's/.* end_s=\([^ ]*\).*/\1/' | tr '\n' ' ')
if [ "$(field steady_intervals)" = 2 ] &&
    awk -v lo="$(field steady_interval_min_s)" -v hi="$(field steady_interval_max_s)" \
        -v st="$(field steady_s_per_proof)" -v e="$ends" 'BEGIN {
        split(e, t, " "); a = t[2] - t[1]; b = t[3] - t[2]
        mn = a < b ? a : b; mx = a < b ? b : a
        exit !(lo <= st + 0.011 && st <= hi + 0.011 && lo - mn < 0.02 && mn - lo < 0.02 &&
               mx - hi < 0.02 && hi - mx < 0.02) }' &&
    [ -n "$(field steady_device_s_per_proof)" ]; then ok
else bad "steady intervals: $summary / ends $ends"; fi
expect 2 "--partitions 1..64" -- "$BENCH" engine --log 10 --partitions 0
expect 2 "--budget 12XB: expected auto, bytes" -- "$BENCH" engine --log 10 --budget 12XB
expect 2 "--devices N,M" -- "$BENCH" engine --log 10 --devices 0,x
# --log-level: warn leaves the engine's INFO lines out, info (the default)
# keeps them; a level that is none of the four is refused.
out=$("$BENCH" engine --log 10 --partitions 1 --jobs 1 --backend cpu --log-level warn 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q "^engine log=10 " <<<"$out" && ! grep -q " INFO " <<<"$out"; then ok
else bad "engine --log-level warn -> rc=$rc: $out"; fi
out=$("$BENCH" engine --log 10 --partitions 1 --jobs 1 --backend cpu --log-level info 2>&1)
if grep -q " INFO .*event=partition_proved" <<<"$out"; then ok
else bad "engine --log-level info: $out"; fi
expect 2 "--log-level \"loud\": expected debug, info, warn or error" -- \
    "$BENCH" engine --log 10 --log-level loud

# post: a 2 KiB WindowPoSt partition by phase, its proof verified; the
# request line gives the device time by part and each MSM's time (0 device
# time on the CPU backend, the MSMs' times summing to at most the backend's).
out=$("$BENCH" post --registered-proof 5 --reps 1 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q "^post post-window-2k sectors=2 .* proofs_verified=1 " <<<"$out"; then ok
else bad "post --registered-proof 5 -> rc=$rc: $out"; fi
req=$(grep '^request i=0 ' <<<"$out")
if awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
    END { m = v["msm_h_s"] + v["msm_l_s"] + v["msm_a_s"] + v["msm_b_g1_s"] + v["msm_b_g2_s"]
          exit !(v["device_h_copy_s"] == 0 && v["device_msm_kernel_s"] == 0 && m > 0 &&
                 m <= v["backend_s"] + 0.001 && v["msm_b_g2_s"] > 0) }' <<<"$req"; then ok
else bad "post request line: $req"; fi

# The GPU benchmarks check their options before they look for a GPU, so
# these fail the same way with or without one (and without CUDA support).
expect 2 "gpu-ntt: --log abc: expected 1..28" -- "$BENCH" gpu-ntt --log abc
expect 2 "gpu-ntt: --reps 0: expected 1..64" -- "$BENCH" gpu-ntt --log 10 --reps 0
expect 2 "gpu-h: --log 29: expected 1..28" -- "$BENCH" gpu-h --log 29
expect 2 "gpu-msm: --log-hi 20: expected 22..30" -- "$BENCH" gpu-msm --log-lo 22 --log-hi 20
expect 2 "gpu-msm: --log-lo 9: expected 10..30" -- "$BENCH" gpu-msm --log-lo 9
expect 2 "gpu-msm: --ones 150: expected 0..100" -- "$BENCH" gpu-msm --ones 150
expect 2 "gpu-alloc: --mib 10: expected 64..1048576" -- "$BENCH" gpu-alloc --mib 10
expect 2 "gpu-alloc: --reps 65: expected 1..64" -- "$BENCH" gpu-alloc --reps 65

# params-load: a parameter file written by --make-points (64 points: 63 in
# h, 64 in l, a and b_g1, 16 in b_g2) is parsed back as the SRS manager
# parses one, a line per repetition and the median; its size from the
# format (VK block 3 * 96 + 3 * 192, six u32 counts, 1 + 63 + 3 * 64 G1
# points of 96 bytes, 16 G2 points of 192) is 28536 bytes. A truncated copy
# fails with the parser's message, and bad options are refused.
tmp=$(mktemp -d)
out=$("$BENCH" params-load --file "$tmp/p.params" --make-points 64 --reps 2 --cold 2>&1)
rc=$?
if [ $rc -eq 0 ]; then ok; else bad "params-load --make-points 64 -> rc=$rc: $out"; fi
if [ "$(grep -c "^params-load file=$tmp/p.params bytes=28536 rep=[01] cold=1 load_s=" \
    <<<"$out")" -eq 2 ]; then ok; else bad "params-load rep lines: $out"; fi
if grep -q "^params-load file=$tmp/p.params bytes=28536 reps=2 cold=1 threads=[0-9]* \
median_load_s=[0-9.]* median_rate_gb_s=[0-9.]*" <<<"$out"; then ok
else bad "params-load summary: $out"; fi
if [ "$(stat -c %s "$tmp/p.params")" = 28536 ]; then ok; else bad "params-load file size"; fi
head -c 28000 "$tmp/p.params" >"$tmp/t.params"
expect 2 "b_g2 count 16 needs 3072 bytes at offset 25464 but only 2536 remain" -- \
    "$BENCH" params-load --file "$tmp/t.params"
expect 2 "params-load: --file F is required" -- "$BENCH" params-load --reps 1
expect 2 "--make-points 1: expected 2..1073741824" -- \
    "$BENCH" params-load --file "$tmp/p.params" --make-points 1
expect 2 "--reps 0: expected 1..64" -- "$BENCH" params-load --file "$tmp/p.params" --reps 0
expect 2 "cannot create $tmp/nodir/p.params" -- \
    "$BENCH" params-load --file "$tmp/nodir/p.params" --make-points 64
rm -rf "$tmp"

echo "test_bench: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
