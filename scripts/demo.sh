#!/usr/bin/env bash
# The demo: a built-in synthetic circuit (2^16 constraints, 4 public inputs,
# Filecoin-like statistics) taken through setup -> prove -> verify with the
# offline CLI, printing each phase's timings. Files go to a temporary folder.
set -euo pipefail
CUZK=${1:-build/cuzk}
N=${CUZK_DEMO_CONSTRAINTS:-65536}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "== cuzk demo: synthetic circuit of $N constraints, 4 public inputs"
echo "== 1. synthesize the circuit and a witness"
"$CUZK" synth --constraints "$N" --public-inputs 4 --seed 2026 --out "$dir/demo"
echo "== 2. setup (random toxic waste; bellperson .params/.vk)"
"$CUZK" setup --pce "$dir/demo.pce" --out "$dir/demo"
echo "== 3. prove (CPU backend)"
"$CUZK" prove --params "$dir/demo.params" --pce "$dir/demo.pce" --witness "$dir/demo.wit" \
    --out "$dir/demo.proof"
echo "== 4. verify"
"$CUZK" verify --vk "$dir/demo.vk" --public "$dir/demo.public" --proof "$dir/demo.proof"
"$CUZK" inspect "$dir/demo.proof"
