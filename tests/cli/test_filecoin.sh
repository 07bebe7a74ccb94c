#!/usr/bin/env bash
# `cuzk filecoin list` and `cuzk params check`.
#   list: 40 rows; the text table and the JSON (checked by python3's json
#     parser) say the same; a few entries against go-state-types and
#     rust-filecoin-proofs-api (Window 13 is StackedDrgWindow32GiBV1_1, API
#     1.2.0, 2349 sectors of 10 challenges, tree 8-8-0).
#   params check: files named as the registry names them, with content
#     whose BLAKE2b-512 python3's hashlib computes here, are reported corrupt
#     with both digests (parameters.json's value for the 2 KiB WindowPoSt .vk
#     is copied from rust-fil-proofs' parameters.json); missing files, a
#     folder in a file's place, selection by circuit id, base name and file
#     name, FIL_PROOFS_PARAMETER_CACHE and --dir, exit codes, bad arguments.
# No test makes an "ok" line: that needs Filecoin's own files.
set -u
CUZK=$1
T=${2:-${TMPDIR:-/tmp}/cuzk-test-filecoin-$$}
rm -rf "$T" && mkdir -p "$T"
. "$(dirname "$0")/../lib/expect.sh"

# --- filecoin list -------------------------------------------------------
"$CUZK" filecoin list >"$T/list.txt"
rc=$?
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$T/list.txt")" -eq 41 ]; then ok; else bad "list: rc=$rc, $(wc -l <"$T/list.txt") lines"; fi
if head -1 "$T/list.txt" | grep -qE '^family +number +name +size +api +partitions +sectors +challenges +tree +circuit +supported +params$'; then ok; else bad "list header: $(head -1 "$T/list.txt")"; fi
row() { awk -v f="$1" -v n="$2" '$1 == f && $2 == n' "$T/list.txt"; }
want_row() {
    local got
    got=$(row "$1" "$2" | tr -s ' ')
    if [ "${got% *}" = "$3" ]; then ok; else bad "list row $1 $2: '${got% *}' (want '$3')"; fi
}
want_row window-post 13 "window-post 13 StackedDrgWindow32GiBV1_1 32GiB 1.2.0 1 2349 10 8-8-0 post-window-32g yes"
want_row window-post 8 "window-post 8 StackedDrgWindow32GiBV1 32GiB 1.0.0 1 2349 10 8-8-0 post-window-32g yes"
want_row winning-post 4 "winning-post 4 StackedDrgWinning64GiBV1 64GiB 1.0.0 1 66 1 8-8-2 post-winning-64g yes"
want_row seal 13 "seal 13 StackedDrg32GiBV1_1_Feat_SyntheticPoRep 32GiB 1.2.0 10 1 18 8-8-0 porep-32g yes"
want_row update 2 "update 2 StackedDrg512MiBV1 512MiB 1.1.0 16 1 86 8-0-0 snap-512m yes"

"$CUZK" filecoin list --json >"$T/list.json"
if python3 -m json.tool "$T/list.json" >/dev/null; then ok; else bad "list --json is not JSON"; fi
python3 - "$T/list.json" "$T/list.txt" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
rows = [l.split() for l in open(sys.argv[2]).read().splitlines()[1:]]
errs = []
if len(a) != 40:
    errs.append("%d entries" % len(a))
w = [e for e in a if e["family"] == "window-post" and e["number"] == 13]
want = {"name": "StackedDrgWindow32GiBV1_1", "api_version": "1.2.0", "sectors": 2349,
        "challenges": 10, "partitions": 1, "sector_size": 34359738368, "tree": "8-8-0",
        "circuit_id": "post-window-32g", "supported": True,
        "vk_digest": "0f8ec542485568fa3468c066e9fed82b"}
if len(w) != 1 or any(w[0].get(k) != v for k, v in want.items()):
    errs.append("window 13: %r" % w)
s = [e for e in a if e["family"] == "seal" and e["number"] == 19]
if len(s) != 1 or s[0]["supported"] is not False or s[0]["partitions"] != 126:
    errs.append("seal 19: %r" % s)
# The text table says what the JSON says, row by row.
for e, r in zip(a, rows):
    txt = [e["family"], str(e["number"]), e["name"], e["api_version"], str(e["partitions"]),
           str(e["sectors"]), str(e["challenges"]), e["tree"], e["circuit_id"],
           "yes" if e["supported"] else "no", e["param_name"]]
    if [r[0], r[1], r[2]] + r[4:] != txt:
        errs.append("text %r vs json %r" % (r, txt))
for m in errs:
    print("FAIL: " + m, file=sys.stderr)
sys.exit(1 if errs else 0)
PY
if [ $? -eq 0 ]; then ok; else bad "list --json content"; fi
expect 2 "list: unknown argument --yaml" -- "$CUZK" filecoin list --yaml
expect 2 "cuzk: filecoin: which command?" -- "$CUZK" filecoin
expect 2 "cuzk: filecoin: which command?" -- "$CUZK" filecoin show

# --- params check --------------------------------------------------------
W2=v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0
N2=v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e
P=$T/params
mkdir -p "$P"
printf 'abc' >"$P/$W2.vk"
# A 20 MiB .params (three 8 MiB pieces) of pseudo-random bytes.
python3 -c 'import random, sys; random.seed(7); sys.stdout.buffer.write(random.randbytes(20 << 20))' >"$P/$N2.params"
b2() { python3 -c 'import hashlib, sys; print(hashlib.blake2b(open(sys.argv[1], "rb").read()).hexdigest()[:32])' "$1"; }
D_ABC=$(b2 "$P/$W2.vk")
D_BIG=$(b2 "$P/$N2.params")
# RFC 7693 appendix A: BLAKE2b-512("abc") begins so.
if [ "$D_ABC" = ba80a53f981c4d0d6a2797b69f12f6e9 ]; then ok; else bad "hashlib blake2b(abc) = $D_ABC"; fi

out=$("$CUZK" params check --dir "$P" post-window-2k 2>"$T/err")
rc=$?
want="missing  $P/$W2.params
corrupt  $P/$W2.vk: digest $D_ABC, parameters.json says 0e0958009936b9d5e515ec97b8cb792d (not Filecoin's parameters?)
checked 2 files in $P: 0 ok, 1 missing, 1 corrupt"
if [ "$rc" -eq 1 ] && [ "$out" = "$want" ] && [ ! -s "$T/err" ]; then ok; else bad "check post-window-2k: rc=$rc, '$out', stderr $(cat "$T/err")"; fi
expect 1 "corrupt  $P/$N2.params: digest $D_BIG, parameters.json says 82c88066be968bb550a05e30ff6c2413" -- "$CUZK" params check --dir "$P" "$N2"
expect 1 "checked 1 file in $P: 0 ok, 0 missing, 1 corrupt" -- "$CUZK" params check --dir "$P" "$N2.params"
expect 1 "checked 1 file in $P: 0 ok, 1 missing, 0 corrupt" -- "$CUZK" params check --dir "$P" "$N2.vk"
# An id named twice, and its file by name: each file once.
expect 1 "checked 2 files in $P: 0 ok, 1 missing, 1 corrupt" -- "$CUZK" params check --dir "$P" post-window-2k "$W2.vk" post-window-2k
# Every file of the registry: 20 circuits, 40 files; the folder from the
# environment, --dir over it.
out=$(FIL_PROOFS_PARAMETER_CACHE=$P "$CUZK" params check 2>/dev/null)
rc=$?
if [ "$rc" -eq 1 ] && [ "$(grep -c '^missing  ' <<<"$out")" -eq 38 ] && [ "$(grep -c '^corrupt  ' <<<"$out")" -eq 2 ] &&
    grep -qx "checked 40 files in $P: 0 ok, 38 missing, 2 corrupt" <<<"$out"; then ok; else bad "check all: rc=$rc, $out"; fi
expect 1 "checked 2 files in $P" -- env FIL_PROOFS_PARAMETER_CACHE="$T/nowhere" "$CUZK" params check --dir "$P" post-window-2k
expect 2 "the parameter folder $T/nowhere: No such file or directory" -- env FIL_PROOFS_PARAMETER_CACHE="$T/nowhere" "$CUZK" params check
expect 2 "the parameter folder $P/$W2.vk: not a folder" -- "$CUZK" params check --dir "$P/$W2.vk"
# A folder where a file should be: nothing can be said of it.
mkdir "$P/$W2.params"
expect 2 "unreadable  $P/$W2.params: " -- "$CUZK" params check --dir "$P" post-window-2k
expect 2 "EISDIR" -- "$CUZK" params check --dir "$P" post-window-2k
expect 2 "1 corrupt, 1 unreadable" -- "$CUZK" params check --dir "$P" post-window-2k

expect 2 "'post-window-3g' is neither a circuit id nor a v28 parameter file name" -- "$CUZK" params check --dir "$P" post-window-3g
expect 2 "neither" -- "$CUZK" params check --dir "$P" "$W2.meta"
expect 2 "check: unknown option --fix" -- "$CUZK" params check --fix
expect 2 "--dir needs a folder" -- "$CUZK" params check --dir
expect 2 "cuzk: params: which command?" -- "$CUZK" params
expect 2 "cuzk: params: which command?" -- "$CUZK" params fetch
rm -rf "$T"
echo "test_filecoin: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
