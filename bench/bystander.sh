#!/usr/bin/env bash
# bench/bystander.sh [WORK] [RUNS]: does tracing one thread slow the others? A process of two
# threads (the C program below): the hot thread calls a noinline work() every PACE_US microseconds
# (default 50: about 20,000 calls a second, little CPU of its own) until the bystander is done; the
# bystander never calls work() (it never hits a probe) and times its own WORK iterations of
# arithmetic (default 200 million). The bystander's wall time is taken
#   untraced,
#   traced on uprobes:    dtrace -n 'pid$target:a.out:work:entry { @ = count(); }' -c ...
#   traced on ptrace:     the same with -x uprobes=off,
# each RUNS times (default 5), the order rotating; prints the medians of the bystander's wall time
# (as a ratio to the untraced one), of its own CPU time, and of the times it was put to sleep
# (getrusage(RUSAGE_THREAD)'s voluntary context switches: a thread that only computes sleeps only
# when something stops it, as a ptrace stop of the whole process would), and the work() calls the
# hot thread made a second under each (what the tracer let it do). On a loaded machine the wall
# time mostly measures the load (the two CPUs shared with everything else); the sleeps do not.
# PIN=1 runs every command on CPUs 0-1 (taskset).
set -euo pipefail
ROOT=$(cd -- "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/.." && pwd)
WORK=${1:-200000000}; RUNS=${2:-5}; PACE_US=${PACE_US:-50}
TMP=$(mktemp -d /tmp/jdtrace-bystander.XXXXXX); trap 'rm -rf "$TMP"' EXIT
cat >"$TMP/bystander.c" <<'EOF'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>
static volatile int done;
static volatile long hits;
__attribute__((noinline)) long work(long x) { __asm__ volatile("" ::: "memory"); return x * 3 + 1; }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static long pace_ns;
static void *hot(void *arg) {
    long s = 0, n = 0;
    struct timespec p = {0, pace_ns};
    while (!done) { s += work(n); n++; nanosleep(&p, NULL); }
    hits = n;
    return (void *) s;
}
int main(int argc, char **argv) {
    long w = argc > 1 ? atol(argv[1]) : 200000000L;
    pace_ns = (argc > 2 ? atol(argv[2]) : 50) * 1000L;
    pthread_t t;
    pthread_create(&t, NULL, hot, NULL);
    struct rusage r0, r1;
    struct timespec c0, c1;
    getrusage(RUSAGE_THREAD, &r0);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
    double t0 = now();
    unsigned long x = 88172645463325252UL;          /* the bystander: xorshift, no call */
    for (long i = 0; i < w; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; }
    double t1 = now();
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
    getrusage(RUSAGE_THREAD, &r1);
    done = 1;
    pthread_join(t, NULL);
    printf("%lu\n", x);
    fprintf(stderr, "BYSTANDER %.6f HITS %ld CPU %.6f SLEEPS %ld\n", t1 - t0, hits,
            (c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) * 1e-9, r1.ru_nvcsw - r0.ru_nvcsw);
    return 0;
}
EOF
gcc -O2 -g -pthread -o "$TMP/bystander" "$TMP/bystander.c"
PINCMD=(); [[ ${PIN:-0} == 1 ]] && PINCMD=(taskset -c 0,1)
"$ROOT/bin/dtrace" -V >/dev/null   # builds the distribution when stale, untimed
SCRIPT='pid$target:a.out:work:entry { @ = count(); }'

run() { # name, command...: appends "bystander-seconds hits cpu-seconds sleeps" to $TMP/name
  local name=$1; shift
  "${PINCMD[@]}" "$@" >"$TMP/out" 2>"$TMP/err" || { echo "bystander.sh: $name failed:" >&2; cat "$TMP/err" >&2; exit 1; }
  local l; l=$(grep -o 'BYSTANDER [0-9.]* HITS [0-9]* CPU [0-9.]* SLEEPS [0-9]*' "$TMP/err" | tail -1)
  [[ -n $l ]] || { echo "bystander.sh: $name: no BYSTANDER line" >&2; cat "$TMP/err" >&2; exit 1; }
  echo "$l" | awk '{ print $2, $4, $6, $8 }' >>"$TMP/$name"
}
one() { # one run of the named way
  case $1 in
    untraced) run untraced "$TMP/bystander" "$WORK" "$PACE_US" ;;
    uprobes) run uprobes "$ROOT/bin/dtrace" -q -n "$SCRIPT" -c "$TMP/bystander $WORK $PACE_US" ;;
    ptrace) run ptrace "$ROOT/bin/dtrace" -q -x uprobes=off -n "$SCRIPT" -c "$TMP/bystander $WORK $PACE_US" ;;
  esac
}
ways=(untraced uprobes ptrace)
for ((r = 0; r < RUNS; r++)); do # the order rotates from run to run (none always follows a JVM's exit)
  for ((i = 0; i < 3; i++)); do one "${ways[(r + i) % 3]}"; done
done
median() { cut -d' ' -f"$2" "$TMP/$1" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
base=$(median untraced 1)
echo "bystander: $WORK iterations, hot thread paced at ${PACE_US} us, median of $RUNS runs${PIN:+, pinned to CPUs 0-1}"
for k in untraced uprobes ptrace; do
  b=$(median $k 1)
  rate=$(awk -v h="$(median $k 2)" -v s="$b" 'BEGIN { printf "%.0f", h / s }')
  printf '%-9s bystander %8.3f s wall (%sx untraced), %.3f s CPU, %s sleeps   hot thread %9s work() calls/s\n' "$k" "$b" \
      "$(awk -v t="$b" -v u="$base" 'BEGIN { printf "%.2f", t / u }')" "$(median $k 3)" "$(median $k 4)" "$rate"
done
