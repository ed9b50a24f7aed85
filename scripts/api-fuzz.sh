#!/usr/bin/env bash
# Property-based pass over the HTTP API from its OpenAPI document with
# schemathesis (PyPI): every operation is called with generated valid and
# invalid inputs; the run fails on any 5xx, on answers that do not match the
# document, and on other schemathesis checks listed below.
#
#   scripts/api-fuzz.sh              # EXAMPLES=50
#
# POST operations are excluded: every valid POST /api/jobs body would start a
# real benchmark. Their validation and errors are covered by
# internal/server's tests. State-changing requests (DELETE) carry
# Content-Type: application/json, as the server requires of them.
set -euo pipefail
cd "$(dirname "$0")/.."
EXAMPLES=${EXAMPLES:-50}
work=$(mktemp -d /tmp/sledge-fuzz.XXXXXX)
trap 'kill $srv 2>/dev/null || true; rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q schemathesis
go build -o "$work/sledge" ./cmd/sledge
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export SLEDGE_HOME="$work/home"
"$work/sledge" serve --listen "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
srv=$!
for _ in $(seq 50); do curl -fs "http://127.0.0.1:$port/api/openapi.json" >/dev/null && break; sleep 0.2; done
# A finished job, so that the {id} endpoints have something to find.
"$work/sledge" build --warehouses 1 >/dev/null
cd "$work" # schemathesis keeps its state in ./.schemathesis
"$work/venv/bin/schemathesis" run "http://127.0.0.1:$port/api/openapi.json" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --header "Content-Type: application/json" \
  --exclude-method POST --max-examples "$EXAMPLES"
