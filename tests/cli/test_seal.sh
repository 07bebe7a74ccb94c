#!/usr/bin/env bash
# `cuzk seal`: the oracle is polka-storage's 2 KiB PoRep test
# (pallets/proofs/src/tests/porep.rs): its unsealed data
# (tests/fixtures/filecoin/polka-test-data-big.car, from its
# examples/test-data-big.car) sealed with prover id 0^32, sector 77, ticket
# 12^32, porep_id 0^32 and API 1.2.0 has comm_d 129c7562...4421 and comm_r
# 4afb35f8...3950. The same sector given --padded seals the same; the
# written unsealed sector's commP (cuzk piece, a separate implementation) is
# comm_d; bad arguments exit 2 with one clear line.
set -u
CUZK=$1
T=${2:-${TMPDIR:-/tmp}/cuzk-test-seal-$$}
FIX=$(dirname "$0")/../fixtures/filecoin
rm -rf "$T" && mkdir -p "$T"
. "$(dirname "$0")/../lib/expect.sh"
Z=$(printf '00%.0s' $(seq 32))
TICKET=$(printf '0c%.0s' $(seq 32))
COMMD=129c7562bb0c189544f5dccd365feaec2141eab458097a5ca8429c109d154421
COMMR=4afb35f82a95a10187a913bc14520d9a1d173328265b301b5dcf440ef2583950
polka() { "$CUZK" seal --registered-proof 5 --porep-id "$Z" --api-version 1.2.0 --prover-id "$Z" \
    --sector-number 77 --ticket "$TICKET" "$@"; }
key() { sed -n "s/^$1=//p" "$2"; }

if polka "$FIX/polka-test-data-big.car" --out "$T/a" >"$T/a.txt"; then ok; else bad "seal failed"; fi
[ "$(key comm_d "$T/a.txt")" = "$COMMD" ] && ok || bad "comm_d $(key comm_d "$T/a.txt")"
[ "$(key comm_r "$T/a.txt")" = "$COMMR" ] && ok || bad "comm_r $(key comm_r "$T/a.txt")"
[ "$(key comm_r_cid "$T/a.txt")" = "$("$CUZK" piece cid --sealed $COMMR)" ] && ok || bad "comm_r_cid"
[ "$(stat -c %s "$T/a/sealed")" = 2048 ] && [ "$(stat -c %s "$T/a/unsealed")" = 2048 ] && ok ||
    bad "output sizes"
cmp -s "$T/a/sealed" "$T/a/unsealed" && bad "replica equals the data" || ok
# The unsealed sector, unpadded, is the fixture: its commP is comm_d.
[ "$("$CUZK" piece commp "$FIX/polka-test-data-big.car" | sed -n 's/^commp=//p')" = "$COMMD" ] && ok ||
    bad "commP of the fixture"
if polka --padded "$T/a/unsealed" --out "$T/b" >"$T/b.txt"; then ok; else bad "seal --padded failed"; fi
cmp -s "$T/a/sealed" "$T/b/sealed" && ok || bad "--padded gives another replica"
[ "$(key comm_r "$T/b.txt")" = "$COMMR" ] && ok || bad "--padded comm_r"
# The registry's own porep_id for proof 5 (not polka's zeros): same comm_d,
# another comm_r.
"$CUZK" seal --registered-proof 5 --prover-id "$Z" --sector-number 77 --ticket "$TICKET" \
    "$FIX/polka-test-data-big.car" --out "$T/c" >"$T/c.txt"
[ "$(key comm_d "$T/c.txt")" = "$COMMD" ] && [ "$(key comm_r "$T/c.txt")" != "$COMMR" ] && ok ||
    bad "registry porep_id"

head -c 2033 /dev/zero >"$T/big"
expect 2 "2033 bytes; a sector holds 2032 unpadded bytes" -- polka "$T/big" --out "$T/x"
expect 2 "--registered-proof N is required" -- "$CUZK" seal --prover-id "$Z" --sector-number 1 \
    --ticket "$Z" "$T/big" --out "$T/x"
expect 2 "is for 2KiB sectors" -- polka --sector-size 32GiB "$T/big" --out "$T/x"
expect 2 "--api-version \"2.0.0\"" -- polka --api-version 2.0.0 "$T/big" --out "$T/x"
expect 2 "--ticket \"0c\"" -- "$CUZK" seal --registered-proof 5 --prover-id "$Z" --sector-number 1 \
    --ticket 0c "$T/big" --out "$T/x"
expect 2 "unknown option --frob" -- polka --frob "$T/big" --out "$T/x"
expect 2 "/nonexistent" -- polka /nonexistent --out "$T/x"
printf '\377%.0s' $(seq 2048) >"$T/ff"
expect 2 "not fr32-padded" -- polka --padded "$T/ff" --out "$T/x"
echo "test_seal: $pass passed, $fail failed"
rm -rf "$T"
[ "$fail" -eq 0 ]
