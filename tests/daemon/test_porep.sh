#!/usr/bin/env bash
# PoRep C2 through the real daemon, as Curio sends it (POREP_SEAL_COMMIT:
# registered proof, sector number, miner id, and as vanilla_proof Curio's
# envelope {SectorNum, Phase1Out: base64 of the C1 JSON, SectorSize}), at
# 2 KiB on the CPU backend:
#   - test parameters from `cuzk setup --circuit porep-2k`; a sector sealed
#     and its C1 output made by `cuzk c1`; the envelope written by Python
#     (json, base64), not by cuzk;
#   - the proof verified offline with `cuzk verify` against the .vk and the
#     public inputs the daemon returns;
#   - the same sector sealed as synthetic PoRep (registered proof 10):
#     proven and verified with its own public inputs, not the interactive
#     ones (`cuzk porep inputs` of each C1);
#   - a C1 of another sector, another miner's, a corrupt C1, a size
#     contradiction, a C1 of another registered proof and non-interactive
#     PoRep fail naming what is wrong, and the daemon goes on.
# Every daemon started here is stopped by its own pid.
# Usage: test_porep.sh CUZK_DAEMON CUZK_BENCH CUZK WORK_DIR
set -u
DAEMON=$1 BENCH=$2 CUZK=$3 T=$4
rm -rf "$T" && mkdir -p "$T/params"
. "$(dirname "$0")/../lib/expect.sh"
. "$(dirname "$0")/../lib/daemon.sh"
P="$T/params"
FIX="$(dirname "$0")/../fixtures/filecoin/polka-test-data-big.car"
PROVER=e807$(printf '00%.0s' $(seq 30)) # miner 1000 (LEB128, zero padded)
TICKET=$(printf '0c%.0s' $(seq 32))
SEED=$(printf '0d%.0s' $(seq 32))
VK=$P/v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk
expect 0 "not Filecoin's" -- "$CUZK" setup --circuit porep-2k --out "$P"
expect 0 "challenge[0][1]=" -- "$CUZK" c1 --registered-proof 5 --prover-id "$PROVER" \
    --sector-number 7 --ticket "$TICKET" --seed "$SEED" "$FIX" --out "$T/c1.json"
envelope() { # C1 SECTOR SIZE OUT
    $PY -c 'import base64, json, sys
c1 = open(sys.argv[1], "rb").read()
open(sys.argv[4], "w").write(json.dumps({"SectorNum": int(sys.argv[2]),
    "Phase1Out": base64.b64encode(c1).decode(), "SectorSize": int(sys.argv[3])},
    separators=(",", ":")))' "$@"
}
envelope "$T/c1.json" 7 2048 "$T/env.json"
# The same data sealed as synthetic PoRep (registered proof 10): the same
# circuit and parameters, its challenges drawn from the synthetic set.
expect 0 "challenge[0][1]=" -- "$CUZK" c1 --registered-proof 10 --prover-id "$PROVER" \
    --sector-number 7 --ticket "$TICKET" --seed "$SEED" "$FIX" --out "$T/c1-syn.json"
envelope "$T/c1-syn.json" 7 2048 "$T/env-syn.json"

ADDR="unix://$S/d.sock"
# A Filecoin circuit's preload needs its parameter file.
expect 2 "(ENOENT) (Filecoin's v28 parameters belong in srs.param_cache; \`cuzk setup --circuit snap-2k\` makes test parameters)" -- \
    "$DAEMON" --listen "$ADDR" --param-cache "$P" --preload snap-2k --check-config
"$DAEMON" --listen "$ADDR" --param-cache "$P" --preload porep-2k --log-file "$T/d.log" \
    --workers 1 2>/dev/null &
D=$!
pids+=("$D")
expect 0 "ready after" -- "$BENCH" wait-ready --addr "$ADDR" --timeout 60
grep -q "circuit=porep-2k" "$T/d.log" && ok || bad "porep-2k not preloaded: $(tail -3 "$T/d.log")"
expect 0 "status=COMPLETED" -- "$BENCH" single --addr "$ADDR" --kind porep --registered-proof 5 \
    --sector-size 2048 --vanilla "$T/env.json" --sector-number 7 --miner-id 1000 \
    --out "$T/p.proof" --public-out "$T/p.public"
expect 0 "proof is valid" -- "$CUZK" verify --vk "$VK" --public "$T/p.public" --proof "$T/p.proof"
if [ "$(stat -c %s "$T/p.proof")" -eq 192 ]; then ok; else bad "a 2 KiB PoRep proof is 192 bytes"; fi

# Refusals: each names what is wrong; the daemon goes on.
expect 1 "replica_id" -- "$BENCH" single --addr "$ADDR" --kind porep --registered-proof 5 \
    --vanilla "$T/env.json" --sector-number 7 --miner-id 1001
envelope "$T/c1.json" 8 2048 "$T/env8.json"
expect 1 "vanilla_proof.SectorNum 8: the request is for sector 7" -- "$BENCH" single \
    --addr "$ADDR" --kind porep --registered-proof 5 --vanilla "$T/env8.json" --sector-number 7 \
    --miner-id 1000
sed 's/"seed":\[13,/"seed":[14,/' "$T/c1.json" >"$T/c1-bad.json"
envelope "$T/c1-bad.json" 7 2048 "$T/env-bad.json"
expect 1 "C1 output of sector 7" -- "$BENCH" single --addr "$ADDR" --kind porep \
    --registered-proof 5 --vanilla "$T/env-bad.json" --sector-number 7 --miner-id 1000
expect 2 "is for 2KiB sectors, the request says sector_size 34359738368" -- "$BENCH" single \
    --addr "$ADDR" --kind porep --registered-proof 5 --sector-size 34359738368 \
    --vanilla "$T/env.json" --sector-number 7 --miner-id 1000
expect 0 "status=COMPLETED" -- "$BENCH" single --addr "$ADDR" --kind porep \
    --registered-proof 10 --vanilla "$T/env-syn.json" --sector-number 7 --miner-id 1000 \
    --out "$T/syn.proof" --public-out "$T/syn.public"
expect 0 "proof is valid" -- "$CUZK" verify --vk "$VK" --public "$T/syn.public" --proof "$T/syn.proof"
# Its public inputs are porep inputs' (the synthetic challenges), not the
# interactive ones of the same sector.
"$CUZK" porep inputs --c1 "$T/c1-syn.json" --sector-number 7 --prover-id "$PROVER" \
    >"$T/syn-cli.public" 2>/dev/null
"$CUZK" porep inputs --c1 "$T/c1.json" --sector-number 7 --prover-id "$PROVER" \
    >"$T/int-cli.public" 2>/dev/null
if [ -s "$T/syn-cli.public" ] && ! cmp -s "$T/syn-cli.public" "$T/int-cli.public"; then ok
else bad "synthetic and interactive public inputs of one sector should differ"; fi
expect 1 "partition 0: INVALID" -- "$CUZK" verify --vk "$VK" --public "$T/int-cli.public" \
    --proof "$T/syn.proof"
expect 0 "proof is valid" -- "$CUZK" verify --vk "$VK" --public "$T/syn-cli.public" \
    --proof "$T/syn.proof"
expect 1 "C1 output is for registered proof 5, the request for 10" -- "$BENCH" single \
    --addr "$ADDR" --kind porep --registered-proof 10 --vanilla "$T/env.json" \
    --sector-number 7 --miner-id 1000
expect 2 "registered_proof 18 (StackedDrg32GiBV1_2_Feat_NiPoRep) is non-interactive-porep" -- \
    "$BENCH" single --addr "$ADDR" --kind porep --registered-proof 18 --vanilla "$T/env.json" \
    --sector-number 7 --miner-id 1000
expect 2 "the C1 output comes as one vanilla_proof" -- "$BENCH" single --addr "$ADDR" \
    --kind porep --registered-proof 5 --sector-number 7 --miner-id 1000
expect 0 "status=COMPLETED" -- "$BENCH" single --addr "$ADDR" --kind porep --registered-proof 5 \
    --vanilla "$T/env.json" --sector-number 7 --miner-id 1000

stop_daemons "$D"

# A cached constraint system of an older format (version 1) is recorded
# again by the next daemon, which then proves as before.
PCE=$(ls "$P"/*.pce 2>/dev/null | head -1)
if [ -n "$PCE" ]; then ok; else bad "no cached .pce in $P"; fi
printf '\x01' | dd of="$PCE" bs=1 seek=8 conv=notrunc status=none
"$DAEMON" --listen "$ADDR" --param-cache "$P" --log-file "$T/d2.log" --workers 1 2>/dev/null &
D=$!
pids+=("$D")
expect 0 "ready after" -- "$BENCH" wait-ready --addr "$ADDR" --timeout 60
expect 0 "status=COMPLETED" -- "$BENCH" single --addr "$ADDR" --kind porep --registered-proof 5 \
    --vanilla "$T/env.json" --sector-number 7 --miner-id 1000
grep -q 'event=pce_stale .*version 1 (64-bit row pointers).* action=record_again' "$T/d2.log" && ok ||
    bad "no pce_stale warning: $(grep -i pce "$T/d2.log" | head -3)"
[ "$(od -An -tu4 -j8 -N4 "$PCE" | tr -d ' ')" = 2 ] && ok || bad "the .pce was not recorded again"
stop_daemons "$D"
echo "test_porep: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && rm -rf "$T"
[ "$fail" -eq 0 ]
