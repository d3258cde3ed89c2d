#!/bin/sh
# Per-hit cost of one pid tracepoint (the entry of work() in /work/shared/bench/work.c, or its
# return sites with the third argument "return"), tracer and target pinned to one CPU as in
# /work/shared/bench/README.md.
#   usage: bench/pid-work.sh [N] [RUNS] [entry|return]
#          (after: mvn -o -pl bundles/provider-fasttrap -am test-compile)
# Prints the untraced and traced loop times (median of RUNS) and the per-hit cost.
# N defaults to 1,000,000 calls, as in /work/shared/bench/README.md: everything runs on one CPU,
# so the JIT compiling the hit path competes with the loop it measures; that warm-up is about
# 0.3 s, 1.5 us a hit at N=200,000 and 0.3 us at N=1,000,000.
set -e
cd "$(dirname "$0")/.."
N=${1:-1000000}
RUNS=${2:-3}
PROBE=${3:-entry}
case $PROBE in entry) FUNC=work;; return) FUNC=work:return;; *) echo "pid-work.sh: probe is entry or return" >&2; exit 2;; esac
JAVA=
for j in "$JAVA_HOME" /usr/lib/jvm/*; do
  if [ -x "$j/bin/java" ] && "$j/bin/java" -version 2>&1 | grep -Eq 'version "(2[5-9]|[3-9][0-9])'; then JAVA=$j/bin/java; break; fi
done
[ -n "$JAVA" ] || { echo "pid-work.sh: no JDK >= 25 found (set JAVA_HOME)" >&2; exit 1; }
SRC=${WORK_C:-/work/shared/bench/work.c}
BIN=target/bench/work
mkdir -p target/bench
gcc -O2 -g -o "$BIN" "$SRC"
CP=target/classes:target/test-classes:../core-framework/target/classes:../isa-amd64/target/classes
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
untraced=$(for i in $(seq "$RUNS"); do taskset -c 0 "$BIN" "$N" 2>&1 >/dev/null | awk '/^LOOP/ {print $2}'; done | median)
traced=$(for i in $(seq "$RUNS"); do taskset -c 0 "$JAVA" --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -XX:TieredStopAtLevel=4 -cp "$CP" \
    org.jdtrace.provider.fasttrap.internal.proc.PidWorkBench "$FUNC" "$(pwd)/$BIN" "$N" 2>&1 >/dev/null | tee target/bench/last.txt | awk '/^LOOP/ {print $2}'; done | median)
grep TRACER target/bench/last.txt
echo "N=$N probe=$PROBE untraced=${untraced}s tracepoint layer alone=${traced}s"
awk -v u="$untraced" -v t="$traced" -v n="$N" 'BEGIN {printf "per-hit, tracepoint layer (counting handler): %.2f us\n", (t - u) / n * 1e6}'
# the whole of dtrace: bin/dtrace with the D clause, everything pinned to CPU 0
DTRACE=${DTRACE:-../../bin/dtrace}
if [ -x "$DTRACE" ]; then
  full=$(for i in $(seq "$RUNS"); do taskset -c 0 "$DTRACE" -q -n "pid\$target:a.out:work:$PROBE { @ = count(); }" \
      -c "$(pwd)/$BIN $N" 2>&1 >/dev/null | awk '/^LOOP/ {print $2}'; done | median)
  echo "N=$N bin/dtrace 'pid\$target:a.out:work:$PROBE { @ = count(); }' loop=${full}s"
  awk -v u="$untraced" -v t="$full" -v n="$N" 'BEGIN {printf "per-hit, bin/dtrace with the D clause: %.2f us\n", (t - u) / n * 1e6}'
fi
# the floor on this machine right now: the minimal C ptrace tracer (one stop, out of line)
if [ -f /work/shared/bench/ptr.c ] && [ -f /work/shared/bench/tgt.c ] && command -v setarch >/dev/null; then
  gcc -O2 -o target/bench/ptr /work/shared/bench/ptr.c && gcc -O2 -g -o target/bench/tgt /work/shared/bench/tgt.c
  off=$(nm target/bench/tgt | awk '$3=="work" {print $1}')
  addr=$(printf '0x%x' $((0x555555554000 + 0x$off)))
  raw=$(for i in $(seq "$RUNS"); do setarch -R taskset -c 0 target/bench/ptr ool "$addr" 4 target/bench/tgt "$N" 2>&1 >/dev/null | awk '/^LOOP/ {print $2}'; done | median)
  awk -v t="$raw" -v n="$N" 'BEGIN {printf "raw C ptrace floor (ptr ool) now: %.2f us per hit\n", t / n * 1e6}'
fi
