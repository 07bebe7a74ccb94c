#!/usr/bin/env bash
# Interop with snarkjs and circom, both ways, on the committed fixtures
# (snarkjs-made keys; see make_fixtures.sh):
#   - the pinned circom compiler reproduces each committed .r1cs;
#   - snarkjs computes the witness; cuzk proves from the zkey and snarkjs
#     verifies; snarkjs proves and cuzk verifies; both write the same
#     public.json;
#   - both reject a tampered proof and a wrong public signal;
#   - a zkey made by `cuzk setup --r1cs` works with snarkjs (prove, export,
#     verify) and with cuzk; `cuzk convert` to .params/.vk/.pce proves too;
#   - bad inputs (a witness of another circuit, bn128 files, a truncated zkey)
#     give precise errors.
#
#   run_interop.sh CUZK NODE_MODULES TMPDIR
set -u
cuzk=$(realpath "$1")
nm=$(realpath -m "$2")
tmp=$(realpath -m "$3")
here=$(cd "$(dirname "$0")" && pwd)
fx=$here/fixtures
snarkjs=$nm/.bin/snarkjs
circom=$nm/.bin/circom2
pass=0
failed=0
ok() { pass=$((pass + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
check() { # check "what" command...: command must succeed
    local what=$1; shift
    if "$@" >"$tmp/out" 2>&1; then ok; else bad "$what"; sed 's/^/    /' "$tmp/out" >&2; fi
}
check_fails() { # check_fails "what" EXPECTED_RC "needle" command...
    local what=$1 want=$2 needle=$3; shift 3
    "$@" >"$tmp/out" 2>&1
    local rc=$?
    if [ "$rc" = "$want" ] && grep -qF -- "$needle" "$tmp/out"; then ok; else
        bad "$what (exit $rc, wanted $want and \"$needle\")"; sed 's/^/    /' "$tmp/out" >&2; fi
}

if [ ! -x "$snarkjs" ] || [ ! -x "$circom" ]; then
    echo "interop: snarkjs/circom2 not installed in $nm (make test installs them: scripts/interop-deps.sh)" >&2
    exit 1
fi
rm -rf "$tmp"
mkdir -p "$tmp"
# circom2 (circom built for WASI) resolves include paths against the working
# folder: run from the top of the source tree.
cd "$here/../.."

# Change the first public signal by one (a wrong public input).
bump_public() {
    node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync(process.argv[1]));
             p[0]=(BigInt(p[0])+1n).toString();fs.writeFileSync(process.argv[2],JSON.stringify(p,null,1));' "$1" "$2"
}
# Replace pi_a by pi_c: both are valid points, the proof is not.
tamper_proof() {
    node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync(process.argv[1]));
             p.pi_a=p.pi_c;fs.writeFileSync(process.argv[2],JSON.stringify(p,null,1));' "$1" "$2"
}

for c in many_public poseidon_chain range_check; do
    d=$tmp/$c
    mkdir -p "$d/cuzk" "$d/snarkjs"
    check "$c: circom compiles" "$circom" "$here/circuits/$c.circom" --O2 --r1cs --wasm \
        --prime bls12381 -l "$nm" -o "$d"
    check "$c: compiled .r1cs equals the fixture" cmp "$d/$c.r1cs" "$fx/$c.r1cs"
    check "$c: snarkjs computes the witness" "$snarkjs" wtns calculate "$d/${c}_js/$c.wasm" \
        "$here/inputs/$c.json" "$d/w.wtns"
    vk=$fx/$c.vkey.json

    check "$c: cuzk proves from the snarkjs zkey" "$cuzk" prove --zkey "$fx/$c.zkey" \
        --wtns "$d/w.wtns" -o "$d/cuzk"
    check "$c: snarkjs verifies cuzk's proof" "$snarkjs" groth16 verify "$vk" \
        "$d/cuzk/public.json" "$d/cuzk/proof.json"
    check "$c: snarkjs proves" "$snarkjs" groth16 prove "$fx/$c.zkey" "$d/w.wtns" \
        "$d/snarkjs/proof.json" "$d/snarkjs/public.json"
    check "$c: cuzk verifies snarkjs's proof" "$cuzk" verify --vkey "$vk" \
        --public "$d/snarkjs/public.json" --proof "$d/snarkjs/proof.json"
    check "$c: same public.json" cmp "$d/cuzk/public.json" "$d/snarkjs/public.json"
    check "$c: cuzk verifies its own proof" "$cuzk" verify --vkey "$vk" \
        --public "$d/cuzk/public.json" --proof "$d/cuzk/proof.json"

    for who in cuzk snarkjs; do
        tamper_proof "$d/$who/proof.json" "$d/$who/tampered.json"
        bump_public "$d/$who/public.json" "$d/$who/wrong_public.json"
        check_fails "$c: snarkjs rejects a tampered $who proof" 1 "Invalid proof" \
            "$snarkjs" groth16 verify "$vk" "$d/$who/public.json" "$d/$who/tampered.json"
        check_fails "$c: cuzk rejects a tampered $who proof" 1 "invalid" \
            "$cuzk" verify --vkey "$vk" --public "$d/$who/public.json" --proof "$d/$who/tampered.json"
        check_fails "$c: snarkjs rejects a wrong public signal ($who proof)" 1 "Invalid proof" \
            "$snarkjs" groth16 verify "$vk" "$d/$who/wrong_public.json" "$d/$who/proof.json"
        check_fails "$c: cuzk rejects a wrong public signal ($who proof)" 1 "invalid" \
            "$cuzk" verify --vkey "$vk" --public "$d/$who/wrong_public.json" --proof "$d/$who/proof.json"
    done
done

# A key from cuzk's own setup, used by snarkjs and by cuzk.
d=$tmp/own
mkdir -p "$d/cuzk"
c=range_check
check "cuzk setup writes a zkey" "$cuzk" setup --r1cs "$fx/$c.r1cs" --zkey "$d/own.zkey" --out "$d/own"
check "snarkjs exports its verification key" "$snarkjs" zkey export verificationkey "$d/own.zkey" "$d/own_vk.json"
check "snarkjs proves with cuzk's zkey" "$snarkjs" groth16 prove "$d/own.zkey" "$tmp/$c/w.wtns" \
    "$d/proof.json" "$d/public.json"
check "snarkjs verifies that proof" "$snarkjs" groth16 verify "$d/own_vk.json" "$d/public.json" "$d/proof.json"
check "cuzk verifies that proof" "$cuzk" verify --vkey "$d/own_vk.json" --public "$d/public.json" --proof "$d/proof.json"
check "cuzk proves with its zkey" "$cuzk" prove --zkey "$d/own.zkey" --wtns "$tmp/$c/w.wtns" -o "$d/cuzk"
check "snarkjs verifies it" "$snarkjs" groth16 verify "$d/own_vk.json" "$d/cuzk/public.json" "$d/cuzk/proof.json"

# zkey -> .params/.vk/.pce and .wtns -> .wit: the bellperson-layout prover.
c=poseidon_chain
check "convert zkey to params" "$cuzk" convert --zkey "$fx/$c.zkey" --r1cs "$fx/$c.r1cs" --out "$d/conv"
check "convert wtns to wit" "$cuzk" convert --wtns "$tmp/$c/w.wtns" --witness "$d/conv.wit" --zkey "$fx/$c.zkey"
check "prove from converted files" "$cuzk" prove --params "$d/conv.params" --pce "$d/conv.pce" \
    --witness "$d/conv.wit" --out "$d/conv.proof"
node -e 'const p=require(process.argv[1]);console.log(p.join("\n"))' "$tmp/$c/cuzk/public.json" >"$d/conv.public"
check "verify with the converted vk" "$cuzk" verify --vk "$d/conv.vk" --public "$d/conv.public" --proof "$d/conv.proof"
check "convert params back to a zkey" "$cuzk" convert --params "$d/conv.params" --pce "$d/conv.pce" --zkey "$d/back.zkey"
check "snarkjs proves with the round-tripped zkey" "$snarkjs" groth16 prove "$d/back.zkey" \
    "$tmp/$c/w.wtns" "$d/back_proof.json" "$d/back_public.json"
check "snarkjs verifies it with the original key" "$snarkjs" groth16 verify "$fx/$c.vkey.json" \
    "$d/back_public.json" "$d/back_proof.json"
check_fails "convert refuses a key of another circuit" 2 "is not the zkey's" \
    "$cuzk" convert --zkey "$fx/many_public.zkey" --r1cs "$fx/$c.r1cs" --out "$d/x"

# Bad inputs.
check_fails "witness of another circuit" 2 "a witness for another circuit" \
    "$cuzk" prove --zkey "$fx/many_public.zkey" --wtns "$tmp/poseidon_chain/w.wtns" -o "$d"
check_fails "bn128 zkey" 2 "curve bn128 is not supported yet" \
    "$cuzk" prove --zkey "$fx/tiny_bn128.zkey" --wtns "$tmp/many_public/w.wtns" -o "$d"
check_fails "bn128 witness" 2 "curve bn128 is not supported yet" \
    "$cuzk" prove --zkey "$fx/many_public.zkey" --wtns "$fx/tiny_bn128.wtns" -o "$d"
check_fails "bn128 r1cs" 2 "curve bn128 is not supported yet" \
    "$cuzk" setup --r1cs "$fx/tiny_bn128.r1cs" --zkey "$d/bn.zkey"
size=$(stat -c %s "$fx/many_public.zkey")
head -c $((size - 1000)) "$fx/many_public.zkey" >"$d/truncated.zkey"
check_fails "truncated zkey" 2 "truncated" \
    "$cuzk" prove --zkey "$d/truncated.zkey" --wtns "$tmp/many_public/w.wtns" -o "$d"
check_fails "missing output folder" 2 "does not exist" \
    "$cuzk" prove --zkey "$fx/many_public.zkey" --wtns "$tmp/many_public/w.wtns" -o "$d/nope"
printf '{"pi_a": [1, 2' >"$d/broken.json"
check_fails "malformed proof JSON" 2 "invalid JSON" \
    "$cuzk" verify --vkey "$fx/many_public.vkey.json" --public "$tmp/many_public/cuzk/public.json" --proof "$d/broken.json"

# inspect names the snarkjs files.
check_fails "inspect a zkey" 0 "snarkjs Groth16 zkey" "$cuzk" inspect "$fx/many_public.zkey"
check_fails "inspect an r1cs" 0 "wires    282" "$cuzk" inspect "$fx/many_public.r1cs"
check_fails "inspect a wtns" 0 "values   282" "$cuzk" inspect "$tmp/many_public/w.wtns"
check_fails "inspect a bn128 wtns" 2 "bn128 is not supported yet" "$cuzk" inspect "$fx/tiny_bn128.wtns"

# Usage errors.
check_fails "prove --zkey without --wtns" 2 "needs --zkey and --wtns" "$cuzk" prove --zkey "$fx/many_public.zkey"
check_fails "verify --vkey without --proof" 2 "needs --vkey, --public and --proof" \
    "$cuzk" verify --vkey "$fx/many_public.vkey.json" --public "$tmp/many_public/cuzk/public.json"
check_fails "convert without a known combination" 2 "convert needs one of" "$cuzk" convert --zkey "$fx/many_public.zkey"
check_fails "setup --r1cs without --zkey" 2 "needs --r1cs and --zkey" "$cuzk" setup --r1cs "$fx/many_public.r1cs"
check_fails "an option without its value" 2 "--wtns needs a value" "$cuzk" prove --zkey "$fx/many_public.zkey" --wtns
check_fails "an unknown option" 2 "unknown or incomplete option --frobnicate" \
    "$cuzk" prove --zkey "$fx/many_public.zkey" --frobnicate
check_fails "a missing vkey file" 2 "$tmp/nope.json" \
    "$cuzk" verify --vkey "$tmp/nope.json" --public "$tmp/many_public/cuzk/public.json" --proof "$tmp/many_public/cuzk/proof.json"
check_fails "a verification key for another circuit" 2 "public inputs given" \
    "$cuzk" verify --vkey "$fx/range_check.vkey.json" --public "$tmp/many_public/cuzk/public.json" --proof "$tmp/many_public/cuzk/proof.json"

echo "interop: $pass passed, $failed failed"
[ "$failed" = 0 ]
