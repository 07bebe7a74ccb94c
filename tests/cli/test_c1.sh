#!/usr/bin/env bash
# `cuzk c1` and `cuzk porep check` on polka-storage's 2 KiB sector
# (pallets/proofs/src/tests/porep.rs: prover 0^32, sector 77, ticket 12^32,
# seed 13^32, porep_id 0^32, API 1.2.0). Oracles: porep.h's challenges of
# that sector (37 and 29, computed independently in test_filecoin_porep),
# the circuit's satisfaction in check mode with the input count of a 2 KiB
# partition (40 with ONE), a C1 with a changed value refused with its JSON
# path (exit 2) or, with --no-value-checks, found by the circuit (exit 1).
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
printf '{"registered_proof":' >"$T/trunc.json"
expect 2 "C1: not JSON" -- check "$T/trunc.json" --sector-number 77 --miner-id 0
expect 2 "--seed HEX is required" -- c1 "$FIX/polka-test-data-big.car" --out "$T/x.json"
expect 2 "--seed is an option of c1" -- "$CUZK" seal --registered-proof 5 --prover-id "$Z" \
    --sector-number 77 --ticket "$TICKET" --seed "$SEED" "$FIX/polka-test-data-big.car" --out "$T/x"
expect 2 "the prover: --prover-id HEX or --miner-id M" -- check "$T/c1.json" --sector-number 77
expect 2 "which? \"frob\" is not check" -- "$CUZK" porep frob
expect 2 "synthetic-porep challenges are not interactive" -- "$CUZK" c1 --registered-proof 10 --prover-id "$Z" --sector-number 77 \
    --ticket "$TICKET" --seed "$SEED" "$FIX/polka-test-data-big.car" --out "$T/x.json"
echo "test_c1: $pass passed, $fail failed"
rm -rf "$T"
[ "$fail" -eq 0 ]
