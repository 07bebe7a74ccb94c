#!/usr/bin/env bash
# --help everywhere: every command of cuzk (nested ones too) and of
# cuzk-bench, with --help, prints its usage to stdout and exits 0 at once,
# running nothing: each runs in an empty folder with options that would
# start long work, under a timeout that only a started job would reach, and
# the folder must stay empty. `cuzk-bench` alone lists every command, the
# daemon's client commands included, one line each.
set -u
CUZK=$(realpath "$1")
BENCH=$(realpath "$2")
T=$3
rm -rf "$T" && mkdir -p "$T"
. "$(dirname "$0")/../lib/expect.sh"

# help_ok NEEDLE -- command...: exit 0, NEEDLE on stdout, nothing on stderr,
# no file made. The timeout guards against a help that starts the work.
help_ok() {
    local needle=$1
    shift 2
    local out err rc
    rm -rf "$T/cwd" && mkdir "$T/cwd"
    out=$(cd "$T/cwd" && timeout 120 "$@" 2>"$T/err")
    rc=$?
    err=$(cat "$T/err")
    if [ "$rc" -eq 0 ] && grep -qF -- "$needle" <<<"$out" && [ -z "$err" ]; then ok
    else bad "$* -> rc=$rc, stdout: $out, stderr: $err"; fi
    if [ -z "$(ls -A "$T/cwd")" ]; then ok; else bad "$* made files: $(ls -A "$T/cwd")"; fi
}

# cuzk: every command its usage names, each with options of real work.
help_ok "cuzk COMMAND --help" -- "$CUZK" --help
cmds=$("$CUZK" --help | sed -n 's/^  cuzk \([a-z0-9-]*\) .*/\1/p; s/^  cuzk \([a-z0-9-]*\)$/\1/p' | sort -u)
for want in synth setup prove verify inspect devices convert hash circuit filecoin params gen post piece seal; do
    if grep -qx "$want" <<<"$cmds"; then ok; else bad "cuzk --help lacks $want: $cmds"; fi
done
for c in $cmds; do
    help_ok "cuzk $c" -- "$CUZK" "$c" --help
    help_ok "cuzk $c" -- "$CUZK" "$c" --constraints 4194304 --out x --pce x.pce --params p --witness w -h
done
help_ok "cuzk circuit stats" -- "$CUZK" circuit stats --help
help_ok "cuzk circuit stats" -- "$CUZK" circuit stats por --levels 30 --help
help_ok "cuzk circuit bench" -- "$CUZK" circuit bench native-poseidon --count 1000000000 --help
help_ok "cuzk hash poseidon" -- "$CUZK" hash poseidon --help
help_ok "cuzk hash sha256" -- "$CUZK" hash sha256 --help
help_ok "cuzk filecoin list" -- "$CUZK" filecoin list --json --help
help_ok "cuzk params check" -- "$CUZK" params check --dir /nonexistent post-window-32g --help
help_ok "cuzk gen post" -- "$CUZK" gen post --registered-proof 8 --sectors 2349 --randomness 00 --out x --help
help_ok "cuzk post check" -- "$CUZK" post check --registered-proof 8 --miner-id 1 x.vproof --help
help_ok "cuzk piece commp" -- "$CUZK" piece commp /dev/zero --help
help_ok "cuzk piece commd" -- "$CUZK" piece commd --sector-size 64GiB --help
help_ok "cuzk seal" -- "$CUZK" seal --registered-proof 5 --prover-id 00 --sector-number 1 --ticket 00 /dev/zero --out x --help
help_ok "cuzk setup   --r1cs" -- "$CUZK" setup --r1cs x.r1cs --zkey x.zkey --help
help_ok "cuzk prove   --zkey" -- "$CUZK" prove --zkey x.zkey --wtns x.wtns --help
expect 2 "unknown command" -- "$CUZK" frobnicate --help

# cuzk-bench: the list, then every listed command with --help.
out=$("$BENCH" 2>&1)
rc=$?
if [ "$rc" -eq 2 ]; then ok; else bad "cuzk-bench alone exits $rc, want 2"; fi
for want in ntt msm prove partition engine synth-witness gpu-ntt gpu-msm gpu-h gpu-alloc wait-ready single \
    batch submit await cancel status metrics preload evict stress memmon; do
    if grep -qE "^  $want +[a-zA-Z]" <<<"$out"; then ok; else bad "cuzk-bench list lacks $want: $out"; fi
done
help_ok "benchmarks:" -- "$BENCH" --help
bcmds=$("$BENCH" --help | sed -n 's/^  \([a-z0-9-]*\)  .*/\1/p')
for c in $bcmds; do
    help_ok "usage: cuzk-bench $c" -- "$BENCH" "$c" --help
    help_ok "usage: cuzk-bench $c" -- "$BENCH" "$c" --log 28 --n 100000000 -n 1000 --duration 600 \
        --pid 1 --addr unix:///nonexistent/x.sock --out x.csv -h
done
expect 2 "unknown command" -- "$BENCH" frobnicate --help
echo "test_help: $pass passed, $fail failed"
rm -rf "$T"
[ "$fail" -eq 0 ]
