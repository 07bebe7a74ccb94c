#!/usr/bin/env bash
# cuzk-daemon as an operator meets it when things go wrong:
#   - every failed start (TOML syntax error, unknown key, wrong type, missing
#     parameter folder) reaches the log named in the config file, with the
#     same line as on stderr, and the same line with --log-file;
#   - --check-config runs every start-up check and prints one line per
#     failure (log and pid folders, socket folder, a socket or port in use, a
#     status port in use, missing preload ids, missing or corrupt circuit
#     files, a backend the machine lacks), and "config ok" only when a start
#     gets past them;
#   - the pid file of a live daemon is never overwritten or removed by a
#     second daemon or a failed start;
#   - SYNTHETIC jobs are off unless enabled, go to their own folder, and are
#     refused before generation when over the folder's cap or the budget;
#   - SIGTERM ends queued jobs at once (CANCELLED, "daemon shutting down")
#     while the running one finishes;
#   - a busy port gives our one line, not gRPC's; errno names read right.
# Every daemon started here is stopped by its own pid.
# Usage: test_operator.sh CUZK_DAEMON CUZK_BENCH CUZK WORK_DIR
set -u
DAEMON=$1 BENCH=$2 CUZK=$3 T=$4
PY=/usr/bin/python3
rm -rf "$T" && mkdir -p "$T/params"
. "$(dirname "$0")/../lib/expect.sh"
. "$(dirname "$0")/../lib/daemon.sh"
# The message of a log line: what follows "LEVEL ".
msg_of() { sed -E 's/^[0-9T:.Z-]+ +[A-Z]+ +//'; }

# 1. Failed starts reach the log named by the config file (no --log-file).
config_fail() { # NAME NEEDLE TOML-BODY
    local name=$1 needle=$2 body=$3 logf="$T/$1.log"
    printf '[daemon]\nlog_file = "%s"\nlisten = "unix://%s/%s.sock"\n%b' "$logf" "$S" "$name" \
        "$body" >"$T/$name.toml"
    "$DAEMON" --config "$T/$name.toml" >"$T/$name.out" 2>&1
    local rc=$?
    if [ "$rc" -eq 2 ]; then ok; else bad "$name: exit $rc"; fi
    contains "$T/$name.out" "$needle" "$name: the reason on stderr"
    contains "$logf" "$needle" "$name: the reason in the configured log"
    contains "$T/$name.out" "logging to $logf" "$name: stderr says where the log is"
    # The same line on stderr and in the log.
    local in_log on_err
    in_log=$(grep ERROR "$logf" | tail -1 | msg_of)
    on_err=$(grep -v "logging to" "$T/$name.out" | tail -1)
    if [ -n "$in_log" ] && [ "$in_log" = "$on_err" ]; then ok; else
        bad "$name: log line \"$in_log\" differs from stderr \"$on_err\""
    fi
}
config_fail syntax "config $T/syntax.toml" '[srs\nparam_cache = "/x"\n'
config_fail unknown "unknown key: daemon.listen_typo" 'listen_typo = 3\n'
config_fail wrongtype 'scheduler.workers: "many" is not an integer' '[scheduler]\nworkers = "many"\n'
config_fail nofolder "parameter folder $T/none: No such file or directory (ENOENT)" \
    "[srs]\nparam_cache = \"$T/none\"\n"
if grep -q "(EIO)" "$T/nofolder.log"; then bad "errno reads as a cuzk code: $(cat "$T/nofolder.log")"; else ok; fi
# With --log-file, the same line.
expect 2 "unknown key" -- "$DAEMON" --config "$T/unknown.toml" --log-file "$T/flag.log"
a=$(grep ERROR "$T/unknown.log" | tail -1 | msg_of)
b=$(grep ERROR "$T/flag.log" | tail -1 | msg_of)
if [ "$a" = "$b" ]; then ok; else bad "line differs with --log-file: \"$a\" vs \"$b\""; fi

# 2. --check-config: one line per failure, exit 2.
"$CUZK" synth --constraints 512 --public-inputs 1 --seed 2 --out "$T/c" >/dev/null &&
    "$CUZK" setup --pce "$T/c.pce" --out "$T/params/c" >/dev/null &&
    cp "$T/c.pce" "$T/params/c.pce" || bad "setting up circuit c"
head -c 100 "$T/c.pce" >"$T/params/bad.pce"
cp "$T/params/c.params" "$T/params/bad.params"
BUSY=$(free_port)
$PY -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1",int(sys.argv[1]))); s.listen(); time.sleep(120)' "$BUSY" &
HOLD=$!
pids+=("$HOLD")
for _ in $(seq 50); do $PY -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),1)' "$BUSY" 2>/dev/null && break; sleep 0.1; done
cat >"$T/check.toml" <<EOF
[daemon]
log_file = "$T/nodir/d.log"
pid_file = "$T/nodir2/d.pid"
listen = "unix://$S/nodir3/d.sock"
status_listen = "127.0.0.1:$BUSY"
backend = "cuda"
[srs]
param_cache = "$T/params"
preload = ["c", "missing"]
[circuits.bad]
params = "$T/params/bad.params"
pce = "$T/params/bad.pce"
[circuits.gone]
params = "$T/params/gone.params"
pce = "$T/params/c.pce"
EOF
"$DAEMON" --config "$T/check.toml" --check-config >"$T/check.out" 2>&1
rc=$?
if [ "$rc" -eq 2 ]; then ok; else bad "check-config exit $rc: $(cat "$T/check.out")"; fi
for needle in "daemon.log_file $T/nodir/d.log: folder $T/nodir: No such file" \
    "daemon.pid_file $T/nodir2/d.pid: folder" "daemon.listen $S/nodir3/d.sock: folder" \
    "daemon.status_listen \"127.0.0.1:$BUSY\": cannot listen there: Address already in use" \
    "circuit bad: $T/params/bad.pce: truncated" "circuit gone: $T/params/gone.params: No such file" \
    "srs.preload missing: no [circuits.missing] entry"; do
    contains "$T/check.out" "$needle" "check-config"
done
if ! command -v nvidia-smi >/dev/null 2>&1; then
    contains "$T/check.out" "daemon.backend cuda" "check-config: backend without a GPU"
    want=8
else
    want=7
fi
n=$(grep -c "^cuzk-daemon: " "$T/check.out")
if [ "$n" -eq "$want" ] && ! grep -q "config ok" "$T/check.out"; then ok; else
    bad "check-config: $n lines (want $want): $(cat "$T/check.out")"
fi
# A circuit whose .params header is corrupt (a point off the curve in the VK).
cp "$T/params/c.params" "$T/params/cv.params"
printf '\x0f\x0f\x0f\x0f' | dd of="$T/params/cv.params" bs=1 seek=60 conv=notrunc 2>/dev/null
expect 2 "circuit cv: $T/params/cv.params" -- "$DAEMON" --check-config --param-cache "$T/params" \
    --listen "unix://$S/cv.sock" --set circuits.cv.params="$T/params/cv.params" \
    --set circuits.cv.pce="$T/params/c.pce"
# The same configuration fixed passes; a start with it works.
cat >"$T/good.toml" <<EOF
[daemon]
log_file = "$T/good.log"
pid_file = "$T/good.pid"
listen = "unix://$S/good.sock"
[srs]
param_cache = "$T/params"
preload = ["c"]
[scheduler]
workers = 1
pipeline_depth = 1
EOF
expect 0 "config ok" -- "$DAEMON" --config "$T/good.toml" --check-config
if [ ! -e "$T/good.log" ] && [ ! -e "$T/good.pid" ] && [ ! -e "$S/good.sock.lock" ]; then ok; else
    bad "check-config left files behind"
fi

# 6. The pid file: a second daemon, or a failed start, leaves a live one's alone.
"$DAEMON" --config "$T/good.toml" 2>/dev/null &
D1=$!
pids+=("$D1")
expect 0 "ready after" -- "$BENCH" wait-ready --addr "unix://$S/good.sock" --timeout 60
if [ "$(cat "$T/good.pid")" = "$D1" ]; then ok; else bad "pid file of the first daemon"; fi
# check-config sees the running daemon's socket and pid file in use.
expect 2 "in use by another cuzk-daemon" -- "$DAEMON" --config "$T/good.toml" --check-config
expect 2 "daemon.pid_file $T/good.pid is held by a running cuzk-daemon" -- \
    "$DAEMON" --config "$T/good.toml" --check-config
expect 2 "pid file $T/good.pid is held by a running cuzk-daemon (pid $D1)" -- \
    "$DAEMON" --config "$T/good.toml" --listen "unix://$S/other.sock" --log-file "$T/second.log"
expect 2 "cannot listen there" -- "$DAEMON" --config "$T/good.toml" --listen "unix://$S/o2.sock" \
    --set daemon.pid_file="$T/other.pid" --status-listen "127.0.0.1:$BUSY" \
    --log-file "$T/third.log"
if [ "$(cat "$T/good.pid")" = "$D1" ] && [ ! -e "$T/other.pid" ]; then ok; else
    bad "pid files after failed starts: good=$(cat "$T/good.pid" 2>&1) other exists=$([ -e "$T/other.pid" ] && echo yes)"
fi
# 5. SYNTHETIC jobs are off by default, with a message saying how to enable them.
expect 2 "SYNTHETIC jobs are disabled in this daemon: set [synthetic] enabled = true" -- \
    "$BENCH" single --addr "unix://$S/good.sock" --kind synthetic --constraints 1024
kill -TERM "$D1"
wait_exit "$D1" 30
if [ "$rc" -eq 0 ] && [ ! -e "$T/good.pid" ]; then ok; else bad "stop: rc=$rc"; fi

# 10. A busy TCP port: our one line on stderr, nothing of gRPC's.
"$DAEMON" --listen "127.0.0.1:$BUSY" --param-cache "$T/params" >"$T/busy.out" 2>&1
rc=$?
# (The log is stderr here: our own timestamped lines, and the one line.)
if [ "$rc" -eq 2 ] && [ "$(grep -c "^cuzk-daemon: " "$T/busy.out")" -eq 1 ] &&
    ! grep -vE "^(cuzk-daemon: |[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z (INFO|WARN|ERROR) )" "$T/busy.out" &&
    grep -qF "cuzk-daemon: listen: daemon.listen \"127.0.0.1:$BUSY\": cannot listen there: Address already in use (EADDRINUSE)" "$T/busy.out"; then
    ok
else
    bad "busy port: rc=$rc $(cat "$T/busy.out")"
fi
kill "$HOLD" 2>/dev/null

# 5. SYNTHETIC enabled: files in their own folder, a cap, the budget.
SYN="$T/synth"
cat >"$T/syn.toml" <<EOF
[daemon]
listen = "unix://$S/syn.sock"
log_file = "$T/syn.log"
shutdown_grace_s = 60
[srs]
param_cache = "$T/params"
[synthetic]
enabled = true
param_dir = "$SYN"
max_bytes = "6MiB"
[memory]
budget = "256MiB"
[scheduler]
workers = 1
pipeline_depth = 1
EOF
"$DAEMON" --config "$T/syn.toml" 2>/dev/null &
D2=$!
pids+=("$D2")
ADDR="unix://$S/syn.sock"
expect 0 "ready after" -- "$BENCH" wait-ready --addr "$ADDR" --timeout 60
expect 0 "status=COMPLETED" -- "$BENCH" single --addr "$ADDR" --kind synthetic --constraints 1024 \
    --seed 1
if ls "$SYN" | grep -qE "^synthetic-n1024-p[0-9]+-s1\.params$" && ! ls "$T/params" | grep -q synthetic; then ok; else
    bad "synthetic files not in synthetic.param_dir: $(ls "$SYN" "$T/params")"
fi
expect 1 "synthetic.max_bytes is 6 MiB" -- "$BENCH" single --addr "$ADDR" --kind synthetic \
    --constraints 16384 --seed 2
expect 1 "more than memory.budget (256 MiB); nothing was generated" -- "$BENCH" single \
    --addr "$ADDR" --kind synthetic --constraints 4194304 --seed 3
if ! ls "$SYN" | grep -qE -- "-s[23]\."; then ok; else bad "files of refused circuits: $(ls "$SYN")"; fi

# 7. SIGTERM: the running job finishes, the queued ones end at once.
"$BENCH" single --addr "$ADDR" --kind synthetic --constraints 8192 --partitions 12 --seed 1 \
    >"$T/run.out" 2>&1 &
B1=$!
pids+=("$B1")
for _ in $(seq 300); do
    "$BENCH" status --addr "$ADDR" 2>/dev/null | grep -qE "stage=(synthesis|prove)" && break
    sleep 0.1
done
"$BENCH" single --addr "$ADDR" --kind synthetic --constraints 1024 --seed 1 >"$T/q1.out" 2>&1 &
B2=$!
"$BENCH" single --addr "$ADDR" --kind synthetic --constraints 1024 --seed 1 >"$T/q2.out" 2>&1 &
B3=$!
pids+=("$B2" "$B3")
for _ in $(seq 100); do
    [ "$("$BENCH" status --addr "$ADDR" 2>/dev/null | grep -c "stage=queued")" -ge 2 ] && break
    sleep 0.1
done
kill -TERM "$D2"
wait_exit "$B2" 20
wait_exit "$B3" 20
for f in q1 q2; do
    contains "$T/$f.out" "status=CANCELLED" "$f ended at SIGTERM"
    contains "$T/$f.out" "daemon shutting down" "$f says why"
done
wait_exit "$B1" 120
if [ "$rc" -eq 0 ] && grep -q "status=COMPLETED" "$T/run.out"; then ok; else
    bad "running job at SIGTERM: rc=$rc $(cat "$T/run.out")"
fi
wait_exit "$D2" 60
if [ "$rc" -eq 0 ]; then ok; else bad "SIGTERM exit $rc"; fi

# 7. Parameter generation stops within the grace period; a setup's
# temporary files left by a killed process are cleaned at the next start.
SYN2="$T/synth2"
mkdir -p "$SYN2"
true &
DEAD=$!
wait "$DEAD"
touch "$SYN2/synthetic-n99-p1-s1.params.tmp-$DEAD"
cat >"$T/gen.toml" <<EOF
[daemon]
listen = "unix://$S/gen.sock"
log_file = "$T/gen.log"
shutdown_grace_s = 1
[srs]
param_cache = "$T/params"
[synthetic]
enabled = true
param_dir = "$SYN2"
EOF
"$DAEMON" --config "$T/gen.toml" 2>/dev/null &
D3=$!
pids+=("$D3")
expect 0 "ready after" -- "$BENCH" wait-ready --addr "unix://$S/gen.sock" --timeout 60
if [ ! -e "$SYN2/synthetic-n99-p1-s1.params.tmp-$DEAD" ]; then ok; else bad "stale tmp file kept"; fi
"$BENCH" single --addr "unix://$S/gen.sock" --kind synthetic --constraints 262144 --seed 5 \
    >"$T/gen.out" 2>&1 &
B4=$!
pids+=("$B4")
for _ in $(seq 300); do ls "$SYN2" | grep -q "\.tmp-" && break; sleep 0.1; done
kill -TERM "$D3"
wait_exit "$D3" 60
if [ "$rc" -eq 0 ]; then ok; else bad "exit $rc after SIGTERM during generation"; fi
wait_exit "$B4" 10
contains "$T/gen.out" "status=CANCELLED" "the generating job ended CANCELLED"
contains "$T/gen.log" "event=generate" "generation had started"
if ! ls "$SYN2" | grep -qE "\.tmp-|s5\.params"; then ok; else
    bad "generation not stopped, or its temporary files left: $(ls "$SYN2")"
fi

echo "test_operator: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && rm -rf "$T"
[ "$fail" -eq 0 ]
