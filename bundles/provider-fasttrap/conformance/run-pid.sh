#!/usr/bin/env bash
# run-pid.sh -- run Oracle dtrace-utils' pid-provider tests (pid-usdt/pid) against jdtrace's
# dtrace(1M) the way dtrace-utils' test/runtest.sh runs them. The tests are read where they are
# (never copied into the project); triggers are compiled with gcc into a temporary directory.
#
# usage: run-pid.sh [-v] [-k] [-T SECS] [-d DTRACE] [TEST...]
#   -d DTRACE  the dtrace to test (default: this checkout's bin/dtrace)
#   -T SECS    default per-test timeout (runtest.sh's 41; a larger @@timeout wins)
#   -k         keep the per-test outputs (printed at the end)
#   -v         print the output diff / stderr of every failure
#   TEST       test file names (tst.main.sh, err.D_PROC_FUNC.badfunc.d); default all
#   SUITE=...  the dtrace-utils pid-usdt directory (default /work/shared/conformance/...)
#   KIND=...   the test directory under it: pid (default) or usdt (provider-sdt's
#              conformance/run-usdt.sh); a trigger with a <name>_PROV in the Build file is
#              built as upstream builds it: dtrace -h for its header, dtrace -G for its object
#
# runtest.sh conventions implemented:
#   * a test is a .d (run as dtrace -s test/unittest/pid/X.d) or an executable .sh (run as
#     X.sh DTRACE with $dt_flags, $tmpdir, $_test exported), from a root with test/unittest,
#     test/triggers and test/utils, as upstream;
#   * err.* expect exit 1, others 0; err.D_TAG.* run with -xerrtags and stderr must name [D_TAG];
#   * @@skip -> SKIP; @@xfail noted (counted in the totals, marked); @@timeout raises the timeout;
#   * @@runtest-opts appended (shell-expanded, $_pid kept for the trigger's pid);
#   * @@trigger: synchro timing (default) runs dtrace -c TRIGGER; @@trigger-timing before/after/N
#     starts the trigger first (after 1 s / N s) and puts its pid in $_pid; triggers are killed
#     after the test;
#   * expected output X.r (X.$(uname -m).r first): stdout, then "-- @@stderr --" and stderr if
#     any, through X.r.p when executable, 0x... -> {ptr}; compared sorted unless @@nosort.
set -u
VERBOSE= KEEP= TIMEOUT=41 KIND=${KIND:-pid}
ROOTDIR=$(cd "$(dirname "$0")/../../.." && pwd)
DT=$ROOTDIR/bin/dtrace
while getopts "vkT:d:" o; do
  case $o in v) VERBOSE=1;; k) KEEP=1;; T) TIMEOUT=$OPTARG;; d) DT=$OPTARG;;
             *) sed -n '2,12p' "$0"; exit 2;; esac
done
shift $((OPTIND-1))
SUITE=$(cd "${SUITE:-/work/shared/conformance/dtrace-utils/pid-usdt}" && pwd) || exit 2
SUPPORT=$(cd "$SUITE/../support" && pwd) || exit 2
command -v gcc >/dev/null || { echo "run-pid.sh: gcc is needed for the triggers" >&2; exit 2; }

export tmpdir; tmpdir=$(mktemp -d /tmp/jdtrace-pid-conf.XXXXXX)
ROOT=$tmpdir/root; RES=$tmpdir/results
mkdir -p "$ROOT/test/triggers" "$RES"
ln -s "$SUITE" "$ROOT/test/unittest"
ln -s "$SUPPORT/utils" "$ROOT/test/utils"
export LC_ALL=C LC_COLLATE=C LANGUAGE=C TZ=UTC _DTRACE_TESTING=t
export dtrace=$DT

cleanup() { [[ -n $KEEP ]] || rm -rf "$tmpdir"; }
trap cleanup EXIT

# bin/dtrace builds itself when stale: not inside the first test's timeout
"$DT" -V >/dev/null 2>&1

# timed CMD...: runtest.sh's timeout (TERM, KILL 5 s later, status 124); with -k a dtrace that
# times out leaves a thread dump of its JVM ($res.jstack) to tell where it hung. CMD runs in a
# session of its own, so that the signals reach what a test script started in the background too
timed() {
  local to=$1; shift
  setsid "$@" & local p=$! n=0
  while kill -0 "$p" 2>/dev/null && [[ $n -lt $((to * 10)) ]]; do sleep 0.1; n=$((n+1)); done
  if kill -0 "$p" 2>/dev/null; then
    local js; js=$(ls -d "${JAVA_HOME:-/nonexistent}/bin/jstack" /usr/lib/jvm/*/bin/jstack 2>/dev/null | tail -1)
    if [[ -n $KEEP && -n $js ]]; then
      local j=$p; grep -q jdtrace-launcher "/proc/$p/cmdline" 2>/dev/null || j=$(pgrep -f jdtrace-launcher.jar | head -1)
      [[ -n $j ]] && "$js" "$j" >"$res.jstack" 2>&1
    fi
    kill -TERM -- -"$p" 2>/dev/null; n=0
    while kill -0 "$p" 2>/dev/null && [[ $n -lt 50 ]]; do sleep 0.1; n=$((n+1)); done
    kill -KILL -- -"$p" 2>/dev/null; wait "$p" 2>/dev/null; return 124
  fi
  wait "$p"
}

# reap_triggers: no trigger outlives its test (one left spinning a CPU for 90 minutes once, from
# a test script that started it in the background and was killed at its timeout)
reap_triggers() {
  local e p
  for e in /proc/[0-9]*/exe; do
    p=${e#/proc/}; p=${p%/exe}
    [[ $(readlink "$e" 2>/dev/null) == "$ROOT/test/triggers/"* ]] && kill -KILL "$p" 2>/dev/null
  done
  return 0
}

# ---- triggers: the C ones with Build's per-trigger CFLAGS, the script ones as they are ----
build_trigger() { # NAME -> 0 when test/triggers/NAME exists afterwards
  local n=$1 t=$SUITE/triggers
  [[ -x $ROOT/test/triggers/$n ]] && return 0
  if [[ -f $t/$n.c ]]; then
    local flags; flags=$(sed -n "s/^$n""_CFLAGS *:= *//p" "$t/Build" | tr '\n' ' ')
    local prov; prov=$(sed -n "s/^$n""_PROV *:= *//p" "$t/Build")
    if [[ -n $prov ]]; then # USDT: the -h header, the object, the -G object, linked
      local o=$ROOT/test/triggers
      "$DT" -h -s "$t/$prov" -o "$o/${prov%.d}.h" 2>"$RES/h-$n.err" || return 1
      gcc -g ${flags:--O2} -I"$o" -c -o "$o/$n.o" "$t/$n.c" 2>"$RES/gcc-$n.err" || return 1
      "$DT" -G -s "$t/$prov" -o "$o/${prov%.d}.o" "$o/$n.o" 2>"$RES/G-$n.err" || return 1
      gcc -o "$o/$n" "$o/$n.o" "$o/${prov%.d}.o" -lpthread 2>>"$RES/gcc-$n.err" || return 1
      return 0
    fi
    gcc -g ${flags:--O2} -o "$ROOT/test/triggers/$n" "$t/$n.c" -lpthread 2>"$RES/gcc-$n.err" || return 1
  elif [[ -f $t/$n ]]; then
    cp "$t/$n" "$ROOT/test/triggers/$n" && chmod +x "$ROOT/test/triggers/$n"
  else
    return 1
  fi
}

opt() { # opt NAME FILE -> the value of @@NAME (runtest.sh's extract_options)
  grep -E -e "@@$1"' *:' -e "@@$1 " -e "@@$1\$" "$2" | head -1 | sed "s,.*@@$1 *: *,,; s,\*/\$,,; s, *\$,,"
}
has() { grep -Eq -e "@@$1"' *:' -e "@@$1 " -e "@@$1\$" "$2"; }

pass=0 fail=0 skip=0 xfail=0
declare -a FAILED=() PASSED=()

run_one() {
  local name=$1 src=$SUITE/$KIND/$1 base=${1%.*} kind
  case $name in *.d) kind=d;; *.sh) kind=shell; [[ -x $src ]] || return;; *) return;; esac
  local t=test/unittest/$KIND/$name res=$RES/$base
  if has skip "$src"; then echo "SKIP $name (@@skip: $(opt skip "$src"))"; skip=$((skip+1)); return; fi
  local is_xfail=; has xfail "$src" && is_xfail=" (upstream @@xfail: $(opt xfail "$src"))"
  local exp=0 tag= flags=()
  [[ $name == err.* ]] && exp=1
  if [[ $name =~ ^err\.(D_[A-Z0-9_]+)\. ]]; then tag=${BASH_REMATCH[1]}; flags+=(-xerrtags); fi
  local to=$TIMEOUT; if has timeout "$src" && [[ $(opt timeout "$src") -gt $to ]]; then to=$(opt timeout "$src"); fi
  local trig= timing=synchro
  has trigger "$src" && trig=$(opt trigger "$src")
  [[ $trig == none ]] && trig=
  has trigger-timing "$src" && timing=$(opt trigger-timing "$src")
  if [[ -n $trig ]] && ! build_trigger "${trig%% *}"; then
    echo "FAIL $name: trigger ${trig%% *} cannot be built"; fail=$((fail+1)); FAILED+=("$name: trigger not built"); return
  fi
  [[ $name == tst.main.sh ]] && build_trigger delaydie
  local ro=; has runtest-opts "$src" && ro=$(_pid='$_pid'; eval printf "%s" "\"$(opt runtest-opts "$src")\"")

  local tpid= rc
  if [[ -n $trig && ( $timing != synchro || $kind == shell ) ]]; then
    local delay=; case $timing in after) delay=1;; before|synchro) ;; *) delay=$timing;; esac
    ( cd "$ROOT"; [[ -n $delay ]] && sleep "$delay"; exec setsid test/triggers/$trig ) </dev/null >/dev/null 2>&1 &
    tpid=$!
    [[ -z $delay ]] && sleep 0.2   # let the trigger exec before it is grabbed
    ro=${ro//\$_pid/$tpid}
  fi
  local -a extra=(); [[ -n $ro ]] && eval "extra=($ro)"
  if [[ $kind == d ]]; then
    local -a c=(); [[ -n $trig && $timing == synchro ]] && c=(-c "test/triggers/$trig")
    ( cd "$ROOT" && timed "$to" "$DT" "${flags[@]}" -s "$t" "${extra[@]}" "${c[@]}" \
        </dev/null >"$res.out" 2>"$res.err" ); rc=$?
  else
    ( cd "$ROOT" && export dt_flags="${flags[*]} ${extra[*]}" _test=$t _pid=$tpid \
        && timed "$to" bash "$src" "$DT" </dev/null >"$res.out" 2>"$res.err" ); rc=$?
  fi
  if [[ -n $tpid ]]; then kill -- -"$tpid" 2>/dev/null; kill "$tpid" 2>/dev/null; wait "$tpid" 2>/dev/null; fi
  reap_triggers

  { cat "$res.out"; if [[ -s $res.err ]]; then echo "-- @@stderr --"; cat "$res.err"; fi; } >"$res.all"
  local rfile=$SUITE/$KIND/$base.$(uname -m).r; [[ -e $rfile ]] || rfile=$SUITE/$KIND/$base.r
  if [[ -x $SUITE/$KIND/$base.r.p ]]; then
    (cd "$ROOT" && "$SUITE/$KIND/$base.r.p" <"$res.all" >"$res.pp") || cp "$res.all" "$res.pp"
  else cp "$res.all" "$res.pp"; fi
  sed -e 's,0x[0-9a-f][0-9a-f]*,{ptr},g' "$res.pp" >"$res.final"
  local sortcmd=sort; has nosort "$src" && sortcmd=cat
  local why=
  if [[ -n $tag ]] && ! grep -q "\[$tag\]" "$res.err"; then why="expected tag $tag"
  elif [[ $rc -eq 124 ]]; then why="timed out after ${to}s${KEEP:+ (thread dump: $res.jstack)}"
  elif [[ $rc -ne $exp ]]; then why="exit $rc, expected $exp"
  elif [[ -e $rfile ]] && ! diff -q <($sortcmd "$rfile") <($sortcmd "$res.final") >/dev/null; then
    why="expected results differ ($(basename "$rfile"))"
  fi
  if [[ -z $why ]]; then
    pass=$((pass+1)); PASSED+=("$name"); echo "PASS $name${is_xfail}"
  else
    fail=$((fail+1)); [[ -n $is_xfail ]] && xfail=$((xfail+1))
    FAILED+=("$name: $why${is_xfail}"); echo "FAIL $name: $why${is_xfail}"
    if [[ -n $VERBOSE ]]; then
      if [[ -e $rfile ]]; then diff -u <($sortcmd "$rfile") <($sortcmd "$res.final") | head -30
      else head -c 1500 "$res.err"; fi
    fi
  fi
}

if [[ $# -gt 0 ]]; then tests=("$@"); else
  mapfile -t tests < <(cd "$SUITE/$KIND" && ls -1 | grep -E '^(tst|err)\..*\.(d|sh)$')
fi
for n in "${tests[@]}"; do run_one "$n"; done

echo "----"
echo "$((pass+fail+skip)) tests: $((pass+fail)) applicable (run), $pass passed, $fail failed ($xfail of them upstream @@xfail), $skip skipped"
[[ -n $KEEP ]] && echo "outputs: $RES"
[[ $fail -eq 0 ]]
