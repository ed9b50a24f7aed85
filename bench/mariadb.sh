#!/usr/bin/env bash
# TPROC-C on MariaDB: build time and load rate for W warehouses, then NOPM and
# TPM in each execution mode, on a private MariaDB sandbox.
#
#   bench/mariadb.sh                         # defaults: W=4 WORKERS=2 VU=4 DURATION=30
#   W=8 VU=16 DURATION=60 bench/mariadb.sh
set -euo pipefail
cd "$(dirname "$0")/.."

W=${W:-4}
WORKERS=${WORKERS:-2}
VU=${VU:-4}
DURATION=${DURATION:-30}

work=$(mktemp -d /tmp/sledge-mariadb.XXXXXX)
chmod 755 "$work"
sledge="$work/sledge"
export SLEDGE_HOME="$work/home"
go build -o "$sledge" ./cmd/sledge
cleanup() {
  "$sledge" sandbox mariadb --dir "$work/mariadb" --stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

url=$("$sledge" sandbox mariadb --dir "$work/mariadb")
echo "== build: $W warehouses, $WORKERS workers"
"$sledge" build --db "$url" --warehouses "$W" --workers "$WORKERS" | tail -n 1

for mode in procs sql; do
  echo "== run: $VU VUs, ${DURATION}s, --mode $mode"
  "$sledge" run --db "$url" --mode "$mode" --vu "$VU" --rampup 5s --duration "${DURATION}s" \
    | grep -E '^  (database|NOPM|TPM|client CPU)'
done
