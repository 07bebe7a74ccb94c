#!/usr/bin/env bash
# snarkjs groth16 prove vs cuzk prove (CPU backend) on the same zkey and
# witness, one run each on this machine, printed as a table row per circuit:
#   - the committed fixtures (snarkjs-made zkeys, tests/interop/fixtures);
#   - Poseidon chains at 2^16 and above, whose zkeys come from `cuzk setup
#     --r1cs` (snarkjs's own powers of tau take hours at these sizes).
# cuzk's wall time includes process start, reading and checking the zkey and
# writing the JSON files; prove_s is the proof alone. Each figure is the best
# of REPS (default 3) runs, snarkjs and cuzk alternating, so that other load
# on the machine disturbs both alike and the minimum is the undisturbed time.
#
#   bench/interop.sh [BUILD] [LOG2_SIZES...]     e.g. bench/interop.sh build 16 18
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-build}" && pwd)
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(16)
cuzk=$build/cuzk
REPS=${REPS:-3}
"$top/scripts/interop-deps.sh" "$build" >/dev/null
nm=$build/interop-npm/node_modules
snarkjs=$nm/.bin/snarkjs
circom=$nm/.bin/circom2
cd "$top" # circom2 resolves include paths against the working folder
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }

run_pair() { # name zkey wtns constraints: best of $REPS alternating runs of each
    local name=$1 zkey=$2 wtns=$3 cons=$4 t0 t1 t2 p sj=999999 cz=999999 pr=999999
    for _ in $(seq "$REPS"); do
        t0=$(now)
        "$snarkjs" groth16 prove "$zkey" "$wtns" "$work/s_proof.json" "$work/s_public.json"
        t1=$(now)
        p=$("$cuzk" prove --zkey "$zkey" --wtns "$wtns" -o "$work" | sed -n 's/.*prove_s=\([0-9.]*\).*/\1/p')
        t2=$(now)
        "$snarkjs" groth16 verify "$work/$(basename "$zkey" .zkey).vk.json" "$work/public.json" \
            "$work/proof.json" >/dev/null 2>&1 || { echo "bench: snarkjs rejected cuzk's proof" >&2; exit 1; }
        read -r sj cz pr < <(awk -v a="$sj" -v b="$cz" -v c="$pr" -v s="$t0" -v m="$t1" -v e="$t2" -v p="$p" \
            'function min(x, y) { return x < y ? x : y } BEGIN { print min(a, m - s), min(b, e - m), min(c, p) }')
    done
    awk -v n="$name" -v c="$cons" -v sj="$sj" -v cz="$cz" -v p="$pr" 'BEGIN {
        printf "| %s | %s | %.2f | %.3f | %.3f | %.0fx | %.0fx |\n", n, c, sj, cz, p, sj / cz, sj / p }'
}

echo "| circuit | constraints | snarkjs prove (s) | cuzk prove wall (s) | cuzk prove_s | ratio (wall) | ratio (prove) |"
echo "|---|---|---|---|---|---|---|"
for c in many_public poseidon_chain range_check; do
    "$circom" "$top/tests/interop/circuits/$c.circom" --O2 --wasm --prime bls12381 -l "$nm" -o "$work" >/dev/null
    "$snarkjs" wtns calculate "$work/${c}_js/$c.wasm" "$top/tests/interop/inputs/$c.json" "$work/$c.wtns"
    cp "$top/tests/interop/fixtures/$c.vkey.json" "$work/$c.vk.json"
    cons=$("$snarkjs" r1cs info "$top/tests/interop/fixtures/$c.r1cs" | sed -n 's/.*# of Constraints: *\([0-9]*\).*/\1/p')
    run_pair "$c (snarkjs key)" "$top/tests/interop/fixtures/$c.zkey" "$work/$c.wtns" "$cons" 2>/dev/null
done
for lg in "${sizes[@]}"; do
    n=$(( (1 << lg) / 241 ))
    c=pc$lg
    sed "s/PoseidonChain(12)/PoseidonChain($n)/" "$top/tests/interop/circuits/poseidon_chain.circom" >"$work/$c.circom"
    "$circom" "$work/$c.circom" --O2 --r1cs --wasm --prime bls12381 -l "$nm" -o "$work" >/dev/null
    node -e 'const n=+process.argv[1];console.log(JSON.stringify({seed:"7",m:Array.from({length:n},(_,i)=>String(i+1))}))' "$n" >"$work/$c.json"
    "$snarkjs" wtns calculate "$work/${c}_js/$c.wasm" "$work/$c.json" "$work/$c.wtns"
    "$cuzk" setup --r1cs "$work/$c.r1cs" --zkey "$work/$c.zkey" >/dev/null
    "$snarkjs" zkey export verificationkey "$work/$c.zkey" "$work/$c.vk.json" >/dev/null
    cons=$("$snarkjs" r1cs info "$work/$c.r1cs" | sed -n 's/.*# of Constraints: *\([0-9]*\).*/\1/p')
    run_pair "Poseidon x$n, 2^$lg (cuzk key)" "$work/$c.zkey" "$work/$c.wtns" "$cons" 2>/dev/null
done
