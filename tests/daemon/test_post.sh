#!/usr/bin/env bash
# WinningPoSt and WindowPoSt through the real daemon, as Curio sends them
# (WINNING_POST / WINDOW_POST_PARTITION, registered proof, randomness, one
# bincode vanilla proof per sector), at 2 KiB on the CPU backend:
#   - test parameters from `cuzk setup --circuit` under their v28 names; the
#     daemon records a missing constraint system itself and caches it;
#   - sectors from `cuzk gen post`; every proof verified offline with
#     `cuzk verify` against the .vk and the public inputs the daemon returns;
#   - a short WindowPoSt partition (1 sector of 2), WindowPoSt V1 (API 1.0.0)
#     and V1_1 (API 1.2.0), Winning at CRITICAL priority;
#   - malformed requests fail their job naming where, and the daemon goes on;
#     a proof type whose parameters are missing says how to make them.
# Every daemon started here is stopped by its own pid.
# Usage: test_post.sh CUZK_DAEMON CUZK_BENCH CUZK WORK_DIR
set -u
DAEMON=$1 BENCH=$2 CUZK=$3 T=$4
rm -rf "$T" && mkdir -p "$T/params"
. "$(dirname "$0")/../lib/expect.sh"
. "$(dirname "$0")/../lib/daemon.sh"
P="$T/params"
R=0101010101010101010101010101010101010101010101010101010101010101
R2=0202020202020202020202020202020202020202020202020202020202020202
WIN=v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e
WDW=v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0
expect 0 "not Filecoin's" -- "$CUZK" setup --circuit post-window-2k --out "$P"
# The Winning constraint system goes to a folder of its own (--pce-dir: the
# daemon's srs.pce_dir); a folder that is not there, or --pce-dir without
# --circuit, is refused before anything is written.
expect 2 "--pce-dir $T/nowhere: not an existing folder" -- "$CUZK" setup \
    --circuit post-winning-2k --out "$P" --pce-dir "$T/nowhere"
expect 2 "--pce-dir goes with --circuit" -- "$CUZK" setup --constraints 64 --out "$T/x" \
    --pce-dir "$T"
if [ ! -e "$P/$WIN.params" ] && [ ! -e "$T/x.params" ]; then ok; else bad "a refused setup wrote parameters"; fi
mkdir -p "$T/pcedir"
expect 0 "not Filecoin's" -- "$CUZK" setup --circuit post-winning-2k --out "$P" \
    --pce-dir "$T/pcedir"
if [ -s "$T/pcedir/$WIN.pce" ] && [ ! -e "$P/$WIN.pce" ] && [ -s "$P/$WIN.params" ] &&
    [ -s "$P/$WIN.vk" ]; then ok; else bad "setup --pce-dir: .pce in its folder, .params and .vk in --out"; fi
# The daemon records the Winning constraint system itself (and caches it).
mv "$T/pcedir/$WIN.pce" "$T/winning-setup.pce"

ADDR="unix://$S/d.sock"
# A Filecoin circuit id in srs.preload: loaded (and checked by
# --check-config) under its v28 name before the daemon says ready.
expect 0 "config ok" -- "$DAEMON" --check-config --listen "$ADDR" --param-cache "$P" \
    --preload post-window-2k
expect 2 "srs.preload post-window-8m: $P/" -- "$DAEMON" --check-config --listen "$ADDR" \
    --param-cache "$P" --preload post-window-8m
"$DAEMON" --listen "$ADDR" --param-cache "$P" --log-file "$T/d.log" --workers 1 \
    --preload post-window-2k 2>/dev/null &
D=$!
pids+=("$D")
expect 0 "ready after" -- "$BENCH" wait-ready --addr "$ADDR" --timeout 60
expect 0 "srs circuit=post-window-2k tier=hot" -- "$BENCH" status --addr "$ADDR"
# PreloadSRS of a Filecoin circuit id finds its v28 files too (and records its
# constraint system, whose file was moved away above); an unknown size is named.
expect 0 "" -- "$BENCH" preload post-winning-2k --addr "$ADDR"
expect 0 "srs circuit=post-winning-2k tier=hot" -- "$BENCH" status --addr "$ADDR"
expect 2 "post-window-8m" -- "$BENCH" preload post-window-8m --addr "$ADDR"

# prove NAME KIND NUMBER RAND DIR [more bench args]: the proof and its public
# inputs in $T/NAME.proof / .public.
prove() {
    local name=$1 kind=$2 num=$3 rand=$4 dir=$5
    shift 5
    expect 0 "status=COMPLETED" -- "$BENCH" single --addr "$ADDR" --kind "$kind" \
        --registered-proof "$num" --randomness "$rand" --vanilla-dir "$dir" \
        --out "$T/$name.proof" --public-out "$T/$name.public" "$@"
}
verify() { # NAME VK-BASE
    expect 0 "proof is valid" -- "$CUZK" verify --vk "$P/$2.vk" --public "$T/$1.public" \
        --proof "$T/$1.proof"
}

# WindowPoSt V1_1 (registered proof 10, API 1.2.0): 2 sectors, then 1 (padded).
expect 0 "sector" -- "$CUZK" gen post --proof-type window --sector-size 2KiB --sectors 2 \
    --registered-proof 10 --randomness "$R" --seed 3 --out "$T/w2"
prove w2 window-post 10 "$R" "$T/w2" --sector-size 2048
verify w2 "$WDW"
if [ "$(stat -c %s "$T/w2.proof")" -eq 192 ]; then ok; else bad "a partition's proof is 192 bytes"; fi
expect 0 "sector" -- "$CUZK" gen post --proof-type window --sector-size 2KiB --sectors 1 \
    --registered-proof 10 --randomness "$R" --seed 4 --out "$T/w1"
prove w1 window-post 10 "$R" "$T/w1"
verify w1 "$WDW"
# WindowPoSt V1 (registered proof 5, API 1.0.0): same parameters, other
# challenges; partition 1 moves them again.
expect 0 "sector" -- "$CUZK" gen post --proof-type window --sector-size 2KiB --sectors 2 \
    --registered-proof 5 --randomness "$R2" --partition-index 1 --first-sector 10 \
    --out "$T/w5"
prove w5 window-post 5 "$R2" "$T/w5" --partition-index 1
verify w5 "$WDW"
# WinningPoSt at CRITICAL priority; its constraint system was recorded by the
# daemon, the same bytes as the one setup wrote.
expect 0 "sector" -- "$CUZK" gen post --proof-type winning --sector-size 2KiB \
    --randomness "$R" --out "$T/n"
prove n winning-post 0 "$R" "$T/n" --priority critical
verify n "$WIN"
contains "$T/d.log" "event=record_circuit circuit=post-winning-2k" "the daemon recorded the circuit"
if cmp -s "$P/$WIN.pce" "$T/winning-setup.pce"; then ok; else
    bad "the daemon's constraint system differs from setup's"
fi

# Malformed requests: the job fails naming where; the daemon goes on.
cp -r "$T/w2" "$T/bad"
head -c 100 "$T/w2/sector-2.vproof" >"$T/bad/sector-2.vproof"
expect 1 "error: vanilla_proofs[1].sectors: length 1 at byte 40" -- "$BENCH" single --addr "$ADDR" --kind window-post \
    --registered-proof 10 --randomness "$R" --vanilla-dir "$T/bad"
expect 1 "is for leaf" -- "$BENCH" single --addr "$ADDR" --kind window-post \
    --registered-proof 10 --randomness "$R2" --vanilla-dir "$T/w2"
# A path that does not hash to its root: a byte changed where the offline
# check (which hashes every path before anything else) says so; the daemon
# leaves the hashing to the witness, which must name the same proof.
cp -r "$T/w2" "$T/miss"
mf="$T/miss/sector-2.vproof"
msize=$(stat -c %s "$mf")
want=""
for ((off = 120; off < msize - 100; off += 97)); do
    cp "$T/w2/sector-2.vproof" "$mf"
    printf '\125' | dd of="$mf" bs=1 seek=$off conv=notrunc status=none
    want=$("$CUZK" post check --registered-proof 10 --randomness "$R" --miner-id 1000 \
        "$T/miss"/sector-*.vproof 2>&1 |
        grep -o 'vanilla_proofs\[[0-9]*\] (sector [0-9]*): inclusion proof [0-9]* does not hash to its root')
    [ -n "$want" ] && break
done
if [ -n "$want" ]; then ok; else bad "no byte of sector-2.vproof made a path miss its root"; fi
expect 1 "${want:-does not hash to its root}" -- "$BENCH" single --addr "$ADDR" --kind window-post \
    --registered-proof 10 --randomness "$R" --vanilla-dir "$T/miss"
expect 2 "is StackedDrgWindow2KiBV1_1, not a winning-post proof" -- "$BENCH" single \
    --addr "$ADDR" --kind winning-post --registered-proof 10 --randomness "$R" \
    --vanilla-dir "$T/w1"
expect 2 "is for 2KiB sectors, the request says sector_size 34359738368 (32GiB)" -- \
    "$BENCH" single --addr "$ADDR" --kind window-post --registered-proof 10 \
    --sector-size 34359738368 --randomness "$R" --vanilla-dir "$T/w2"
# 8 MiB parameters are not in the folder: the job says how to make them.
expect 0 "sector" -- "$CUZK" gen post --proof-type window --sector-size 8MiB --sectors 1 \
    --registered-proof 11 --randomness "$R" --out "$T/w8"
expect 1 "cuzk setup --circuit post-window-8m" -- "$BENCH" single --addr "$ADDR" \
    --kind window-post --registered-proof 11 --randomness "$R" --vanilla-dir "$T/w8"
prove again window-post 10 "$R" "$T/w2"
verify again "$WDW"

kill -TERM "$D"
for _ in $(seq 300); do kill -0 "$D" 2>/dev/null || break; sleep 0.1; done
wait "$D"
rc=$?
if [ "$rc" -eq 0 ]; then ok; else bad "daemon exit $rc"; fi
echo "test_post: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && rm -rf "$T"
[ "$fail" -eq 0 ]
