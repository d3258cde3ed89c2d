#!/usr/bin/env bash
# bench/uprobes.sh [N] [RUNS]: pid entry and return probes on kernel uprobes against bpftrace's
# uprobe/uretprobe, side by side in one run, on the same binary (the C program below: a loop
# calling a noinline work() N times, default 200000, which prints the loop's own wall time as
# `LOOP <s>` and the CPU time the process spent in it, the kernel's uprobe handling included, as
# `CPU <s>` on stderr). Per-hit cost = (traced - untraced loop) / N, median of RUNS runs (default
# 3) each, interleaved; prints each tracer's cost and the ratio jdtrace/bpftrace, in wall time and
# in CPU time (the trap and the BPF program run in the hitting thread: CPU time is what a hit costs
# the traced program, and what a loaded machine's scheduling does not blur).
# The third case, latency, is the classic entry/return idiom with a thread-local, which runs
# wholly in the kernel on both sides: bpftrace's `@ts[tid] = nsecs` at the uprobe, hist() and
# delete() at the uretprobe; jdtrace's `self->ts = timestamp` at entry, quantize() and
# `self->ts = 0` at return (the thread-locals map, ClauseProgram).
# PIN=1 runs every command (tracer and target) on CPU 0 (taskset), as the shared bench's table.
set -euo pipefail
ROOT=$(cd -- "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/.." && pwd)
N=${1:-200000}; RUNS=${2:-3}
command -v bpftrace >/dev/null || { echo "uprobes.sh: bpftrace is not installed" >&2; exit 1; }
TMP=$(mktemp -d /tmp/jdtrace-uprobes.XXXXXX); trap 'rm -rf "$TMP"' EXIT
BIN=$TMP/work
cat >"$TMP/work.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
__attribute__((noinline)) int work(int x) { return x * 3 + 1; }
static double at(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000, sum = 0;
  double t0 = at(CLOCK_MONOTONIC), c0 = at(CLOCK_PROCESS_CPUTIME_ID);
  for (long i = 0; i < n; i++) sum += work((int) i);
  double t1 = at(CLOCK_MONOTONIC), c1 = at(CLOCK_PROCESS_CPUTIME_ID);
  printf("%ld\n", sum);
  fprintf(stderr, "LOOP %.6f CPU %.6f\n", t1 - t0, c1 - c0);
  return 0;
}
EOF
gcc -O2 -g -o "$BIN" "$TMP/work.c"
PINCMD=(); [[ ${PIN:-0} == 1 ]] && PINCMD=(taskset -c 0)
"$ROOT/bin/dtrace" -V >/dev/null   # builds the distribution when stale, untimed

loop() { # "wall cpu" of the LOOP line a command's stderr (or its target's, passed through) reports
  grep -o 'LOOP [0-9.]* CPU [0-9.]*' "$1" | tail -1 | cut -d' ' -f2,4
}
run() { # name, command...: appends the loop's wall and CPU time to $TMP/name and $TMP/name.cpu
  local name=$1; shift
  "${PINCMD[@]}" "$@" >"$TMP/out" 2>"$TMP/err" || { echo "uprobes.sh: $name failed:" >&2; cat "$TMP/err" >&2; exit 1; }
  local l; l=$(loop "$TMP/err"); [[ -n $l ]] || l=$(loop "$TMP/out")
  [[ -n $l ]] || { echo "uprobes.sh: $name: no LOOP line" >&2; cat "$TMP/err" "$TMP/out" >&2; exit 1; }
  echo "${l% *}" >>"$TMP/$name"
  echo "${l#* }" >>"$TMP/$name.cpu"
}
for ((r = 0; r < RUNS; r++)); do
  run none "$BIN" "$N"
  run bpftrace-entry bpftrace -q -e "uprobe:$BIN:work { @ = count(); }" -c "$BIN $N"
  run jdtrace-entry "$ROOT/bin/dtrace" -q -n 'pid$target:a.out:work:entry { @ = count(); }' -c "$BIN $N"
  run bpftrace-return bpftrace -q -e "uretprobe:$BIN:work { @ = count(); }" -c "$BIN $N"
  run jdtrace-return "$ROOT/bin/dtrace" -q -n 'pid$target:a.out:work:return { @ = count(); }' -c "$BIN $N"
  run bpftrace-latency bpftrace -q -e "uprobe:$BIN:work { @ts[tid] = nsecs; }
      uretprobe:$BIN:work /@ts[tid]/ { @ = hist(nsecs - @ts[tid]); delete(@ts[tid]); }" -c "$BIN $N"
  run jdtrace-latency "$ROOT/bin/dtrace" -q -n 'pid$target:a.out:work:entry { self->ts = timestamp; }
      pid$target:a.out:work:return /self->ts/ { @ = quantize(timestamp - self->ts); self->ts = 0; }' -c "$BIN $N"
done
median() { sort -g "$TMP/$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
perhit() { awk -v t="$(median "$1${2:-}")" -v b="$(median "none${2:-}")" -v n="$N" 'BEGIN { printf "%.2f", (t - b) / n * 1e6 }'; }
echo "work() x $N, median of $RUNS runs, untraced loop $(median none)s wall, $(median none.cpu)s CPU${PIN:+, pinned to CPU 0}"
for clock in "" .cpu; do
  for k in entry return latency; do
    b=$(perhit bpftrace-$k $clock); j=$(perhit jdtrace-$k $clock)
    printf '%-7s %-4s bpftrace %6s us/hit   jdtrace %6s us/hit   ratio %s\n' "$k" "${clock:+cpu}$([[ -z $clock ]] && echo wall)" "$b" "$j" \
        "$(awk -v j="$j" -v b="$b" 'BEGIN { printf "%.2fx", j / b }')"
  done
done
