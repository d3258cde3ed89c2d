#!/usr/bin/env bash
# bench/startup.sh [N] [dtrace args...]: median wall time of N runs (default 21) of
#   bin/dtrace -n 'BEGIN { exit(0); }'
# after one untimed run (which builds the distribution if it is stale). Also prints min and max,
# and the start-up phases of one more run (JDTRACE_TIMING=1).
set -euo pipefail
ROOT=$(cd -- "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/.." && pwd)
N=${1:-21}; shift || true
ARGS=("$@"); (( ${#ARGS[@]} )) || ARGS=(-n 'BEGIN { exit(0); }')
"$ROOT/bin/dtrace" "${ARGS[@]}" >/dev/null 2>&1 || { echo "startup.sh: bin/dtrace ${ARGS[*]} failed:" >&2; "$ROOT/bin/dtrace" "${ARGS[@]}"; exit 1; }
times=()
for ((i = 0; i < N; i++)); do
  s=$(date +%s%N)
  "$ROOT/bin/dtrace" "${ARGS[@]}" >/dev/null 2>&1
  e=$(date +%s%N)
  times+=($(( (e - s) / 1000000 )))
done
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
echo "bin/dtrace ${ARGS[*]}: median ${sorted[N/2]} ms, min ${sorted[0]} ms, max ${sorted[N-1]} ms over $N runs (load: $(cut -d' ' -f1-3 /proc/loadavg))"
JDTRACE_TIMING=1 "$ROOT/bin/dtrace" "${ARGS[@]}" 2>&1 >/dev/null | grep 'timing:' || true
