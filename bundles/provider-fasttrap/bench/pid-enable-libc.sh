#!/bin/sh
# Time to enable pid$target:libc.so.6::entry (every libc function, IFUNCs resolved) with
# bin/dtrace: the median wall time of RUNS runs of
#   dtrace -q -n 'pid$target:libc.so.6::entry { @ = count(); }' -c /bin/true
# minus the median of the same with only a BEGIN clause (start-up, -c and exit are the same in
# both; /bin/true makes a few dozen libc calls, so the hits add nothing measurable).
#   usage: bench/pid-enable-libc.sh [RUNS]
set -e
cd "$(dirname "$0")/../../.."
RUNS=${1:-5}
DTRACE=bin/dtrace
"$DTRACE" -V >/dev/null # build first when stale
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wall() {
  for i in $(seq "$RUNS"); do
    s=$(date +%s%N); "$DTRACE" -q -n "$1" -c /bin/true >/dev/null 2>&1; e=$(date +%s%N)
    echo $(( (e - s) / 1000000 ))
  done | median
}
probes=$("$DTRACE" -l -n 'pid$target:libc.so.6::entry' -c /bin/true 2>/dev/null | tail -n +2 | wc -l)
base=$(wall 'BEGIN { }')
libc=$(wall 'pid$target:libc.so.6::entry { @ = count(); }')
echo "probes pid\$target:libc.so.6::entry: $probes"
echo "median wall, BEGIN only: ${base} ms; every libc entry: ${libc} ms"
echo "enabling every libc function: $((libc - base)) ms"
