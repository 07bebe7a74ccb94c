#!/usr/bin/env bash
# The demo: a built-in synthetic circuit (2^16 constraints, 4 public inputs,
# Filecoin-like statistics) taken through setup -> prove -> verify with the
# offline CLI, printing each phase's timings (progress of long phases as
# whole lines), and a closing summary line. Files go to a temporary folder.
set -euo pipefail
CUZK=${1:-build/cuzk}
N=${CUZK_DEMO_CONSTRAINTS:-65536}
export CUZK_PROGRESS=lines
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "== cuzk demo: synthetic circuit of $N constraints, 4 public inputs"
echo "== 1. synthesize the circuit and a witness"
"$CUZK" synth --constraints "$N" --public-inputs 4 --seed 2026 --out "$dir/demo"
echo "== 2. setup (random toxic waste; bellperson .params/.vk)"
"$CUZK" setup --pce "$dir/demo.pce" --out "$dir/demo"
echo "== 3. prove (CPU backend; the proof is verified before it is written)"
t0=$(date +%s.%N)
"$CUZK" prove --params "$dir/demo.params" --pce "$dir/demo.pce" --witness "$dir/demo.wit" \
    --out "$dir/demo.proof"
t1=$(date +%s.%N)
echo "== 4. verify"
"$CUZK" verify --vk "$dir/demo.vk" --public "$dir/demo.public" --proof "$dir/demo.proof"
"$CUZK" inspect "$dir/demo.proof"
n=$(($(stat -c %s "$dir/demo.proof") / 192))
awk -v n="$n" -v t0="$t0" -v t1="$t1" -v c="$N" 'BEGIN { s = t1 - t0
    printf "demo: %d proof(s) of %d constraints made and verified in %.2f s: %.2f s/proof, %.2f proofs/s\n",
        n, c, s, s / n, n / s }'
