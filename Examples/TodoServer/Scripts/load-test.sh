#!/usr/bin/env bash
# Load test: todo-server (Arbor) against todo-server-hand-wired (the same server wired by hand),
# both release builds, under wrk, on 127.0.0.1 only. Each round runs both servers back to back, in
# the order A B in odd rounds and B A in even ones, so that the machine's noise falls on both and
# neither always goes first; each run is bounded in time, and the whole test in rounds.
#
#   Scripts/load-test.sh                       # 9 rounds of 8 s per server
#   ROUNDS=3 DURATION=5 Scripts/load-test.sh   # shorter
#
# Each run serves GET /api/todos to one signed-in user with 10 todos (a session lookup, a request
# branch, two request features, one SQLite query, a JSON body). It prints requests per second and
# the server's CPU time per request (user + system, from /proc) for every run and each round's
# ratio, then the medians, the median of the rounds' ratios (the figure to quote: a round's two
# runs are seconds apart, so they share the machine's load) and their range.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi

ROUNDS=${ROUNDS:-9}
DURATION=${DURATION:-8}
WARMUP=${WARMUP:-2}
CONNECTIONS=${CONNECTIONS:-16}
THREADS=${THREADS:-1}
PORT=${PORT:-8089}
HOST=127.0.0.1  # loopback only, whatever the environment says
[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 20 ] && [ "$DURATION" -ge 1 ] && [ "$DURATION" -le 60 ] || {
  echo "load-test: ROUNDS must be 1-20 and DURATION 1-60 seconds" >&2
  exit 2
}

if ! command -v wrk >/dev/null; then
  echo "== installing wrk (Debian's package)"
  if [ "$(id -u)" -eq 0 ]; then apt-get update -qq && apt-get install -y -qq wrk >/dev/null; else
    sudo apt-get update -qq && sudo apt-get install -y -qq wrk >/dev/null
  fi
fi

echo "== building both servers in release"
swift build -c release --product todo-server
swift build -c release --product todo-server-hand-wired
bin=$(swift build -c release --show-bin-path)

server_pid=
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
  fi
}
trap stop_server EXIT

# cpu_ticks PID: the process's user + system time, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# run BINARY: starts the server, seeds 10 todos, warms up, measures; sets rps and cpu (µs per request).
# It runs in this shell, not a subshell, so the EXIT trap always stops the server it started.
run() {
  local binary=$1 url="http://$HOST:$PORT"
  HOST=$HOST PORT=$PORT LOG_LEVEL=warning TOKENS="ann-token:ann" "$bin/$binary" >/dev/null 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do
    curl -fsS "$url/health" >/dev/null 2>&1 && break
    sleep 0.1
  done
  curl -fsS "$url/health" >/dev/null
  for i in $(seq 1 10); do
    curl -fsS -X POST -H "Authorization: Bearer ann-token" -H "Content-Type: application/json" \
      -d "{\"title\":\"todo $i\"}" "$url/api/todos" >/dev/null
  done
  wrk -t "$THREADS" -c "$CONNECTIONS" -d "${WARMUP}s" -H "Authorization: Bearer ann-token" "$url/api/todos" >/dev/null
  local before after output requests
  before=$(cpu_ticks "$server_pid")
  output=$(wrk -t "$THREADS" -c "$CONNECTIONS" -d "${DURATION}s" -H "Authorization: Bearer ann-token" "$url/api/todos")
  after=$(cpu_ticks "$server_pid")
  stop_server
  if echo "$output" | grep -q "Non-2xx"; then
    echo "load-test: $binary answered errors:" >&2
    echo "$output" >&2
    exit 1
  fi
  requests=$(echo "$output" | awk '/requests in/ { print $1 }')
  rps=$(echo "$output" | awk '/Requests\/sec/ { print $2 }')
  cpu=$(awk -v t=$((after - before)) -v n="$requests" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }')
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

arbor_rps=() hand_rps=() arbor_cpu=() hand_cpu=() ratios=()
echo "== $ROUNDS rounds, ${DURATION}s each, $CONNECTIONS connections, $THREADS wrk thread(s), $HOST:$PORT"
printf '%-6s %-12s %12s %16s\n' round server "requests/s" "CPU µs/request"
run_arbor() {
  run todo-server
  arbor_rps+=("$rps") arbor_cpu+=("$cpu")
  printf '%-6s %-12s %12s %16s\n' "$round" arbor "$rps" "$cpu"
}
run_hand() {
  run todo-server-hand-wired
  hand_rps+=("$rps") hand_cpu+=("$cpu")
  printf '%-6s %-12s %12s %16s\n' "$round" hand-wired "$rps" "$cpu"
}
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) -eq 1 ]; then run_arbor; run_hand; else run_hand; run_arbor; fi
  ratio=$(awk -v a="${arbor_rps[-1]}" -v h="${hand_rps[-1]}" 'BEGIN { printf "%.3f", a / h }')
  ratios+=("$ratio")
  printf '%-6s %-12s %12s\n' "$round" "ratio" "$ratio"
done

a=$(printf '%s\n' "${arbor_rps[@]}" | median)
h=$(printf '%s\n' "${hand_rps[@]}" | median)
ac=$(printf '%s\n' "${arbor_cpu[@]}" | median)
hc=$(printf '%s\n' "${hand_cpu[@]}" | median)
r=$(printf '%s\n' "${ratios[@]}" | median)
low=$(printf '%s\n' "${ratios[@]}" | sort -g | head -1)
high=$(printf '%s\n' "${ratios[@]}" | sort -g | tail -1)
echo "== medians"
echo "arbor:      $a requests/s, $ac CPU µs/request"
echo "hand-wired: $h requests/s, $hc CPU µs/request"
awk -v a="$a" -v h="$h" -v ac="$ac" -v hc="$hc" \
  'BEGIN { printf "ratio of the medians: %.3f× requests/s, %.3f× CPU per request\n", a / h, ac / hc }'
echo "Arbor ÷ hand-wired, median of the rounds' ratios: ${r}× requests/s (target ≥ 0.95×; rounds from ${low}× to ${high}×)"
