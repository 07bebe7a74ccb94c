#!/usr/bin/env bash
# `cuzk piece`: known answers from independent implementations and bad
# arguments exiting 2 with one clear line.
#   commP: go-fil-commp-hashhash testdata/0xCC.txt (files of SIZE bytes of
#     0xCC, their piece CIDs from Lotus's ClientCalcCommP).
#   comm_d of empty sectors: Curio's sectors_cc_values (harmonydb
#     20240611-snap-pipeline.sql) for 2 KiB and 32 GiB, and the 32 GiB
#     root in Curio lib/proof/treed_build_test.go (expect32Null's last
#     line, 077e5fde...).
#   sealed CID: tests/fixtures/filecoin/post-32g-window.json's sector CID
#     against bytes 8..40 of post-32g-window.vproof (its comm_r).
set -u
CUZK=$1
T=${2:-${TMPDIR:-/tmp}/cuzk-test-piece-$$}
FIX=$(dirname "$0")/../fixtures/filecoin
rm -rf "$T" && mkdir -p "$T"
. "$(dirname "$0")/../lib/expect.sh"
# exact WANT -- command...: stdout is exactly WANT, exit 0
exact() {
    local want=$1
    shift 2
    local out rc
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -eq 0 ] && [ "$out" = "$want" ]; then ok; else bad "$* -> rc=$rc '$out' (want '$want')"; fi
}
cc() { head -c "$1" /dev/zero | tr '\0' '\314' >"$T/cc$1"; }

cc 96
cc 768
cc 1017
exact "piece_cid=baga6ea4seaqhwcjhi4krhl3ht6dewnwevkpxbepxy7p7onwgz65t52typbsysby
padded_size=128" -- bash -c "'$CUZK' piece commp '$T/cc96' | head -2"
exact "baga6ea4seaqb6xvxaybzp6vslujjiwvgt23ckrwt7y53eddy5qmc6csnc37lwpi 1024" -- \
    bash -c "'$CUZK' piece commp '$T/cc768' | sed -n 's/^\(piece_cid\|padded_size\)=//p' | paste -sd' '"
exact "baga6ea4seaqf3n5ob5qonkwnxfcbjzftsagbnrjfzualqvzhcylz46b7sgz6wmi" -- \
    bash -c "'$CUZK' piece commp '$T/cc1017' | sed -n 's/^piece_cid=//p'"
# the raw commP, back through piece cid --unsealed, is the same CID
hex=$("$CUZK" piece commp "$T/cc768" | sed -n 's/^commp=//p')
exact "baga6ea4seaqb6xvxaybzp6vslujjiwvgt23ckrwt7y53eddy5qmc6csnc37lwpi" -- \
    "$CUZK" piece cid "$hex" --unsealed

# sealed CID <-> comm_r of the fixture
SEALED=$(grep -o 'bagboea4b5abc[a-z0-9]*' "$FIX/post-32g-window.json" | head -1)
COMMR=$(od -An -tx1 -j8 -N32 "$FIX/post-32g-window.vproof" | tr -d ' \n')
exact "kind=sealed
commitment=$COMMR" -- "$CUZK" piece cid "$SEALED"
exact "$SEALED" -- "$CUZK" piece cid --sealed "$COMMR"
exact "$SEALED" -- "$CUZK" piece cid --sealed "0x$COMMR"

# comm_d of empty sectors, and of a sector of pieces
exact "comm_d_cid=baga6ea4seaqpy7usqklokfx2vxuynmupslkeutzexe2uqurdg5vhtebhxqmpqmy
comm_d=fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833" -- \
    "$CUZK" piece commd --sector-size 2KiB
exact "comm_d_cid=baga6ea4seaqao7s73y24kcutaosvacpdjgfe5pw76ooefnyqw4ynr3d2y6x2mpq
comm_d=077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e" -- \
    "$CUZK" piece commd --sector-size 32GiB
# a 1024-byte piece filling a 1024-byte sector is its own comm_d
exact "comm_d_cid=baga6ea4seaqb6xvxaybzp6vslujjiwvgt23ckrwt7y53eddy5qmc6csnc37lwpi" -- \
    bash -c "'$CUZK' piece commd --sector-size 1024 \
        baga6ea4seaqb6xvxaybzp6vslujjiwvgt23ckrwt7y53eddy5qmc6csnc37lwpi:1024 | head -1"
# the 1 KiB zero piece (go-fil-commp-hashhash zero.txt) in a 2 KiB sector:
# the empty sector
exact "comm_d_cid=baga6ea4seaqpy7usqklokfx2vxuynmupslkeutzexe2uqurdg5vhtebhxqmpqmy" -- \
    bash -c "'$CUZK' piece commd --sector-size 2KiB \
        baga6ea4seaqb66wjlfkrbye6uqoemcyxmqylwmrm235uclwfpsyx3ge2imidoly:1KiB | head -1"

# refused, one line, exit 2
expect 2 "No such file" -- "$CUZK" piece commp "$T/none"
expect 2 "empty piece" -- "$CUZK" piece commp /dev/null
expect 2 "multibase prefix 'Q'" -- "$CUZK" piece cid QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG
expect 2 "is not base32" -- "$CUZK" piece cid baga6ea4seaq1omn3tgwgrh3g532zopskstnbrd2n3sxfqbze7rxt7vqn7veigmy
expect 2 "codec 0x70" -- "$CUZK" piece cid bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi
expect 2 "digest bytes, want 32" -- "$CUZK" piece cid baga6ea4seaqdomn3tgwgrh3g532zopskstnbrd2n3sxfqbze7rxt7vq
expect 2 "not 64 hex digits" -- "$CUZK" piece cid --sealed abcd
expect 2 "top two bits" -- "$CUZK" piece cid --unsealed "$(printf 'ff%.0s' $(seq 32))"
expect 2 "not below the modulus" -- "$CUZK" piece cid --sealed "$(printf 'ff%.0s' $(seq 32))"
expect 2 "once" -- "$CUZK" piece cid --sealed --unsealed "$COMMR"
expect 2 "sealed CID, not a piece" -- "$CUZK" piece commd --sector-size 2KiB "$SEALED:128"
expect 2 "does not fit" -- "$CUZK" piece commd --sector-size 2KiB \
    baga6ea4seaqpy7usqklokfx2vxuynmupslkeutzexe2uqurdg5vhtebhxqmpqmy:4KiB
expect 2 "not a power of two" -- "$CUZK" piece commd --sector-size 2KiB \
    baga6ea4seaqpy7usqklokfx2vxuynmupslkeutzexe2uqurdg5vhtebhxqmpqmy:192
expect 2 "--sector-size S" -- "$CUZK" piece commd
expect 2 "unknown subcommand" -- "$CUZK" piece frob
echo "test_piece: $pass passed, $fail failed"
rm -rf "$T"
[ "$fail" -eq 0 ]
