# Shared by the shell tests (source it): pass/fail counters and
#   ok; bad WHAT                        count a check
#   expect CODE NEEDLE -- command...    exit status CODE and NEEDLE in stdout+stderr
#   flip_bit FILE OFFSET                invert the low bit of one byte in place
#                                       (a check that fails when there is no such byte)
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect() {
    local code=$1 needle=$2
    shift 3
    local out rc
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -eq "$code" ] && grep -qF -- "$needle" <<<"$out"; then ok; else
        bad "$* -> rc=$rc (want $code), output: $out"
    fi
}
flip_bit() {
    local b
    b=$(od -An -tu1 -j "$2" -N1 "$1" 2>/dev/null | tr -d ' ')
    if [ -z "$b" ]; then
        bad "flip_bit: $1 has no byte at offset $2"
        return 1
    fi
    printf "\\$(printf '%03o' $((b ^ 1)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
