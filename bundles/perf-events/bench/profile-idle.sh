#!/bin/bash
# CPU used by the tracer itself while profile-997 samples every CPU of a (mostly) idle machine,
# side by side with bpftrace: jdtrace 'profile-997 { @[cpu] = count(); }' and bpftrace
# 'profile:hz:997 { @[cpu] = count(); }'. The tracer's utime+stime from /proc/PID/stat over
# SECONDS of steady state (after start-up), as a percentage of one CPU. Root; bpftrace.
#   usage: bench/profile-idle.sh [SECONDS]      (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-10}
ROOT=$(cd ../.. && pwd)
mkdir -p target/bench
TCK=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# $1: text the tracer prints once tracing; the rest: the command
measure() {
  local out=target/bench/tracer.out
  : > "$out"
  "${@:2}" > "$out" 2>&1 &
  local pid=$!
  for _ in $(seq 600); do grep -q "$1" "$out" && break; sleep 0.1; done
  sleep 2 # JIT warm-up and the first drains
  local t0; t0=$(ticks "$pid")
  sleep "$SECS"
  local t1; t1=$(ticks "$pid")
  kill -TERM "$pid" 2>/dev/null || true  # not INT: a background job of a script ignores SIGINT
  wait "$pid" 2>/dev/null || true
  awk -v a="$t0" -v b="$t1" -v s="$SECS" -v t="$TCK" 'BEGIN {printf "%.2f", (b - a) / t / s * 100}'
}

echo "load before: $(cat /proc/loadavg)"
b=$(measure 'Attaching' bpftrace -B line -e 'profile:hz:997 { @[cpu] = count(); }')
j=$(measure 'tracing' "$ROOT/bin/dtrace" -q -n 'BEGIN { printf("tracing\n"); } profile-997 { @[cpu] = count(); }')
echo "load after: $(cat /proc/loadavg)"
echo "profile-997 on $(nproc) CPUs for ${SECS}s: bpftrace ${b}% of one CPU, jdtrace ${j}% of one CPU"
