#!/usr/bin/env bash
# TPROC-H at one scale factor on DuckDB (embedded), a PostgreSQL sandbox and a
# MariaDB sandbox: generation rate, load time per engine, and the power test
# with the validation parameters (answers checked at SF 1).
#
#   bench/tproch.sh                    # defaults: SF=1 WORKERS=2 ENGINES="duckdb postgres mariadb"
#   SF=10 ENGINES=duckdb bench/tproch.sh
set -euo pipefail
cd "$(dirname "$0")/.."

SF=${SF:-1}
WORKERS=${WORKERS:-2}
ENGINES=${ENGINES:-duckdb postgres mariadb}

work=$(mktemp -d /tmp/sledge-tproch.XXXXXX)
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

echo "== generation: SF $SF to flat files, $WORKERS workers"
"$sledge" datagen --workload tproch --scale "$SF" --workers "$WORKERS" --out "$work/data"
rm -rf "$work/data"

validate=""
[ "$SF" = 1 ] && validate=--validate
for e in $ENGINES; do
  case $e in
    duckdb) url="duckdb:$work/tproch.duckdb" ;;
    postgres) url=$("$sledge" sandbox postgres --dir "$work/pg" 2>/dev/null) ;;
    mariadb) url=$("$sledge" sandbox mariadb --dir "$work/mariadb" 2>/dev/null) ;;
    *) echo "unknown engine $e" >&2; exit 2 ;;
  esac
  echo "== $e: build SF $SF"
  "$sledge" build --workload tproch --scale "$SF" --workers "$WORKERS" --db "$url" 2>/dev/null | tail -n 1
  echo "== $e: power test $validate"
  "$sledge" run --workload tproch $validate --db "$url" | sed -n '/^  query/,$p'
done
