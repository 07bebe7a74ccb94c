#!/usr/bin/env bash
# `cuzk gen post` and `cuzk post check` end to end: synthetic sectors of
# each shape satisfy the FallbackPoSt circuit, with the constraint and input
# counts of the reference:
#   Winning 32 GiB 370,590 constraints and 133 inputs (rust-fil-proofs
#   filecoin-proofs constants.rs, the published circuit size); Window 2 KiB
#   21,866 and 23 (2 sectors x (313 + 10 x 1,062), the count
#   test_circuits_post.c derives and checks in record mode);
# post check prints C including bellperson's input constraints (one per
# input, ONE included), so 370,590 + 133 and 21,866 + 23. Curio's real
# 32 GiB WindowPoSt proof checks out (its first circuit sectors).
# Then every malformed class exits 2 with a message naming the file, the
# field and the byte offset or the sector: truncated file, ProofData variant,
# a length claiming gigabytes, a path of another sector size, comm_r that is
# not Poseidon(comm_c, comm_r_last), non-canonical randomness, too many
# sectors, an unknown registered proof, and the request's own mismatches
# (randomness, partition).
set -u
CUZK=$1
T=$2
rm -rf "$T" && mkdir -p "$T"
. "$(dirname "$0")/../lib/expect.sh"

R=0101010101010101010101010101010101010101010101010101010101010101
R2=0202020202020202020202020202020202020202020202020202020202020202
check() { "$CUZK" post check --randomness "$R" --miner-id 1000 "$@"; }
# patch FILE OFFSET 'BYTES' (printf escapes): overwrite bytes in place.
patch() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }

# 2 KiB WindowPoSt (V1_1, API 1.2.0 by default): 2 sectors, then 1 (padded).
expect 0 "sector-2.vproof: sector 2" -- "$CUZK" gen post --proof-type window --sector-size 2KiB \
    --sectors 2 --randomness "$R" --out "$T/w2k"
expect 0 "satisfied: 21889 constraints, 23 public inputs" -- \
    check --proof-type window --sector-size 2KiB "$T/w2k/sector-1.vproof" "$T/w2k/sector-2.vproof"
expect 0 "satisfied: 21889 constraints, 23 public inputs" -- \
    check --registered-proof 10 "$T/w2k/sector-2.vproof"
expect 0 "StackedDrgWindow2KiBV1_1 (API 1.2.0), partition 0, 1 file(s), 2 of 2 circuit sector(s)" -- \
    check --registered-proof 10 "$T/w2k/sector-2.vproof"
# request.json: the request's public data (prover id of miner 1000: e8 07).
req=$(cat "$T/w2k/request.json")
c1=$("$CUZK" gen post --proof-type window --sector-size 2KiB --sectors 2 --randomness "$R" \
    --out "$T/again" | sed -n 's/.*sector-1.vproof: sector 1, 5680 bytes, comm_r //p')
want="{\"registered_proof\": 10, \"proof_type\": \"window\", \"sector_size\": 2048, \"randomness\": \"$R\", \"prover_id\": \"e807$(printf '0%.0s' {1..60})\", \"miner_id\": 1000, \"partition_index\": 0, \"sectors\": [{\"sector_id\": 1, \"comm_r\": \"$c1\"}, {\"sector_id\": 2, "
if [ "${#c1}" -eq 64 ] && [ "${req#"$want"}" != "$req" ]; then ok; else bad "request.json: $req (want $want...)"; fi
# The same arguments give the same bytes; another seed another sector.
if cmp -s "$T/w2k/sector-1.vproof" "$T/again/sector-1.vproof"; then ok; else bad "gen post is not deterministic"; fi
"$CUZK" gen post --proof-type window --sector-size 2KiB --seed 2 --randomness "$R" --out "$T/seed2" >/dev/null
if cmp -s "$T/w2k/sector-1.vproof" "$T/seed2/sector-1.vproof"; then bad "--seed changes nothing"; else ok; fi
expect 0 "satisfied" -- check --registered-proof 10 "$T/seed2/sector-1.vproof"

# 2 KiB and 32 GiB WinningPoSt: one sector, 66 challenges.
expect 0 "sector-7.vproof: sector 7" -- "$CUZK" gen post --proof-type winning --sector-size 2KiB \
    --first-sector 7 --randomness "$R" --out "$T/win2k"
expect 0 "satisfied: 90883 constraints, 133 public inputs" -- \
    check --proof-type winning --sector-size 2KiB "$T/win2k/sector-7.vproof"
expect 0 "StackedDrgWinning32GiBV1" -- "$CUZK" gen post --proof-type winning --sector-size 32GiB \
    --randomness "$R" --out "$T/win32"
expect 0 "satisfied: 370723 constraints, 133 public inputs" -- \
    check --registered-proof 3 "$T/win32/sector-1.vproof"

# 8 MiB WindowPoSt, partition 1, API 1.0.0 (its challenges depend on the
# sector's position in the request): satisfied at partition 1 only.
expect 0 "StackedDrgWindow8MiBV1 (API 1.0.0), partition 1, 2 sector(s)" -- "$CUZK" gen post \
    --proof-type window --sector-size 8MiB --api-version 1.0.0 --partition-index 1 --sectors 2 \
    --first-sector 3 --randomness "$R" --out "$T/w8m"
expect 0 "satisfied: 64289 constraints, 23 public inputs" -- check --registered-proof 6 \
    --partition-index 1 "$T/w8m/sector-3.vproof" "$T/w8m/sector-4.vproof"
expect 2 "$T/w8m/sector-3.vproof: vanilla_proofs[0] (sector 3): inclusion proof 0 is for leaf" -- \
    check --registered-proof 6 "$T/w8m/sector-3.vproof" "$T/w8m/sector-4.vproof"
# Sector 3 in the second place: the message names the second file.
cp "$T/w8m/sector-3.vproof" "$T/w8m/dup.vproof"
expect 2 "$T/w8m/dup.vproof: vanilla_proofs[1] (sector 3): inclusion proof 0 is for leaf" -- \
    check --registered-proof 6 --partition-index 1 "$T/w8m/sector-3.vproof" "$T/w8m/dup.vproof"
# Another randomness: the challenges move.
expect 2 "vanilla_proofs[0] (sector 1): inclusion proof 0 is for leaf" -- "$CUZK" post check \
    --registered-proof 10 --randomness "$R2" --prover-id "$R" "$T/w2k/sector-1.vproof"

# Curio's real 32 GiB WindowPoSt vanilla proof (its golden test: zero
# randomness, StackedDrgWindow32GiBV1, miner 1000): the partition of 2349
# circuit sectors is built and checked whole; the circuit synthesized over
# its first 1 and 2 (53,333 constraints a sector, test_circuits_post.c).
G=$(dirname "$0")/../fixtures/filecoin/post-32g-window.vproof
Z=$(printf '0%.0s' {1..64})
expect 0 "1 file(s), 1 of 2349 circuit sector(s)" -- "$CUZK" post check --registered-proof 8 \
    --randomness "$Z" --miner-id 1000 --sectors-in-circuit 1 "$G"
expect 0 "satisfied: 53345 constraints, 12 public inputs" -- "$CUZK" post check \
    --registered-proof 8 --randomness "$Z" --miner-id 1000 --sectors-in-circuit 1 "$G"
expect 0 "satisfied: 106689 constraints, 23 public inputs" -- "$CUZK" post check \
    --registered-proof 8 --randomness "$Z" --miner-id 1000 --sectors-in-circuit 2 "$G"
expect 2 "vanilla_proofs[0] (sector 1): inclusion proof 0 is for leaf 707914199, but challenge 23490" -- \
    "$CUZK" post check --registered-proof 8 --randomness "$Z" --miner-id 1000 \
    --partition-index 1 --sectors-in-circuit 1 "$G"
expect 2 "--sectors-in-circuit 2350: StackedDrgWindow32GiBV1 has 2349 circuit sectors" -- \
    "$CUZK" post check --registered-proof 8 --randomness "$Z" --miner-id 1000 \
    --sectors-in-circuit 2350 "$G"

# Malformed files, each named with the field and byte offset.
F=$T/w2k/sector-1.vproof
head -c 1000 "$F" >"$T/trunc.vproof"
expect 2 "$T/trunc.vproof: proof.sectors[0].inclusion_proofs[1].path.path[1].hashes: length 7 at byte 928 needs at least 224 bytes, 64 remain" -- \
    check --registered-proof 10 "$T/trunc.vproof"
cp "$F" "$T/variant.vproof" && patch "$T/variant.vproof" 56 '\x07'
expect 2 "$T/variant.vproof: proof.sectors[0].inclusion_proofs[0]: ProofData variant 7 at byte 56 (0 Single, 1 Sub, 2 Top)" -- \
    check --registered-proof 10 "$T/variant.vproof"
cp "$F" "$T/giga.vproof" && patch "$T/giga.vproof" 48 '\x00\x00\x00\x00\x01\x00\x00\x00'
expect 2 "$T/giga.vproof: proof.sectors[0].inclusion_proofs: length 4294967296 at byte 48" -- \
    check --registered-proof 10 "$T/giga.vproof"
cp "$F" "$T/many.vproof" && patch "$T/many.vproof" 40 '\x60\xea\x00\x00\x00\x00\x00\x00'
expect 2 "$T/many.vproof: proof.sectors: length 60000 at byte 40 needs at least 4320000 bytes" -- \
    check --registered-proof 10 "$T/many.vproof"
cp "$F" "$T/trailing.vproof" && printf '\0' >>"$T/trailing.vproof"
expect 2 "1 trailing bytes after the proof (byte 5680)" -- check --registered-proof 10 "$T/trailing.vproof"
# comm_c's lowest byte flipped: still canonical, no longer comm_r's preimage.
size=$(stat -c %s "$F")
cp "$F" "$T/commc.vproof"
b=$(od -An -tu1 -j $((size - 64)) -N1 "$F" | tr -d ' ')
patch "$T/commc.vproof" $((size - 64)) "\\x$(printf '%02x' $((b ^ 1)))"
expect 2 "$T/commc.vproof: vanilla_proofs[0] (sector 1): comm_r is not Poseidon(comm_c, comm_r_last)" -- \
    check --registered-proof 10 "$T/commc.vproof"
# A 32 GiB sector given as 2 KiB: paths of the wrong length.
"$CUZK" gen post --registered-proof 13 --randomness "$R" --out "$T/w32" >/dev/null
expect 2 "$T/w32/sector-1.vproof: vanilla_proofs[0] (sector 1): inclusion proof 0 has 10 levels (9 base, form 1); this sector size's tree has 2 (2 base, form 0)" -- \
    check --registered-proof 10 "$T/w32/sector-1.vproof"
# A Window sector given as Winning: 10 inclusion proofs, 66 wanted.
expect 2 "10 inclusion proofs; StackedDrgWinning2KiBV1 has 66 per sector" -- \
    check --registered-proof 0 "$F"
expect 2 "No such file" -- check --registered-proof 10 "$T/none.vproof"
expect 2 "3 vanilla proofs; a partition takes 1..2 sectors" -- \
    check --registered-proof 10 "$F" "$F" "$F"
expect 2 "2 vanilla proofs; a partition takes 1..1 sectors" -- check --registered-proof 0 \
    "$T/win2k/sector-7.vproof" "$T/win2k/sector-7.vproof"

# Bad requests.
BIG=ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff
expect 2 "randomness is not a canonical field element (byte 31 is 0xff; Curio clears its top two bits)" -- \
    "$CUZK" post check --registered-proof 10 --randomness "$BIG" --miner-id 1 "$F"
expect 2 "randomness is not a canonical field element (byte 31 is 0xff" -- "$CUZK" gen post \
    --registered-proof 10 --randomness "$BIG" --out "$T/x"
expect 2 "prover id is not a canonical field element" -- \
    "$CUZK" post check --registered-proof 10 --randomness "$R" --prover-id "$BIG" "$F"
expect 2 "randomness \"0x01\": 64 hex digits expected" -- \
    "$CUZK" post check --registered-proof 10 --randomness 0x01 --miner-id 1 "$F"
expect 2 "not hex at digit 0" -- "$CUZK" post check --registered-proof 10 \
    --randomness "zz${R:2}" --miner-id 1 "$F"
expect 2 "unknown registered PoSt proof 99 (0..4 Winning, 5..14 Window)" -- \
    check --registered-proof 99 "$F"
expect 2 "unknown registered PoSt proof 15" -- "$CUZK" gen post --registered-proof 15 \
    --randomness "$R" --out "$T/x"
expect 2 "--registered-proof 10 is StackedDrgWindow2KiBV1_1 (2KiB, API 1.2.0); the other options say otherwise" -- \
    check --registered-proof 10 --sector-size 32GiB "$F"
expect 2 "no winning-post proof for sector size 2KiB under API 1.2.0" -- "$CUZK" gen post \
    --proof-type winning --sector-size 2KiB --api-version 1.2.0 --randomness "$R" --out "$T/x"
expect 2 "no window-post proof for sector size 4KiB" -- "$CUZK" gen post --proof-type window \
    --sector-size 4096 --randomness "$R" --out "$T/x"
expect 2 "--sector-size \"2kb\": 2KiB, 8MiB, 512MiB, 32GiB, 64GiB or bytes" -- "$CUZK" gen post \
    --proof-type window --sector-size 2kb --randomness "$R" --out "$T/x"
expect 2 "--proof-type \"windows\": window or winning" -- check --proof-type windows \
    --sector-size 2KiB "$F"
expect 2 "the proof: --registered-proof N, or --proof-type and --sector-size" -- check "$F"
expect 2 "the prover: --prover-id HEX or --miner-id N" -- "$CUZK" post check \
    --registered-proof 10 --randomness "$R" "$F"
expect 2 "--prover-id is not the prover id of --miner-id 1001" -- "$CUZK" post check \
    --registered-proof 10 --randomness "$R" --miner-id 1001 --prover-id "e807${R:4}" "$F"
expect 0 "satisfied" -- "$CUZK" post check --registered-proof 10 --randomness "$R" \
    --miner-id 1000 --prover-id "e807$(printf '0%.0s' {1..60})" "$F"
expect 2 "no vanilla proof files given" -- check --registered-proof 10
expect 2 "--sectors 3: StackedDrgWindow2KiBV1_1 takes 1..2 per partition" -- "$CUZK" gen post \
    --registered-proof 10 --sectors 3 --randomness "$R" --out "$T/x"
expect 2 "--sectors 2: StackedDrgWinning32GiBV1 takes 1..1 per partition" -- "$CUZK" gen post \
    --registered-proof 3 --sectors 2 --randomness "$R" --out "$T/x"
expect 2 "WinningPoSt has one partition (index 0), not 1" -- "$CUZK" gen post \
    --registered-proof 3 --partition-index 1 --randomness "$R" --out "$T/x"
expect 2 "--out DIR is required" -- "$CUZK" gen post --registered-proof 3 --randomness "$R"
expect 2 "--seed: bad number \"x\"" -- "$CUZK" gen post --registered-proof 3 --seed x \
    --randomness "$R" --out "$T/x"
expect 2 "--seed is not an option of post check" -- check --registered-proof 10 --seed 3 "$F"
expect 2 "--out is not an option of post check" -- check --registered-proof 10 --out "$T/x" "$F"
expect 2 "--sectors-in-circuit is not an option of gen post" -- "$CUZK" gen post \
    --registered-proof 10 --sectors-in-circuit 1 --randomness "$R" --out "$T/x"
expect 2 "unknown option --frob" -- check --registered-proof 10 --frob "$F"
expect 2 "\"sectors\" is not porep, snap or post" -- "$CUZK" gen sectors
expect 2 "\"verify\" is not check" -- "$CUZK" post verify
: >"$T/file"
expect 2 "cannot create the folder $T/file/sub" -- "$CUZK" gen post --registered-proof 3 \
    --randomness "$R" --out "$T/file/sub"
if [ ! -e "$T/x" ]; then ok; else bad "a refused gen post made $T/x"; fi

echo "test_post: $pass passed, $fail failed"
rm -rf "$T"
[ "$fail" -eq 0 ]
