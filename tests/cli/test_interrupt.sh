#!/usr/bin/env bash
# SIGTERM during `cuzk setup`: the CLI stops the setup, removes its
# temporary files (*.tmp-PID) and exits non-zero with one line saying so.
# The signal is sent by pid once the setup is writing its parameters (its
# temporary file exists), so it lands mid-setup however fast the machine.
set -u
CUZK=$1
T=$2
rm -rf "$T" && mkdir -p "$T"
. "$(dirname "$0")/../lib/expect.sh"

# 2^18 constraints: ~10 s of setup on 2 cores, stopped after its start.
"$CUZK" setup --constraints 262144 --public-inputs 4 --out "$T/big" >"$T/out" 2>&1 &
P=$!
for ((i = 0; i < 3000; i++)); do
    compgen -G "$T/big.params.tmp-$P" >/dev/null && break
    kill -0 "$P" 2>/dev/null || break
    sleep 0.1
done
if compgen -G "$T/big.params.tmp-$P" >/dev/null; then ok; else bad "no temporary file seen: $(cat "$T/out")"; fi
kill -TERM "$P"
wait "$P"
rc=$?
if [ "$rc" -ne 0 ]; then ok; else bad "setup exited 0 after SIGTERM"; fi
if [ "$rc" -eq 143 ]; then ok; else bad "exit status $rc, want 143 (128 + SIGTERM)"; fi
if grep -q "^cuzk: setup: interrupted by SIGTERM; its temporary files were removed$" "$T/out"; then ok
else bad "message: $(cat "$T/out")"; fi
left=$(ls "$T" | grep -E '\.tmp[-.]' || true)
if [ -z "$left" ]; then ok; else bad "temporary files left: $left"; fi
if [ ! -e "$T/big.params" ] && [ ! -e "$T/big.vk" ]; then ok; else bad "an interrupted setup published files"; fi
echo "test_interrupt: $pass passed, $fail failed"
rm -rf "$T"
[ "$fail" -eq 0 ]
