#!/usr/bin/env bash
# Browser tests: a fresh server on a free port with its own SQLite database, then node's test
# runner driving Debian's chromium through playwright-core. Run from the repository root.
set -euo pipefail
cd "$(dirname "$0")/../.."

TMP=$(mktemp -d)
PORT=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export DATABASE_URL="sqlite+aiosqlite:///$TMP/e2e.db"
export PERILSCOPE_ENV=test
export PERILSCOPE_BASE_URL="http://127.0.0.1:$PORT"
export PERILSCOPE_LOG_LEVEL=WARNING
export BASE_URL="$PERILSCOPE_BASE_URL"
export E2E_SCREENSHOTS="$PWD/web/e2e/screenshots"
mkdir -p "$E2E_SCREENSHOTS"

.venv/bin/perilscope db upgrade >/dev/null
.venv/bin/perilscope data load >/dev/null
.venv/bin/perilscope serve --host 127.0.0.1 --port "$PORT" >"$TMP/server.log" 2>&1 &
SERVER=$!
cleanup() { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; rm -rf "$TMP"; }
trap cleanup EXIT

for _ in $(seq 1 120); do
  curl -fs "$BASE_URL/ready" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -fs "$BASE_URL/ready" >/dev/null || { echo "server did not start"; cat "$TMP/server.log"; exit 1; }

status=0
node --test --test-concurrency=1 --test-reporter=spec web/e2e/*.test.mjs || status=$?
if [ "$status" -ne 0 ]; then echo "--- server log"; tail -n 80 "$TMP/server.log"; fi
exit "$status"
