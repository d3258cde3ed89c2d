# Sourced by the side-by-side benches (syscall-getppid.sh, read-latency.sh): the median of a
# column of numbers, and `under KEY READY_TEXT COMMAND...`, which starts COMMAND (a tracer that
# traces until killed and prints READY_TEXT once tracing), runs the caller's `loop` under it
# (its output is under's), then stops the tracer: TERM (not INT: a background job of a script
# ignores SIGINT), KILL after 5 s (bpftrace 0.17 sometimes ignores TERM; its programs go with its
# descriptors). A KEY other than x appends the drops the tracer reported ('N drops on CPU c',
# 'N aggregation drops', summed) to target/bench/times as "dKEY N".
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

under() {
  local out=target/bench/tracer.out
  : > "$out"
  "${@:3}" > "$out" 2>&1 &
  local pid=$!
  for _ in $(seq 600); do grep -q "$2" "$out" && break; sleep 0.1; done
  grep -q "$2" "$out" || { echo "tracer did not start: $(cat "$out")" >&2; kill "$pid"; exit 1; }
  loop
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [[ $1 == x ]] || echo "d$1 $(grep -Eo '[0-9]+ (aggregation )?drops? on CPU' "$out" | awk '{s += $1} END {print s + 0}')" >> target/bench/times
}
