#!/usr/bin/env bash
# bundles/provider-fbt/bench/enable-all.sh [runs]: what enabling every fbt probe of the platform's
# own bundles costs: bin/dtrace -n 'fbt:org.jdtrace.*::entry' -n 'tick-1ms { exit(0); }' against
# the same run without the fbt description (median wall times of `runs`, default 11), and the
# retransformations of one more run (JDTRACE_DEBUG=1: classes and milliseconds of each batch;
# the last batch is the restore at the end). Target: the difference < 2 s.
set -euo pipefail
ROOT=$(cd -- "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/../../.." && pwd)
N=${1:-11}
FBT=(-q -n 'fbt:org.jdtrace.*::entry' -n 'tick-1ms { exit(0); }')
BARE=(-q -n 'tick-1ms { exit(0); }')
"$ROOT/bin/dtrace" "${BARE[@]}" >/dev/null
median() {
  local times=()
  for ((i = 0; i < N; i++)); do
    s=$(date +%s%N); "$ROOT/bin/dtrace" "$@" >/dev/null 2>&1; e=$(date +%s%N)
    times+=($(( (e - s) / 1000000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( N / 2 + 1 ))p"
}
with=$(median "${FBT[@]}")
without=$(median "${BARE[@]}")
probes=$("$ROOT/bin/dtrace" -l -n 'fbt:org.jdtrace.*::entry' | tail -n +2 | wc -l)
echo "enable all $probes fbt:org.jdtrace.*::entry probes: median $with ms, without them $without ms," \
     "difference $(( with - without )) ms over $N runs (load: $(cut -d' ' -f1-3 /proc/loadavg))"
JDTRACE_DEBUG=1 "$ROOT/bin/dtrace" "${FBT[@]}" 2>&1 | grep 'retransformed' || true
