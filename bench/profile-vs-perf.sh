#!/usr/bin/env bash
# bench/profile-vs-perf.sh [SECONDS]: what a whole-machine user-stack profile costs, jdtrace
# against perf, on a busy machine (issue 21's speed target: jdtrace's CPU no more than perf's).
#   jdtrace: dtrace -n 'profile-997 { @[ustack()] = count(); } tick-Ns { exit(0); }'
#            (sampling, stack copies, CFI unwinding, symbols and the printed aggregation: one run)
#   perf:    perf record -F 997 -a --call-graph dwarf -- sleep N, then perf report --stdio --no-inline
#            (the same samples, unwound and symbolised by the report)
# Each runs for SECONDS (default 30) while one cfiprof per CPU keeps every CPU busy (a program
# without frame pointers, so both must unwind by CFI), the two one after the other. CPU time is
# the user + system time of each command and all its children (bash's `time`, from wait4's
# rusage), wall time beside it; the sample count each reports shows both saw the same load.
# Exits 1 when jdtrace's CPU time exceeds perf's.
set -euo pipefail
ROOT=$(cd -- "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/.." && pwd)
SECS=${1:-30}
FIX=$ROOT/fixtures/target/bin/cfiprof
command -v perf >/dev/null || { echo "profile-vs-perf.sh: perf is not installed" >&2; exit 1; }
TMP=$(mktemp -d)
LOAD=()
cleanup() {
    for p in "${LOAD[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$TMP"
}
trap cleanup EXIT
"$ROOT/bin/dtrace" -n 'BEGIN { exit(0); }' >/dev/null 2>&1 # builds the distribution and the fixtures
[[ -x $FIX ]] || { echo "profile-vs-perf.sh: $FIX not built" >&2; exit 1; }

# the load: one cfiprof a CPU, for both runs and then some
CPUS=$(nproc)
for ((i = 0; i < CPUS; i++)); do
    "$FIX" $((3 * SECS + 600)) & LOAD+=($!)
done
sleep 1

TIMEFORMAT='%U %S %R'
# jdtrace: one command from start to printed report
{ time "$ROOT/bin/dtrace" -q -o "$TMP/dtrace.out" \
    -n "profile-997 { @[ustack()] = count(); } tick-${SECS}s { exit(0); }" 2>"$TMP/dtrace.err"; } 2>"$TMP/dtrace.time"
# perf: record, then report
{ time perf record -q -F 997 -a --call-graph dwarf -o "$TMP/perf.data" -- sleep "$SECS" >/dev/null 2>"$TMP/perf-record.err"; } 2>"$TMP/record.time"
# --no-inline: perf report would run addr2line for inlined frames (on a JVM's libjvm.so, for
# many minutes); jdtrace's ustack() names no inlined frames either
{ time perf report -i "$TMP/perf.data" --stdio --no-inline >"$TMP/perf.out" 2>"$TMP/perf-report.err" || true; } 2>"$TMP/report.time"

read -r du ds dr <"$TMP/dtrace.time"
read -r ru rs rr <"$TMP/record.time"
read -r pu ps pr <"$TMP/report.time"
dsamples=$(awk '$1 ~ /^[0-9]+$/ && NF == 1 { n += $1 } END { print n + 0 }' "$TMP/dtrace.out")
psamples=$(awk '/^# Samples:/ { print $3; exit }' "$TMP/perf.out")
ddrops=$(awk '/drops on CPU/ { n += $2 } END { print n + 0 }' "$TMP/dtrace.err")
dstacks=$(awk '$1 ~ /^[0-9]+$/ && NF == 1 { n++ } END { print n + 0 }' "$TMP/dtrace.out")

awk -v secs="$SECS" -v cpus="$CPUS" -v du="$du" -v ds="$ds" -v dr="$dr" -v ru="$ru" -v rs="$rs" -v rr="$rr" \
    -v pu="$pu" -v ps="$ps" -v pr="$pr" -v dsamp="$dsamples" -v dst="$dstacks" -v ddrops="$ddrops" -v psamp="$psamples" 'BEGIN {
  printf "profile-997 of every CPU for %d s, %d CPUs busy with cfiprof (load %s)\n", secs, cpus, "'"$(cut -d' ' -f1-3 /proc/loadavg)"'"
  printf "%-34s %9s %9s %9s %9s\n", "", "user s", "sys s", "CPU s", "wall s"
  printf "%-34s %9.2f %9.2f %9.2f %9.2f\n", "jdtrace (sample+unwind+print)", du, ds, du + ds, dr
  printf "%-34s %9.2f %9.2f %9.2f %9.2f\n", "perf record --call-graph dwarf", ru, rs, ru + rs, rr
  printf "%-34s %9.2f %9.2f %9.2f %9.2f\n", "perf report --stdio", pu, ps, pu + ps, pr
  printf "%-34s %9.2f %9.2f %9.2f %9.2f\n", "perf total", ru + pu, rs + ps, ru + rs + pu + ps, rr + pr
  printf "samples: jdtrace %d (%d distinct stacks, %d reported dropped), perf %s\n", dsamp, dst, ddrops, psamp
  printf "jdtrace CPU / perf CPU = %.2f\n", (du + ds) / (ru + rs + pu + ps)
  exit ((du + ds) > (ru + rs + pu + ps))
}' || rc=$?
echo "perf.data: $(stat -c %s "$TMP/perf.data") bytes"
exit "${rc:-0}"
