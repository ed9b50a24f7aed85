#!/usr/bin/env bash
# What observing the server costs: PAIRS pairs of TPROC-C runs, one with the
# server observers on (--metrics on, the default) and one with them off, the
# order alternating from pair to pair, on a private PostgreSQL sandbox made
# durable like a real server (fsync, full_page_writes and synchronous_commit
# on, shared_buffers 2 GB) so that it is the server's CPU the runs saturate.
# For each run: NOPM and the server's CPU per transaction (user+system of
# every PostgreSQL process, read from /proc before and after the run). It
# prints each pair, then the mean on−off difference of both with its 95 %
# t-interval, and the observer's own cost as Sledge reports it.
#
#   bench/observers.sh                         # W=4 VU=4 PAIRS=5 RAMPUP=10 DURATION=30
#   PAIRS=8 VU=8 DURATION=60 bench/observers.sh
#
# The goal: observing costs ≤ 1 % of throughput and ≤ 1 % of one server core.
set -euo pipefail
cd "$(dirname "$0")/.."

W=${W:-4}
VU=${VU:-4}
PAIRS=${PAIRS:-5}
RAMPUP=${RAMPUP:-10}
DURATION=${DURATION:-30}

work=$(mktemp -d /tmp/sledge-observers.XXXXXX)
chmod 755 "$work"
sledge="$work/sledge"
export SLEDGE_HOME="$work/home"
go build -o "$sledge" ./cmd/sledge
cleanup() {
  "$sledge" sandbox postgres --dir "$work/pg" --stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== durable sandbox and build ($W warehouses)"
url=$("$sledge" sandbox postgres --dir "$work/pg")
psql_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)/psql
[ -x "$psql_bin" ] || psql_bin=$(command -v psql)
# postgresql.auto.conf comes after the sandbox's own settings: a restart
# makes the server durable.
"$psql_bin" -q "$url" -c "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET synchronous_commit = on" \
  -c "ALTER SYSTEM SET full_page_writes = on" -c "ALTER SYSTEM SET shared_buffers = '2GB'"
"$sledge" sandbox postgres --dir "$work/pg" --stop >/dev/null
url=$("$sledge" sandbox postgres --dir "$work/pg")
"$psql_bin" -qAt "$url" -c "SELECT 'fsync ' || current_setting('fsync') || ', shared_buffers ' || current_setting('shared_buffers')"
"$sledge" build --db "$url" --warehouses "$W" --workers 2 | tail -n 1
postmaster=$(head -n 1 "$work/pg/data/postmaster.pid" 2>/dev/null || head -n 1 "$(find "$work/pg" -name postmaster.pid | head -n 1)")

# server_ticks prints the CPU clock ticks (user+system) of the postmaster and
# all its children so far: the live ones' own, and the exited ones' (a run's
# sessions end with it) in the postmaster's cutime and cstime.
server_ticks() {
  local total=0 pid stat rest
  for stat in /proc/[0-9]*/stat; do
    pid=${stat#/proc/}; pid=${pid%/stat}
    rest=$(cat "$stat" 2>/dev/null) || continue
    rest=${rest##*) }            # fields after the command name
    set -- $rest                  # $1 state, $2 ppid, … $12 utime, $13 stime, $14 cutime, $15 cstime
    if [ "$pid" = "$postmaster" ]; then
      total=$((total + ${12} + ${13} + ${14} + ${15}))
    elif [ "$2" = "$postmaster" ]; then
      total=$((total + ${12} + ${13}))
    fi
  done
  echo "$total"
}

: >"$work/runs.tsv"
for pair in $(seq 1 "$PAIRS"); do
  order="on off"; [ $((pair % 2)) -eq 0 ] && order="off on"
  for metrics in $order; do
    before=$(server_ticks)
    "$sledge" run --db "$url" --mode procs --vu "$VU" --rampup "${RAMPUP}s" --duration "${DURATION}s" \
      --metrics "$metrics" >"$work/run.log" 2>&1 || { cat "$work/run.log"; exit 1; }
    after=$(server_ticks)
    id=$("$sledge" jobs --kind run --limit 1 --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
    "$sledge" jobs show "$id" result --format json >"$work/result-$pair-$metrics.json"
    printf '%s\t%s\t%s\t%s\n' "$pair" "$metrics" "$((after - before))" "$work/result-$pair-$metrics.json" >>"$work/runs.tsv"
    echo "   pair $pair, metrics $metrics: job $id"
  done
done

python3 - "$work/runs.tsv" "$(getconf CLK_TCK)" "$RAMPUP" "$DURATION" <<'PY'
import json, math, statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
tck, rampup, duration = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
# Two-sided 95 % t quantiles by degrees of freedom.
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23,
       15: 2.13, 20: 2.09, 30: 2.04}
def t95(df):
    return T95.get(df) or T95[max(k for k in T95 if k <= df)] if df < 30 else 1.96
runs = {}
for pair, metrics, ticks, path in rows:
    r = json.load(open(path))
    tx = sum(t["count"] + t["rolled_back"] for t in r["transactions"].values())
    # The server's CPU over the whole run (ramp-up included), per transaction
    # of the whole run: the ramp-up's transactions are counted in proportion.
    all_tx = tx * (rampup + duration) / duration
    runs[(int(pair), metrics)] = (r["nopm"], 1e6 * int(ticks) / tck / all_tx, r)
pairs = sorted({p for p, _ in runs})
print()
print(f"{'pair':>4} {'NOPM on':>9} {'NOPM off':>9} {'Δ NOPM':>8} {'srv µs/tx on':>13} {'off':>8} {'Δ µs/tx':>8}")
dn, ds = [], []
for p in pairs:
    (n1, s1, _), (n0, s0, _) = runs[(p, "on")], runs[(p, "off")]
    dn.append(100 * (n1 - n0) / n0)
    ds.append(100 * (s1 - s0) / s0)
    print(f"{p:4d} {n1:9.0f} {n0:9.0f} {dn[-1]:+7.1f}% {s1:13.0f} {s0:8.0f} {ds[-1]:+7.1f}%")
def interval(xs):
    m = statistics.mean(xs)
    if len(xs) < 2:
        return m, float("nan")
    return m, t95(len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))
m, h = interval(dn)
print(f"\nNOPM, observers on vs off:            {m:+.2f} % ± {h:.2f} (95 % t-interval over {len(dn)} pairs; goal ≥ −1 %)")
m, h = interval(ds)
print(f"server CPU per transaction, on vs off: {m:+.2f} % ± {h:.2f}")
costs = []
for p in pairs:
    obs = runs[(p, "on")][2].get("observed") or {}
    for o in obs.get("observers") or []:
        c = o.get("cost") or {}
        if isinstance(c.get("server_cpu_share"), (int, float)):
            costs.append(100 * c["server_cpu_share"])
if costs:
    print(f"the observers' own queries: {statistics.mean(costs):.2f} % of one server core (mean of {len(costs)} observer-runs; goal ≤ 1 %)")
else:
    print("the observers reported no server CPU share of their own")
PY
