# Sourced by the bench scripts (needs O, the output folder).
#   step NAME COMMAND...   runs COMMAND with its output appended to O/NAME.log;
#                          prints the command, its status and wall time, then
#                          the log's last STEP_TAIL lines (4), or with STEP_SHOW
#                          set the last 6 lines matching that regex; a failure
#                          sets rc=1 and is the step's status.
rc=0
step() {
    local name=$1
    shift
    echo "== $name: $*" | tee -a "$O/$name.log"
    local t0=$SECONDS
    "$@" >>"$O/$name.log" 2>&1
    local r=$?
    echo "== $name: rc=$r wall_s=$((SECONDS - t0))" | tee -a "$O/$name.log"
    if [ -n "${STEP_SHOW:-}" ]; then
        grep -E "$STEP_SHOW" "$O/$name.log" | tail -n 6
    else
        tail -n "${STEP_TAIL:-4}" "$O/$name.log"
    fi
    [ $r -eq 0 ] || rc=1
    return $r
}
