#!/usr/bin/env bash
# Browser tests: a fresh server on a free port with its own SQLite database, then node's test
# runner driving Debian's chromium through playwright-core. Called by `make test-e2e`; runs from
# the repository root whatever the current directory; arguments, if any, are the test files to run. Needs web/dist built and /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/../.."

TMP=$(mktemp -d)
SERVER=
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() { echo "e2e: $1" >&2; [ -f "$TMP/server.log" ] && { echo "--- server log" >&2; cat "$TMP/server.log" >&2; }; exit 1; }

[ -x .venv/bin/perilscope ] || fail ".venv/bin/perilscope is missing: run 'make install'"
[ -f web/dist/index.html ] || fail "web/dist is missing: run 'cd web && npm run build'"
[ -x "${CHROME_PATH:-/usr/bin/chromium}" ] || fail "chromium is missing: run 'make browser'"

PORT=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
export DATABASE_URL="sqlite+aiosqlite:///$TMP/e2e.db"
export PERILSCOPE_ENV=test
# Every browser test signs up from 127.0.0.1; the per-address sign-up throttle has its own tests.
export PERILSCOPE_SIGNUPS_PER_ADDRESS_PER_HOUR=1000
export PERILSCOPE_BASE_URL="http://127.0.0.1:$PORT"
export PERILSCOPE_LOG_LEVEL="${PERILSCOPE_LOG_LEVEL:-WARNING}"
# The reference data loads in the background from the server's start (about 10 s on 2 busy cores),
# not in the first lookup of the first test (whose 15 s wait it used to take most of).
export PERILSCOPE_WARM_REFERENCE_DATA=true
# Room for the batches of the browser tests (regular users' default is 10,000 rows a month).
export PERILSCOPE_MONTHLY_BATCH_ROW_LIMIT=1000000
# tracts.test.mjs imports a building and waits for the server to read it: checked every 0.2 s, not 30.
export PERILSCOPE_REFERENCE_RECHECK_SECONDS=0.2
# Chunks of 1,000 rows (5,000 by default): a batch of a few thousand rows runs in several chunks, so
# the tests that watch a job's progress and figures need seconds of work, not 100,000 rows.
export PERILSCOPE_BATCH_CHUNK_ROWS=1000
export BASE_URL="$PERILSCOPE_BASE_URL"
export E2E_SCREENSHOTS="$PWD/web/e2e/screenshots"
mkdir -p "$E2E_SCREENSHOTS"

.venv/bin/perilscope db upgrade >"$TMP/setup.log" 2>&1 || { cat "$TMP/setup.log" >&2; fail "db upgrade failed"; }
if .venv/bin/perilscope data --help >/dev/null 2>&1; then
  .venv/bin/perilscope data load >>"$TMP/setup.log" 2>&1 || { cat "$TMP/setup.log" >&2; fail "data load failed"; }
fi

.venv/bin/perilscope serve --host 127.0.0.1 --port "$PORT" >"$TMP/server.log" 2>&1 &
SERVER=$!

deadline=$((SECONDS + 60))
until curl -fs -o /dev/null "$BASE_URL/ready"; do
  kill -0 "$SERVER" 2>/dev/null || fail "the server exited before it was ready"
  [ "$SECONDS" -lt "$deadline" ] || fail "the server was not ready within 60 s"
  sleep 0.25
done

status=0
# Arguments, if any, pick test files (e.g. web/e2e/accounts.test.mjs); the default is all of them.
[ "$#" -gt 0 ] && files=("$@") || files=(web/e2e/*.test.mjs)
node --test --test-concurrency=1 --test-timeout=300000 --test-reporter=spec "${files[@]}" || status=$?
if [ "$status" -ne 0 ]; then echo "--- server log"; cat "$TMP/server.log"; fi
exit "$status"
