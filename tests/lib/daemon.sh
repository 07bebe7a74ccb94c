# Shared by the daemon tests (source it after expect.sh):
#   pids=(...)              processes this test started; killed (by pid) on exit
#   S                       a short private folder for sockets (unix socket
#                           paths are limited to 107 bytes), removed on exit
#   contains FILE NEEDLE WHAT   count a check: NEEDLE is in FILE
#   free_port               a TCP port free on 127.0.0.1 now
#   wait_exit PID SECONDS   wait for a process we started; its status in $rc
#   stop_daemons PID...     SIGTERM each daemon we started and count a check:
#                           it exits 0 within 60 s
PY=${PY:-/usr/bin/python3}
pids=()
S=$(mktemp -d /tmp/cuzk-test.XXXXXX)
daemon_test_cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
    [ -n "$S" ] && rm -rf "$S"
}
trap daemon_test_cleanup EXIT
contains() { # FILE NEEDLE WHAT
    if grep -qF -- "$2" "$1" 2>/dev/null; then ok; else bad "$3: \"$2\" not in $1: $(tail -5 "$1" 2>&1)"; fi
}
free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_exit() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    wait "$1"
    rc=$?
}
stop_daemons() {
    local p
    for p; do
        kill -TERM "$p"
        wait_exit "$p" 60
        if [ "$rc" -eq 0 ]; then ok; else bad "daemon $p exit $rc"; fi
    done
}
