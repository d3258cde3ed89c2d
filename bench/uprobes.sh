#!/usr/bin/env bash
# bench/uprobes.sh [N] [RUNS]: pid entry and return probes on kernel uprobes against bpftrace's
# uprobe/uretprobe, side by side in one run, on the same binary (/work/shared/bench/work.c or
# bench/src/work.c: a loop calling a noinline work() N times, default 200000, which prints the
# loop's own time as `LOOP <s>` on stderr). Per-hit cost = (traced - untraced loop) / N, median of
# RUNS runs (default 3) each, interleaved; prints each tracer's cost and the ratio jdtrace/bpftrace.
# PIN=1 runs every command (tracer and target) on CPU 0 (taskset), as the shared bench's table.
set -euo pipefail
ROOT=$(cd -- "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/.." && pwd)
N=${1:-200000}; RUNS=${2:-3}
SRC=/work/shared/bench/work.c
[[ -f $SRC ]] || { echo "uprobes.sh: no $SRC" >&2; exit 1; }
command -v bpftrace >/dev/null || { echo "uprobes.sh: bpftrace is not installed" >&2; exit 1; }
TMP=$(mktemp -d /tmp/jdtrace-uprobes.XXXXXX); trap 'rm -rf "$TMP"' EXIT
BIN=$TMP/work
gcc -O2 -g -o "$BIN" "$SRC"
PINCMD=(); [[ ${PIN:-0} == 1 ]] && PINCMD=(taskset -c 0)
"$ROOT/bin/dtrace" -V >/dev/null   # builds the distribution when stale, untimed

loop() { # the LOOP seconds a command's stderr (or its target's, passed through) reports
  grep -o 'LOOP [0-9.]*' "$1" | tail -1 | cut -d' ' -f2
}
run() { # name, command...: appends the loop time to $TMP/name
  local name=$1; shift
  "${PINCMD[@]}" "$@" >"$TMP/out" 2>"$TMP/err" || { echo "uprobes.sh: $name failed:" >&2; cat "$TMP/err" >&2; exit 1; }
  local l; l=$(loop "$TMP/err"); [[ -n $l ]] || l=$(loop "$TMP/out")
  [[ -n $l ]] || { echo "uprobes.sh: $name: no LOOP line" >&2; cat "$TMP/err" "$TMP/out" >&2; exit 1; }
  echo "$l" >>"$TMP/$name"
}
for ((r = 0; r < RUNS; r++)); do
  run none "$BIN" "$N"
  run bpftrace-entry bpftrace -q -e "uprobe:$BIN:work { @ = count(); }" -c "$BIN $N"
  run jdtrace-entry "$ROOT/bin/dtrace" -q -n 'pid$target:a.out:work:entry { @ = count(); }' -c "$BIN $N"
  run bpftrace-return bpftrace -q -e "uretprobe:$BIN:work { @ = count(); }" -c "$BIN $N"
  run jdtrace-return "$ROOT/bin/dtrace" -q -n 'pid$target:a.out:work:return { @ = count(); }' -c "$BIN $N"
done
median() { sort -g "$TMP/$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
base=$(median none)
perhit() { awk -v t="$(median "$1")" -v b="$base" -v n="$N" 'BEGIN { printf "%.2f", (t - b) / n * 1e6 }'; }
echo "work() x $N, median of $RUNS runs, untraced loop ${base}s${PIN:+, pinned to CPU 0}"
for k in entry return; do
  b=$(perhit bpftrace-$k); j=$(perhit jdtrace-$k)
  printf '%-7s bpftrace %6s us/hit   jdtrace %6s us/hit   ratio %s\n' "$k" "$b" "$j" \
      "$(awk -v j="$j" -v b="$b" 'BEGIN { printf "%.2fx", j / b }')"
done
