#!/usr/bin/env bash
# Regenerates the committed snarkjs fixtures of tests/interop/fixtures: for
# each BLS12-381 circuit in circuits/, the compiled .r1cs, a Groth16 .zkey made
# by snarkjs from its own BLS12-381 powers of tau (2^12), and the verification
# key; and a bn128 key, constraint file and witness for the refusal checks.
# Slow (minutes on 2 cores: snarkjs's powers of tau dominate). The witness and
# the proofs are made by the test itself (run_interop.sh), not committed.
#
#   bash tests/interop/make_fixtures.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
[ -x node_modules/.bin/snarkjs ] || npm ci --no-audit --no-fund
snarkjs=node_modules/.bin/snarkjs
circom=node_modules/.bin/circom2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p fixtures

# Phase 1: a small powers of tau over BLS12-381, one contribution, prepared.
"$snarkjs" powersoftau new bls12381 12 "$work/pot_0.ptau"
"$snarkjs" powersoftau contribute "$work/pot_0.ptau" "$work/pot_1.ptau" \
    --name=fixtures -e="cuzk interop fixtures phase 1"
"$snarkjs" powersoftau prepare phase2 "$work/pot_1.ptau" "$work/pot.ptau"

for c in many_public poseidon_chain range_check; do
    "$circom" "circuits/$c.circom" --O2 --r1cs --prime bls12381 -l node_modules -o "$work"
    cp "$work/$c.r1cs" "fixtures/$c.r1cs"
    "$snarkjs" groth16 setup "fixtures/$c.r1cs" "$work/pot.ptau" "$work/${c}_0.zkey"
    "$snarkjs" zkey contribute "$work/${c}_0.zkey" "fixtures/$c.zkey" --name=fixtures \
        -e="cuzk interop fixtures phase 2 $c"
    "$snarkjs" zkey export verificationkey "fixtures/$c.zkey" "fixtures/$c.vkey.json"
done
# A bn128 key and witness, for the "curve not supported yet" checks.
"$snarkjs" powersoftau new bn128 4 "$work/bn_0.ptau"
"$snarkjs" powersoftau contribute "$work/bn_0.ptau" "$work/bn_1.ptau" --name=fixtures \
    -e="cuzk interop fixtures bn128"
"$snarkjs" powersoftau prepare phase2 "$work/bn_1.ptau" "$work/bn.ptau"
"$circom" circuits/tiny_bn128.circom --O2 --r1cs --wasm --prime bn128 -o "$work"
cp "$work/tiny_bn128.r1cs" fixtures/tiny_bn128.r1cs
"$snarkjs" groth16 setup fixtures/tiny_bn128.r1cs "$work/bn.ptau" fixtures/tiny_bn128.zkey
echo '{"x": "3"}' > "$work/bn_input.json"
"$snarkjs" wtns calculate "$work/tiny_bn128_js/tiny_bn128.wasm" "$work/bn_input.json" \
    fixtures/tiny_bn128.wtns
echo "fixtures written to $here/fixtures"
