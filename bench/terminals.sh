#!/usr/bin/env bash
# Many paced terminals over a few connections: TERMINALS terminals keying
# and thinking with the specification's times (--pacing spec) over a pool
# of CONNECTIONS sessions, against a private PostgreSQL sandbox. Prints the
# client's peak resident set (VmHWM), the schedule lag (a terminal's due
# time → its transaction sent, the wait for a session included) p50/p99/max,
# the client CPU per transaction and the run's NOPM and efficiency; then,
# on the same database in the same invocation, two closed-loop runs of the
# same window (VU_RAMPUP ramp-up) and the terminals' client CPU per
# transaction as a ratio of each — the figures to judge, as the machine's
# load moves the runs alike:
#   - the same NOPM: PACED_VUS VUs (CONNECTIONS by default), each its own
#     session, keying and thinking with the specification's times scaled
#     by PACED_VUS/TERMINALS (--pacing-scale), which offers the terminals'
#     load (about 430 transactions a second for 10,000): the fixed
#     per-second costs (monitor, observers, timers, the idle scheduler's
#     wake-ups) spread over as many transactions in both;
#   - unpaced: VUS unpaced VUs as fast as they go, whose fixed costs spread
#     over their own throughput — on a quiet machine several times the
#     terminals' (the harder comparison), on a loaded one possibly less.
#
#   bench/terminals.sh                                  # 10,000 terminals over 50 connections
#   DURATION=60 RAMPUP=30 bench/terminals.sh            # the short window
#   TERMINALS=2000 CONNECTIONS=20 DURATION=60 bench/terminals.sh
#   PROFILE=/tmp/terms.pprof bench/terminals.sh         # + CPU profiles (the VU runs': terms-paced.pprof, terms-vus.pprof)
#   TERMS_FLAGS="--client-cpus 1" bench/terminals.sh    # more flags for the terminal run
#
# The goal on a 2-core machine: 10,000 terminals over 50 connections under
# 256 MiB RSS with a lag p99 under 2 ms, at most 2 × a closed-loop VU's
# client CPU per transaction. With full pacing a terminal runs a
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
VUS=${VUS:-1}
VU_RAMPUP=${VU_RAMPUP:-10}
PACED_VUS=${PACED_VUS:-$CONNECTIONS}
PROFILE=${PROFILE:-}
TERMS_FLAGS=${TERMS_FLAGS:-}

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

# run LOG ARGS...: a run in the background, sampling its peak resident set
# (VmHWM, KiB) into $peak; then its result as JSON into LOG.json.
run() {
  local log=$1; shift
  "$sledge" run --db "$url" --mode procs --interval 10s --metrics off "$@" >"$log" 2>&1 &
  pid=$!
  peak=0
  while kill -0 "$pid" 2>/dev/null; do
    hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$hwm" ] && [ "$hwm" -gt "$peak" ] && peak=$hwm
    sleep 1
  done
  wait "$pid" || { cat "$log"; exit 1; }
  pid=
  grep -E '^\[ ' "$log" | tail -n 2
  local id
  id=$("$sledge" jobs --kind run --format json | python3 -c 'import json,sys; print(max(j["id"] for j in json.load(sys.stdin)))')
  "$sledge" jobs show "$id" result --format json >"$log.json"
}

echo "== run: $TERMINALS paced terminals over $CONNECTIONS connections, ramp-up ${RAMPUP}s, ${DURATION}s measured"
prof=()
[ -n "$PROFILE" ] && prof=(--cpuprofile "$PROFILE")
run "$work/terms.log" --pacing spec --terminals "$TERMINALS" --connections "$CONNECTIONS" \
  --rampup "${RAMPUP}s" --duration "${DURATION}s" "${prof[@]}" $TERMS_FLAGS
terms_peak=$peak

scale=$(python3 -c "print($PACED_VUS / $TERMINALS)")
echo "== run: $PACED_VUS closed-loop VUs, paced (--pacing-scale $scale: the terminals' offered load), ramp-up ${VU_RAMPUP}s, ${DURATION}s measured"
prof=()
[ -n "$PROFILE" ] && prof=(--cpuprofile "${PROFILE%.pprof}-paced.pprof")
run "$work/paced.log" --vu "$PACED_VUS" --pacing spec --pacing-scale "$scale" --rampup "${VU_RAMPUP}s" --duration "${DURATION}s" "${prof[@]}"
paced_peak=$peak

echo "== run: $VUS closed-loop VU(s), unpaced, ramp-up ${VU_RAMPUP}s, ${DURATION}s measured"
prof=()
[ -n "$PROFILE" ] && prof=(--cpuprofile "${PROFILE%.pprof}-vus.pprof")
run "$work/vus.log" --vu "$VUS" --rampup "${VU_RAMPUP}s" --duration "${DURATION}s" "${prof[@]}"
vus_peak=$peak

python3 - "$work/terms.log.json" "$work/vus.log.json" "$terms_peak" "$vus_peak" "$TERMINALS" "$W" "$work/paced.log.json" "$paced_peak" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
v = json.load(open(sys.argv[2]))
peak_kib, vus_peak_kib, terminals, w = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
p = json.load(open(sys.argv[7]))
paced_peak_kib = int(sys.argv[8])
l = r["load"]
ratio = r['client_cpu_per_tx_us'] / v['client_cpu_per_tx_us']
paced_ratio = r['client_cpu_per_tx_us'] / p['client_cpu_per_tx_us']
print()
print(f"terminals            {l['terminals']:,} over {l['connections']} connections ({w} warehouses)")
print(f"peak RSS (VmHWM)     {peak_kib / 1024:.0f} MiB   (goal < 256 MiB; the paced VUs: {paced_peak_kib / 1024:.0f} MiB, the unpaced: {vus_peak_kib / 1024:.0f} MiB)")
print(f"schedule lag         p50 {l['lag_p50_ms']:.2f} ms, p99 {l['lag_p99_ms']:.2f} ms, max {l['lag_max_ms']:.1f} ms   (goal p99 < 2 ms)")
print(f"late (> {l['late_after_ms']:.0f} ms)         {l['late']:,} of {r['commits'] + r['rolled_back'] + r['errors']:,} transactions")
print(f"NOPM                 {r['nopm']:.0f}   (paced ceiling {12.86 * terminals / 10:.0f} for {terminals:,} terminals: {100 * r['nopm'] / (12.86 * terminals / 10):.1f}%)")
print(f"status               {r['status']}, errors {r['errors']}")
print(f"client CPU           terminals {r['client_cpu_per_tx_us']:.1f} µs per transaction ({r['nopm']:.0f} NOPM)")
print(f"                     closed-loop VUs at the same NOPM {p['client_cpu_per_tx_us']:.1f} µs ({p['nopm']:.0f} NOPM, status {p['status']})")
print(f"                     unpaced closed-loop VU(s), as fast as they go, {v['client_cpu_per_tx_us']:.1f} µs ({v['nopm']:.0f} NOPM, status {v['status']})")
print(f"ratio, same NOPM     {paced_ratio:.2f} × a closed-loop VU's client CPU per transaction   (goal ≤ 2)")
print(f"ratio, unpaced       {ratio:.2f} × an unpaced closed-loop VU's (its fixed per-second costs over {v['nopm'] / r['nopm']:.1f} × the terminals' transactions)")
PY
