#!/bin/bash
# Added cost per read(2) of the read-latency idiom, whose thread-local lives in the kernel, side
# by side with bpftrace, on a tight loop of one-byte reads from /dev/zero (bench/read-loop.c):
#   jdtrace:  syscall::read:entry { self->ts = timestamp; }
#             syscall::read:return /self->ts/ { @ = quantize(timestamp - self->ts); self->ts = 0; }
#             (self->ts in the BPF thread-locals map, the quantize in a BPF map: nothing sent)
#   jdtrace -x kernelclauses=off: the same, every read's entry and return judged in the JVM
#   bpftrace: tracepoint:syscalls:sys_enter_read { @ts[tid] = nsecs; }
#             tracepoint:syscalls:sys_exit_read /@ts[tid]/ { @ = hist(nsecs - @ts[tid]); delete(@ts[tid]); }
# Each tracer runs machine-wide while the loop runs (started first, the loop started once it
# traces); the runs take turns (untraced, bpftrace, jdtrace, jdtrace off) so that a change of load
# hits them all. Prints the median LOOP time of RUNS runs of each, the added ns per read and
# jdtrace/bpftrace (the issue's target: <= 1.0). Note: bpftrace attaches to read's own
# tracepoints, jdtrace to raw_syscalls (every call pays its armed-map lookup); in this loop every
# call is a read. Root; bpftrace (Debian bpftrace) and gcc. OFF=0 skips the kernelclauses=off run.
#   usage: bench/read-latency.sh [N] [RUNS]      (N defaults to 1,000,000)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
RUNS=${2:-3}
OFF=${OFF:-1}
ROOT=$(cd ../.. && pwd)
mkdir -p target/bench
gcc -O2 -o target/bench/read-loop bench/read-loop.c
. bench/side-by-side.sh
loop() { target/bench/read-loop "$N" 2>&1 >/dev/null | awk '/^LOOP/ {print $2}'; }

echo "load before: $(cat /proc/loadavg)"
jdprog='BEGIN { printf("tracing\n"); } syscall::read:entry { self->ts = timestamp; }
syscall::read:return /self->ts/ { @ = quantize(timestamp - self->ts); self->ts = 0; }'
btprog='tracepoint:syscalls:sys_enter_read { @ts[tid] = nsecs; }
tracepoint:syscalls:sys_exit_read /@ts[tid]/ { @ = hist(nsecs - @ts[tid]); delete(@ts[tid]); }'
: > target/bench/times
for i in $(seq "$RUNS"); do
  echo "u $(loop)" >> target/bench/times
  echo "b $(under x 'Attaching' bpftrace -B line -e "$btprog")" >> target/bench/times
  echo "j $(under x 'tracing' "$ROOT/bin/dtrace" -q -n "$jdprog")" >> target/bench/times
  if [ "$OFF" = 1 ]; then
    echo "o $(under x 'tracing' "$ROOT/bin/dtrace" -x kernelclauses=off -q -n "$jdprog")" >> target/bench/times
  fi
done
of() { awk -v k="$1" '$1 == k {print $2}' target/bench/times | median; }
untraced=$(of u); bpf=$(of b); jd=$(of j); jdoff=$(of o)
echo "load after: $(cat /proc/loadavg)"
awk -v u="$untraced" -v b="$bpf" -v j="$jd" -v o="${jdoff:-0}" -v n="$N" 'BEGIN {
  printf "N=%d untraced=%.3fs bpftrace=%.3fs jdtrace=%.3fs jdtrace(kernelclauses=off)=%.3fs\n", n, u, b, j, o
  bb = (b - u) / n * 1e9; jj = (j - u) / n * 1e9; oo = o > 0 ? (o - u) / n * 1e9 : 0
  printf "added per read: bpftrace %.0f ns, jdtrace %.0f ns, jdtrace off %.0f ns\n", bb, jj, oo
  printf "jdtrace/bpftrace %.2f (kernelclauses=off: %.2f)\n", (bb > 0 ? jj / bb : 0), (bb > 0 ? oo / bb : 0)
}'
