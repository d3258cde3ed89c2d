# Sourced by bin/dtrace and .ci/run: find_jdk prints a JDK >= 25 (JAVA_HOME if it is one, else
# the newest under /usr/lib/jvm) and fails with a clear message when there is none. Bash builtins
# only (bin/dtrace runs this at every start: a sed and a subshell per JDK were ~5 ms of CPU).
jdk_major() { # jdk_major DIR: sets JDK_MAJOR to the major version of the JDK in DIR, fails if none
  local line
  JDK_MAJOR=
  [[ -x $1/bin/java && -x $1/bin/javac && -f $1/release ]] || return 1
  while IFS= read -r line || [[ -n $line ]]; do
    if [[ $line =~ ^JAVA_VERSION=\"([0-9]+) ]]; then
      JDK_MAJOR=${BASH_REMATCH[1]}
      return 0
    fi
  done < "$1/release"
  return 1
}
find_jdk() {
  local d best= bestv=0
  if [[ -n ${JAVA_HOME:-} ]] && jdk_major "$JAVA_HOME" && (( JDK_MAJOR >= 25 )); then
    echo "$JAVA_HOME"; return 0
  fi
  for d in /usr/lib/jvm/*; do
    [[ -d $d && ! -L $d ]] || continue
    jdk_major "$d" || continue
    if (( JDK_MAJOR >= 25 && JDK_MAJOR > bestv )); then best=$d; bestv=$JDK_MAJOR; fi
  done
  if [[ -z $best ]]; then
    echo "${0##*/}: no JDK 25 or newer found (JAVA_HOME=${JAVA_HOME:-unset}; looked in /usr/lib/jvm/*)." >&2
    echo "${0##*/}: install one (e.g. Temurin 25: apt-get install temurin-25-jdk) or point JAVA_HOME at it." >&2
    return 1
  fi
  echo "$best"
}
