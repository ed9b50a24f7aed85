#!/usr/bin/env bash
# Client CPU per TPROC-C transaction: Sledge (--mode procs) against pgbench
# calling the same server-side routines with equivalent random inputs, same
# client count and duration, on a private PostgreSQL sandbox.
#
#   bench/client-overhead.sh                 # defaults: W=4 VU=4 DURATION=30
#   W=8 VU=8 DURATION=60 bench/client-overhead.sh
#
# Both clients are measured the same way: user+system CPU of the whole client
# process (bash `time`), divided by the transactions it completed. Sledge's own
# figure for the measured window is printed beside it.
set -euo pipefail
cd "$(dirname "$0")/.."

W=${W:-4}
VU=${VU:-4}
DURATION=${DURATION:-30}
PG_BIN=${SLEDGE_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
PGBENCH=${PGBENCH:-$PG_BIN/pgbench}
[ -x "$PGBENCH" ] || PGBENCH=$(command -v pgbench) || { echo "pgbench not found" >&2; exit 1; }

work=$(mktemp -d /tmp/sledge-overhead.XXXXXX)
chmod 755 "$work"
sledge="$work/sledge"
export SLEDGE_HOME="$work/home"
go build -o "$sledge" ./cmd/sledge
cleanup() {
  "$sledge" sandbox postgres --dir "$work/pg" --stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== sandbox and build ($W warehouses)"
url=$("$sledge" sandbox postgres --dir "$work/pg")
"$sledge" build --db "$url" --warehouses "$W" --workers 2 | tail -n 1

TIMEFORMAT='%U %S'
# Sledge twice: observing the server (the default) and with --metrics off,
# so the observers' own cost shows as the difference.
for metrics in on off; do
  echo "== Sledge: $VU VUs, ${DURATION}s, --mode procs, --metrics $metrics"
  { time "$sledge" run --db "$url" --mode procs --vu "$VU" --rampup 0s --duration "${DURATION}s" --metrics "$metrics" >"$work/sledge-$metrics.log" 2>&1; } 2>"$work/sledge-$metrics.cpu"
  "$sledge" jobs --kind run --limit 1 --format json >"$work/jobs.json"
  id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["id"])' "$work/jobs.json")
  "$sledge" jobs show "$id" result --format json >"$work/sledge-$metrics.json"
done

echo "== pgbench: $VU clients, ${DURATION}s, -M prepared, the same routines"
jobs=$(( VU < 2 ? VU : 2 ))
{ time "$PGBENCH" -n -M prepared -c "$VU" -j "$jobs" -T "$DURATION" --max-tries=10 \
    -D W="$W" -D c_cid=$((RANDOM % 1024)) -D c_iid=$((RANDOM % 8192)) -D c_last=$((RANDOM % 256)) \
    -f bench/pgbench/neword.sql@10 -f bench/pgbench/payment.sql@10 -f bench/pgbench/ostat.sql@1 \
    -f bench/pgbench/delivery.sql@1 -f bench/pgbench/slev.sql@1 "$url" >"$work/pgbench.log" 2>&1; } 2>"$work/pgbench.cpu"

python3 - "$work" <<'PY'
import json, re, sys
work = sys.argv[1]
def cpu(path):
    user, sys_ = open(path).read().split()[-2:]
    return float(user) + float(sys_)
def sledge(metrics):
    res = json.load(open(f"{work}/sledge-{metrics}.json"))
    tx = sum(t["count"] + t["rolled_back"] for t in res["transactions"].values())
    return res, tx, cpu(f"{work}/sledge-{metrics}.cpu")
res_on, tx_on, cpu_on = sledge("on")
res, s_tx, s_cpu = sledge("off")
log = open(f"{work}/pgbench.log").read()
m = re.search(r"number of transactions actually processed: (\d+)", log)
if not m:
    sys.exit("pgbench did not finish:\n" + log[-2000:])
p_tx = int(m.group(1))
p_cpu = cpu(f"{work}/pgbench.cpu")
s_us = 1e6 * s_cpu / s_tx
p_us = 1e6 * p_cpu / p_tx
print()
print(f"{'client':10} {'transactions':>12} {'CPU s':>8} {'µs/tx':>8} {'TPM':>10}")
print(f"{'sledge':10} {s_tx:12d} {s_cpu:8.2f} {s_us:8.1f} {res['tpm']:10.0f}   --metrics off (Sledge's own window figure: {res['client_cpu_per_tx_us']:.1f} µs/tx)")
print(f"{'sledge':10} {tx_on:12d} {cpu_on:8.2f} {1e6 * cpu_on / tx_on:8.1f} {res_on['tpm']:10.0f}   --metrics on (observers included; window figure {res_on['client_cpu_per_tx_us']:.1f} µs/tx)")
obs = (res_on.get("observed") or {})
for o in obs.get("observers", []) if isinstance(obs, dict) else []:
    print(f"           observer {o.get('name')}: {o.get('cost')}")
dur = float(re.search(r"duration: (\d+) s", log).group(1))
print(f"{'pgbench':10} {p_tx:12d} {p_cpu:8.2f} {p_us:8.1f} {60*p_tx/dur:10.0f}")
print(f"\nratio sledge/pgbench: {s_us / p_us:.2f} with --metrics off, {1e6 * cpu_on / tx_on / p_us:.2f} with it on  (goal ≤ 1.05)")
PY
