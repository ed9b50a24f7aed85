#!/usr/bin/env bash
# Sledge's build time against the bulk-load limit: the same data, written to
# files beforehand (outside the timing), loaded with the server's own
# COPY ... FROM 'file' (PostgreSQL) / LOAD DATA INFILE (MariaDB) in WORKERS
# parallel sessions, then the same keys and indexes (WORKERS tables at a
# time, biggest first) and the same statistics pass (VACUUM (FREEZE,
# ANALYZE) / ANALYZE TABLE) that "sledge build" runs. Prints both times and
# their ratio (Sledge ÷ limit; ≤ 1.00 means at the limit) for TPROC-C at each
# of WAREHOUSES and TPROC-H at SF, on private sandboxes.
#
#   bench/build-limit.sh                       # WAREHOUSES=4 SF=1 WORKERS=2 ENGINES="postgres mariadb"
#   WAREHOUSES="4 40" bench/build-limit.sh     # with the 40-warehouse build (about 4 GB of files)
#   SF= WAREHOUSES=4 ENGINES=postgres bench/build-limit.sh   # TPROC-C only
#   BASELINE=main bench/build-limit.sh         # also time the build of another revision against the same limit
set -euo pipefail
cd "$(dirname "$0")/.."

WAREHOUSES=${WAREHOUSES-4}
SF=${SF-1}
WORKERS=${WORKERS:-2}
ENGINES=${ENGINES:-postgres mariadb}
BASELINE=${BASELINE:-}

work=$(mktemp -d /tmp/sledge-buildlimit.XXXXXX)
chmod 755 "$work" # the servers read the files (a sandbox may run as another user)
sledge="$work/sledge"
export SLEDGE_HOME="$work/home"
head_label="Sledge $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo +changes)"
go build -o "$sledge" ./cmd/sledge
if [ -n "$BASELINE" ]; then
  mkdir "$work/baseline-src"
  git archive "$BASELINE" | tar -x -C "$work/baseline-src"
  (cd "$work/baseline-src" && go build -o "$work/sledge-baseline" ./cmd/sledge)
  base_label="Sledge $(git rev-parse --short "$BASELINE")"
fi
cleanup() {
  "$sledge" sandbox postgres --dir "$work/pg" --stop >/dev/null 2>&1 || true
  "$sledge" sandbox mariadb --dir "$work/mariadb" --stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# sql_pg DB [psql args...] / sql_my DB [mariadb args...] run SQL in database DB,
# with the session settings of Sledge's loading sessions (db.Options.Bulk). Two
# LOAD DATA into one table can wait on each other's locks past InnoDB's 50 s
# on a busy machine, where Sledge would load the part again: the limit waits.
sql_pg() { local d=$1; shift; PGOPTIONS='-c client_min_messages=warning -c synchronous_commit=off' psql -X -q -v ON_ERROR_STOP=1 "${pg_base}/$d?sslmode=disable" "$@" >/dev/null; }
sql_my() { local d=$1; shift; mariadb --protocol=tcp -h 127.0.0.1 -P "$my_port" -u root \
  --init-command="SET SESSION sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES'), unique_checks = 0, foreign_key_checks = 0, innodb_lock_wait_timeout = 86400" \
  "$d" "$@" >/dev/null; }
export -f sql_pg sql_my

# fresh DB: an empty database of that name.
fresh() {
  case $engine in
    postgres) sql_pg postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" ;;
    mariadb) sql_my mysql -e "DROP DATABASE IF EXISTS $1; CREATE DATABASE $1" ;;
  esac
}

# statements FILE: one line per SQL statement of FILE (comments dropped).
statements() {
  awk '/^[ \t]*--/ { next } { s = s (s == "" ? "" : " ") $0 } /;[ \t]*$/ { print s; s = "" }' "$1"
}

# limit WL DIALECTDIR DATADIR: the bulk-load limit in seconds, into $limit_s.
limit() {
  local wl=$1 sqldir=$2 data=$3 db=sledge_limit
  fresh $db
  local schema=$sqldir/schema.sql
  [ -f "$schema" ] || schema=$(dirname "$sqldir")/schema.sql
  # Per table: its keys and indexes, in file order, one script each.
  rm -rf "$work/idx" && mkdir "$work/idx"
  if [ -f "$sqldir/indexes.sql" ]; then
    statements "$sqldir/indexes.sql" | while IFS= read -r s; do
      t=$(sed -nE 's/.*(ALTER TABLE|[Oo][Nn]) +([a-z_]+)[ (].*/\2/p' <<<"$s")
      echo "$s" >>"$work/idx/$t.sql"
    done
  fi
  local tables
  tables=$(for f in "$data"/*.tsv*; do b=${f##*/}; echo "${b%%.tsv*}"; done | sort -u)
  # Tables by data size, biggest first: the parallel steps take them in this order.
  local order
  order=$(for t in $tables; do echo "$(cat "$data/$t".tsv* | wc -c) $t"; done | sort -rn | awk '{ print $2 }')
  local files
  files=$(ls -S "$data"/*.tsv*)
  local t0 t1 t2 t3
  t0=$(now)
  case $engine in
    postgres)
      sql_pg $db -f "$schema"
      echo "$files" | xargs -P "$WORKERS" -I{} bash -c 'f={}; b=${f##*/}; sql_pg '$db' -c "COPY ${b%%.tsv*} FROM '"'"'$f'"'"'"'
      t1=$(now)
      for t in $order; do if [ -f "$work/idx/$t.sql" ]; then echo "$work/idx/$t.sql"; fi; done |
        xargs -r -P "$WORKERS" -I{} bash -c "sql_pg $db -f {}"
      t2=$(now)
      echo "$order" | xargs -P "$WORKERS" -I{} bash -c "sql_pg $db -c 'VACUUM (FREEZE, ANALYZE) {}'"
      ;;
    mariadb)
      sql_my $db <"$schema"
      echo "$files" | xargs -P "$WORKERS" -I{} bash -c 'f={}; b=${f##*/}; sql_my '$db' -e "LOAD DATA INFILE '"'"'$f'"'"' INTO TABLE ${b%%.tsv*}"'
      t1=$(now)
      for t in $order; do if [ -f "$work/idx/$t.sql" ]; then echo "$work/idx/$t.sql"; fi; done |
        xargs -r -P "$WORKERS" -I{} bash -c "sql_my $db <{}"
      t2=$(now)
      echo "$order" | xargs -P "$WORKERS" -I{} bash -c "sql_my $db -e 'ANALYZE TABLE {}'"
      ;;
  esac
  t3=$(now)
  limit_s=$(secs "$t0" "$t3")
  limit_detail="load $(secs "$t0" "$t1") s, keys $(secs "$t1" "$t2") s, statistics $(secs "$t2" "$t3") s"
  fresh $db
}

# build BIN ARGS...: a Sledge build into a fresh database, seconds into $build_s.
build() {
  local bin=$1 db=sledge_build; shift
  fresh $db
  local url
  case $engine in
    postgres) url="${pg_base}/$db?sslmode=disable" ;;
    mariadb) url="mysql://root@127.0.0.1:$my_port/$db" ;;
  esac
  local t0 t1 out
  t0=$(now)
  # Each binary its own data directory: revisions may differ in their jobs
  # repository's schema.
  out=$(SLEDGE_HOME="$work/home-${bin##*/}" "$bin" build --db "$url" --workers "$WORKERS" "$@" 2>"$work/build.err") || {
    echo "build failed: $bin build $*" >&2; tail -n 20 "$work/build.err" >&2; exit 1
  }
  t1=$(now)
  build_s=$(secs "$t0" "$t1")
  build_detail=$(grep -oE 'load [0-9.]+ ?s' <<<"$out" | head -n 1 || true)
  fresh $db
}

# compare LABEL DIALECTDIR DATADIR WL-ARGS...: one line per Sledge binary.
compare() {
  local label=$1 sqldir=$2 data=$3; shift 3
  limit "${sqldir%%/sql/*}" "$sqldir" "$data"
  printf '%-24s %-10s limit %7s s  (%s)\n' "$label" "$engine" "$limit_s" "$limit_detail"
  local bins=("$sledge") labels=("$head_label")
  if [ -n "$BASELINE" ]; then bins=("$work/sledge-baseline" "$sledge"); labels=("$base_label" "$head_label"); fi
  for i in "${!bins[@]}"; do
    build "${bins[$i]}" "$@"
    printf '%-24s %-10s %-22s %7s s  ratio %.2f\n' "$label" "$engine" "${labels[$i]}" "$build_s" \
      "$(awk -v a="$build_s" -v b="$limit_s" 'BEGIN { print a / b }')"
  done
}

# files WL-ARGS...: generate the data to $work/data as tab-separated files in
# COPY text form (\N for NULL), the form both servers load by default. The
# generators' text holds no tab, backslash, '|' or newline (checked).
files() {
  rm -rf "$work/data" "$work/pipe"
  "$sledge" datagen --out "$work/pipe" --workers "$WORKERS" "$@" >/dev/null
  mkdir "$work/data"
  for f in "$work/pipe"/*; do
    b=${f##*/}
    if grep -q $'[\t\\\\]' "$f"; then echo "$f holds a tab or backslash: cannot load it as COPY text" >&2; exit 1; fi
    sed -e 's/|$//' -e 's/^|/\\N|/' -e 's/||/|\\N|/g' -e 's/||/|\\N|/g' -e 's/|$/|\\N/' -e 'y/|/\t/' "$f" \
      >"$work/data/${b/.tbl/.tsv}"
    rm "$f"
  done
  chmod -R a+rX "$work/data"
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, WORKERS=$WORKERS; times in seconds, ratio = Sledge ÷ limit"
for engine in $ENGINES; do
  case $engine in
    postgres)
      url=$("$sledge" sandbox postgres --dir "$work/pg" 2>/dev/null)
      pg_base=${url%/*}
      dialect=postgres
      ;;
    mariadb)
      url=$("$sledge" sandbox mariadb --dir "$work/mariadb" 2>/dev/null)
      my_port=$(sed -E 's|.*:([0-9]+)/.*|\1|' <<<"$url")
      dialect=mysql
      ;;
    *) echo "unknown engine $engine" >&2; exit 2 ;;
  esac
  export pg_base my_port
  for w in $WAREHOUSES; do
    files --workload tprocc --warehouses "$w"
    compare "TPROC-C $w WH" "internal/workload/tprocc/sql/$dialect" "$work/data" --warehouses "$w"
  done
  if [ -n "$SF" ]; then
    files --workload tproch --scale "$SF"
    compare "TPROC-H SF $SF" "internal/workload/tproch/sql/$dialect" "$work/data" --workload tproch --scale "$SF"
  fi
  rm -rf "$work/data"
  "$sledge" sandbox "$engine" --dir "$work/$([ "$engine" = postgres ] && echo pg || echo mariadb)" --stop >/dev/null 2>&1 || true
done
