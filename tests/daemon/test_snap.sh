#!/usr/bin/env bash
# SnapDeals (SNAP_DEALS_UPDATE) through the real daemon, as Curio sends it:
# registered update proof, one bincode PartitionProof per partition as
# vanilla_proofs, and comm_r_old, comm_d_new, comm_r_new (32 bytes each), at
# 2 KiB on the CPU backend:
#   - test parameters from `cuzk setup --circuit snap-2k` (the circuit whose
#     constraint count is rust-fil-proofs' 1,705,039); polka-storage's 2 KiB
#     test sector sealed (its comm_r is their published one, test_seal.sh)
#     and updated with other data by `cuzk seal update`, and a synthetic
#     update by `cuzk gen snap`;
#   - each proof verified offline with `cuzk verify` against the .vk and the
#     public inputs the daemon returns (k_and_h_select, comm_r_old,
#     comm_d_new, comm_r_new);
#   - a wrong commitment, a corrupt or missing partition proof fail naming
#     what is wrong, and the daemon goes on.
# Every daemon started here is stopped by its own pid.
# Usage: test_snap.sh CUZK_DAEMON CUZK_BENCH CUZK WORK_DIR
set -u
DAEMON=$1 BENCH=$2 CUZK=$3 T=$4
rm -rf "$T" && mkdir -p "$T/params"
. "$(dirname "$0")/../lib/expect.sh"
. "$(dirname "$0")/../lib/daemon.sh"
P="$T/params"
FIX="$(dirname "$0")/../fixtures/filecoin/polka-test-data-big.car"
Z=$(printf '00%.0s' $(seq 32))
TICKET=$(printf '0c%.0s' $(seq 32))
VK=$P/v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.vk
key() { sed -n "s/^$1=//p" "$2"; }
expect 0 "not Filecoin's" -- "$CUZK" setup --circuit snap-2k --out "$P"
expect 0 "comm_r=" -- "$CUZK" seal --registered-proof 5 --porep-id "$Z" --api-version 1.2.0 \
    --prover-id "$Z" --sector-number 77 --ticket "$TICKET" "$FIX" --out "$T/sector"
head -c 1800 "$FIX" | tr 'a-m' 'n-z' >"$T/new.dat"
"$CUZK" seal update --dir "$T/sector" "$T/new.dat" --out "$T/u" >"$T/u.txt" && ok ||
    bad "seal update: $(cat "$T/u.txt")"
"$CUZK" gen snap --sector-size 2KiB --seed 9 --out "$T/g" >"$T/g.txt" && ok || bad "gen snap"
snap() { # TXT VPROOF... : a SNAP_DEALS_UPDATE of that update's commitments
    local t=$1
    shift
    local v=()
    for f in "$@"; do v+=(--vanilla "$f"); done
    "$BENCH" single --addr "$ADDR" --kind snap --registered-proof 0 "${v[@]}" \
        --comm-r-old "$(key comm_r_old "$t")" --comm-d-new "$(key comm_d_new "$t")" \
        --comm-r-new "$(key comm_r_new "$t")" "${EXTRA[@]}"
}
ADDR="unix://$S/d.sock"
expect 0 "config ok" -- "$DAEMON" --listen "$ADDR" --param-cache "$P" --preload snap-2k --check-config
"$DAEMON" --listen "$ADDR" --param-cache "$P" --preload snap-2k --log-file "$T/d.log" \
    --workers 1 2>/dev/null &
D=$!
pids+=("$D")
expect 0 "ready after" -- "$BENCH" wait-ready --addr "$ADDR" --timeout 120
for u in u g; do
    EXTRA=(--out "$T/$u.proof" --public-out "$T/$u.public")
    expect 0 "status=COMPLETED" -- snap "$T/$u.txt" "$T/$u/partition-0.vproof"
    expect 0 "proof is valid" -- "$CUZK" verify --vk "$VK" --public "$T/$u.public" --proof "$T/$u.proof"
    if [ "$(stat -c %s "$T/$u.proof")" -eq 192 ]; then ok; else bad "a 2 KiB update proof is 192 bytes"; fi
    # the public inputs: k_and_h_select = 0 | 1 << 0 (h = 1 at 2 KiB), then the commitments
    [ "$(grep -cv '^#' "$T/$u.public")" -eq 4 ] && ok || bad "4 public inputs: $(cat "$T/$u.public")"
done
# The proof of one update does not verify with the other's inputs.
expect 1 "INVALID" -- "$CUZK" verify --vk "$VK" --public "$T/g.public" --proof "$T/u.proof"
EXTRA=()
# Refusals: each names what is wrong; the daemon goes on.
expect 1 "comm_r_old is not Poseidon(comm_c, tree_r_old's root)" -- \
    snap "$T/u.txt" "$T/g/partition-0.vproof"
head -c 3000 "$T/u/partition-0.vproof" >"$T/trunc.vproof"
expect 1 "vanilla_proofs[0]" -- snap "$T/u.txt" "$T/trunc.vproof"
expect 2 "2 vanilla_proofs; StackedDrg2KiBV1 takes 1" -- \
    snap "$T/u.txt" "$T/u/partition-0.vproof" "$T/u/partition-0.vproof"
EXTRA=(--out "$T/again.proof")
expect 0 "status=COMPLETED" -- snap "$T/u.txt" "$T/u/partition-0.vproof"
stop_daemons "$D"
echo "test_snap: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && rm -rf "$T"
[ "$fail" -eq 0 ]
