#!/usr/bin/env bash
# How Sledge's own cost grows with the load it drives: client CPU per
# transaction and peak resident memory (VmHWM)
#   - for closed-loop VUs: 1, 10, 100 and 1,000 (VUS="1 10 100 1000");
#   - for paced terminals over 50 connections: 1,000, 10,000 and 100,000
#     (TERMINALS="1000 10000 100000"), the keying and think times scaled so
#     that every point offers the same rate, about 435 transactions a second
#     (1,000 at ×0.1, 10,000 at the specification's times, 100,000 at ×10):
#     the cost per transaction is then the cost of keeping terminals, not of
#     a different load.
# On a private PostgreSQL sandbox (max_connections raised for 1,000 VUs)
# with W warehouses (default 10). Each point prints its figures and, at the
# end, the spread of the per-transaction cost against its smallest, and the
# memory per VU and per terminal (the slope between the first and last
# points).
#
#   bench/scale.sh
#   VUS="1 10 100" TERMINALS="1000 10000" DURATION=30 bench/scale.sh
#
# The goal: per-transaction client CPU within 25 % across each range, and
# memory growing at most linearly.
set -euo pipefail
cd "$(dirname "$0")/.."

W=${W:-10}
VUS=${VUS:-1 10 100 1000}
TERMINALS=${TERMINALS:-1000 10000 100000}
CONNECTIONS=${CONNECTIONS:-50}
RAMPUP=${RAMPUP:-10}
DURATION=${DURATION:-40}

work=$(mktemp -d /tmp/sledge-scale.XXXXXX)
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

echo "== sandbox (max_connections 1100) and build ($W warehouses)"
url=$("$sledge" sandbox postgres --dir "$work/pg")
psql_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)/psql
[ -x "$psql_bin" ] || psql_bin=$(command -v psql)
"$psql_bin" -q "$url" -c "ALTER SYSTEM SET max_connections = 1100"
"$sledge" sandbox postgres --dir "$work/pg" --stop >/dev/null
url=$("$sledge" sandbox postgres --dir "$work/pg")
"$sledge" build --db "$url" --warehouses "$W" --workers 2 | tail -n 1

# measure runs sledge with the arguments given, polling its peak RSS, and
# appends "label<TAB>peak KiB<TAB>result file" to points.tsv.
: >"$work/points.tsv"
measure() {
  local label=$1; shift
  "$sledge" run --db "$url" --mode procs --interval 10s --metrics off "$@" >"$work/run.log" 2>&1 &
  pid=$!
  local peak=0 hwm
  while kill -0 "$pid" 2>/dev/null; do
    hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$hwm" ] && [ "$hwm" -gt "$peak" ] && peak=$hwm
    sleep 1
  done
  wait "$pid" || { cat "$work/run.log"; exit 1; }
  pid=
  local id
  id=$("$sledge" jobs --kind run --limit 1 --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
  "$sledge" jobs show "$id" result --format json >"$work/result-$label.json"
  printf '%s\t%s\t%s\n' "$label" "$peak" "$work/result-$label.json" >>"$work/points.tsv"
  python3 - "$work/result-$label.json" "$label" "$peak" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"   {sys.argv[2]:>18}: {r['client_cpu_per_tx_us']:7.1f} µs/tx, peak RSS {int(sys.argv[3]) / 1024:6.0f} MiB, "
      f"TPM {r['tpm']:,.0f}, errors {r['errors']}, status {r['status']}")
PY
}

echo "== closed-loop VUs: $VUS (ramp-up ${RAMPUP}s, ${DURATION}s measured)"
for n in $VUS; do
  measure "vu $n" --vu "$n" --rampup "${RAMPUP}s" --duration "${DURATION}s"
done

echo "== paced terminals over $CONNECTIONS connections: $TERMINALS (about 435 tx/s offered at each)"
for n in $TERMINALS; do
  # 10,000 terminals at the specification's times offer ~435 tx/s; scale
  # the times with the count so every point offers the same.
  scale=$(python3 -c "print($n / 10000)")
  # The ramp-up holds a whole cycle of the scaled times (~23 s × scale), so
  # the window sees terminals in their steady state.
  ramp=$(python3 -c "print(max($RAMPUP, int(25 * $n / 10000) + 5))")
  measure "terminals $n" --pacing spec --pacing-scale "$scale" --terminals "$n" --connections "$CONNECTIONS" \
    --rampup "${ramp}s" --duration "${DURATION}s"
done

python3 - "$work/points.tsv" <<'PY'
import json, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
groups = {}
for label, peak, path in rows:
    kind, n = label.split()
    r = json.load(open(path))
    groups.setdefault(kind, []).append((int(n), r["client_cpu_per_tx_us"], int(peak) / 1024))
print()
for kind, pts in groups.items():
    name = {"vu": "closed-loop VUs", "terminals": "paced terminals"}[kind]
    base = min(p[1] for p in pts)
    worst = max(p[1] for p in pts)
    print(f"{name}: client CPU per transaction {', '.join(f'{n:,}: {us:.1f} µs' for n, us, _ in pts)}")
    print(f"   spread {100 * (worst - base) / base:.0f} % above the cheapest point (goal ≤ 25 %)")
    if len(pts) > 1:
        (n0, _, m0), (n1, _, m1) = pts[0], pts[-1]
        print(f"   memory {', '.join(f'{n:,}: {m:.0f} MiB' for n, _, m in pts)}; "
              f"{1024 * (m1 - m0) / (n1 - n0):.1f} KiB per {'VU' if kind == 'vu' else 'terminal'} ({n0:,} → {n1:,})")
PY
