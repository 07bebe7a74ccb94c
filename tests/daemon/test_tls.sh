#!/usr/bin/env bash
# cuzk-daemon on TCP with TLS and client certificates (mTLS):
#   - a client with a certificate of the configured CA proves a job;
#   - a client without a certificate, with one from another CA, with an
#     expired one, or speaking plaintext is refused in the handshake; the
#     daemon logs each refusal with its reason and keeps serving;
#   - SIGHUP reads the files again: a server certificate from another CA
#     takes over at the next connection; files that do not fit (a key that
#     is not the certificate's) leave the one in use;
#   - plain TCP beyond loopback (listen or status_listen) is refused at start
#     unless daemon.allow_insecure_tcp = true; bad TLS files are named.
# Certificates are made here with the openssl command (EC P-256).
# Every daemon started here is stopped by its own pid.
# Usage: test_tls.sh CUZK_DAEMON CUZK_BENCH CUZK WORK_DIR
set -u
DAEMON=$1 BENCH=$2 T=$4
rm -rf "$T" && mkdir -p "$T/params" "$T/syn"
. "$(dirname "$0")/../lib/expect.sh"
. "$(dirname "$0")/../lib/daemon.sh"
C=$T/certs
mkdir -p "$C"

key_csr() { # NAME: NAME.key and NAME.csr
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$C/$1.key" \
        -out "$C/$1.csr" -subj "/CN=$1" 2>/dev/null
}
ca() { # NAME: a self-signed CA
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$C/$1.key" \
        -out "$C/$1.pem" -subj "/CN=$1" -days 30 2>/dev/null
}
sign() { # NAME CA DAYS [EXTFILE]: NAME.pem signed by CA (DAYS < 0: already expired)
    openssl x509 -req -in "$C/$1.csr" -CA "$C/$2.pem" -CAkey "$C/$2.key" -set_serial "$RANDOM" \
        -days "$3" ${4:+-extfile "$4"} -out "$C/$1.pem" 2>/dev/null
}
ca ca1
ca ca2
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$C/san.ext"
key_csr server && sign server ca1 30 "$C/san.ext"
key_csr client && sign client ca1 30
key_csr other && sign other ca2 30
key_csr old && sign old ca1 -1
for f in ca1 ca2 server client other old; do
    if [ -s "$C/$f.pem" ]; then ok; else bad "openssl did not make $f.pem"; fi
done
if openssl x509 -in "$C/old.pem" -noout -checkend 0 >/dev/null; then
    bad "old.pem is not expired"
else ok; fi

PORT=$(free_port)
ADDR=127.0.0.1:$PORT
LOG=$T/d.log
cp "$C/server.pem" "$T/server.pem"
cp "$C/server.key" "$T/server.key"
"$DAEMON" --listen "$ADDR" --param-cache "$T/params" --log-file "$LOG" \
    --set daemon.tls_cert="$T/server.pem" --set daemon.tls_key="$T/server.key" \
    --set daemon.tls_client_ca="$C/ca1.pem" --set synthetic.enabled=true \
    --set synthetic.param_dir="$T/syn" 2>>"$LOG" &
D=$!
pids+=("$D")
TLS=(--tls-ca "$C/ca1.pem")
GOOD=("${TLS[@]}" --tls-cert "$C/client.pem" --tls-key "$C/client.key")
expect 0 "" -- "$BENCH" wait-ready --addr "$ADDR" "${GOOD[@]}" --timeout 60
contains "$LOG" "TLS, client certificates required" "the listen line says TLS"

# A certified client proves a job (the daemon verifies the proof).
expect 0 "status=COMPLETED" -- "$BENCH" single --addr "$ADDR" "${GOOD[@]}" --kind synthetic \
    --constraints 1024 --rpc-timeout 300

# Refused clients: each fails UNAVAILABLE, and the daemon logs why.
refused() { # WHAT NEEDLE-IN-LOG ARGS...
    local what=$1 needle=$2 before
    shift 2
    before=$(grep -c "refused in its TLS handshake" "$LOG")
    expect 2 "UNAVAILABLE" -- "$BENCH" status --addr "$ADDR" --rpc-timeout 10 "$@"
    local i
    for ((i = 0; i < 50; i++)); do
        [ "$(grep -c "refused in its TLS handshake" "$LOG")" -gt "$before" ] && break
        sleep 0.1
    done
    if grep "refused in its TLS handshake" "$LOG" | tail -n +$((before + 1)) |
        grep -E "peer=ipv4:127\.0\.0\.1:[0-9]+ reason=" | grep -qF "$needle"
    then ok; else bad "$what: no refusal naming the peer and \"$needle\" in $LOG: $(tail -3 "$LOG")"; fi
}
refused "no client certificate" "peer did not return a certificate" "${TLS[@]}"
refused "a certificate of another CA" "certificate verify failed" "${TLS[@]}" \
    --tls-cert "$C/other.pem" --tls-key "$C/other.key"
refused "an expired certificate" "certificate verify failed" "${TLS[@]}" \
    --tls-cert "$C/old.pem" --tls-key "$C/old.key"
refused "plaintext" "wrong version number"
# A client that does not trust the daemon's CA gives up on its side.
expect 2 "UNAVAILABLE" -- "$BENCH" status --addr "$ADDR" --rpc-timeout 10 --tls-ca "$C/ca2.pem" \
    --tls-cert "$C/client.pem" --tls-key "$C/client.key"
# Still serving.
expect 0 "ready=true" -- "$BENCH" status --addr "$ADDR" "${GOOD[@]}" --rpc-timeout 10

# SIGHUP with a key that is not the certificate's: the one in use stays.
cp "$C/other.key" "$T/server.key"
kill -HUP "$D"
sleep 0.5
expect 0 "ready=true" -- "$BENCH" status --addr "$ADDR" "${GOOD[@]}" --rpc-timeout 10
contains "$LOG" "is not the key of daemon.tls_cert" "a reload that does not fit is named"
contains "$LOG" "the certificate in use stays" "and the certificate in use stays"
# SIGHUP with a server certificate from ca2: new connections see it.
key_csr server2 && sign server2 ca2 30 "$C/san.ext"
cp "$C/server2.pem" "$T/server.pem"
cp "$C/server2.key" "$T/server.key"
kill -HUP "$D"
sleep 0.5
expect 0 "ready=true" -- "$BENCH" status --addr "$ADDR" --tls-ca "$C/ca2.pem" \
    --tls-cert "$C/client.pem" --tls-key "$C/client.key" --rpc-timeout 10
expect 2 "UNAVAILABLE" -- "$BENCH" status --addr "$ADDR" "${GOOD[@]}" --rpc-timeout 10
contains "$LOG" "tls: reloaded cert=$T/server.pem" "the reload is logged"
stop_daemons "$D"

# TLS without client certificates: any client that trusts the server's CA.
P3=$(free_port)
"$DAEMON" --listen "127.0.0.1:$P3" --param-cache "$T/params" --log-file "$T/d3.log" \
    --set daemon.tls_cert="$C/server.pem" --set daemon.tls_key="$C/server.key" 2>>"$T/d3.log" &
D3=$!
pids+=("$D3")
expect 0 "" -- "$BENCH" wait-ready --addr "127.0.0.1:$P3" --tls-ca "$C/ca1.pem" --timeout 60
contains "$T/d3.log" "Health; TLS)" "the listen line says TLS without client certificates"
expect 0 "ready=true" -- "$BENCH" status --addr "127.0.0.1:$P3" --tls-ca "$C/ca1.pem" \
    --rpc-timeout 10
expect 2 "certificate verify failed" -- "$BENCH" status --addr "127.0.0.1:$P3" \
    --tls-ca "$C/ca2.pem" --rpc-timeout 10
refused_plain=$(grep -c "refused in its TLS handshake" "$T/d3.log")
expect 2 "UNAVAILABLE" -- "$BENCH" status --addr "127.0.0.1:$P3" --rpc-timeout 10
sleep 0.3
if [ "$(grep -c "refused in its TLS handshake" "$T/d3.log")" -gt "$refused_plain" ]; then ok; else
    bad "a plaintext client on the TLS-only daemon is not logged"; fi
kill -TERM "$D3"
wait_exit "$D3" 60
if [ "$rc" -eq 0 ]; then ok; else bad "TLS-only daemon exit $rc"; fi

# Start-up rules: plain TCP beyond loopback needs allow_insecure_tcp.
P2=$(free_port)
expect 2 "is reachable beyond this host and has no TLS" -- \
    "$DAEMON" --listen "0.0.0.0:$P2" --param-cache "$T/params"
expect 2 "is reachable beyond this host and has no TLS" -- \
    "$DAEMON" --listen ":$P2" --param-cache "$T/params" --check-config
expect 2 "status_listen \"0.0.0.0:$P2\" is reachable beyond this host and is plain HTTP" -- \
    "$DAEMON" --listen "unix://$S/a.sock" --status-listen "0.0.0.0:$P2" \
    --param-cache "$T/params" --check-config
expect 0 "config ok" -- "$DAEMON" --listen "0.0.0.0:$P2" --param-cache "$T/params" \
    --set daemon.allow_insecure_tcp=true --check-config
expect 0 "config ok" -- "$DAEMON" --listen "localhost:$P2" --param-cache "$T/params" --check-config
expect 0 "config ok" -- "$DAEMON" --listen "0.0.0.0:$P2" --param-cache "$T/params" \
    --set daemon.tls_cert="$C/server.pem" --set daemon.tls_key="$C/server.key" --check-config
# Bad TLS settings, each named.
tls_bad() { # NEEDLE SETTINGS...
    local needle=$1
    shift
    local s=() kv
    for kv in "$@"; do s+=(--set "daemon.$kv"); done
    expect 2 "$needle" -- "$DAEMON" --listen "0.0.0.0:$P2" --param-cache "$T/params" "${s[@]}" \
        --check-config
}
tls_bad "tls_cert and daemon.tls_key go together" "tls_cert=$C/server.pem"
tls_bad "is not the key of daemon.tls_cert" "tls_cert=$C/server.pem" "tls_key=$C/client.key"
tls_bad "no PEM certificate in it" "tls_cert=$C/server.key" "tls_key=$C/server.key"
tls_bad "no PEM private key in it" "tls_cert=$C/server.pem" "tls_key=$C/server.pem"
tls_bad "No such file or directory" "tls_cert=$C/server.pem" "tls_key=$C/server.key" \
    "tls_client_ca=$C/nope.pem"
tls_bad "tls_client_ca needs daemon.tls_cert" "tls_client_ca=$C/ca1.pem"
head -c 100 "$C/server.pem" >"$C/cut.pem"
tls_bad "no PEM certificate in it" "tls_cert=$C/cut.pem" "tls_key=$C/server.key"
# The client's own checks.
expect 2 "--tls-cert and --tls-key go together" -- "$BENCH" status --addr "$ADDR" \
    --tls-ca "$C/ca1.pem" --tls-cert "$C/client.pem"
expect 2 "--tls-ca" -- "$BENCH" status --addr "$ADDR" --tls-ca "$C/nope.pem"

echo "test_tls: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && rm -rf "$T"
[ "$fail" -eq 0 ]
