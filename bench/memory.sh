#!/usr/bin/env bash
# Memory of a long TPROC-C run: samples the Sledge process's resident set
# (VmRSS) and Go heap-relevant figures while it runs against a private
# PostgreSQL sandbox, and prints how much it grew after the first minute.
# Latencies go into HDR histograms and per-VU event buffers drained every
# interval, so the resident set should stay flat however long the run.
#
#   bench/memory.sh                       # W=4 VU=16 DURATION=300 SAMPLE=10
#   W=8 VU=64 DURATION=1800 bench/memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."

W=${W:-4}
VU=${VU:-16}
DURATION=${DURATION:-300}
SAMPLE=${SAMPLE:-10}

work=$(mktemp -d /tmp/sledge-memory.XXXXXX)
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

echo "== run: $VU VUs, ${DURATION}s measured, --interval 5s, RSS sampled every ${SAMPLE}s"
"$sledge" run --db "$url" --mode procs --vu "$VU" --rampup 0s --duration "${DURATION}s" --interval 5s >"$work/run.log" 2>&1 &
pid=$!
printf '%8s %10s %10s\n' "seconds" "RSS MiB" "intervals"
start=$(date +%s)
: >"$work/samples"
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -z "$rss" ] && break
  now=$(( $(date +%s) - start ))
  # Progress lines printed so far: shows the run is alive and measuring.
  lines=$(grep -c '^\[' "$work/run.log" || true)
  printf '%8d %10s %10s\n' "$now" "$(awk -v k="$rss" 'BEGIN {printf "%.1f", k / 1024}')" "$lines"
  echo "$now $rss" >>"$work/samples"
  sleep "$SAMPLE"
done
wait "$pid" || { echo "run failed:"; tail -n 20 "$work/run.log"; exit 1; }
grep -E '^  (NOPM|TPM|client CPU)' "$work/run.log"

python3 - "$work/samples" <<'PY'
import sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
after = [r for r in rows if r[0] >= 60] or rows
first, last = after[0], after[-1]
peak = max(r[1] for r in rows)
growth = (last[1] - first[1]) / 1024
span = max(1, last[0] - first[0])
print()
print(f"RSS at {first[0]} s: {first[1]/1024:.1f} MiB; at {last[0]} s: {last[1]/1024:.1f} MiB; peak {peak/1024:.1f} MiB")
print(f"growth after the first minute: {growth:+.1f} MiB over {span} s ({growth*3600/span:+.1f} MiB/hour)")
PY
