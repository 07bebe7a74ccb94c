#!/usr/bin/env bash
# `cuzk c1` and `cuzk porep check` on polka-storage's 2 KiB sector
# (pallets/proofs/src/tests/porep.rs: prover 0^32, sector 77, ticket 12^32,
# seed 13^32, porep_id 0^32, API 1.2.0). Oracles: porep.h's challenges of
# that sector (37 and 29, computed independently in test_filecoin_porep),
# the circuit's satisfaction in check mode with the input count of a 2 KiB
# partition (40 with ONE), a C1 with a changed value refused with its JSON
# path (exit 2) or, with --no-value-checks, found by the circuit (exit 1).
# `cuzk porep inputs` of that C1 makes polka-storage's own proof verify
# with their verifying key (cuzk verify, compressed key), and one changed
# input makes it fail; `cuzk porep parents` gives the parents the inputs
# list for both challenges.
set -u
CUZK=$1
T=${2:-${TMPDIR:-/tmp}/cuzk-test-c1-$$}
FIX=$(dirname "$0")/../fixtures/filecoin
rm -rf "$T" && mkdir -p "$T"
. "$(dirname "$0")/../lib/expect.sh"
Z=$(printf '00%.0s' $(seq 32))
TICKET=$(printf '0c%.0s' $(seq 32))
SEED=$(printf '0d%.0s' $(seq 32))
c1() { "$CUZK" c1 --registered-proof 5 --porep-id "$Z" --api-version 1.2.0 --prover-id "$Z" \
    --sector-number 77 --ticket "$TICKET" "$@"; }
check() { "$CUZK" porep check --porep-id "$Z" --api-version 1.2.0 "$@"; }

if c1 "$FIX/polka-test-data-big.car" --seed "$SEED" --out "$T/c1.json" >"$T/c1.txt"; then ok; else
    bad "c1 failed"
fi
grep -qx 'challenge\[0\]\[0\]=37' "$T/c1.txt" && grep -qx 'challenge\[0\]\[1\]=29' "$T/c1.txt" && ok ||
    bad "challenges: $(cat "$T/c1.txt")"
head -c 60 "$T/c1.json" | grep -qF '{"registered_proof":"StackedDrg2KiBV1_1","vanilla_proofs":' && ok ||
    bad "JSON head"
expect 0 "partition 0: satisfied: " -- check "$T/c1.json" --sector-number 77 --miner-id 0
expect 0 " constraints, 40 public inputs" -- check "$T/c1.json" --sector-number 77 --prover-id "$Z"
# The C1 as Curio's proof-share path sends it (Go's encoding/json over its
# mirror types: the top-level keys in struct order, every object's keys in
# another order than serde's): the same check and the same public inputs.
python3 - "$T/c1.json" "$T/go.json" <<'PY' || bad "python3 re-encoding the JSON"
import json, sys
j = json.load(open(sys.argv[1]))
def reorder(v):
    if isinstance(v, dict):
        return {k: reorder(v[k]) for k in sorted(v, reverse=True)}
    if isinstance(v, list):
        return [reorder(x) for x in v]
    return v
top = ["comm_d", "comm_r", "registered_proof", "replica_id", "seed", "ticket", "vanilla_proofs"]
out = {k: reorder(j[k]) for k in top}
open(sys.argv[2], "w").write(json.dumps(out, separators=(",", ":")))
PY
expect 0 "partition 0: satisfied: " -- check "$T/go.json" --sector-number 77 --miner-id 0
"$CUZK" porep inputs --porep-id "$Z" --api-version 1.2.0 --c1 "$T/c1.json" --sector-number 77 \
    --prover-id "$Z" >"$T/c1.inputs" 2>/dev/null
"$CUZK" porep inputs --porep-id "$Z" --api-version 1.2.0 --c1 "$T/go.json" --sector-number 77 \
    --prover-id "$Z" >"$T/go.inputs" 2>/dev/null
[ -s "$T/c1.inputs" ] && cmp -s "$T/c1.inputs" "$T/go.inputs" && ok ||
    bad "re-ordered C1: other public inputs"
# Another sector number: another replica_id than the C1's.
expect 2 "C1 replica_id: not the one of prover, sector 78" -- \
    check "$T/c1.json" --sector-number 78 --miner-id 0
# A changed data leaf (the first byte of challenge 1's comm_d leaf).
python3 - "$T/c1.json" "$T/bad.json" <<'PY' || bad "python3 editing the JSON"
import json, sys
j = json.load(open(sys.argv[1]))
leaf = j["vanilla_proofs"]["StackedDrg2KiBV1"][0][1]["comm_d_proofs"]["data"]["Single"]["leaf"]
leaf[0] ^= 1
open(sys.argv[2], "w").write(json.dumps(j, separators=(",", ":")))
PY
expect 2 "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs: the path does not hash" -- \
    check "$T/bad.json" --sector-number 77 --miner-id 0
expect 1 "partition 0: unsatisfied: cs: constraint" -- \
    check "$T/bad.json" --sector-number 77 --miner-id 0 --no-value-checks
# cuzk seal writes DIR/seal.json and DIR/labels; cuzk seal c1 makes the same
# C1 from them, and refuses files that do not belong together.
"$CUZK" seal --registered-proof 5 --porep-id "$Z" --api-version 1.2.0 --prover-id "$Z" \
    --sector-number 77 --ticket "$TICKET" "$FIX/polka-test-data-big.car" --out "$T/sd" >/dev/null &&
    ok || bad "seal to a directory"
expect 0 "challenge[0][1]=29" -- "$CUZK" seal c1 --dir "$T/sd" --seed "$SEED" --out "$T/sd-c1.json"
cmp -s "$T/c1.json" "$T/sd-c1.json" && ok || bad "seal c1 and c1: different C1s"
cp -r "$T/sd" "$T/sd-bad"
flip_bit "$T/sd-bad/labels" 100
expect 2 "the files do not hold together" -- \
    "$CUZK" seal c1 --dir "$T/sd-bad" --seed "$SEED" --out "$T/x.json"
[ -e "$T/x.json" ] && bad "a C1 written from inconsistent files" || ok
head -c 1000 "$T/sd/unsealed" >"$T/sd-bad/unsealed"
expect 2 "1000 bytes, 2048 expected" -- "$CUZK" seal c1 --dir "$T/sd-bad" --seed "$SEED" --out "$T/x.json"
sed 's/"ticket": "0c/"ticket": "zz/' "$T/sd/seal.json" >"$T/sd-bad/seal.json"
expect 2 '"ticket" must be 64 hex digits' -- "$CUZK" seal c1 --dir "$T/sd-bad" --seed "$SEED" --out "$T/x.json"
head -c 100 "$T/sd/seal.json" >"$T/sd-bad/seal.json"
expect 2 "seal.json: line" -- "$CUZK" seal c1 --dir "$T/sd-bad" --seed "$SEED" --out "$T/x.json"
expect 2 "--dir DIR, --seed HEX and --out FILE are required" -- "$CUZK" seal c1 --seed "$SEED" --out "$T/x.json"
# porep inputs -> polka-storage's proof and key.
inputs() { "$CUZK" porep inputs --porep-id "$Z" --api-version 1.2.0 "$@"; }
VK="$FIX/polka-porep-2k.vk"
PROOF="$FIX/polka-porep-2k.proof"
if inputs --c1 "$T/c1.json" --sector-number 77 --miner-id 0 >"$T/in.txt"; then ok; else bad "porep inputs"; fi
[ "$(wc -l <"$T/in.txt")" -eq 39 ] && ok || bad "porep inputs: $(wc -l <"$T/in.txt") lines, 39 expected"
grep -qvE '^[0-9]+$' "$T/in.txt" && bad "porep inputs: a line that is not decimal" || ok
expect 0 "proof is valid (1 partition(s))" -- "$CUZK" verify --vk "$VK" --public "$T/in.txt" --proof "$PROOF"
inputs --c1 "$T/c1.json" --sector-number 77 --prover-id "$Z" --partition 0 >"$T/in0.txt" &&
    cmp -s "$T/in.txt" "$T/in0.txt" && ok || bad "--partition 0 and --prover-id 0^32: other inputs"
sed '6s/.*/1/' "$T/in.txt" >"$T/in-bad.txt" # challenge 37's second DRG parent
expect 1 "partition 0: INVALID" -- "$CUZK" verify --vk "$VK" --public "$T/in-bad.txt" --proof "$PROOF"
head -c 1000 "$VK" >"$T/trunc.vk"
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[500] ^= 0x55; open(sys.argv[2], "wb").write(d)' \
    "$VK" "$T/corrupt.vk" || bad "python3 corrupting the key"
expect 2 "ic point 1 at offset 484" -- "$CUZK" verify --vk "$T/corrupt.vk" --public "$T/in.txt" --proof "$PROOF"
expect 2 "truncated" -- "$CUZK" verify --vk "$T/trunc.vk" --public "$T/in.txt" --proof "$PROOF"
# porep parents: the node and its 14 parents, as the inputs list them
# (per challenge, 18: its comm_d leaf, 14 parents, the challenge, 2 leaves).
"$CUZK" porep parents --registered-proof 5 --porep-id "$Z" --api-version 1.2.0 37 29 >"$T/par.txt" &&
    ok || bad "porep parents"
for c in 0 1; do
    want="$(sed -n "$((4 + 18 * c)),$((18 + 18 * c))p" "$T/in.txt" | tr '\n' ' ' | sed 's/ $//')"
    got="$(sed -n "$((c + 1))p" "$T/par.txt")"
    # the inputs start with the challenge's comm_d leaf, its index: the node
    [ "$got" = "$want" ] && ok || bad "parents of challenge $c: \"$got\", inputs \"$want\""
done
expect 2 "node \"64\": a number below 64" -- "$CUZK" porep parents --registered-proof 5 37 64
expect 2 "--registered-proof N is required" -- "$CUZK" porep parents 37
expect 2 "NODE... is required" -- "$CUZK" porep parents --registered-proof 5
expect 2 "--partition \"1\": 0 .. 0" -- inputs --c1 "$T/c1.json" --sector-number 77 --miner-id 0 --partition 1
expect 2 "--c1 FILE is required" -- inputs --sector-number 77 --miner-id 0
expect 2 "C1 replica_id: not the one of prover, sector 78" -- \
    inputs --c1 "$T/c1.json" --sector-number 78 --miner-id 0
printf '{"registered_proof":' >"$T/trunc.json"
expect 2 "C1: not JSON" -- check "$T/trunc.json" --sector-number 77 --miner-id 0
expect 2 "--seed HEX is required" -- c1 "$FIX/polka-test-data-big.car" --out "$T/x.json"
expect 2 "--seed is an option of c1" -- "$CUZK" seal --registered-proof 5 --prover-id "$Z" \
    --sector-number 77 --ticket "$TICKET" --seed "$SEED" "$FIX/polka-test-data-big.car" --out "$T/x"
expect 2 "the prover: --prover-id HEX or --miner-id M" -- check "$T/c1.json" --sector-number 77
expect 2 "which? \"frob\" is not check" -- "$CUZK" porep frob
# Synthetic PoRep (registered proof 10): the sector's C1 opens the synthetic
# challenges and checks; non-interactive PoRep is refused with its reason.
expect 0 "challenge[0][1]=" -- "$CUZK" c1 --registered-proof 10 --prover-id "$Z" \
    --sector-number 77 --ticket "$TICKET" --seed "$SEED" "$FIX/polka-test-data-big.car" \
    --out "$T/syn.json"
expect 0 "porep check: StackedDrg2KiBV1_1_Feat_SyntheticPoRep, 1 partition(s) of 2 challenges, API 1.2.0" -- \
    "$CUZK" porep check "$T/syn.json" --prover-id "$Z" --sector-number 77
expect 2 "non-interactive-porep (its challenges and its aggregated proofs) is not implemented" -- \
    "$CUZK" c1 --registered-proof 15 --prover-id "$Z" --sector-number 77 --ticket "$TICKET" \
    --seed "$SEED" "$FIX/polka-test-data-big.car" --out "$T/x.json"
# gen porep: a sparse committed-capacity sector's C1 (8 MiB; the 32 GiB
# one is test_seal_gen_porep's). comm_d is the published empty 8 MiB
# sector's; porep check (values and circuit) passes for its miner and
# sector only.
if "$CUZK" gen porep --sector-size 8MiB --seed 5 --miner-id 1234 --sector-number 9 \
    --out "$T/gen.json" >"$T/gen.txt"; then ok; else bad "gen porep failed"; fi
grep -q '^gen porep: StackedDrg8MiBV1_1 (API 1.1.0), 1 partition(s) x 2 challenges, miner 1234, sector 9, seed 5, gen_s=' \
    "$T/gen.txt" && ok || bad "gen porep: $(head -1 "$T/gen.txt")"
grep -qx 'comm_d_cid=baga6ea4seaqgl4u6lwmnerwdrm4iz7ag3mpwwaqtapc2fciabpooqmvjypweeha' "$T/gen.txt" && ok ||
    bad "gen porep: comm_d of an empty 8 MiB sector expected"
grep -q '^comm_r_cid=bagboea4b5abc' "$T/gen.txt" && ok || bad "gen porep: no sealed CID"
expect 0 "partition 0: satisfied: 3844969 constraints, 40 public inputs" -- \
    "$CUZK" porep check "$T/gen.json" --miner-id 1234 --sector-number 9
expect 0 "partition 0: satisfied: 3844969 constraints, 40 public inputs" -- \
    "$CUZK" porep check --c1 "$T/gen.json" --partition 0 --miner-id 1234 --sector-number 9
expect 2 "--partition \"1\": 0 .. 0 (StackedDrg8MiBV1_1 has 1 partition(s))" -- \
    "$CUZK" porep check --c1 "$T/gen.json" --partition 1 --miner-id 1234 --sector-number 9
expect 2 "one C1 file: --c1 or an argument" -- \
    "$CUZK" porep check --c1 "$T/gen.json" "$T/gen.json" --miner-id 1234 --sector-number 9
expect 2 "--c1 FILE (or FILE) is required" -- "$CUZK" porep check --miner-id 1234 --sector-number 9
expect 2 "not the one of prover, sector 10" -- "$CUZK" porep check "$T/gen.json" --miner-id 1234 --sector-number 10
"$CUZK" gen porep --registered-proof 1 --seed 5 --miner-id 1234 --sector-number 9 --out "$T/gen1.json" >/dev/null &&
    ! cmp -s "$T/gen.json" "$T/gen1.json" && ok || bad "gen porep --registered-proof 1 (API 1.0.0)"
expect 0 "partition 0: satisfied" -- "$CUZK" porep check "$T/gen1.json" --miner-id 1234 --sector-number 9
expect 2 "--registered-proof 8 (StackedDrg32GiBV1_1) seals 32GiB sectors, not 8MiB" -- \
    "$CUZK" gen porep --sector-size 8MiB --registered-proof 8 --out "$T/x.json"
expect 2 "synthetic PoRep draws its challenges from comm_r" -- "$CUZK" gen porep --registered-proof 10 --out "$T/x.json"
expect 2 "no seal proof for sector size 4KiB" -- "$CUZK" gen porep --sector-size 4KiB --out "$T/x.json"
expect 2 "--out FILE is required" -- "$CUZK" gen porep --sector-size 2KiB
expect 2 "--seed: bad number \"x\"" -- "$CUZK" gen porep --sector-size 2KiB --seed x --out "$T/x.json"
expect 2 "unknown option --frob" -- "$CUZK" gen porep --sector-size 2KiB --frob --out "$T/x.json"
expect 2 "is not porep, snap or post" -- "$CUZK" gen snapp
expect 2 "$T/nodir" -- "$CUZK" gen porep --sector-size 2KiB --out "$T/nodir/x.json"
[ -e "$T/x.json" ] && bad "a refused gen porep wrote a file" || ok
echo "test_c1: $pass passed, $fail failed"
rm -rf "$T"
[ "$fail" -eq 0 ]
