#!/usr/bin/env bash
# CPU benchmark: for synthetic circuits of 2^16, 2^18
# and 2^20 constraints, setup time (one process) and prove time per phase with
# peak RSS (another process, so RSS is the prover's own).
# Usage: bench/cpu_prove.sh [BUILD_DIR] [LOG2 SIZES...]
set -euo pipefail
B=${1:-build}
shift || true
sizes=${*:-16 18 20}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "# $(date -u +%F) commit $(git rev-parse --short HEAD 2>/dev/null || echo ?) cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') threads: $(nproc)"
for k in $sizes; do
    n=$((1 << k))
    "$B/cuzk" synth --constraints $n --public-inputs 4 --seed $k --out "$dir/c$k" | grep '^synth'
    /usr/bin/time -f "setup_max_rss_kib=%M" "$B/cuzk" setup --pce "$dir/c$k.pce" --out "$dir/c$k" 2>&1 | grep -E '^setup|max_rss'
    "$B/cuzk-bench" prove --params "$dir/c$k.params" --pce "$dir/c$k.pce" --witness "$dir/c$k.wit" --reps 3
    rm -f "$dir/c$k".*
done
