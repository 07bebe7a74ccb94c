#!/usr/bin/env bash
# `cuzk hash` and `cuzk circuit stats`: known answers from independent
# implementations and the reference projects' constraint counts, and bad
# arguments exiting 2 with one clear line.
#   Poseidon: neptune src/poseidon.rs test hash_values (Standard strength,
#     Merkle tree, inputs 0..arity-1; constant length 4 for arity 8), the
#     scalar_from_u64s limbs written as one big-endian number.
#   SHA-256: FIPS 180-4 examples ("abc", the empty message).
#   Counts: neptune src/circuit.rs test_poseidon_hash (311, 505);
#     rust-fil-proofs stacked/circuit/hash.rs (598 for a column of 11);
#     bellperson src/gadgets/sha256.rs test_full_block (25840) and
#     test_full_hash (44874); rust-fil-proofs storage-proofs-core
#     tests/por_circuit.rs test_por_circuit_poseidon_base_8 (1063, 3 inputs)
#     test_por_circuit_poseidon_top_8_4_2 (1764) and
#     test_por_circuit_sha256_base_2 (272295); the 32 GiB PoRep partition
#     against bellperson's R1CS of the blank circuit (curio
#     extern/cuzk/cuzk-project.md "PCE Extraction").
set -u
CUZK=$1
T=${2:-${TMPDIR:-/tmp}/cuzk-test-hash-$$}
rm -rf "$T" && mkdir -p "$T"
. "$(dirname "$0")/../lib/expect.sh"
# exact CODE WANT -- command...: stdout is exactly WANT
exact() {
    local want=$2
    shift 3
    local out
    out=$("$@" 2>/dev/null)
    if [ "$out" = "$want" ]; then ok; else bad "$* -> '$out' (want '$want')"; fi
}

P2=0x396508d75e76a56b739e0fd902efe161a6fba9339d05a69d2e203c369a02e7ff
P4=0x58a54b10a9e5848a00db3c6579229399fb6b4605bf1327ec019814ff6662075d
P8=0x2394611da3a5de5512010042116770774b682e9d9cc4aed92a9934f56d38a5e6
C8=0x5c6de4b69de9d792cad8b9f8aeb1578f203e3c7c4a85c1f9370a94532f818897
exact 0 "$P2" -- "$CUZK" hash poseidon --arity 2 0 1
exact 0 "$P2" -- "$CUZK" hash poseidon --arity 2 0x0 0x01
exact 0 "$P4" -- "$CUZK" hash poseidon --arity 4 0 1 2 3
exact 0 "$P8" -- "$CUZK" hash poseidon --arity 8 0 1 2 3 4 5 6 7
exact 0 "$C8" -- "$CUZK" hash poseidon --arity 8 --constant-length 0 1 2 3
# --le-bytes: the same digest, bytes reversed, as Filecoin stores nodes.
Z=0000000000000000000000000000000000000000000000000000000000000000
O=0100000000000000000000000000000000000000000000000000000000000000
LE=$(echo "${P2#0x}" | sed 's/../& /g' | tr ' ' '\n' | grep . | tac | tr -d '\n')
exact 0 "$LE" -- "$CUZK" hash poseidon --arity 2 --le-bytes $Z $O
exact 0 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad -- "$CUZK" hash sha256 616263
exact 0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 -- "$CUZK" hash sha256 ""

expect 0 "constraints=311" -- "$CUZK" circuit stats poseidon --arity 2
expect 0 "gadget_aux=505" -- "$CUZK" circuit stats poseidon --arity 8
expect 0 "constraints=598" -- "$CUZK" circuit stats poseidon --arity 11
expect 0 "gadget_constraints=25840" -- "$CUZK" circuit stats sha256-compression
expect 0 "gadget_constraints=44874" -- "$CUZK" circuit stats sha256 --bytes 64
expect 0 "constraints=1063" -- "$CUZK" circuit stats por --base 8 --levels 2
expect 0 "inputs=3" -- "$CUZK" circuit stats por --base 8 --levels 2
expect 0 "constraints=1062" -- "$CUZK" circuit stats por --base 8 --levels 2 --private
expect 0 "constraints=1764" -- "$CUZK" circuit stats por --base 8 --levels 2 --sub 4 --top 2
expect 0 "constraints=272295" -- "$CUZK" circuit stats por --base 2 --levels 6 --sha256
# PoRep partition circuits: 32 GiB against bellperson's R1CS of the blank
# circuit (curio extern/cuzk/cuzk-project.md "PCE Extraction"); 2 KiB's
# public inputs (3 + 2 challenges x 18, and ONE). Both forms of the command.
P32=$("$CUZK" circuit stats --seal-proof 8 2>&1)
for kv in constraints=130278541 inputs=328 aux=130169893 nnz_a=309405051 nnz_b=130327340 \
    nnz_c=282656500 a_aux_density=129753292 b_input_density=1 b_aux_density=33112281; do
    if grep -qx "$kv" <<<"$P32"; then ok; else bad "stats --seal-proof 8: no $kv in: $P32"; fi
done
# The same by registry number, "name value" lines with bellperson's input
# constraints counted: the 32 GiB PoRep fingerprint; WinningPoSt 32 GiB
# (370,590 + 133) and WindowPoSt 32 GiB (125,279,217 + 25,840) and 64 GiB
# (129,887,900 + 25,301), rust-fil-proofs' published counts.
R32=$("$CUZK" circuit stats --registered-proof 8 2>&1)
for kv in "inputs 328" "aux 130169893" "constraints 130278869" "nnz_a 309405051" "nnz_b 130327340" \
    "nnz_c 282656500" "a_aux_density 129753292" "b_input_density 1" "b_aux_density 33112281"; do
    if grep -qx "$kv" <<<"$R32"; then ok; else bad "stats --registered-proof 8: no $kv in: $R32"; fi
done
for want in "3 inputs 133" "3 constraints 370723" "13 inputs 25840" "13 constraints 125305057" \
    "14 inputs 25301" "14 constraints 129913201"; do
    set -- $want
    out=$("$CUZK" circuit stats --post-proof "$1" 2>&1)
    if grep -qx "$2 $3" <<<"$out"; then ok; else bad "stats --post-proof $1: no \"$2 $3\" in: $out"; fi
done
# SnapDeals (SHA-256 TreeD): 2 KiB 1,705,039 and 32 GiB 81,049,499
# constraints + 5 inputs (storage-proofs-update tests/circuit.rs).
for want in "0 constraints 1705044" "0 inputs 5" "3 constraints 81049504" "3 inputs 5"; do
    set -- $want
    out=$("$CUZK" circuit stats --update-proof "$1" 2>&1)
    if grep -qx "$2 $3" <<<"$out"; then ok; else bad "stats --update-proof $1: no \"$2 $3\" in: $out"; fi
done
expect 2 "--post-proof 15: not a RegisteredPoStProof number" -- "$CUZK" circuit stats --post-proof 15
expect 2 "--registered-proof 20: not a RegisteredSealProof number" -- "$CUZK" circuit stats --registered-proof 20
expect 2 "one of --registered-proof, --post-proof, --update-proof, alone" -- \
    "$CUZK" circuit stats --registered-proof 8 --post-proof 3
# circuit record: the PCE the daemon caches, loadable (inspect) and of the
# counts stats gives (2 KiB PoRep, 2 KiB WinningPoSt).
R=${TMPDIR:-/tmp}/cuzk-test-record-$$
mkdir -p "$R"
expect 0 "record: porep-2k (StackedDrg2KiBV1_1) constraints=2687961 nnz=14934693" -- \
    "$CUZK" circuit record --registered-proof 5 --out "$R/p.pce"
expect 0 "constraints" -- "$CUZK" inspect "$R/p.pce"
expect 0 "record: post-winning-2k" -- "$CUZK" circuit record --post-proof 0 --out "$R/w.pce"
expect 0 "record: snap-2k (StackedDrg2KiBV1) constraints=1705044" -- \
    "$CUZK" circuit record --update-proof 0 --out "$R/s.pce"
expect 2 "record needs one of --registered-proof N" -- "$CUZK" circuit record --out "$R/x.pce"
expect 2 "record needs --out FILE" -- "$CUZK" circuit record --registered-proof 5
rm -rf "$R"
expect 0 "inputs=40" -- "$CUZK" circuit stats porep --seal-proof 5
expect 2 "needs --seal-proof" -- "$CUZK" circuit stats porep
expect 2 "not a RegisteredSealProof number" -- "$CUZK" circuit stats --seal-proof 20
expect 2 "no challenge count" -- "$CUZK" circuit stats --seal-proof 15

# Benchmarks run (tiny counts; timings are not asserted). A circuit is the
# gadget plus one input constraint for ONE.
expect 0 "hashes_per_s=" -- "$CUZK" circuit bench native-poseidon --count 50 --threads 1
expect 0 "constraints_per_circuit=506" -- "$CUZK" circuit bench poseidon --mode record --count 2
expect 0 "constraints_per_circuit=506" -- "$CUZK" circuit bench poseidon --mode witness --count 3
expect 0 "constraints_per_circuit=26353" -- "$CUZK" circuit bench sha256-compression --mode check --count 1

# A Merkle inclusion circuit through the offline tool: synth -> setup ->
# prove -> verify; a wrong public input (the leaf index) is rejected.
expect 0 "wrote" -- "$CUZK" circuit synth por --base 8 --levels 1 --sub 2 --seed 3 --out "$T/por"
expect 0 "total_s=" -- "$CUZK" setup --pce "$T/por.pce" --out "$T/por"
expect 0 "total_s=" -- "$CUZK" prove --params "$T/por.params" --pce "$T/por.pce" --witness "$T/por.wit" --out "$T/por.proof"
expect 0 "proof is valid" -- "$CUZK" verify --vk "$T/por.vk" --public "$T/por.public" --proof "$T/por.proof"
awk 'NR==2 { print "0x" sprintf("%064x", 99); next } { print }' "$T/por.public" > "$T/bad.public"
expect 1 "INVALID" -- "$CUZK" verify --vk "$T/por.vk" --public "$T/bad.public" --proof "$T/por.proof"
expect 2 "synth needs --out PREFIX" -- "$CUZK" circuit synth por
expect 2 "cannot create" -- "$CUZK" circuit synth poseidon --out "$T/no/such/dir/x"

# Bad arguments.
expect 2 "cuzk: hash: which hash" -- "$CUZK" hash
expect 2 "unknown hash 'md5'" -- "$CUZK" hash md5 00
expect 2 "poseidon needs --arity" -- "$CUZK" hash poseidon 1 2
expect 2 "--arity '37': need 1..36" -- "$CUZK" hash poseidon --arity 37 1
expect 2 "3 inputs, arity 2 hash takes 2" -- "$CUZK" hash poseidon --arity 2 1 2 3
expect 2 "constant length 3, need 1..2" -- "$CUZK" hash poseidon --arity 2 --constant-length 1 2 3
expect 2 "poseidon needs elements" -- "$CUZK" hash poseidon --arity 2
expect 2 "'0xzz'" -- "$CUZK" hash poseidon --arity 2 0xzz 1
expect 2 "not a canonical field element" -- "$CUZK" hash poseidon --arity 2 --le-bytes $Z ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff
expect 2 "are 64 hex digits" -- "$CUZK" hash poseidon --arity 2 --le-bytes 00 $Z
expect 2 "unknown option --foo" -- "$CUZK" hash poseidon --arity 2 --foo 1 2
expect 2 "not an even number of hex digits" -- "$CUZK" hash sha256 abc
expect 2 "sha256 takes one hex argument" -- "$CUZK" hash sha256 00 11
expect 2 "usage: cuzk circuit stats" -- "$CUZK" circuit
expect 2 "unknown circuit blake2s" -- "$CUZK" circuit stats blake2s
expect 2 "needs a circuit" -- "$CUZK" circuit stats
expect 2 "bad or missing value for --levels" -- "$CUZK" circuit stats por --levels x
expect 2 "unknown option --bogus" -- "$CUZK" circuit stats por --bogus
expect 2 "base arity 3" -- "$CUZK" circuit stats por --base 3
expect 2 "arity 40" -- "$CUZK" circuit stats poseidon --arity 40
expect 2 "--mode must be witness, record or check, not fast" -- "$CUZK" circuit bench poseidon --mode fast
expect 2 "unknown bench md5" -- "$CUZK" circuit bench md5
expect 2 "--count must be at least 1" -- "$CUZK" circuit bench poseidon --count 0
expect 2 "bench needs" -- "$CUZK" circuit bench
expect 2 "arity 0" -- "$CUZK" circuit bench native-poseidon --arity 0
rm -rf "$T"
echo "test_hash: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
