#!/usr/bin/env bash
# bench/conformance-fixed.sh [run.sh's arguments]: ../shared/conformance/run.sh with its three harness
# defects fixed as upstream's runtest.sh does it, for a second figure beside run.sh's own:
#  1. run.sh runs a test's .r.p postprocessor as `"$pp" TESTPATH < output`: every `sed -f` and
#     `gawk -f` filter then reads the test's .d source instead of dtrace's output, so no dtrace
#     can pass those tests. Upstream runs `$postprocessor < $output`.
#  2. The extracted suite lacks upstream's test/unittest/preprocessor/test.options
#     (`@@runtest-opts: -C`): its tests use #if and #define, which D refuses without -C.
#  3. run.sh runs every test with `dtrace -s TEST`; upstream runs a test whose first line is
#     `#!dtrace ARGS` as the interpreter file it is (runtest.sh's is_interpreter_file), so dtrace
#     gets that line's ARGS (`-qs`) instead of `-s`.
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
    -e "s|\"\$(dirname \"\$0\")/rate.py\"|\"$CONF/rate.py\"|" "$CONF/run.sh" > "$tmp/run.sh"
if ! grep -q '"$pp" <"$res.all"' "$tmp/run.sh" || ! grep -q 'ro=-C' "$tmp/run.sh" || ! grep -q '"${sf\[@\]}" "$t"' "$tmp/run.sh"; then
  echo "conformance-fixed.sh: $CONF/run.sh changed; the lines this script patches are gone" >&2
  exit 2
fi
bash "$tmp/run.sh" "$@"
