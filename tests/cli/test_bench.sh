#!/usr/bin/env bash
# cuzk-bench's partition benchmark on the CPU backend at a small size: every
# proof it makes is verified (it exits non-zero otherwise), and bad options
# give a clear error.
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

echo "test_bench: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
