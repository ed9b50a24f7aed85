#!/usr/bin/env bash
# Server work per TPROC-C transaction: the routines of another revision
# (OLD, default the merge base with main) against this worktree's, on one private PostgreSQL
# sandbox, runs alternated so both see the same machine.
#
#   bench/routines.sh                        # defaults: OLD=$(git merge-base HEAD main) W=4 VUS="8 4" RAMPUP=20 DURATION=60 ROUNDS=2 MODE=procs
#   OLD=ae02281 VUS=8 ROUNDS=3 bench/routines.sh
#   DB=mariadb bench/routines.sh             # the MariaDB sandbox instead
#
# Each run installs its binary's routines (a run replaces them), so the old
# and new routines take turns on the same data. Server CPU is read from /proc:
# the server's processes (live ones' utime+stime, plus what the postmaster or
# mariadbd accumulated) before and after each run, divided by the server's
# transactions in that time (pg_stat_database xact_commit + xact_rollback, or
# MariaDB's Com_commit + Com_rollback, which count the procedures' COMMITs). Runs use --metrics off, so no observer
# adds queries of its own. The figures that count are the ratios new ÷ old.
set -euo pipefail
cd "$(dirname "$0")/.."

OLD=${OLD:-$(git merge-base HEAD main)}
W=${W:-4}
VUS=${VUS:-8 4}
RAMPUP=${RAMPUP:-20}
DURATION=${DURATION:-60}
ROUNDS=${ROUNDS:-2}
MODE=${MODE:-procs}
DB=${DB:-postgres}

work=$(mktemp -d /tmp/sledge-routines.XXXXXX)
chmod 755 "$work"
export SLEDGE_HOME="$work/home"
go build -o "$work/new" ./cmd/sledge
mkdir "$work/oldsrc"
git archive "$OLD" | tar -x -C "$work/oldsrc"
(cd "$work/oldsrc" && go build -o "$work/old" ./cmd/sledge)
cleanup() {
  "$work/new" sandbox "$DB" --dir "$work/db" --stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== $DB sandbox and build ($W warehouses); old = $OLD ($(git rev-parse --short "$OLD")), new = worktree ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- internal || echo '+changes'))"
url=$("$work/new" sandbox "$DB" --dir "$work/db")
"$work/new" build --db "$url" --warehouses "$W" --workers 2 | tail -n 1

case $DB in
postgres)
  server_pid() { head -n 1 "$work/db/data/postmaster.pid"; }
  server_tx() { psql "$url" -Atc "SELECT sum(xact_commit + xact_rollback) FROM pg_stat_database"; }
  ;;
mariadb)
  server_pid() { cat "$work/db/mariadb.pid"; }
  server_tx() {
    mariadb --socket="$work/db/mariadb.sock" -uroot -N -e \
      "SELECT sum(VARIABLE_VALUE) FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('COM_COMMIT','COM_ROLLBACK')"
  }
  ;;
*) echo "DB must be postgres or mariadb" >&2; exit 2 ;;
esac

# server_cpu prints the server's CPU seconds so far: the main process with
# its reaped children (a PostgreSQL backend's CPU lands in the postmaster's
# cutime/cstime when it exits) plus every live child.
server_cpu() {
  python3 - "$(server_pid)" <<'PY'
import os, sys
hz = os.sysconf("SC_CLK_TCK")
root = sys.argv[1]
def stat(pid):
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    return s[s.rindex(")") + 2:].split()
total = 0
f = stat(root)
total += sum(int(x) for x in f[11:15])  # utime stime cutime cstime
for pid in os.listdir("/proc"):
    if not pid.isdigit() or pid == root:
        continue
    try:
        g = stat(pid)
    except OSError:
        continue
    if g[1] == root:  # ppid
        total += int(g[11]) + int(g[12])
print(total / hz)
PY
}

results="$work/results.tsv"
for round in $(seq 1 "$ROUNDS"); do
  for vu in $VUS; do
    for which in old new; do
      cpu0=$(server_cpu); tx0=$(server_tx)
      "$work/$which" run --db "$url" --mode "$MODE" --vu "$vu" --rampup "${RAMPUP}s" --duration "${DURATION}s" --metrics off >"$work/run.log" 2>&1
      cpu1=$(server_cpu); tx1=$(server_tx)
      "$work/new" jobs --kind run --limit 1 --format json >"$work/jobs.json"
      id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["id"])' "$work/jobs.json")
      nopm=$("$work/new" jobs show "$id" result --format json | python3 -c 'import json,sys; r=json.load(sys.stdin); print(round(r["nopm"]), r["db_check_agree"])')
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$vu" "$which" "$nopm" "$(python3 -c "print($cpu1-$cpu0)")" "$((tx1 - tx0))" >>"$results"
      printf 'round %s  %2s VU  %-3s  NOPM %s\n' "$round" "$vu" "$which" "$nopm"
    done
  done
done
"$work/new" check --db "$url" | tail -n 1

python3 - "$results" <<'PY'
import sys, collections
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
by = collections.defaultdict(list)
print(f"\n{'round':>5} {'VU':>3} {'routines':8} {'NOPM':>8} {'server CPU s':>12} {'server tx':>10} {'server µs/tx':>12}")
for rnd, vu, which, nopm, cpu, tx in rows:
    nopm = int(nopm.split()[0]); cpu = float(cpu); tx = int(tx)
    us = 1e6 * cpu / tx
    by[(vu, which)].append((nopm, us))
    print(f"{rnd:>5} {vu:>3} {which:8} {nopm:8d} {cpu:12.1f} {tx:10d} {us:12.1f}")
print()
for vu in dict.fromkeys(r[1] for r in rows):
    o, n = by[(vu, "old")], by[(vu, "new")]
    mean = lambda xs: sum(xs) / len(xs)
    nr = [b[0] / a[0] for a, b in zip(o, n)]
    ur = [b[1] / a[1] for a, b in zip(o, n)]
    print(f"{vu:>3} VU: NOPM old {mean([x[0] for x in o]):,.0f} new {mean([x[0] for x in n]):,.0f}  new/old {mean(nr):.3f} (pairs {', '.join(f'{x:.3f}' for x in nr)});"
          f"  server µs/tx old {mean([x[1] for x in o]):.0f} new {mean([x[1] for x in n]):.0f}  new/old {mean(ur):.3f}")
PY
