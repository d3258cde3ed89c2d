#!/bin/bash
# Added cost per system call of machine-wide syscall tracing, side by side with bpftrace, on a
# tight getppid loop (/work/shared/bench/sys.c, its LOOP time on stderr):
#   jdtrace:  syscall:::entry { @[execname] = count(); }   (the count kept in the kernel)
#   jdtrace -x kernelclauses=off: the same, every call sent to the JVM and counted there
#   bpftrace: tracepoint:raw_syscalls:sys_enter { @[comm] = count(); }
# Each tracer runs machine-wide while the loop runs (started first, the loop started once it
# traces); the runs of the four take turns (untraced, bpftrace, jdtrace, jdtrace off), so that a
# change of load hits them all. Prints the median LOOP time of RUNS runs of each, the added ns per
# call and jdtrace/bpftrace, the calls a second each loop made, and the drops each jdtrace run
# reported ('dtrace: N drops on CPU c', 'N aggregation drops', summed over the runs). Root;
# bpftrace (Debian bpftrace) and gcc.
#   usage: bench/syscall-getppid.sh [N] [RUNS]      (N defaults to 2,000,000)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-2000000}
RUNS=${2:-3}
ROOT=$(cd ../.. && pwd)
mkdir -p target/bench
gcc -O2 -o target/bench/sys "${SYS_C:-/work/shared/bench/sys.c}"
. bench/side-by-side.sh
loop() { target/bench/sys "$N" 2>&1 >/dev/null | awk '/^LOOP/ {print $2}'; }

echo "load before: $(cat /proc/loadavg)"
jdprog='BEGIN { printf("tracing\n"); } syscall:::entry { @[execname] = count(); }'
: > target/bench/times
for i in $(seq "$RUNS"); do
  echo "u $(loop)" >> target/bench/times
  echo "b $(under b 'Attaching' bpftrace -B line -e 'tracepoint:raw_syscalls:sys_enter { @[comm] = count(); }')" >> target/bench/times
  echo "j $(under j 'tracing' "$ROOT/bin/dtrace" -q -n "$jdprog")" >> target/bench/times
  echo "o $(under o 'tracing' "$ROOT/bin/dtrace" -x kernelclauses=off -q -n "$jdprog")" >> target/bench/times
done
of() { awk -v k="$1" '$1 == k {print $2}' target/bench/times | median; }
untraced=$(of u); bpf=$(of b); jd=$(of j); jdoff=$(of o)
sum() { awk -v k="$1" '$1 == k {s += $2} END {print s + 0}' target/bench/times; }
echo "load after: $(cat /proc/loadavg)"
awk -v u="$untraced" -v b="$bpf" -v j="$jd" -v o="$jdoff" -v n="$N" 'BEGIN {
  printf "N=%d untraced=%.3fs bpftrace=%.3fs jdtrace=%.3fs jdtrace(kernelclauses=off)=%.3fs\n", n, u, b, j, o
  bb = (b - u) / n * 1e9; jj = (j - u) / n * 1e9; oo = (o - u) / n * 1e9
  printf "added per call: bpftrace %.0f ns, jdtrace %.0f ns, jdtrace off %.0f ns\n", bb, jj, oo
  printf "jdtrace/bpftrace %.2f (kernelclauses=off: %.2f)\n", (bb > 0 ? jj / bb : 0), (bb > 0 ? oo / bb : 0)
  printf "calls a second: untraced %.0f, bpftrace %.0f, jdtrace %.0f, jdtrace off %.0f\n", n / u, n / b, n / j, n / o
}'
echo "drops over $RUNS runs: jdtrace $(sum dj), jdtrace off $(sum do)"
