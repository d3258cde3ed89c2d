#!/usr/bin/env bash
# bench/cfi-profile.sh [SECONDS]: the callers of each leaf of the cfiprof fixture (-O2
# -fomit-frame-pointer: its leaves keep no frame) as jdtrace sees them with
#   dtrace -n 'profile-997 /pid == $target/ { @[ustack()] = count(); }' -c 'cfiprof SECONDS'
# and as perf sees them with
#   perf record -F 997 --call-graph dwarf -- cfiprof SECONDS; perf script
# side by side, in percent of the leaf's samples. Exits 1 when a leaf's caller share differs by
# more than 5 points (or a leaf or caller is missing on one side). Default 10 s each.
set -euo pipefail
ROOT=$(cd -- "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/.." && pwd)
SECS=${1:-10}
FIX=$ROOT/fixtures/target/bin/cfiprof
command -v perf >/dev/null || { echo "cfi-profile.sh: perf is not installed" >&2; exit 1; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
"$ROOT/bin/dtrace" -n 'BEGIN { exit(0); }' >/dev/null 2>&1 # builds the distribution and the fixtures
[[ -x $FIX ]] || { echo "cfi-profile.sh: $FIX not built" >&2; exit 1; }

"$ROOT/bin/dtrace" -q -n 'profile-997 /pid == $target/ { @[ustack()] = count(); }' -c "$FIX $SECS" -o "$TMP/dtrace.out"
# blocks of frames then a count: leaf = first frame's function, caller = the second's
awk 'function fn(s) { sub(/^.*`/, "", s); sub(/\+0x[0-9a-f]+$/, "", s); return s }
     NF == 0 { n = 0; next }
     $1 ~ /^[0-9]+$/ && NF == 1 { if (n >= 2) print leaf, caller, $1; n = 0; next }
     { n++; if (n == 1) leaf = fn($1); else if (n == 2) caller = fn($1) }' "$TMP/dtrace.out" > "$TMP/dtrace.pairs"

perf record -q -F 997 --call-graph dwarf -o "$TMP/perf.data" -- "$FIX" "$SECS" >/dev/null 2>&1
perf script -i "$TMP/perf.data" -F ip,sym 2>/dev/null |
  awk 'NF == 0 { if (n >= 2) print leaf, caller, 1; n = 0; next }
       { n++; if (n == 1) leaf = $2; else if (n == 2) caller = $2 }
       END { if (n >= 2) print leaf, caller, 1 }' > "$TMP/perf.pairs"

awk -v tol=5 '
  FNR == 1 { side++ }
  { c[side, $1, $2] += $3; t[side, $1] += $3; leaves[$1] = 1; callers[$1, $2] = 1 }
  END {
    bad = 0
    printf "%-10s %-10s %8s %8s %6s\n", "leaf", "caller", "jdtrace%", "perf%", "diff"
    for (lc in callers) {
      split(lc, k, SUBSEP); l = k[1]; cl = k[2]
      if (t[1, l] + t[2, l] < 50) continue   # a leaf too rare to compare (libc, the loader)
      a = t[1, l] ? 100 * c[1, l, cl] / t[1, l] : 0; b = t[2, l] ? 100 * c[2, l, cl] / t[2, l] : 0
      if (a < 1 && b < 1) continue
      d = a - b; if (d < 0) d = -d
      printf "%-10s %-10s %8.1f %8.1f %6.1f%s\n", l, cl, a, b, d, ((d > tol) ? "  <-- differs" : "")
      if (d > tol) bad = 1
    }
    printf "samples: jdtrace %d, perf %d\n", tot(1), tot(2)
    exit bad
  }
  function tot(s,   l, n) { n = 0; for (l in leaves) n += t[s, l]; return n }' "$TMP/dtrace.pairs" "$TMP/perf.pairs"
