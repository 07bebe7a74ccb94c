#!/usr/bin/env bash
# The offline CLI end to end: synth, setup, prove (one and two partitions),
# verify, inspect; and its failures: invalid proofs exit 1 (from verify, and
# from prove, which verifies what it makes), bad files, bad arguments and
# unwritable outputs exit 2 with one clear line on stderr.
set -u
CUZK=$1
T=$2
rm -rf "$T" && mkdir -p "$T"
. "$(dirname "$0")/../lib/expect.sh"

expect 0 "wrote" -- "$CUZK" synth --constraints 2048 --public-inputs 3 --seed 5 --out "$T/c"
expect 0 "wrote" -- "$CUZK" synth --constraints 2048 --public-inputs 3 --seed 6 --out "$T/d"
expect 0 "total_s=" -- "$CUZK" setup --pce "$T/c.pce" --out "$T/c"
expect 0 "wrote" -- "$CUZK" setup --constraints 2048 --public-inputs 3 --seed 5 --out "$T/c2"
expect 0 "total_s=" -- "$CUZK" prove --params "$T/c.params" --pce "$T/c.pce" --witness "$T/c.wit" --out "$T/c.proof"
expect 0 "proof is valid" -- "$CUZK" verify --vk "$T/c.vk" --public "$T/c.public" --proof "$T/c.proof"
# The PCE from `setup --constraints` equals the one from `synth` (same seed).
if cmp -s "$T/c.pce" "$T/c2.pce"; then ok; else bad "setup --constraints wrote a different pce"; fi
# Another key for the same circuit rejects the proof.
expect 1 "INVALID" -- "$CUZK" verify --vk "$T/c2.vk" --public "$T/c.public" --proof "$T/c.proof"
# Wrong public input.
sed '$ s/.$/0/' "$T/c.public" > "$T/wrong.public"
if cmp -s "$T/c.public" "$T/wrong.public"; then sed -i '$ s/.$/1/' "$T/wrong.public"; fi
expect 1 "INVALID" -- "$CUZK" verify --vk "$T/c.vk" --public "$T/wrong.public" --proof "$T/c.proof"
# Two partitions: witness c and witness d of the same circuit shape (seed 6
# builds another circuit, so d's witness is rejected against c's pce).
expect 2 "partition 1" -- "$CUZK" prove --params "$T/c.params" --pce "$T/c.pce" --witness "$T/c.wit" --witness "$T/d.wit" --out "$T/two.proof"
expect 0 "2 x 192" -- "$CUZK" prove --params "$T/c.params" --pce "$T/c.pce" --witness "$T/c.wit" --witness "$T/c.wit" --out "$T/two.proof"
cat "$T/c.public" "$T/c.public" > "$T/two.public"
expect 0 "proof is valid (2 partition(s))" -- "$CUZK" verify --vk "$T/c.vk" --public "$T/two.public" --proof "$T/two.proof"
expect 2 "partition(s) x 3 inputs expected" -- "$CUZK" verify --vk "$T/c.vk" --public "$T/c.public" --proof "$T/two.proof"
# Fixed r, s: the same bytes at 1 and 2 threads.
expect 0 "wrote" -- "$CUZK" prove --params "$T/c.params" --pce "$T/c.pce" --witness "$T/c.wit" --out "$T/f1.proof" --fixed-rs --threads 1
expect 0 "wrote" -- "$CUZK" prove --params "$T/c.params" --pce "$T/c.pce" --witness "$T/c.wit" --out "$T/f2.proof" --fixed-rs --threads 2
if cmp -s "$T/f1.proof" "$T/f2.proof"; then ok; else bad "fixed r,s proofs differ between 1 and 2 threads"; fi
# A flipped bit in the proof: either not a point or an invalid proof.
cp "$T/c.proof" "$T/flip.proof"
flip_bit "$T/flip.proof" 40
out=$("$CUZK" verify --vk "$T/c.vk" --public "$T/c.public" --proof "$T/flip.proof" 2>&1); rc=$?
if [ $rc -ne 0 ]; then ok; else bad "flipped proof accepted: $out"; fi
# Truncated files.
head -c 100 "$T/c.proof" > "$T/short.proof"
expect 2 "multiple of the 192-byte" -- "$CUZK" verify --vk "$T/c.vk" --public "$T/c.public" --proof "$T/short.proof"
head -c 1000 "$T/c.params" > "$T/short.params"
expect 2 "cuzk: prove:" -- "$CUZK" prove --params "$T/short.params" --pce "$T/c.pce" --witness "$T/c.wit" --out "$T/x.proof"
head -c 500 "$T/c.pce" > "$T/short.pce"
expect 2 "cuzk: prove:" -- "$CUZK" prove --params "$T/c.params" --pce "$T/short.pce" --witness "$T/c.wit" --out "$T/x.proof"
expect 2 "No such file" -- "$CUZK" verify --vk "$T/missing.vk" --public "$T/c.public" --proof "$T/c.proof"
echo "notanumber" > "$T/junk.public"
expect 2 "bad digit" -- "$CUZK" verify --vk "$T/c.vk" --public "$T/junk.public" --proof "$T/c.proof"
# Parameters of another circuit.
expect 0 "wrote" -- "$CUZK" synth --constraints 1024 --public-inputs 3 --seed 5 --out "$T/e"
expect 2 "do not match the circuit" -- "$CUZK" prove --params "$T/c.params" --pce "$T/e.pce" --witness "$T/e.wit" --out "$T/x.proof"
# Witness synthesized again from the seed instead of a witness file.
expect 0 "wrote" -- "$CUZK" prove --params "$T/c.params" --pce "$T/c.pce" --synthetic-seed 5 --out "$T/s.proof"
expect 0 "proof is valid" -- "$CUZK" verify --vk "$T/c.vk" --public "$T/s.proof.public" --proof "$T/s.proof"
expect 2 "is not the circuit in" -- "$CUZK" prove --params "$T/c.params" --pce "$T/c.pce" --synthetic-seed 6 --out "$T/x.proof"
expect 2 "either --witness or --synthetic-seed" -- "$CUZK" prove --params "$T/c.params" --pce "$T/c.pce" --synthetic-seed 5 --witness "$T/c.wit" --out "$T/x.proof"
# prove verifies each proof with the params' own verifying key (the first
# part of a .params file). Parameters whose VK is another setup's of the same
# circuit (c2's VK, then c's proving key) are well formed but prove nothing:
# exit 1, no proof file; --no-verify writes it and verify rejects it.
expect 0 "verified=yes" -- "$CUZK" prove --params "$T/c.params" --pce "$T/c.pce" --witness "$T/c.wit" --out "$T/v.proof"
vklen=$(stat -c %s "$T/c2.vk")
if cmp -s -n "$vklen" "$T/c2.vk" "$T/c2.params"; then ok; else bad "a .vk is not the head of its .params"; fi
{ cat "$T/c2.vk"; tail -c +$((vklen + 1)) "$T/c.params"; } >"$T/mixed.params"
expect 1 "partition 0: the proof does not verify with the verifying key in $T/mixed.params" -- \
    "$CUZK" prove --params "$T/mixed.params" --pce "$T/c.pce" --witness "$T/c.wit" --out "$T/mixed.proof"
if [ ! -e "$T/mixed.proof" ]; then ok; else bad "an invalid proof was written"; fi
expect 0 "verified=no" -- "$CUZK" prove --params "$T/mixed.params" --pce "$T/c.pce" --witness "$T/c.wit" --out "$T/mixed.proof" --no-verify
expect 1 "INVALID" -- "$CUZK" verify --vk "$T/c2.vk" --public "$T/c.public" --proof "$T/mixed.proof"
# Output paths are refused before any proving work (no "prove backend=" line).
mkdir -p "$T/adir" "$T/s3.proof.public"
refused() { # NEEDLE -- command...: exit 2 with NEEDLE, and nothing proved
    local needle=$1
    shift 2
    local out rc
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -eq 2 ] && grep -qF -- "$needle" <<<"$out" && ! grep -q "backend=" <<<"$out"; then ok
    else bad "$* -> rc=$rc, want 2 with \"$needle\" before any work: $out"; fi
}
refused "output $T/adir is a folder" -- "$CUZK" prove --params "$T/c.params" --pce "$T/c.pce" --witness "$T/c.wit" --out "$T/adir"
refused "the folder $T/nodir does not exist" -- "$CUZK" prove --params "$T/c.params" --pce "$T/c.pce" --witness "$T/c.wit" --out "$T/nodir/x.proof"
refused "output $T/s3.proof.public is a folder" -- "$CUZK" prove --params "$T/c.params" --pce "$T/c.pce" --synthetic-seed 5 --out "$T/s3.proof"
refused "output $T/adir.vk is a folder" -- bash -c "mkdir -p '$T/adir.vk' && '$CUZK' setup --pce '$T/c.pce' --out '$T/adir'"
# snarkjs's prove: -o DIR's proof.json / public.json, checked before the zkey
# and witness are even read (the witness named here does not exist).
FX="$(dirname "$0")/../interop/fixtures"
mkdir -p "$T/zk/proof.json" "$T/zk2/public.json"
refused "output $T/zk/proof.json is a folder" -- "$CUZK" prove --zkey "$FX/many_public.zkey" --wtns "$T/none.wtns" -o "$T/zk"
refused "output $T/zk2/public.json is a folder" -- "$CUZK" prove --zkey "$FX/many_public.zkey" --wtns "$T/none.wtns" -o "$T/zk2"
if [ "$(id -u)" -ne 0 ]; then # root may write anywhere: this check only means something for others
    mkdir -p "$T/ro" && chmod 555 "$T/ro"
    refused "the folder $T/ro is not writable" -- "$CUZK" prove --params "$T/c.params" --pce "$T/c.pce" --witness "$T/c.wit" --out "$T/ro/x.proof"
    refused "the folder $T/ro is not writable" -- "$CUZK" prove --zkey "$FX/many_public.zkey" --wtns "$T/none.wtns" -o "$T/ro"
    chmod 755 "$T/ro"
fi
# Bad usage and backends.
expect 2 "unknown command" -- "$CUZK" frobnicate
expect 2 "needs a value" -- "$CUZK" prove --params
expect 2 "bad number" -- "$CUZK" synth --constraints 12x --out "$T/z"
expect 2 "unknown backend" -- "$CUZK" prove --params "$T/c.params" --pce "$T/c.pce" --witness "$T/c.wit" --out "$T/x.proof" --backend tpu
expect 2 "backend cuda" -- "$CUZK" prove --params "$T/c.params" --pce "$T/c.pce" --witness "$T/c.wit" --out "$T/x.proof" --backend cuda
# setup refuses a bad or unusable backend before it synthesizes or writes anything.
expect 2 "unknown backend" -- "$CUZK" setup --constraints 2048 --out "$T/nb" --backend tpu
expect 2 "backend cuda" -- "$CUZK" setup --constraints 2048 --out "$T/nb" --backend cuda --device 7
expect 2 "GPU ordinal outside" -- "$CUZK" setup --constraints 2048 --out "$T/nb" --backend cuda --device 4096
if ls "$T"/nb* >/dev/null 2>&1; then bad "a refused setup left files"; else ok; fi
expect 0 "setup backend=cpu" -- "$CUZK" setup --pce "$T/c.pce" --out "$T/c3" --backend cpu --threads 2
expect 2 "unknown backend" -- "$CUZK" setup --r1cs "$FX/many_public.r1cs" --zkey "$T/mp.zkey" --backend tpu
if [ -e "$T/mp.zkey" ]; then bad "a refused setup --r1cs wrote a zkey"; else ok; fi
expect 0 "setup backend=cpu" -- "$CUZK" setup --r1cs "$FX/many_public.r1cs" --zkey "$T/mp.zkey" --backend cpu
# inspect knows every file kind.
expect 0 "pre-compiled constraint system" -- "$CUZK" inspect "$T/c.pce"
expect 0 "type     witness" -- "$CUZK" inspect "$T/c.wit"
expect 0 "verifying key" -- "$CUZK" inspect "$T/c.vk"
expect 0 "bellperson layout" -- "$CUZK" inspect "$T/c.params"
expect 0 "2 partition(s)" -- "$CUZK" inspect "$T/two.proof"
expect 2 "not a pce, witness, vk, params or proof" -- "$CUZK" inspect "$T/c.public"
echo "test_cli: $pass passed, $fail failed"
rm -rf "$T"
[ "$fail" -eq 0 ]
