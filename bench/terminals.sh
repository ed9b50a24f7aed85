#!/usr/bin/env bash
# Many paced terminals over a few connections: TERMINALS terminals keying
# and thinking with the specification's times (--pacing spec) over a pool
# of CONNECTIONS sessions, against a private PostgreSQL sandbox. Prints the
# client's peak resident set (VmHWM), the schedule lag (a terminal's due
# time → its transaction sent, the wait for a session included) p50/p99/max,
# the client CPU per transaction and the run's NOPM and efficiency.
#
#   bench/terminals.sh                                  # 10,000 terminals over 50 connections
#   TERMINALS=2000 CONNECTIONS=20 DURATION=60 bench/terminals.sh
#
# The goal on a 2-core machine: 10,000 terminals over 50 connections under
# 1 GiB RSS with a lag p99 under 5 ms. With full pacing a terminal runs a
# transaction every ~23 s on average, so 10,000 terminals offer about 430
# transactions a second; a short ramp-up leaves the first keying times (up
# to 18 s) in the window, so the ramp-up defaults to 30 s.
set -euo pipefail
cd "$(dirname "$0")/.."

TERMINALS=${TERMINALS:-10000}
CONNECTIONS=${CONNECTIONS:-50}
W=${W:-10}
RAMPUP=${RAMPUP:-30}
DURATION=${DURATION:-120}

work=$(mktemp -d /tmp/sledge-terminals.XXXXXX)
chmod 755 "$work"
sledge="$work/sledge"
export SLEDGE_HOME="$work/home"
go build -o "$sledge" ./cmd/sledge
cleanup() {
  [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null || true
  "$sledge" sandbox postgres --dir "$work/pg" --stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== sandbox and build ($W warehouses)"
url=$("$sledge" sandbox postgres --dir "$work/pg")
"$sledge" build --db "$url" --warehouses "$W" --workers 2 | tail -n 1

echo "== run: $TERMINALS paced terminals over $CONNECTIONS connections, ramp-up ${RAMPUP}s, ${DURATION}s measured"
"$sledge" run --db "$url" --mode procs --pacing spec --terminals "$TERMINALS" --connections "$CONNECTIONS" \
  --rampup "${RAMPUP}s" --duration "${DURATION}s" --interval 10s --metrics off >"$work/run.log" 2>&1 &
pid=$!
peak=0
while kill -0 "$pid" 2>/dev/null; do
  hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$hwm" ] && [ "$hwm" -gt "$peak" ] && peak=$hwm
  sleep 1
done
wait "$pid" || { cat "$work/run.log"; exit 1; }
pid=
grep -E '^\[ ' "$work/run.log" | tail -n 3

id=$("$sledge" jobs --kind run --format json | python3 -c 'import json,sys; print(max(j["id"] for j in json.load(sys.stdin)))')
"$sledge" jobs show "$id" result --format json >"$work/result.json"
python3 - "$work/result.json" "$peak" "$TERMINALS" "$CONNECTIONS" "$W" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
peak_kib, terminals, conns, w = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
l = r["load"]
print()
print(f"terminals            {l['terminals']:,} over {l['connections']} connections ({w} warehouses)")
print(f"peak RSS (VmHWM)     {peak_kib / 1024:.0f} MiB   (goal < 1024 MiB)")
print(f"schedule lag         p50 {l['lag_p50_ms']:.2f} ms, p99 {l['lag_p99_ms']:.2f} ms, max {l['lag_max_ms']:.1f} ms   (goal p99 < 5 ms)")
print(f"late (> {l['late_after_ms']:.0f} ms)         {l['late']:,} of {r['commits'] + r['rolled_back'] + r['errors']:,} transactions")
print(f"client CPU           {r['client_cpu_per_tx_us']:.1f} µs per transaction")
print(f"NOPM                 {r['nopm']:.0f}   (paced ceiling {12.86 * terminals / 10:.0f} for {terminals:,} terminals: {100 * r['nopm'] / (12.86 * terminals / 10):.1f}%)")
print(f"status               {r['status']}, errors {r['errors']}")
PY
