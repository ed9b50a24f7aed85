#!/usr/bin/env bash
# CH-benCHmark's mixed run on one database: how much the analytic queries
# cost the transactions. Builds W warehouses, then runs VUS TPROC-C VUs
# three times over the same window: alone, with 1 analytic stream and with
# 2. Each run with streams starts them DELAY into its window, so it has a
# baseline of its own (its interference ratio: mixed NOPM / baseline NOPM,
# the same run's two parts). Prints NOPM alone vs with 1 and 2 streams and
# the streams' query sets per hour.
#
#   bench/chbench.sh                          # a private PostgreSQL sandbox
#   DB=mariadb bench/chbench.sh               # a private MariaDB sandbox
#   DB=postgres://u:p@host/db bench/chbench.sh   # an existing (empty) database
#   W=4 VUS=4 DURATION=120 DELAY=30 bench/chbench.sh
set -euo pipefail
cd "$(dirname "$0")/.."

DB=${DB:-postgres}
W=${W:-2}
VUS=${VUS:-2}
RAMPUP=${RAMPUP:-5}
DURATION=${DURATION:-60}
DELAY=${DELAY:-15}
INTERVAL=${INTERVAL:-5}

work=$(mktemp -d /tmp/sledge-chbench.XXXXXX)
chmod 755 "$work"
sledge="$work/sledge"
export SLEDGE_HOME="$work/home"
go build -o "$sledge" ./cmd/sledge
cleanup() {
  "$sledge" sandbox postgres --dir "$work/pg" --stop >/dev/null 2>&1 || true
  "$sledge" sandbox mariadb --dir "$work/mariadb" --stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

case $DB in
  postgres) url=$("$sledge" sandbox postgres --dir "$work/pg" 2>/dev/null) ;;
  mariadb) url=$("$sledge" sandbox mariadb --dir "$work/mariadb" 2>/dev/null) ;;
  *) url=$DB ;;
esac

echo "== build: CH-benCHmark, $W warehouses"
"$sledge" build --workload chbench --db "$url" --warehouses "$W" --workers 2 2>/dev/null | tail -n 1

for streams in 0 1 2; do
  echo "== run: $VUS VUs, $streams analytic streams (from ${DELAY}s into the ${DURATION}s window)"
  "$sledge" run --workload chbench --db "$url" --vu "$VUS" --rampup "${RAMPUP}s" --duration "${DURATION}s" \
    --interval "${INTERVAL}s" --analytic-streams "$streams" --analytic-delay "${DELAY}s" --metrics off \
    --format json 2>"$work/run$streams.log" >"$work/run$streams.json" || { cat "$work/run$streams.log" >&2; exit 1; }
done

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
def num(v, fmt="{:,.0f}"):
    return "-" if v is None else fmt.format(v)
runs = [json.load(open("%s/run%d.json" % (work, n)))["result"] for n in (0, 1, 2)]
alone = runs[0]["nopm"]
print()
print("%-8s %10s %10s %10s %12s %13s %12s %14s" % ("streams", "NOPM", "vs alone", "baseline", "mixed NOPM", "interference", "sets/hour", "freshness p50"))
for n, r in enumerate(runs):
    m = r.get("mixed")
    vs = "%.3f" % (r["nopm"] / alone) if alone else "-"
    if m is None:
        print("%-8d %10s %10s %10s %12s %13s %12s %14s" % (n, num(r["nopm"]), vs, "-", "-", "-", "-", "-"))
        continue
    print("%-8d %10s %10s %10s %12s %13s %12s %14s" % (n, num(r["nopm"]), vs, num(m["baseline_nopm"]), num(m["mixed_nopm"]),
          num(m["interference"], "{:.3f}"), num(m["query_sets_per_hour"], "{:.1f}"), num(m["freshness_p50_s"], "{:.2f} s")))
print()
print("NOPM: the whole window's; vs alone: that over the run without streams;")
print("baseline / mixed NOPM: the run's own window before / after its streams started;")
print("interference: mixed NOPM / baseline NOPM; sets/hour: completed queries per hour / 22.")
PY
