#!/usr/bin/env bash
# bench/conformance-fixed.sh [run.sh's arguments]: ../shared/conformance/run.sh with its four harness
# defects fixed as upstream's runtest.sh does it, for a second figure beside run.sh's own:
#  1. run.sh runs a test's .r.p postprocessor as `"$pp" TESTPATH < output`: every `sed -f` and
#     `gawk -f` filter then reads the test's .d source instead of dtrace's output, so no dtrace
#     can pass those tests. Upstream runs `$postprocessor < $output`.
#  2. The extracted suite lacks upstream's test/unittest/preprocessor/test.options
#     (`@@runtest-opts: -C`): its tests use #if and #define, which D refuses without -C.
#  3. run.sh runs every test with `dtrace -s TEST`; upstream runs a test whose first line is
#     `#!dtrace ARGS` as the interpreter file it is (runtest.sh's is_interpreter_file), so dtrace
#     gets that line's ARGS (`-qs`) instead of `-s`.
#  4. run.sh ignores a test's executable .x file, which upstream runs first: exit 2 skips the test
#     where it cannot run (the aarch64 and sparc64 uregs tests on x86_64), 1 expects it to fail.
#     The patched harness skips a test whose .x (or .$(uname -m).x) exits 2 or more.
# The patched harness is written to a temporary directory at each run; run.sh is not copied
# into the project. Refuses (exit 2) if run.sh no longer has the lines it patches.
set -euo pipefail
ROOT=$(cd -- "$(dirname -- "$(readlink -f -- "${BASH_SOURCE[0]}")")/.." && pwd)
CONF=${JDTRACE_CONFORMANCE:-$ROOT/../shared/conformance}
tmp=$(mktemp -d /tmp/conformance-fixed.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
sed -e 's|"$pp" "$t" <"$res.all"|"$pp" <"$res.all"|' \
    -e 's|^\(  local ro; ro=$(opt runtest-opts "$src")\)$|\1; [[ -z $ro \&\& $dir == preprocessor ]] \&\& ro=-C|' \
    -e 's|^\(  ( cd "$ROOT" \&\& exec timeout -k 5 "$TIMEOUT" "${DT\[@\]}" "${flags\[@\]}"\) -s "$t" |  local -a sf=(-s); [[ $(head -1 "$src") == "#!dtrace "* ]] \&\& read -r _ sf_args < "$src" \&\& sf=($sf_args)\n\1 "${sf[@]}" "$t" |' \
    -e 's|^\(  if grep -qE .@@skip. "$src"; then echo "SKIP $rel (@@skip)"; skip=$((skip+1)); return; fi\)$|\1\n  local xf="$SUITE/begin-end/$dir/$base.$(uname -m).x"; [[ -e $xf ]] \|\| xf="$SUITE/begin-end/$dir/$base.x"\n  if [[ -x $xf ]]; then ( cd "$SUITE/begin-end/$dir" \&\& "$xf" >/dev/null 2>\&1 ); [[ $? -ge 2 ]] \&\& { echo "SKIP $rel (.x)"; skip=$((skip+1)); return; }; fi|' \
    -e "s|\"\$(dirname \"\$0\")/rate.py\"|\"$CONF/rate.py\"|" "$CONF/run.sh" > "$tmp/run.sh"
if ! grep -q '"$pp" <"$res.all"' "$tmp/run.sh" || ! grep -q 'ro=-C' "$tmp/run.sh" || ! grep -q '"${sf\[@\]}" "$t"' "$tmp/run.sh" \
    || ! grep -q 'SKIP $rel (.x)' "$tmp/run.sh"; then
  echo "conformance-fixed.sh: $CONF/run.sh changed; the lines this script patches are gone" >&2
  exit 2
fi
bash "$tmp/run.sh" "$@"
