#!/usr/bin/env bash
# Regenerates the committed snarkjs fixtures of tests/interop/fixtures: for
# each circuit in circuits/, the compiled .r1cs, a Groth16 .zkey made by
# snarkjs from its own BLS12-381 powers of tau (2^12), and the verification key.
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
echo "fixtures written to $here/fixtures"
