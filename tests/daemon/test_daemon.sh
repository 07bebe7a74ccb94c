#!/usr/bin/env bash
# cuzk-daemon end to end: the real daemon on a unix socket, driven by
# cuzk-bench and by a Python client generated from proto/ (client.py).
#
# Covers: wait-ready, proofs (synthetic, generic R1CS) verified by `cuzk
# verify`, batch, status (text and --json, checked by python's json), bad
# requests (client.py), HTTP /status /metrics /healthz, a second daemon on
# the same socket failing fast, SIGHUP log reopening, SIGTERM draining (exit
# 0, socket and pid file removed), kill -9 then an immediate restart (stale
# socket replaced), and failed starts (bad config, unknown key, missing
# parameter folder, socket in use) that exit 2 with one
# line on stderr and the cause in the log file; --check-config.
#
# Every daemon started here is stopped by its own pid (trap on exit).
# Usage: test_daemon.sh CUZK_DAEMON CUZK_BENCH CUZK WORK_DIR SOURCE_DIR
set -u
DAEMON=$1 BENCH=$2 CUZK=$3 T=$4 SRC=$5
PY=/usr/bin/python3
rm -rf "$T" && mkdir -p "$T/params" "$T/py" "$T/pyproto/cuzk_health"
. "$(dirname "$0")/../lib/expect.sh"
. "$(dirname "$0")/../lib/daemon.sh"
http_get() { # URL -> "CODE BODY"
    $PY - "$1" <<'EOF'
import sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen(sys.argv[1], timeout=10)
    print(r.status, r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode())
EOF
}

# Circuit c1 (generic R1CS) and a truncated copy, in the parameter folder.
"$CUZK" synth --constraints 1024 --public-inputs 2 --seed 3 --out "$T/c1" >/dev/null &&
    "$CUZK" setup --pce "$T/c1.pce" --out "$T/params/c1" >/dev/null &&
    cp "$T/c1.pce" "$T/params/c1.pce" || bad "setting up c1"
head -c 5000 "$T/params/c1.params" >"$T/params/trunc.params"
cp "$T/c1.pce" "$T/params/trunc.pce"

SOCK="$S/d.sock"
ADDR="unix://$SOCK"
PORT=$(free_port)
LOG="$T/d.log"
cat >"$T/cuzk.toml" <<EOF
verify_proofs = true
[daemon]
listen = "$ADDR"
status_listen = "127.0.0.1:$PORT"
pid_file = "$T/d.pid"
max_message_bytes = "1MiB"
shutdown_grace_s = 20
[memory]
budget = "1GiB"
[srs]
param_cache = "$T/params"
preload = ["c1"]
[synthetic]
enabled = true
param_dir = "$T/synth"
[scheduler]
workers = 1
pipeline_depth = 1   # one partition synthesized ahead: jobs behind a running one stay queued
[logging]
level = "info"
EOF
expect 0 "config ok" -- "$DAEMON" --config "$T/cuzk.toml" --check-config
# The sample configuration shipped in the repository stays valid.
expect 0 "config ok" -- "$DAEMON" --config "$SRC/cuzk.example.toml" --check-config \
    --param-cache "$T/params" --listen "unix://$S/example.sock"

# sd_notify: a datagram socket standing in for systemd collects the messages.
$PY - "$S/notify" "$T/notify.txt" <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(60)
with open(sys.argv[2], "w") as out:
    while True:
        try:
            msg = s.recv(4096).decode()
        except socket.timeout:
            break
        out.write(msg + "\n")
        out.flush()
        if "READY=1" in msg:
            break
EOF
NOTIFY_PID=$!
pids+=("$NOTIFY_PID")
for _ in $(seq 50); do [ -S "$S/notify" ] && break; sleep 0.1; done
NOTIFY_SOCKET="$S/notify" "$DAEMON" --config "$T/cuzk.toml" --log-file "$LOG" 2>"$T/d.stderr" &
D1=$!
pids+=("$D1")
expect 0 "ready after" -- "$BENCH" wait-ready --addr "$ADDR" --timeout 60
contains "$LOG" "srs ready circuit=c1" "preload logged"
contains "$LOG" "ready startup_ms=" "ready logged"
if [ "$(cat "$T/d.pid" 2>/dev/null)" = "$D1" ]; then ok; else bad "pid file"; fi
wait_exit "$NOTIFY_PID" 10
contains "$T/notify.txt" "READY=1" "sd_notify READY=1"

# cuzk-bench single: synthetic and generic R1CS, verified offline.
expect 0 "status=COMPLETED" -- "$BENCH" single --addr "$ADDR" --kind synthetic \
    --constraints 1024 --public-inputs 2 --seed 4 --out "$T/s.proof" --public-out "$T/s.public"
expect 0 "proof is valid" -- "$CUZK" verify --vk "$T/synth/synthetic-n1024-p2-s4.vk" \
    --public "$T/s.public" --proof "$T/s.proof"
expect 0 "status=COMPLETED" -- "$BENCH" single --addr "$ADDR" --kind r1cs --circuit c1 \
    --witness "$T/c1.wit" --priority critical --out "$T/r.proof" --public-out "$T/r.public"
expect 0 "proof is valid" -- "$CUZK" verify --vk "$T/params/c1.vk" --public "$T/c1.public" \
    --proof "$T/r.proof"
if cmp -s <(grep -v '^#' "$T/c1.public" | tr A-F a-f) <(grep -v '^#' "$T/r.public"); then ok; else
    bad "public inputs returned by the daemon differ from the witness's"
fi
expect 2 "--comm-r-old needs 64 hex digits" -- "$BENCH" single --addr "$ADDR" --kind snap --json
expect 0 '"status":"COMPLETED"' -- "$BENCH" single --addr "$ADDR" --kind synthetic \
    --constraints 1024 --public-inputs 2 --seed 4 --json
expect 0 "completed=4 failed=0" -- "$BENCH" batch --addr "$ADDR" --kind synthetic \
    --constraints 1024 --public-inputs 2 --seed 4 -n 4 -j 2
out=$("$BENCH" stress --addr "$ADDR" --kind synthetic --constraints 1024 --public-inputs 2 \
    --seed 4 --duration 3 -j 3 --mixed 2>&1)
rc=$?
if [ "$rc" -eq 0 ] && grep -qE "failed_expected=[1-9][0-9]* failed=0 cancelled=0 rpc_errors=0" \
    <<<"$out" && grep -qE "priority=critical n=[1-9]" <<<"$out"; then ok; else
    bad "stress: rc=$rc $out"
fi
out=$("$BENCH" memmon --addr "$ADDR" --pid "$D1" --interval-ms 100 --duration 1 \
    --out "$T/mem.csv" 2>&1)
if grep -qE "peak_rss_bytes=[1-9][0-9]* .*peak_srs_bytes=[1-9]" <<<"$out" &&
    [ "$(head -1 "$T/mem.csv")" = "t_s,rss_bytes,pinned_bytes,device_bytes,srs_bytes" ] &&
    [ "$(wc -l <"$T/mem.csv")" -ge 5 ]; then ok; else bad "memmon: $out"; fi
expect 2 "memmon needs --pid" -- "$BENCH" memmon --addr "$ADDR"
expect 2 "INVALID_ARGUMENT: unknown proof kind 77" -- "$BENCH" single --addr "$ADDR" --kind 77
JOB=$("$BENCH" submit --addr "$ADDR" --kind synthetic --constraints 1024 --public-inputs 2 --seed 4)
expect 0 "status=COMPLETED" -- "$BENCH" await --addr "$ADDR" "$JOB"
expect 0 "was_running=false" -- "$BENCH" cancel --addr "$ADDR" "$JOB"
expect 0 "already_loaded=true" -- "$BENCH" preload --addr "$ADDR" c1
expect 0 "srs circuit=c1 tier=hot" -- "$BENCH" status --addr "$ADDR"
# status --json is one valid JSON object with the same facts.
out=$("$BENCH" status --addr "$ADDR" --json 2>&1)
if $PY -m json.tool <<<"$out" >/dev/null 2>&1; then ok; else bad "status --json is not JSON: $out"; fi
if $PY -c 'import json,sys; d=json.loads(sys.stdin.read()); assert d["ready"] is True and any(s["circuit"] == "c1" and s["tier"] == "hot" for s in d["srs"])' <<<"$out"; then ok
else bad "status --json content: $out"; fi
expect 0 'cuzk_srs_bytes{circuit="c1",tier="hot"}' -- "$BENCH" metrics --addr "$ADDR"

# The Python client: every RPC, bad requests, cancel, concurrency.
cp "$SRC/proto/grpc/health/v1/health.proto" "$T/pyproto/cuzk_health/"
if $PY -m grpc_tools.protoc -I"$SRC/proto" -I"$T/pyproto" --python_out="$T/py" \
    --grpc_python_out="$T/py" "$SRC/proto/cuzk/v1/proving.proto" \
    "$T/pyproto/cuzk_health/health.proto"; then
    ok
    cp "$T/c1.wit" "$T/py/c1.wit"
    expect 0 "0 failed" -- $PY "$SRC/tests/daemon/client.py" "$T/py" "$ADDR" "$T/py" 1048576
    cat "$T/c1.public" "$T/c1.public" >"$T/c1x2.public"
    expect 0 "proof is valid (2 partition(s))" -- "$CUZK" verify --vk "$T/params/c1.vk" \
        --public "$T/c1x2.public" --proof "$T/py/py_r1cs.proof"
    expect 0 "proof is valid (2 partition(s))" -- "$CUZK" verify \
        --vk "$T/synth/synthetic-n512-p3-s7.vk" --public "$T/py/py_synth.public" \
        --proof "$T/py/py_synth.proof"
else
    bad "grpc_tools.protoc failed"
fi

contains "$LOG" "refused: request of " "an oversized request logged"
if grep "refused: request of " "$LOG" | grep -q "peer=unix:"; then ok; else
    bad "the oversized request's log line names no peer: $(grep 'refused: request' "$LOG")"
fi
# Control characters a client sends in a request id stay escaped in the log.
if grep -qF 'request_id=ctl\x0aline\x1b[31m' "$LOG" && ! grep -q $'\x1b' "$LOG"; then ok; else
    bad "control characters in a request id not escaped in the log"
fi

# HTTP side port.
out=$(http_get "http://127.0.0.1:$PORT/healthz")
if [ "$out" = "200 ok" ]; then ok; else bad "/healthz: $out"; fi
out=$(http_get "http://127.0.0.1:$PORT/status")
if $PY -c 'import json,sys; d=json.loads(sys.argv[1].split(" ",1)[1]); assert d["ready"] and d["memory"]["budget_bytes"]==1<<30 and any(s["circuit_id"]=="c1" for s in d["srs"])' "$out"; then ok; else
    bad "/status: $out"
fi
# The engine: the budget, partitions admitted so far, the CPU backend as one healthy
# device that proved them, nothing reserved while idle.
if $PY -c 'import json,sys; e=json.loads(sys.argv[1].split(" ",1)[1])["engine"]; d=e["devices"]; assert e["memory_budget_bytes"]==1<<30 and e["admitted"]>0 and e["reserved_bytes"]==0 and e["taken_ahead"]==0 and e["ahead_given_back"]==0 and len(d)==1 and d[0]["ordinal"]==-1 and d[0]["healthy"] and d[0]["partitions"]>0 and d[0]["busy_seconds"]>0' "$out"; then ok; else
    bad "/status engine: $out"
fi
out=$(http_get "http://127.0.0.1:$PORT/metrics")
if grep -qF 'cuzk_jobs_total{kind="synthetic",outcome="completed"}' <<<"$out" &&
    grep -qF "cuzk_memory_budget_bytes 1073741824" <<<"$out" &&
    grep -qF 'cuzk_memory_bytes{what="budget"} 1073741824' <<<"$out" &&
    grep -qF 'cuzk_device_healthy{device="-1"} 1' <<<"$out" &&
    grep -qE '^cuzk_admissions_total\{outcome="admitted"\} [1-9]' <<<"$out"; then ok
else bad "/metrics: $out"; fi
out=$(http_get "http://127.0.0.1:$PORT/nope")
if [[ "$out" == "404 "* ]]; then ok; else bad "/nope: $out"; fi

# A second daemon with the same pid file, or on the same socket, fails fast and
# leaves the first one's pid file alone; the first keeps serving.
expect 2 "pid file $T/d.pid is held by a running cuzk-daemon (pid $D1)" -- timeout 20 \
    "$DAEMON" --config "$T/cuzk.toml" --set daemon.status_listen= --listen "unix://$S/other.sock" \
    --log-file "$T/second0.log"
if [ "$(cat "$T/d.pid" 2>/dev/null)" = "$D1" ]; then ok; else bad "pid file changed by a second daemon"; fi
expect 2 "in use by another cuzk-daemon" -- timeout 20 "$DAEMON" --config "$T/cuzk.toml" \
    --set daemon.status_listen= --set daemon.pid_file="$T/d2.pid" --log-file "$T/second.log"
contains "$T/second.log" "in use by another cuzk-daemon" "second daemon's log"
if [ ! -e "$T/d2.pid" ]; then ok; else bad "a failed start left its pid file"; fi
expect 0 "ready after" -- "$BENCH" wait-ready --addr "$ADDR" --timeout 5

# SIGHUP reopens the log (rotation).
mv "$LOG" "$LOG.1"
kill -HUP "$D1"
for _ in $(seq 50); do [ -f "$LOG" ] && break; sleep 0.1; done
contains "$LOG" "log reopened" "SIGHUP"

# SIGTERM: drains, exits 0, removes the socket and the pid file.
kill -TERM "$D1"
wait_exit "$D1" 30
if [ "$rc" -eq 0 ]; then ok; else bad "SIGTERM exit status $rc"; fi
contains "$LOG" "stopped" "clean stop logged"
if [ ! -e "$SOCK" ] && [ ! -e "$T/d.pid" ]; then ok; else bad "socket or pid file left"; fi

# kill -9, then a restart on the same socket works at once.
"$DAEMON" --config "$T/cuzk.toml" --set daemon.status_listen= --set srs.preload= \
    --log-file "$T/d2.log" 2>/dev/null &
D2=$!
pids+=("$D2")
expect 0 "ready after" -- "$BENCH" wait-ready --addr "$ADDR" --timeout 30
kill -9 "$D2"
{ wait "$D2"; } 2>/dev/null
if [ -S "$SOCK" ]; then ok; else bad "kill -9 should leave the socket file behind"; fi
"$DAEMON" --config "$T/cuzk.toml" --set daemon.status_listen= --set srs.preload= \
    --log-file "$T/d3.log" 2>/dev/null &
D3=$!
pids+=("$D3")
expect 0 "ready after" -- "$BENCH" wait-ready --addr "$ADDR" --timeout 30
contains "$T/d3.log" "replacing stale socket" "stale socket replaced"
expect 0 "status=COMPLETED" -- "$BENCH" single --addr "$ADDR" --kind r1cs --circuit c1 \
    --witness "$T/c1.wit"
# Health.Watch sees SERVING, then NOT_SERVING when the drain starts, then
# the end of the stream when the daemon stops.
$PY - "$T/py" "$ADDR" >"$T/watch.out" 2>&1 <<'EOF' &
import sys
sys.path.insert(0, sys.argv[1])
import grpc
from cuzk_health import health_pb2, health_pb2_grpc
stub = health_pb2_grpc.HealthStub(grpc.insecure_channel(sys.argv[2]))
seen = []
try:
    for m in stub.Watch(health_pb2.HealthCheckRequest(), timeout=120):
        seen.append(health_pb2.HealthCheckResponse.ServingStatus.Name(m.status))
        print(" ".join(seen), flush=True)
    print("end of stream", flush=True)
except grpc.RpcError as e:
    print("error", e.code(), flush=True)
EOF
W1=$!
pids+=("$W1")
for _ in $(seq 200); do grep -q SERVING "$T/watch.out" 2>/dev/null && break; sleep 0.05; done

# SIGTERM while a job runs: the job finishes and its client gets the proof;
# a submission during the drain is refused.
"$BENCH" single --addr "$ADDR" --kind synthetic --constraints 8192 --partitions 6 \
    --seed 9 >"$T/drain.out" 2>&1 &
B1=$!
pids+=("$B1")
for _ in $(seq 300); do
    "$BENCH" status --addr "$ADDR" 2>/dev/null | grep -q "stage=prove" && break
    sleep 0.1
done
kill -TERM "$D3"
refused=
for _ in $(seq 100); do # the signal is seen within ~0.1 s; allow for a loaded machine
    out=$("$BENCH" single --addr "$ADDR" --kind synthetic --constraints 1024 2>&1)
    if grep -qF "UNAVAILABLE: the daemon is shutting down" <<<"$out"; then refused=1; break; fi
    sleep 0.1
done
if [ -n "$refused" ]; then ok; else bad "submission during the drain was not refused: $out"; fi
wait_exit "$B1" 60
if [ "$rc" -eq 0 ] && grep -q "status=COMPLETED" "$T/drain.out"; then ok; else
    bad "job running at SIGTERM: rc=$rc $(cat "$T/drain.out")"
fi
wait_exit "$D3" 30
if [ "$rc" -eq 0 ]; then ok; else bad "SIGTERM exit status $rc"; fi
contains "$T/d3.log" "draining: SIGTERM received" "drain logged"
wait_exit "$W1" 30
contains "$T/watch.out" "SERVING NOT_SERVING" "Watch saw the drain"
contains "$T/watch.out" "end of stream" "Watch ended with the daemon"

# TCP instead of a unix socket; a second daemon on the same port fails fast.
TPORT=$(free_port)
"$DAEMON" --listen "127.0.0.1:$TPORT" --param-cache "$T/params" --log-file "$T/tcp.log" \
    2>/dev/null &
D4=$!
pids+=("$D4")
expect 0 "ready after" -- "$BENCH" wait-ready --addr "127.0.0.1:$TPORT" --timeout 30
expect 0 "status=COMPLETED" -- "$BENCH" single --addr "127.0.0.1:$TPORT" --kind r1cs \
    --circuit c1 --witness "$T/c1.wit"
expect 2 "127.0.0.1:$TPORT\": cannot listen there: Address already in use (EADDRINUSE)" -- timeout 20 "$DAEMON" \
    --listen "127.0.0.1:$TPORT" --param-cache "$T/params"
kill -TERM "$D4"
wait_exit "$D4" 30
if [ "$rc" -eq 0 ]; then ok; else bad "TCP daemon exit status $rc"; fi

# Failed starts: one line on stderr, the cause in the log, exit 2.
fail_start() { # NEEDLE LOGNAME args...
    local needle=$1 logf="$T/$2"
    shift 2
    expect 2 "$needle" -- "$DAEMON" --log-file "$logf" "$@"
    contains "$logf" "$needle" "log of a failed start"
}
fail_start "parameter folder $T/none" f1.log --listen "unix://$S/x.sock" --param-cache "$T/none"
printf '[daemon]\nlisten = "unix://%s/x.sock"\nlisten_typo = 1\n[gpu]\ndevices = [0]\n' "$S" >"$T/bad.toml"
fail_start "unknown keys: daemon.listen_typo (line 3), gpu.devices (line 5)" f2.log \
    --config "$T/bad.toml"
printf '[daemon\nlisten = 1\n' >"$T/syntax.toml"
fail_start "config $T/syntax.toml" f3.log --config "$T/syntax.toml"
fail_start 'logging.level: "loud" is not one of' f4.log --config "$T/cuzk.toml" --log-level loud
fail_start "preload" f5.log --config "$T/cuzk.toml" --set daemon.status_listen= \
    --set srs.preload=nope
printf '[daemon]\nlisten = "unix:///tmp/x.sock"\nlisten_typo = 1\n' >"$T/typo.toml"
expect 2 "unknown key: daemon.listen_typo (line 3)" -- "$DAEMON" --check-config \
    --config "$T/typo.toml"
# A backend this build or machine lacks is a start-up failure, not a fallback.
if ! command -v nvidia-smi >/dev/null 2>&1; then
    fail_start "backend" f6.log --listen "unix://$S/y.sock" --param-cache "$T/params" \
        --backend cuda
fi
# logging.format = json: every line of the log is a JSON object.
expect 2 "parameter folder" -- "$DAEMON" --log-file "$T/json.log" --log-format json \
    --listen "unix://$S/z.sock" --param-cache "$T/none"
if $PY -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]; d=json.loads(open(sys.argv[1]).readlines()[-1]); assert d["level"]=="ERROR" and "parameter folder" in d["msg"]' "$T/json.log"; then ok; else
    bad "json log: $(cat "$T/json.log")"
fi
expect 2 'memory.budget: "lots"' -- "$DAEMON" --check-config --budget lots
expect 2 "unknown option --bogus" -- "$DAEMON" --bogus

echo "test_daemon: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && rm -rf "$T"
[ "$fail" -eq 0 ]
