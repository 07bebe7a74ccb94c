#!/usr/bin/env bash
# Several daemons seen as a fleet:
#   - each reports its node name (daemon.node_name, default the host name)
#     in GetStatus, in `cuzk-bench status` and in /status;
#   - `cuzk-bench status --addr A --addr B ...` prints one row per daemon
#     (or one JSON list), a daemon that does not answer is a row saying so
#     and makes the exit status 1;
#   - node names with control characters, or empty, are refused.
# Every daemon started here is stopped by its own pid.
# Usage: test_fleet.sh CUZK_DAEMON CUZK_BENCH CUZK WORK_DIR
set -u
DAEMON=$1 BENCH=$2 T=$4
rm -rf "$T" && mkdir -p "$T/params"
. "$(dirname "$0")/../lib/expect.sh"
. "$(dirname "$0")/../lib/daemon.sh"

HP=$(free_port)
"$DAEMON" --listen "unix://$S/a.sock" --param-cache "$T/params" --set daemon.node_name=prover-a \
    --status-listen "127.0.0.1:$HP" --log-file "$T/a.log" 2>>"$T/a.log" &
A=$!
pids+=("$A")
"$DAEMON" --listen "unix://$S/b.sock" --param-cache "$T/params" --log-file "$T/b.log" \
    2>>"$T/b.log" &
B=$!
pids+=("$B")
for s in a b; do expect 0 "" -- "$BENCH" wait-ready --addr "unix://$S/$s.sock" --timeout 60; done
HOST=$(hostname)

expect 0 "node=prover-a" -- "$BENCH" status --addr "unix://$S/a.sock"
expect 0 "node=$HOST" -- "$BENCH" status --addr "unix://$S/b.sock"
contains "$T/a.log" "node=prover-a" "the start line names the node"
# /status names it too.
$PY - "$HP" <<'EOF' && ok || bad "/status node_name"
import json, sys, urllib.request
s = json.load(urllib.request.urlopen("http://127.0.0.1:%s/status" % sys.argv[1], timeout=10))
assert s["node_name"] == "prover-a", s.get("node_name")
EOF

# The fleet table: one row per daemon, in --addr order; the dead one says so.
"$BENCH" status --addr "unix://$S/a.sock" --addr "unix://$S/b.sock" --addr "unix://$S/dead.sock" \
    >"$T/table.txt" 2>&1
rc=$?
if [ "$rc" -eq 1 ]; then ok; else bad "fleet status with a dead daemon: exit $rc"; fi
$PY - "$T/table.txt" "$S" "$HOST" <<'EOF' && ok || bad "fleet table: $(cat "$T/table.txt")"
import sys
lines = open(sys.argv[1]).read().splitlines()
s, host = sys.argv[2], sys.argv[3]
assert lines[0].split()[:4] == ["NODE", "ADDR", "READY", "BACKEND"], lines[0]
rows = [l.split() for l in lines[1:]]
assert len(rows) == 3, rows
assert rows[0][:4] == ["prover-a", "unix://%s/a.sock" % s, "yes", "cpu"], rows[0]
assert rows[1][:4] == [host, "unix://%s/b.sock" % s, "yes", "cpu"], rows[1]
assert rows[2][1] == "unix://%s/dead.sock" % s and rows[2][2] == "unreachable:", rows[2]
EOF
"$BENCH" status --addr "unix://$S/a.sock" --addr "unix://$S/b.sock" --json >"$T/fleet.json"
rc=$?
if [ "$rc" -eq 0 ]; then ok; else bad "fleet status --json: exit $rc"; fi
$PY - "$T/fleet.json" "$HOST" <<'EOF' && ok || bad "fleet JSON: $(cat "$T/fleet.json")"
import json, sys
f = json.load(open(sys.argv[1]))
assert [d["status"]["node_name"] for d in f] == ["prover-a", sys.argv[2]], f
assert all(d["status"]["ready"] is True for d in f), f
EOF
expect 2 "takes one --addr" -- "$BENCH" single --addr "unix://$S/a.sock" \
    --addr "unix://$S/b.sock" --kind synthetic --constraints 16

# Node names that cannot be shown in a table are refused.
expect 2 "daemon.node_name must not be empty" -- "$DAEMON" --listen "unix://$S/c.sock" \
    --param-cache "$T/params" --set daemon.node_name= --check-config
expect 2 "control characters are not allowed" -- "$DAEMON" --listen "unix://$S/c.sock" \
    --param-cache "$T/params" --set "daemon.node_name=$(printf 'a\tb')" --check-config

stop_daemons "$A" "$B"
echo "test_fleet: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && rm -rf "$T"
[ "$fail" -eq 0 ]
