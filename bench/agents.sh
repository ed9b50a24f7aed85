#!/usr/bin/env bash
# One agent against three: the same TPROC-C run (same total VUs, same
# window) driven by one sledge process and by three agents (--segment i/3,
# one --run-id) on this machine, against a private PostgreSQL sandbox, with
# the jobs repository in a second PostgreSQL database of the sandbox (as a
# team would share it). Prints each job's NOPM and the agents' client CPU.
#
#   bench/agents.sh                      # defaults: W=6 VU=6 DURATION=30
#   W=12 VU=12 DURATION=60 bench/agents.sh
#
# On one machine the split should cost nothing: the NOPM of the two jobs
# should agree within the run-to-run noise (run it twice to see that noise).
set -euo pipefail
cd "$(dirname "$0")/.."

W=${W:-6}
VU=${VU:-6}
DURATION=${DURATION:-30}
RAMPUP=${RAMPUP:-5}

work=$(mktemp -d /tmp/sledge-agents.XXXXXX)
chmod 755 "$work"
sledge="$work/sledge"
export SLEDGE_HOME="$work/home"
go build -o "$sledge" ./cmd/sledge
cleanup() {
  "$sledge" sandbox postgres --dir "$work/pg" --stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== sandbox, shared repository and build ($W warehouses)"
url=$("$sledge" sandbox postgres --dir "$work/pg")
# The sandbox's URL names its database; the repository is another one on
# the same server.
repo=$(python3 - "$url" <<'PY'
import sys, urllib.parse as u
p = u.urlsplit(sys.argv[1])
print(u.urlunsplit(p._replace(path="/sledge_jobs")))
PY
)
psql "$url" -qc "CREATE DATABASE sledge_jobs" >/dev/null
export SLEDGE_REPO="$repo"
"$sledge" build --db "$url" --warehouses "$W" --workers 2 | tail -n 1

common=(--db "$url" --mode procs --vu "$VU" --rampup "${RAMPUP}s" --duration "${DURATION}s")
one() {
  echo "== one process: $VU VUs"
  "$sledge" run "${common[@]}" >>"$work/one.log" 2>&1
}
three() {
  echo "== three agents: $VU VUs split --segment 0/3, 1/3, 2/3 (run id $1)"
  for i in 0 1 2; do
    "$sledge" run "${common[@]}" --segment "$i/3" --run-id "$1" >>"$work/agent-$i.log" 2>&1 &
  done
  wait
}
# A B B A: the database grows as runs go on, so each kind runs once early
# and once late.
one; three bench-a; three bench-b; one

"$sledge" jobs --kind run --format json >"$work/jobs.json"
python3 - "$work" "$sledge" <<'PY'
import json, subprocess, sys
work, sledge = sys.argv[1], sys.argv[2]
runs = sorted(json.load(open(f"{work}/jobs.json")), key=lambda j: j["id"])[-4:]
def show(j, section):
    return json.loads(subprocess.check_output([sledge, "jobs", "show", str(j["id"]), section, "--format", "json"]))
print()
print(f"{'job':>5} {'agents':>6} {'NOPM':>9} {'TPM':>10} {'client µs/tx':>13} {'status':>10}")
nopm = {1: [], 3: []}
for j in runs:
    r, agents = show(j, "result"), show(j, "agents")
    n = max(1, len(agents))
    nopm[n].append(r["nopm"])
    print(f"{j['id']:>5} {n:>6} {r['nopm']:>9.0f} {r['tpm']:>10.0f} {r['client_cpu_per_tx_us']:>13.1f} {r['status']:>10}")
    for a in agents:
        print(f"      segment {a['segment']:>4}: {a['vus']} VUs, NOPM {a['nopm']:.0f}, client CPU {a['client_cpu_s']:.2f} s = {a['client_cpu_per_tx_us']:.1f} µs/tx, clock offset {a['clock_offset_ms']:.2f} ms")
one, three = sum(nopm[1]) / len(nopm[1]), sum(nopm[3]) / len(nopm[3])
spread = max(nopm[1]) / min(nopm[1])
print(f"\nmean NOPM: one process {one:.0f}, three agents {three:.0f}: ratio {three / one:.3f} (the two one-process runs differ by {100 * (spread - 1):.1f} %)")
PY
