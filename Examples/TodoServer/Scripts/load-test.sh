#!/usr/bin/env bash
# Load test: an Arbor server against the same server wired by hand, both release builds, under wrk,
# on 127.0.0.1 only: todo-server against todo-server-hand-wired (Hummingbird), or with SERVER=vapor
# todo-server-vapor against todo-server-vapor-hand-wired. Both servers start once and are warmed up;
# then each round loads one for DURATION seconds and then the other, in the order A B in odd rounds
# and B A in even ones, so that the machine's noise falls on both and neither always goes first.
# Short bursts, seconds apart, over one long-lived process each: a round's two figures share the
# machine's load, and no figure depends on how one process happened to start.
#
#   Scripts/load-test.sh                       # Hummingbird, 15 rounds of 4 s per server
#   SERVER=vapor Scripts/load-test.sh          # Vapor
#   ROUNDS=5 DURATION=3 Scripts/load-test.sh   # shorter
#   CONTROL=1 Scripts/load-test.sh             # the hand-wired server against itself: the
#                                              # method's noise, and any bias of the first place
#   STAGE=branch Scripts/load-test.sh          # the hand-wired server with a part of the Arbor
#                                              # server's request added (middleware, branch or
#                                              # session; Hummingbird only) against the hand-wired one
#
# Each request is GET /api/todos by one signed-in user with 10 todos (a session lookup, a request
# branch, two request features, one SQLite query, a JSON body). It prints requests per second and
# the server's CPU time per request (user + system, from /proc; the idle server uses none) for every
# burst and each round's ratios, then the medians and the median of the rounds' ratios with their
# range. The last line is the figure to quote: Arbor's CPU per request over the hand-wired
# server's, which moves far less with the machine's load than requests per second do.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi

ROUNDS=${ROUNDS:-15}
DURATION=${DURATION:-4}
WARMUP=${WARMUP:-4}
CONNECTIONS=${CONNECTIONS:-16}
THREADS=${THREADS:-1}
PORT=${PORT:-8089}
SERVER=${SERVER:-hummingbird}
STAGE=${STAGE:-}
case "$STAGE" in
  "" | middleware | branch | session) ;;
  *)
    echo "load-test: STAGE must be middleware, branch or session" >&2
    exit 2
    ;;
esac
[ -z "$STAGE" ] || [ "$SERVER" = hummingbird ] || {
  echo "load-test: STAGE is for the Hummingbird servers" >&2
  exit 2
}
case "$SERVER" in
  hummingbird) arbor_product=todo-server hand_product=todo-server-hand-wired ;;
  vapor) arbor_product=todo-server-vapor hand_product=todo-server-vapor-hand-wired ;;
  *)
    echo "load-test: SERVER must be hummingbird or vapor" >&2
    exit 2
    ;;
esac
HOST=127.0.0.1  # loopback only, whatever the environment says
[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 40 ] && [ "$DURATION" -ge 1 ] && [ "$DURATION" -le 60 ] || {
  echo "load-test: ROUNDS must be 1-40 and DURATION 1-60 seconds" >&2
  exit 2
}

if ! command -v wrk >/dev/null; then
  echo "== installing wrk (Debian's package)"
  if [ "$(id -u)" -eq 0 ]; then apt-get update -qq && apt-get install -y -qq wrk >/dev/null; else
    sudo apt-get update -qq && sudo apt-get install -y -qq wrk >/dev/null
  fi
fi

echo "== building both servers in release: $arbor_product, $hand_product"
swift build -c release --product "$arbor_product"
swift build -c release --product "$hand_product"
bin=$(swift build -c release --show-bin-path)

arbor_pid= hand_pid=
stop_servers() {
  for pid in $arbor_pid $hand_pid; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}
trap stop_servers EXIT

# cpu_ticks PID: the process's user + system time, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# start BINARY PORT [STAGE]: starts the server (the hand-wired one with STAGE's part added, when
# given), seeds 10 todos and warms it up; sets pid. In this shell, not a subshell, so that the EXIT
# trap stops every server it started.
start() {
  local binary=$1 url="http://$HOST:$2"
  STAGE=${3:-} HOST=$HOST PORT=$2 LOG_LEVEL=warning TOKENS="ann-token:ann" "$bin/$binary" >/dev/null 2>&1 &
  pid=$!
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
}

# burst PID PORT: loads one server for DURATION seconds; sets rps and cpu (µs per request).
burst() {
  local before after output requests
  before=$(cpu_ticks "$1")
  output=$(wrk -t "$THREADS" -c "$CONNECTIONS" -d "${DURATION}s" -H "Authorization: Bearer ann-token" \
    "http://$HOST:$2/api/todos")
  after=$(cpu_ticks "$1")
  if echo "$output" | grep -q "Non-2xx"; then
    echo "load-test: the server on port $2 answered errors:" >&2
    echo "$output" >&2
    exit 1
  fi
  requests=$(echo "$output" | awk '/requests in/ { print $1 }')
  rps=$(echo "$output" | awk '/Requests\/sec/ { print $2 }')
  cpu=$(awk -v t=$((after - before)) -v n="$requests" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }')
}

# The control run puts the hand-wired server in Arbor's place too: its ratio should be 1. A stage
# puts the hand-wired server with that part of Arbor's request there.
if [ -n "$STAGE" ]; then
  start "$hand_product" "$PORT" "$STAGE"
else
  start "$([ -n "${CONTROL:-}" ] && echo "$hand_product" || echo "$arbor_product")" "$PORT"
fi
arbor_pid=$pid
start "$hand_product" "$((PORT + 1))"
hand_pid=$pid

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

arbor_rps=() hand_rps=() arbor_cpu=() hand_cpu=() ratios=() cpu_ratios=()
[ -z "${CONTROL:-}" ] || echo "== control run: the hand-wired server in both places (\"arbor\" below is its first copy)"
[ -z "$STAGE" ] || echo "== stage $STAGE: \"arbor\" below is the hand-wired server with that part of Arbor's request added"
echo "== load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $SERVER: $ROUNDS rounds, ${DURATION}s per server, $CONNECTIONS connections, $THREADS wrk thread(s), $HOST:$PORT and :$((PORT + 1))"
printf '%-6s %-12s %12s %16s\n' round server "requests/s" "CPU µs/request"
run_arbor() {
  burst "$arbor_pid" "$PORT"
  arbor_rps+=("$rps") arbor_cpu+=("$cpu")
  printf '%-6s %-12s %12s %16s\n' "$round" arbor "$rps" "$cpu"
}
run_hand() {
  burst "$hand_pid" "$((PORT + 1))"
  hand_rps+=("$rps") hand_cpu+=("$cpu")
  printf '%-6s %-12s %12s %16s\n' "$round" hand-wired "$rps" "$cpu"
}
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) -eq 1 ]; then run_arbor; run_hand; else run_hand; run_arbor; fi
  ratio=$(awk -v a="${arbor_rps[-1]}" -v h="${hand_rps[-1]}" 'BEGIN { printf "%.3f", a / h }')
  cpu_ratio=$(awk -v a="${arbor_cpu[-1]}" -v h="${hand_cpu[-1]}" 'BEGIN { printf "%.3f", a / h }')
  ratios+=("$ratio") cpu_ratios+=("$cpu_ratio")
  printf '%-6s %-12s %12s %16s\n' "$round" "ratio" "$ratio" "$cpu_ratio"
done

a=$(printf '%s\n' "${arbor_rps[@]}" | median)
h=$(printf '%s\n' "${hand_rps[@]}" | median)
ac=$(printf '%s\n' "${arbor_cpu[@]}" | median)
hc=$(printf '%s\n' "${hand_cpu[@]}" | median)
r=$(printf '%s\n' "${ratios[@]}" | median)
low=$(printf '%s\n' "${ratios[@]}" | sort -g | head -1)
high=$(printf '%s\n' "${ratios[@]}" | sort -g | tail -1)
cr=$(printf '%s\n' "${cpu_ratios[@]}" | median)
clow=$(printf '%s\n' "${cpu_ratios[@]}" | sort -g | head -1)
chigh=$(printf '%s\n' "${cpu_ratios[@]}" | sort -g | tail -1)
echo "== medians"
echo "arbor:      $a requests/s, $ac CPU µs/request"
echo "hand-wired: $h requests/s, $hc CPU µs/request"
awk -v a="$a" -v h="$h" -v ac="$ac" -v hc="$hc" \
  'BEGIN { printf "ratio of the medians: %.3f× requests/s, %.3f× CPU per request\n", a / h, ac / hc }'
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Arbor ÷ hand-wired, median of the rounds' ratios: ${r}× requests/s (rounds from ${low}× to ${high}×)"
echo "Arbor ÷ hand-wired, median of the rounds' ratios: ${cr}× CPU per request (target ≤ 1.05×; rounds from ${clow}× to ${chigh}×)"
