#!/bin/sh
# Per-hit cost of a USDT probe beside a pid entry probe on the same function (issue 8: a USDT
# hit with @ = count() within 10% of a pid entry hit). The target is /work/shared/bench/work.c's
# loop with one SystemTap SDT probe (bench:work, <sys/sdt.h>) inside work(); dtrace and the
# target are pinned to one CPU as in /work/shared/bench/README.md.
#   usage: bench/usdt-work.sh [N] [RUNS]     (N defaults to 1,000,000 calls, RUNS to 3)
# Prints the untraced loop time and, for each probe, the loop time under bin/dtrace (median of
# RUNS) and the per-hit cost, then the USDT/pid ratio. Give `cat /proc/loadavg` with the numbers.
set -e
cd "$(dirname "$0")/.."
N=${1:-1000000}
RUNS=${2:-3}
DTRACE=${DTRACE:-../../bin/dtrace}
mkdir -p target/bench
SRC=target/bench/usdt_work.c BIN=target/bench/usdt_work
cat >"$SRC" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/sdt.h>
/* work.c's traced function with one USDT site; noinline keeps a real call per iteration. */
__attribute__((noinline)) int work(int x) { STAP_PROBE1(bench, work, x); return x * 3 + 1; }
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  long sum = 0;
  double t0 = now();
  for (long i = 0; i < n; i++) sum += work((int)i);
  double t1 = now();
  printf("%ld\n", sum);
  fprintf(stderr, "LOOP %.6f\n", t1 - t0);
  return 0;
}
C
gcc -O2 -g -o "$BIN" "$SRC"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
untraced=$(for i in $(seq "$RUNS"); do taskset -c 0 "$BIN" "$N" 2>&1 >/dev/null | awk '/^LOOP/ {print $2}'; done | median)
"$DTRACE" -V >/dev/null 2>&1 # builds when stale, outside the measurement
run() { # run DESCRIPTION -> median loop time under bin/dtrace
  for i in $(seq "$RUNS"); do taskset -c 0 "$DTRACE" -q -n "$1 { @ = count(); }" -c "$(pwd)/$BIN $N" 2>&1 >/dev/null \
      | awk '/^LOOP/ {print $2}'; done | median
}
pid=$(run 'pid$target:a.out:work:entry')
usdt=$(run 'bench$target:::work')
echo "load: $(cat /proc/loadavg)"
echo "N=$N untraced=${untraced}s pid-entry=${pid}s usdt=${usdt}s"
awk -v u="$untraced" -v p="$pid" -v s="$usdt" -v n="$N" 'BEGIN {
  pp = (p - u) / n * 1e6; ss = (s - u) / n * 1e6
  printf "per-hit: pid entry %.2f us, USDT %.2f us, USDT/pid %.3f\n", pp, ss, ss / pp }'
