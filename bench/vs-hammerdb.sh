#!/usr/bin/env bash
# Sledge against HammerDB 6, side by side on one durable PostgreSQL sandbox
# (fsync, full_page_writes and synchronous_commit on, shared_buffers 2 GB), so
# that both see the same machine in the same minutes: on a shared machine the
# absolute figures move from day to day, only the ratios within one
# invocation count.
#
#   HAMMERDB=/tmp/hammerdb-6.0 bench/vs-hammerdb.sh          # VUS="1 4 8" ROUNDS=2 RAMPUP=30 DURATION=90
#   HAMMERDB=/tmp/hammerdb-6.0 VUS=2 ROUNDS=1 RAMPUP=6 DURATION=24 bench/vs-hammerdb.sh
#
# HammerDB builds its W-warehouse schema in its own database (user and
# database "tpcc", as its buildschema makes them, with its stored procedures),
# Sledge builds its own in the sandbox's database "sledge". Then for each VU
# count in VUS, ROUNDS rounds each run HammerDB and Sledge once, the order
# alternating from round to round, with the same ramp-up and measured window:
#
#   HammerDB: the timed driver, pg_storedprocs true, "vuset vu N" as its own
#             example scripts do: N working VUs plus the monitor VU that the
#             timed driver adds (it only counts, at the window's two ends).
#             Everything else is HammerDB's default: keying and thinking off
#             (pg_keyandthink false), pg_allwarehouse false, pg_timeprofile
#             false, pg_vacuum false, pg_total_iterations 10000000.
#   Sledge:   sledge run --mode procs --vu N --rampup RAMPUP --duration
#             DURATION, --metrics SLEDGE_METRICS (default on, as users run it).
#
# Per run it prints NOPM (HammerDB's "TEST RESULT : System achieved N NOPM"
# line, Sledge's result) and the server's CPU per New-Order: user+system of
# the postmaster and all its children, read from /proc before and after the
# whole run (ramp-up included), divided by the change of sum(d_next_o_id) in
# that tool's database over the same span. Both tools run the same mix, so
# this compares the server work each drives per unit of throughput without
# counting Sledge's observer queries as transactions. Then, per VU count, the
# median NOPM of each tool and the ratio Sledge ÷ HammerDB.
#
# HammerDB's monitor counts in 6-second steps until it reaches the asked
# time exactly (in minutes, as a float), so RAMPUP and DURATION must be
# multiples of 6 seconds that it can reach; the script refuses the others.
# Its CLI's vurun keeps the main thread waiting only for whole minutes
# ("Cannot detect rampup and duration times, keepalive for main thread not
# active" otherwise, and the monitor is cut off), so the run script waits
# after vurun with HammerDB's own _waittocomplete, which returns at once
# when vurun already waited.
#
# Getting HammerDB (GPL: never copy any of it into this repository):
#   a release tarball unpacked anywhere (it runs its bundled bin/tclsh9.0), or
#   its source tree at tag v6.0:
#     git clone --depth 1 --branch v6.0 https://github.com/TPC-Council/HammerDB /tmp/hammerdb-6.0
#   The source tree is written for Tcl 9; this script runs it on Debian 12's
#   Tcl 8.6 through a small launcher of its own (a stand-in for Tcl 9's
#   zipfs, an empty ticklecharts package, which only draws job charts), with
#   the Tcl packages from Debian:
#     apt-get install -y tcl tcl-thread tcllib libsqlite3-tcl tcl8.6-dev libpq-dev
#   (tcllib's huddle 0.4 is taken over HammerDB's own, which requires Tcl 9)
#   and the Pgtcl-ng binding HammerDB ships in its releases, built from the
#   source its author publishes, PGTCLNG naming the build directory:
#     git clone --depth 1 https://github.com/sm-shaw/pgtclng /tmp/pgtclng && cd /tmp/pgtclng &&
#     ./configure --with-tcl=/usr/lib/tcl8.6 --with-tclinclude=/usr/include/tcl8.6 \
#       --with-postgres-include=/usr/include/postgresql && make PKG_CFLAGS=-DTcl_Size=int
#   Debian's libpgtcl (Pgtcl 2.7) does not do: it lacks commands HammerDB
#   calls (pg_notice_handler, pg_exec_prepared's formats), and with them
#   adapted its loading threads garbled each other's statements and a timed
#   run with two VUs crashed the process.
set -euo pipefail
cd "$(dirname "$0")/.."

W=${W:-4}
VUS=${VUS:-1 4 8}
ROUNDS=${ROUNDS:-2}
RAMPUP=${RAMPUP:-30}
DURATION=${DURATION:-90}
SLEDGE_METRICS=${SLEDGE_METRICS:-on}
HAMMERDB=${HAMMERDB:-}
PGTCLNG=${PGTCLNG:-}

how_to_get() {
  sed -n '/^# Getting HammerDB/,/^# *run with two VUs/p' "$0" | sed 's/^# \{0,1\}//' >&2
}
if [ -z "$HAMMERDB" ] || [ ! -f "$HAMMERDB/hammerdbcli" ]; then
  echo "HAMMERDB must name HammerDB 6's directory (the one holding hammerdbcli)." >&2
  how_to_get
  exit 2
fi
HAMMERDB=$(cd "$HAMMERDB" && pwd)

# RAMPUP and DURATION in whole seconds, multiples of 6 that HammerDB's
# monitor reaches exactly (its loop: t += 6000 ms until t == minutes*60000).
minutes() {
  python3 - "$1" "$2" <<'PY'
import sys
name, s = sys.argv[1], sys.argv[2]
if not s.isdigit() or int(s) % 6:
    sys.exit(f"{name}={s}: must be a whole number of seconds, a multiple of 6 (HammerDB's monitor counts in 6 s steps)")
m = "%.10g" % (int(s) / 60)
if float(m) * 60000 != int(s) * 1000:
    sys.exit(f"{name}={s}: HammerDB would never reach {m} minutes exactly ({m}*60000 = {float(m) * 60000!r}); take another multiple of 6")
print(m)
PY
}
rampup_min=$(minutes RAMPUP "$RAMPUP")
duration_min=$(minutes DURATION "$DURATION")
[ "$DURATION" -gt 0 ] || { echo "DURATION must be above 0" >&2; exit 2; }

# How to start HammerDB's CLI: its own Tcl 9 (a release), else Tcl 8.6 with
# the launcher below (a source tree).
if [ -x "$HAMMERDB/bin/tclsh9.0" ]; then
  hdb_mode=release
else
  hdb_mode=tcl86
  TCLSH=${TCLSH:-$(command -v tclsh8.6 || command -v tclsh || true)}
  # shellcheck disable=SC2016 # Tcl's $p, not the shell's
  if [ -z "$TCLSH" ] || ! "$TCLSH" <<<'foreach p {Thread sqlite3 huddle} {package require $p}' >/dev/null 2>&1; then
    echo "HammerDB's source tree needs tclsh 8.6 with the Thread, sqlite3 and huddle packages:" >&2
    how_to_get
    exit 2
  fi
  if [ -z "$PGTCLNG" ] || ! compgen -G "$PGTCLNG/libpgtcl*.so" >/dev/null || [ ! -f "$PGTCLNG/pkgIndex.tcl" ]; then
    echo "PGTCLNG must name a Pgtcl-ng build directory (libpgtcl*.so and pkgIndex.tcl) for HammerDB's source tree:" >&2
    how_to_get
    exit 2
  fi
  PGTCLNG=$(cd "$PGTCLNG" && pwd)
fi

work=$(mktemp -d /tmp/sledge-vs-hammerdb.XXXXXX)
chmod 755 "$work"
mkdir "$work/hdbtmp"
sledge="$work/sledge"
export SLEDGE_HOME="$work/home"
go build -o "$sledge" ./cmd/sledge
cleanup() {
  "$sledge" sandbox postgres --dir "$work/pg" --stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# The launcher for Tcl 8.6: what HammerDB 6 takes from Tcl 9 and does not
# need here, then its CLI as it is, from its own directory.
cat >"$work/hdb-tcl86.tcl" <<'TCL'
if {[info commands ::zipfs] eq ""} {
  # Not a zip-mounted executable: no mounts, and a root under which nothing exists.
  proc ::zipfs {sub args} {
    switch -- $sub {
      root {return "//zipfs:/"}
      mount {return {}}
      default {error "zipfs $sub: not in Tcl [info patchlevel]"}
    }
  }
}
if {[package versions ticklecharts] eq ""} {
  package ifneeded ticklecharts 0 {namespace eval ::ticklecharts {}; package provide ticklecharts 0}
}
set hdb [lindex $argv 0]
set argv [lrange $argv 1 end]
set argc [llength $argv]
cd $hdb
source [file join $hdb hammerdbcli]
TCL

# Pgtcl-ng in place of any other Pgtcl (Debian's 2.7 has the higher
# version): an index first on the Tcl path (TCLLIBPATH, which every VU's
# thread reads too) is read last, forgets the others and names it.
if [ "$hdb_mode" = tcl86 ]; then
  mkdir -p "$work/tcl/pgtclng"
  cat >"$work/tcl/pgtclng/pkgIndex.tcl" <<TCL
package forget Pgtcl
set dir {$PGTCLNG}
source {$PGTCLNG/pkgIndex.tcl}
TCL
  export TCLLIBPATH="$work/tcl"
  # shellcheck disable=SC2016 # Tcl's $v
  TCLLIBPATH="$work/tcl" "$TCLSH" <<<'set v [package require Pgtcl]; if {[info commands pg_notice_handler] eq ""} {puts stderr "Pgtcl $v is not Pgtcl-ng"; exit 1}' ||
    { echo "PGTCLNG=$PGTCLNG does not load as Pgtcl-ng" >&2; exit 2; }
fi

# hammerdb SCRIPT runs a HammerDB CLI script (an absolute *.tcl path), its
# jobs and settings databases kept in the work directory.
hammerdb() {
  if [ "$hdb_mode" = release ]; then
    (cd "$HAMMERDB" && TMP="$work/hdbtmp" ./hammerdbcli auto "$1")
  else
    TMP="$work/hdbtmp" "$TCLSH" "$work/hdb-tcl86.tcl" "$HAMMERDB" auto "$1"
  fi
}

echo "== durable sandbox ($W warehouses for each tool)"
url=$("$sledge" sandbox postgres --dir "$work/pg")
# shellcheck disable=SC2012 # PostgreSQL's version directories are plain numbers
psql_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)/psql
[ -x "$psql_bin" ] || psql_bin=$(command -v psql)
# postgresql.auto.conf comes after the sandbox's own settings: a restart
# makes the server durable.
"$psql_bin" -q "$url" -c "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET synchronous_commit = on" \
  -c "ALTER SYSTEM SET full_page_writes = on" -c "ALTER SYSTEM SET shared_buffers = '2GB'"
"$sledge" sandbox postgres --dir "$work/pg" --stop >/dev/null
url=$("$sledge" sandbox postgres --dir "$work/pg")
"$psql_bin" -qAt "$url" -c "SELECT 'PostgreSQL ' || current_setting('server_version') || ', fsync ' || current_setting('fsync') || ', synchronous_commit ' || current_setting('synchronous_commit') || ', shared_buffers ' || current_setting('shared_buffers')"
postmaster=$(head -n 1 "$(find "$work/pg" -name postmaster.pid | head -n 1)")

# The sandbox's address and superuser, for HammerDB's settings.
read -r pg_host pg_port pg_su pg_supass pg_sudb < <(python3 - "$url" <<'PY'
import sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
print(u.hostname or "127.0.0.1", u.port or 5432, u.username or "postgres", u.password or "unused", u.path.lstrip("/") or "postgres")
PY
)
hdb_url=$(python3 - "$url" <<'PY'
import sys, urllib.parse
u = urllib.parse.urlparse(sys.argv[1])
print(urllib.parse.urlunparse(u._replace(netloc=f"tpcc:tpcc@{u.hostname}:{u.port or 5432}", path="/tpcc")))
PY
)

hdb_settings() {
  cat <<TCL
dbset db pg
dbset bm TPROC-C
diset connection pg_host $pg_host
diset connection pg_port $pg_port
diset connection pg_sslmode disable
diset tpcc pg_superuser $pg_su
diset tpcc pg_superuserpass $pg_supass
diset tpcc pg_defaultdbase $pg_sudb
diset tpcc pg_user tpcc
diset tpcc pg_pass tpcc
diset tpcc pg_dbase tpcc
diset tpcc pg_storedprocs true
TCL
}

echo "== HammerDB ($hdb_mode) builds $W warehouses in database tpcc"
{
  hdb_settings
  echo "diset tpcc pg_count_ware $W"
  echo "diset tpcc pg_num_vu $(( W < 2 ? W : 2 ))"
  echo "buildschema"
} >"$work/hdb-build.tcl"
hammerdb "$work/hdb-build.tcl" >"$work/hdb-build.log" 2>&1 || { tail -n 40 "$work/hdb-build.log"; exit 1; }
built=$("$psql_bin" -qAt "$hdb_url" -c "SELECT (SELECT count(*) FROM warehouse) || ' ' || (SELECT count(*) FROM pg_proc WHERE prokind = 'p' AND proname IN ('neword','payment','delivery','ostat','slev'))" 2>&1) || built="none"
if [ "$built" != "$W 5" ]; then
  echo "HammerDB's build did not make $W warehouses and its 5 procedures (found: $built); its log ends:" >&2
  tail -n 40 "$work/hdb-build.log" >&2
  exit 1
fi
grep -E "TPCC SCHEMA COMPLETE|Schema Build jobid|ALL VIRTUAL USERS COMPLETE" "$work/hdb-build.log" | tail -n 1 || true

echo "== Sledge builds $W warehouses in database $pg_sudb"
"$sledge" build --db "$url" --warehouses "$W" --workers 2 | tail -n 1

# server_ticks prints the CPU clock ticks (user+system) of the postmaster and
# all its children so far: the live ones' own, and the exited ones' (a run's
# sessions end with it) in the postmaster's cutime and cstime.
server_ticks() {
  local total=0 pid stat rest f
  for stat in /proc/[0-9]*/stat; do
    pid=${stat#/proc/}; pid=${pid%/stat}
    rest=$(cat "$stat" 2>/dev/null) || continue
    rest=${rest##*) }            # fields after the command name
    read -r -a f <<<"$rest"       # f[0] state, f[1] ppid, … f[11] utime, f[12] stime, f[13] cutime, f[14] cstime
    if [ "$pid" = "$postmaster" ]; then
      total=$((total + f[11] + f[12] + f[13] + f[14]))
    elif [ "${f[1]}" = "$postmaster" ]; then
      total=$((total + f[11] + f[12]))
    fi
  done
  echo "$total"
}
new_orders() { "$psql_bin" -qAt "$1" -c "SELECT sum(d_next_o_id) FROM district"; }

run_hammerdb() { # VUs → prints NOPM
  {
    hdb_settings
    cat <<TCL
diset tpcc pg_driver timed
diset tpcc pg_rampup $rampup_min
diset tpcc pg_duration $duration_min
loadscript
vuset vu $1
vucreate
vurun
_waittocomplete
vudestroy
TCL
  } >"$work/hdb-run.tcl"
  hammerdb "$work/hdb-run.tcl" >"$work/hdb-run.log" 2>&1 || { tail -n 40 "$work/hdb-run.log" >&2; return 1; }
  # With pg_raiseerror false (its default) a VU that hits an error prints a
  # line and goes on: say so, the NOPM is kept.
  errors=$(grep -c -E "Procedure Error|Error in Virtual User|FINISHED FAILED" "$work/hdb-run.log" || true)
  [ "$errors" -eq 0 ] || echo "   HammerDB printed $errors error lines in this run, e.g.: $(grep -m 1 -E "Procedure Error|Error in Virtual User|FINISHED FAILED" "$work/hdb-run.log")" >&2
  sed -n 's/.*TEST RESULT : System achieved \([0-9.]*\) NOPM from \([0-9.]*\) PostgreSQL TPM.*/\1/p' "$work/hdb-run.log" | tail -n 1 | grep . ||
    { echo "no TEST RESULT line from HammerDB; its log ends:" >&2; tail -n 40 "$work/hdb-run.log" >&2; return 1; }
}

run_sledge() { # VUs → prints NOPM
  "$sledge" run --db "$url" --mode procs --vu "$1" --rampup "${RAMPUP}s" --duration "${DURATION}s" \
    --metrics "$SLEDGE_METRICS" --format json >"$work/sledge-run.json" 2>"$work/sledge-run.log" ||
    { tail -n 40 "$work/sledge-run.log" >&2; return 1; }
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["result"]["nopm"])' "$work/sledge-run.json"
}

echo "== runs: VUS=\"$VUS\" ROUNDS=$ROUNDS RAMPUP=${RAMPUP}s DURATION=${DURATION}s (Sledge --metrics $SLEDGE_METRICS)"
printf '%6s %5s %-8s %10s %14s\n' round VUs tool NOPM "srv µs/NO"
: >"$work/runs.tsv"
tck=$(getconf CLK_TCK)
for vu in $VUS; do
  for round in $(seq 1 "$ROUNDS"); do
    order="hammerdb sledge"; [ $((round % 2)) -eq 0 ] && order="sledge hammerdb"
    for tool in $order; do
      if [ "$tool" = hammerdb ]; then db=$hdb_url; else db=$url; fi
      no_before=$(new_orders "$db")
      ticks_before=$(server_ticks)
      nopm=$("run_$tool" "$vu")
      ticks=$(( $(server_ticks) - ticks_before ))
      no=$(( $(new_orders "$db") - no_before ))
      us=$(python3 -c 'import sys; t, k, n = map(float, sys.argv[1:]); print(f"{1e6 * t / k / n:.0f}" if n else "-")' "$ticks" "$tck" "$no")
      printf '%6s %5s %-8s %10.0f %14s\n' "$round" "$vu" "$tool" "$nopm" "$us"
      printf '%s\t%s\t%s\t%s\t%s\n' "$vu" "$round" "$tool" "$nopm" "$us" >>"$work/runs.tsv"
    done
  done
done

python3 - "$work/runs.tsv" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
vus = list(dict.fromkeys(int(r[0]) for r in rows))
def med(vu, tool, col):
    xs = [float(r[col]) for r in rows if int(r[0]) == vu and r[2] == tool and r[col] != "-"]
    return statistics.median(xs) if xs else float("nan")
print()
print(f"{'VUs':>4} {'HammerDB NOPM':>14} {'Sledge NOPM':>12} {'Sledge ÷ HammerDB':>18} {'srv µs/NO H':>12} {'S':>6}")
for vu in vus:
    h, s = med(vu, "hammerdb", 3), med(vu, "sledge", 3)
    print(f"{vu:4d} {h:14.0f} {s:12.0f} {s / h:18.2f} {med(vu, 'hammerdb', 4):12.0f} {med(vu, 'sledge', 4):6.0f}")
print("(medians over the rounds; srv µs/NO: server CPU per New-Order over the whole run)")
PY
