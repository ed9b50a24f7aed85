#!/usr/bin/env bash
# pgbench against `sledge pgbench` on the same command line: tpcb-like on a
# private PostgreSQL sandbox, at 1, 4 and 8 clients, each pair in the same
# session (pgbench first, then Sledge, then the next client count). Prints
# the TPS of both, their ratio, and the client CPU per transaction of both
# (user+system of the whole process from bash `time`, divided by the
# transactions it processed: Sledge's includes its start, its observers and
# the jobs repository).
#
#   bench/pgbench-compat.sh                 # defaults: SCALE=10 DURATION=20
#   SCALE=50 DURATION=60 CLIENTS="1 4 8 16" bench/pgbench-compat.sh
#
# The goal is Sledge's TPS within 5 % of pgbench's at every client count.
set -euo pipefail
cd "$(dirname "$0")/.."

SCALE=${SCALE:-10}
DURATION=${DURATION:-20}
CLIENTS=${CLIENTS:-"1 4 8"}
PG_BIN=${SLEDGE_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
PGBENCH=${PGBENCH:-$PG_BIN/pgbench}
[ -x "$PGBENCH" ] || PGBENCH=$(command -v pgbench) || { echo "pgbench not found" >&2; exit 1; }

work=$(mktemp -d /tmp/sledge-pgbench-compat.XXXXXX)
chmod 755 "$work"
sledge="$work/sledge"
export SLEDGE_HOME="$work/home"
go build -o "$sledge" ./cmd/sledge
cleanup() {
  "$sledge" sandbox postgres --dir "$work/pg" --stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== sandbox and build (scale $SCALE, sledge pgbench -i)"
url=$("$sledge" sandbox postgres --dir "$work/pg")
"$sledge" pgbench -i -s "$SCALE" "$url" | tail -n 1

TIMEFORMAT='%U %S'
for c in $CLIENTS; do
  j=$(( c < 2 ? c : 2 ))
  echo "== $c clients, ${DURATION}s: pgbench, then sledge pgbench"
  psql "$url" -q -c "VACUUM pgbench_branches, pgbench_tellers" -c "TRUNCATE pgbench_history" >/dev/null
  { time "$PGBENCH" -n -c "$c" -j "$j" -T "$DURATION" "$url" >"$work/pgbench-$c.log" 2>&1; } 2>"$work/pgbench-$c.cpu"
  psql "$url" -q -c "VACUUM pgbench_branches, pgbench_tellers" -c "TRUNCATE pgbench_history" >/dev/null
  { time "$sledge" pgbench -n -c "$c" -j "$j" -T "$DURATION" "$url" >"$work/sledge-$c.log" 2>&1; } 2>"$work/sledge-$c.cpu"
done

python3 - "$work" "$CLIENTS" <<'PY'
import re, sys
work, clients = sys.argv[1], sys.argv[2].split()
def cpu(path):
    user, sys_ = open(path).read().split()[-2:]
    return float(user) + float(sys_)
def parse(path):
    log = open(path).read()
    tx = re.search(r"number of transactions actually processed: (\d+)", log)
    tps = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", log)
    if not tx or not tps:
        sys.exit(f"{path} has no result:\n" + log[-2000:])
    return int(tx.group(1)), float(tps.group(1))
print()
print(f"{'clients':>7} {'pgbench tps':>12} {'sledge tps':>11} {'ratio':>6} {'pgbench µs/tx':>14} {'sledge µs/tx':>13}")
for c in clients:
    p_tx, p_tps = parse(f"{work}/pgbench-{c}.log")
    s_tx, s_tps = parse(f"{work}/sledge-{c}.log")
    p_us = 1e6 * cpu(f"{work}/pgbench-{c}.cpu") / p_tx
    s_us = 1e6 * cpu(f"{work}/sledge-{c}.cpu") / s_tx
    print(f"{c:>7} {p_tps:12.1f} {s_tps:11.1f} {s_tps / p_tps:6.3f} {p_us:14.1f} {s_us:13.1f}")
print("\n(ratio: sledge/pgbench TPS, goal 0.95 or more; µs/tx: the whole client process's CPU per transaction)")
PY
