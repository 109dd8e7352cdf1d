"""The public API end to end, as an integrator runs it: submit a batch of unique addresses through
POST /api/v1/search/batch with a callback URL, wait for the signed webhook, then download the
XLSX. Prints the time of each step. A throwaway server (SQLite, in-process jobs) is started.

    .venv/bin/python bench/api_batch.py --rows 10000
"""

from __future__ import annotations

import argparse
import csv
import io
import queue
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.batch import build_input  # noqa: E402
from bench.server import admin_session, running_server  # noqa: E402
from domain.webhooks import verify  # noqa: E402
from entrypoints.settings import Settings  # noqa: E402


class Receiver(BaseHTTPRequestHandler):
    """The integrator's webhook endpoint: it keeps every event it is sent."""

    events: queue.Queue[tuple[float, dict[str, str], bytes]] = queue.Queue()

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.events.put((time.perf_counter(), dict(self.headers), body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        return None


def addresses(rows: int) -> list[dict[str, str]]:
    reader = csv.DictReader(io.StringIO(build_input(rows, Settings().data_dir, unique=True).decode()))
    return [
        {"address": r["Street Address"], "city": r["City"], "state": r["State"], "zip": r["Zip"]} for r in reader
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    args = parser.parse_args()
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    callback_url = f"http://127.0.0.1:{receiver.server_address[1]}/perilscope-events"
    batch = addresses(args.rows)
    with running_server(extra_env={"PERILSCOPE_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1"}) as (base_url, env):
        with httpx.Client(base_url=base_url, timeout=120) as client:
            login = admin_session(base_url, env)
            me, session = login["user"], {"Authorization": f"Bearer {login['access_token']}"}
            client.post("/api/admin/update-user-plan", headers=session,
                        json={"uid": me["uid"], "plan": "enterprise", "daily_limit": args.rows * 2}).raise_for_status()
            key = client.post("/api/api-keys", headers=session,
                              json={"name": "bench", "scopes": ["read", "batch"]}).raise_for_status().json()["key"]
            secret = client.get("/api/webhooks/secret", headers=session).raise_for_status().json()["secret"]
            api = {"X-API-Key": key}

            started = time.perf_counter()
            accepted = client.post("/api/v1/search/batch", headers=api,
                                   json={"addresses": batch, "include_details": True, "callback_url": callback_url})
            accepted.raise_for_status()
            submitted = time.perf_counter()
            export_id = accepted.json()["export_id"]
            arrived, headers, body = Receiver.events.get(timeout=1800)
            if not verify(secret, headers["X-PerilScope-Signature"], body, now=int(time.time())):
                raise SystemExit("the webhook's signature does not verify")
            xlsx = client.post("/api/v1/export/create", headers=api, json={"export_id": export_id, "format": "xlsx"})
            download = client.get(f"/api/v1/export/download/{xlsx.raise_for_status().json()['export_id']}", headers=api)
            download.raise_for_status()
            downloaded = time.perf_counter()
    receiver.shutdown()
    print(f"rows: {len(batch):,} unique addresses")
    print(f"submit (202):                 {submitted - started:7.2f} s")
    print(f"submit to signed webhook:     {arrived - started:7.2f} s  ({len(batch) / (arrived - started):,.0f} rows/s)")
    print(f"XLSX download:                {downloaded - arrived:7.2f} s  ({len(download.content) / 1e6:.1f} MB)")
    print(f"total, submit to XLSX in hand: {downloaded - started:7.2f} s")


if __name__ == "__main__":
    main()
