# Sourced by bin/dtrace and .ci/run: find_jdk prints a JDK >= 25 (JAVA_HOME if it is one, else
# the newest under /usr/lib/jvm) and fails with a clear message when there is none.
jdk_major() { # jdk_major DIR -> the major version of the JDK in DIR
  local v
  [[ -x $1/bin/java && -x $1/bin/javac && -f $1/release ]] || return 1
  v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release")
  [[ -n $v ]] && echo "$v"
}
find_jdk() {
  local d v best= bestv=0
  if [[ -n ${JAVA_HOME:-} ]] && v=$(jdk_major "$JAVA_HOME") && (( v >= 25 )); then
    echo "$JAVA_HOME"; return 0
  fi
  for d in /usr/lib/jvm/*; do
    [[ -d $d && ! -L $d ]] || continue
    v=$(jdk_major "$d") || continue
    if (( v >= 25 && v > bestv )); then best=$d; bestv=$v; fi
  done
  if [[ -z $best ]]; then
    echo "${0##*/}: no JDK 25 or newer found (JAVA_HOME=${JAVA_HOME:-unset}; looked in /usr/lib/jvm/*)." >&2
    echo "${0##*/}: install one (e.g. Temurin 25: apt-get install temurin-25-jdk) or point JAVA_HOME at it." >&2
    return 1
  fi
  echo "$best"
}
