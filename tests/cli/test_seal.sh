#!/usr/bin/env bash
# `cuzk seal`: the oracle is polka-storage's 2 KiB PoRep test
# (pallets/proofs/src/tests/porep.rs): its unsealed data
# (tests/fixtures/filecoin/polka-test-data-big.car, from its
# examples/test-data-big.car) sealed with prover id 0^32, sector 77, ticket
# 12^32, porep_id 0^32 and API 1.2.0 has comm_d 129c7562...4421 and comm_r
# 4afb35f8...3950. The same sector given --padded seals the same; the
# written unsealed sector's commP (cuzk piece, a separate implementation) is
# comm_d; bad arguments exit 2 with one clear line. Then SnapDeals updates
# (seal update of that sector, gen snap).
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
# seal update: polka-storage's sealed sector updated with other data. The
# update's comm_r_old is the seal's comm_r (the oracle above); comm_d_new
# is the commP of the new data as one piece (cuzk piece); every partition was
# checked by the vanilla verification (test_seal_snap recomputes the
# encoding word by word).
head -c 1500 "$FIX/polka-test-data-big.car" | tr 'a-z' 'A-Z' >"$T/new.dat"
if "$CUZK" seal update --dir "$T/a" "$T/new.dat" --out "$T/u" >"$T/u.txt"; then ok; else
    bad "seal update: $(cat "$T/u.txt")"
fi
grep -q '^seal update: 2048-byte sector 77, 1 partition(s) x 10 challenges, h 1, update_s=' "$T/u.txt" &&
    ok || bad "seal update: $(head -1 "$T/u.txt")"
[ "$(key comm_r_old "$T/u.txt")" = "$COMMR" ] && ok || bad "comm_r_old $(key comm_r_old "$T/u.txt")"
[ "$(key comm_d_new_cid "$T/u.txt")" = "$("$CUZK" piece commp "$T/new.dat" | sed -n 's/^piece_cid=//p')" ] &&
    ok || bad "comm_d_new_cid $(key comm_d_new_cid "$T/u.txt"), commP $("$CUZK" piece commp "$T/new.dat")"
[ "$(stat -c %s "$T/u/sealed")" = 2048 ] && [ -s "$T/u/partition-0.vproof" ] && ok || bad "update outputs"
cmp -s "$T/u/sealed" "$T/a/sealed" && bad "the new replica is the old one" || ok
grep -q "\"comm_r_new\": \"$(key comm_r_new "$T/u.txt")\"" "$T/u/request.json" && ok ||
    bad "request.json: $(cat "$T/u/request.json")"
cp -r "$T/a" "$T/a-bad"
flip_bit "$T/a-bad/sealed" 64
expect 2 "tree_r_last root is not comm_r_last" -- "$CUZK" seal update --dir "$T/a-bad" "$T/new.dat" --out "$T/x"
expect 2 "not fr32-padded" -- "$CUZK" seal update --dir "$T/a" --padded "$T/ff" --out "$T/x"
expect 2 "--dir DIR, DATA and --out DIR are required" -- "$CUZK" seal update --dir "$T/a" --out "$T/x"
[ -e "$T/x" ] && bad "a refused update wrote files" || ok
# gen snap: synthetic updates; the same seed gives the same files.
"$CUZK" gen snap --sector-size 8MiB --seed 7 --out "$T/g1" >"$T/g1.txt" && ok || bad "gen snap 8MiB"
grep -q "gen snap: 8388608-byte sector, 4 partition(s) x 10 challenges, h 10, seed 7" "$T/g1.txt" && ok ||
    bad "gen snap: $(head -1 "$T/g1.txt")"
"$CUZK" gen snap --sector-size 8MiB --seed 7 --out "$T/g2" >/dev/null && ok || bad "gen snap again"
for k in 0 1 2 3; do
    cmp -s "$T/g1/partition-$k.vproof" "$T/g2/partition-$k.vproof" && ok || bad "partition $k differs"
done
"$CUZK" gen snap --sector-size 8MiB --seed 8 --out "$T/g3" >/dev/null &&
    ! cmp -s "$T/g1/partition-0.vproof" "$T/g3/partition-0.vproof" && ok || bad "seed 8 is seed 7"
expect 0 "partition-0.vproof: partition 0, 15064 bytes" -- "$CUZK" gen snap --sector-size 2KiB --out "$T/g4"
expect 2 "SnapDeals sectors are 2 KiB" -- "$CUZK" gen snap --sector-size 4KiB --out "$T/x"
expect 2 "--out DIR is required" -- "$CUZK" gen snap --sector-size 2KiB
expect 2 "unknown option --frob" -- "$CUZK" gen snap --sector-size 2KiB --frob 1 --out "$T/x"
# snap check: the SnapDeals circuit over the update's partition proofs
# (1,705,039 constraints at 2 KiB, rust-fil-proofs' count, + 5 input
# constraints); a wrong commitment is refused by the value checks (exit 2)
# or, without them, found by the circuit (exit 1).
snapcheck() { # DIR TXT [extra...]
    local d=$1 t=$2
    shift 2
    "$CUZK" snap check --sector-size "$SZ" --comm-r-old "$(key comm_r_old "$t")" \
        --comm-r-new "$(key comm_r_new "$t")" --comm-d-new "$(key comm_d_new "$t")" "$@"
}
SZ=2KiB
expect 0 "partition 0: satisfied: 1705044 constraints, 5 public inputs" -- snapcheck "$T/u" "$T/u.txt" "$T/u/partition-0.vproof"
"$CUZK" gen snap --sector-size 2KiB --seed 3 --out "$T/g5" >"$T/g5.txt" && ok || bad "gen snap"
expect 0 "satisfied: 1705044 constraints" -- snapcheck "$T/g5" "$T/g5.txt" "$T/g5/partition-0.vproof"
expect 2 "comm_r_old is not Poseidon(comm_c, tree_r_old's root)" -- \
    snapcheck "$T/g5" "$T/u.txt" "$T/g5/partition-0.vproof"
expect 1 "partition 0: unsatisfied" -- snapcheck "$T/g5" "$T/u.txt" --no-value-checks "$T/g5/partition-0.vproof"
head -c 700 "$T/g5/partition-0.vproof" >"$T/trunc.vproof"
expect 2 "$T/trunc.vproof" -- snapcheck "$T/g5" "$T/g5.txt" "$T/trunc.vproof"
expect 2 "2 files; a 2KiB sector has 1 partitions" -- \
    snapcheck "$T/g5" "$T/g5.txt" "$T/g5/partition-0.vproof" "$T/g5/partition-0.vproof"
expect 2 "--comm-r-old \"zz\": 64 hex digits" -- "$CUZK" snap check --sector-size 2KiB --comm-r-old zz \
    --comm-r-new "$(key comm_r_new "$T/g5.txt")" --comm-d-new "$(key comm_d_new "$T/g5.txt")" "$T/g5/partition-0.vproof"
SZ=8MiB
expect 0 "partition 3: satisfied" -- snapcheck "$T/g1" "$T/g1.txt" --partition 3 "$T/g1/partition-3.vproof"
expect 2 "not challenge" -- snapcheck "$T/g1" "$T/g1.txt" --partition 2 "$T/g1/partition-3.vproof"
echo "test_seal: $pass passed, $fail failed"
rm -rf "$T"
[ "$fail" -eq 0 ]
