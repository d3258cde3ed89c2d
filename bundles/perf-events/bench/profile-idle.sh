#!/bin/bash
# CPU used by the tracer itself while profile-997 samples every CPU of a (mostly) idle machine,
# side by side with bpftrace: jdtrace 'profile-997 { @[cpu] = count(); }' and bpftrace
# 'profile:hz:997 { @[cpu] = count(); }'. The tracer's utime+stime from /proc/PID/stat over
# SECONDS of steady state (after WARMUP seconds of start-up and JIT), as a percentage of one
# CPU; for the JVM also per thread (/proc/PID/task/TID/stat), so that the drain thread, the
# consumer's threads and the JIT can be told apart. Issue 10's target: jdtrace < 3% of one CPU.
# The load average is printed before and after: on a busy machine the numbers are not an idle
# machine's. Root; bpftrace (skipped with NO_BPFTRACE=1).
#   usage: bench/profile-idle.sh [SECONDS [WARMUP]]      (defaults 20 and 10)
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-20}
WARMUP=${2:-10}
ROOT=$(cd ../.. && pwd)
mkdir -p target/bench
TCK=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
threads() { # TID TICKS NAME, one line a thread
  for t in /proc/"$1"/task/*; do echo "${t##*/} $(awk '{print $14 + $15}' "$t/stat" 2>/dev/null || echo 0) $(tr ' ' _ < "$t/comm" 2>/dev/null)"; done | sort
}

# $1: text the tracer prints once tracing; $2: 1 to break the JVM down by thread; the rest: the command
measure() {
  local out=target/bench/tracer.out
  : > "$out"
  "${@:3}" > "$out" 2>&1 &
  local pid=$!
  for _ in $(seq 600); do grep -q "$1" "$out" && break; sleep 0.1; done
  sleep "$WARMUP"
  local t0; t0=$(ticks "$pid")
  [[ $2 == 1 ]] && threads "$pid" > target/bench/threads.0
  sleep "$SECS"
  local t1; t1=$(ticks "$pid")
  [[ $2 == 1 ]] && threads "$pid" > target/bench/threads.1
  kill -TERM "$pid" 2>/dev/null || true  # not INT: a background job of a script ignores SIGINT
  wait "$pid" 2>/dev/null || true
  awk -v a="$t0" -v b="$t1" -v s="$SECS" -v t="$TCK" 'BEGIN {printf "%.2f", (b - a) / t / s * 100}'
}

echo "load before: $(cat /proc/loadavg)"
b=skipped
[[ -z ${NO_BPFTRACE:-} ]] && b=$(measure 'Attaching' 0 bpftrace -B line -e 'profile:hz:997 { @[cpu] = count(); }')%
j=$(measure 'tracing' 1 "$ROOT/bin/dtrace" -q -n 'BEGIN { printf("tracing\n"); } profile-997 { @[cpu] = count(); }')
echo "load after: $(cat /proc/loadavg)"
echo "profile-997 on $(nproc) CPUs for ${SECS}s after ${WARMUP}s: bpftrace ${b} of one CPU, jdtrace ${j}% of one CPU"
echo "jdtrace's threads (% of one CPU):"
join target/bench/threads.0 target/bench/threads.1 | awk -v s="$SECS" -v t="$TCK" \
  '{d = $4 - $2; if (d > 0) printf "  %-20s %.2f\n", $3, d / t / s * 100}' | sort -k2 -nr
