#!/usr/bin/env bash
# Two cuzk-daemons behind nginx (contrib/nginx/cuzk.conf: grpc_pass to an
# upstream of daemons, least_conn, passive health checks), all on this
# machine:
#   - 40 Prove requests of synthetic jobs through nginx from 8 client threads
#     (cuzk-bench batch --prove --retries 3); one daemon is killed (SIGKILL)
#     while they run;
#   - every request ends with a proof (the daemons verify each before
#     answering) or UNAVAILABLE, which the client retries: all 40 complete, the
#     killed daemon's calls in flight came back UNAVAILABLE and were proved by
#     the survivor; nothing hangs (the batch runs under a time limit);
#   - both daemons proved some of them, and afterwards nginx sends everything
#     to the survivor;
#   - SubmitProof + AwaitProof through the balancer may reach two daemons: an
#     AwaitProof for a job the other daemon holds is NOT_FOUND, which is why
#     clients behind a balancer use Prove.
# Every process started here is stopped by its own pid.
# Usage: test_nginx.sh CUZK_DAEMON CUZK_BENCH NGINX WORK_DIR SOURCE_DIR
set -u
DAEMON=$1 BENCH=$2 NGINX=$3 T=$4 SRC=$5
rm -rf "$T" && mkdir -p "$T/params" "$T/syn1" "$T/syn2" "$T/nginx/logs"
. "$(dirname "$0")/../lib/expect.sh"
. "$(dirname "$0")/../lib/daemon.sh"
if [ ! -x "$NGINX" ]; then
    echo "FAIL: no nginx at \"$NGINX\" (scripts/deps.sh unpacks Debian's into BUILD/deps/nginx)"
    exit 1
fi

start_daemon() { # N: unix://$S/dN.sock, its own synthetic folder and log
    "$DAEMON" --listen "unix://$S/d$1.sock" --param-cache "$T/params" \
        --set synthetic.enabled=true --set synthetic.param_dir="$T/syn$1" \
        --set daemon.node_name="node$1" --log-file "$T/d$1.log" 2>>"$T/d$1.log" &
    pids+=($!)
    eval "D$1=$!"
}
start_daemon 1
start_daemon 2
for n in 1 2; do expect 0 "" -- "$BENCH" wait-ready --addr "unix://$S/d$n.sock" --timeout 60; done

# The recipe's configuration with this test's sockets, port and folders.
PORT=$(free_port)
sed -e "s|unix:/run/cuzk/d1.sock|unix:$S/d1.sock|; s|unix:/run/cuzk/d2.sock|unix:$S/d2.sock|" \
    -e "s|listen 9820 http2;|listen 127.0.0.1:$PORT http2;|" \
    "$SRC/contrib/nginx/cuzk.conf" >"$T/nginx/cuzk.conf"
if grep -q "$S/d1.sock" "$T/nginx/cuzk.conf" && grep -q "127.0.0.1:$PORT" "$T/nginx/cuzk.conf"
then ok; else bad "the recipe's sockets or port were not found to replace"; fi
# Workers as this user (when started as root nginx would run them as nobody,
# which cannot reach the test's private socket folder).
cat >"$T/nginx/nginx.conf" <<EOF
user $(id -un) $(id -gn);
worker_processes 1;
pid $T/nginx/nginx.pid;
error_log $T/nginx/logs/error.log info;
events { worker_connections 256; }
http {
    access_log $T/nginx/logs/access.log;
    client_body_temp_path $T/nginx/body;
    proxy_temp_path $T/nginx/proxy;
    fastcgi_temp_path $T/nginx/fastcgi;
    uwsgi_temp_path $T/nginx/uwsgi;
    scgi_temp_path $T/nginx/scgi;
    include $T/nginx/cuzk.conf;
}
EOF
"$NGINX" -p "$T/nginx" -c "$T/nginx/nginx.conf" -e "$T/nginx/logs/error.log" -g "daemon off;" &
NG=$!
pids+=("$NG")
LB=127.0.0.1:$PORT
# Health through nginx: the check reaches one of the daemons.
expect 0 "" -- "$BENCH" wait-ready --addr "$LB" --timeout 60

# 40 Prove requests, 8 at a time; daemon 1 killed once it has proved two.
timeout 600 "$BENCH" batch --addr "$LB" --kind synthetic --constraints 16384 --seed 7 -n 40 -j 8 \
    --prove --retries 3 --rpc-timeout 300 >"$T/batch.out" 2>"$T/batch.err" &
BATCH=$!
pids+=("$BATCH")
for ((i = 0; i < 600; i++)); do
    [ "$(grep -c "event=completed" "$T/d1.log")" -ge 2 ] && break
    kill -0 "$BATCH" 2>/dev/null || break
    sleep 0.1
done
before_kill=$(grep -c "event=completed" "$T/d1.log")
kill -9 "$D1"
wait_exit "$D1" 10
wait_exit "$BATCH" 600
if [ "$rc" -eq 0 ]; then ok; else bad "batch through nginx: exit $rc: $(cat "$T/batch.out" "$T/batch.err")"; fi
val() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$T/batch.out"; }
if [ "$(val completed)" = 40 ] && [ "$(val failed)" = 0 ] && [ "$(val rpc_errors)" = 0 ]; then
    ok
else bad "not all 40 proofs: $(cat "$T/batch.out")"; fi
# The kill caught calls in flight: they came back UNAVAILABLE and were proved
# on a retry.
if [ "${before_kill:-0}" -ge 2 ] && [ "$(val unavailable)" -ge 1 ] && [ "$(val retried_ok)" -ge 1 ]
then ok; else
    bad "no failover seen: daemon 1 proved $before_kill before the kill; $(cat "$T/batch.out")"
fi
# Only UNAVAILABLE was retried: no other error reached the client.
if grep -q "cuzk-bench: prove:" "$T/batch.err"; then bad "errors: $(cat "$T/batch.err")"; else ok; fi
# Every proof came from one of them (a proof daemon 1 finished as it was
# killed may have been lost and proved again: >= 40).
n1=$(grep -c "event=completed" "$T/d1.log")
n2=$(grep -c "event=completed" "$T/d2.log")
if [ "$n2" -ge 1 ] && [ $((n1 + n2)) -ge 40 ]; then ok; else
    bad "daemon 1 proved $n1, daemon 2 $n2 (want both > 0, 40 together)"
fi

# After the failure nginx sends everything to the survivor.
expect 0 "completed=10 failed=0 rpc_errors=0" -- "$BENCH" batch --addr "$LB" --kind synthetic \
    --constraints 1024 -n 10 -j 4 --prove --retries 3 --rpc-timeout 120
expect 0 "node=node2" -- "$BENCH" status --addr "$LB" --rpc-timeout 30

# Submit + Await through the balancer while both run: a job id belongs to one
# daemon, and AwaitProof for it on the other is NOT_FOUND.
start_daemon 1
expect 0 "" -- "$BENCH" wait-ready --addr "unix://$S/d1.sock" --timeout 60
JOB=$("$BENCH" submit --addr "unix://$S/d1.sock" --kind synthetic --constraints 1024 2>&1)
expect 2 "NOT_FOUND" -- "$BENCH" await "$JOB" --addr "unix://$S/d2.sock"
expect 0 "COMPLETED" -- "$BENCH" await "$JOB" --addr "unix://$S/d1.sock"

kill -TERM "$NG"
wait_exit "$NG" 30
stop_daemons "$D1" "$D2"
echo "test_nginx: $pass passed, $fail failed"
cat "$T/batch.out"; [ "$fail" -eq 0 ] && rm -rf "$T"
[ "$fail" -eq 0 ]
