"""The embedded default's server never imports the SDKs it does not use (entrypoints/
optional_adapters.py, adapters/reference_data/catalogue.py): they are ~200 MB of the idle
server's memory, and issue #13 holds the server under 300 MB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
NOT_FOR_THE_EMBEDDED_SERVER = ("pandas", "numpy", "boto3", "botocore", "redis", "taskiq", "taskiq_redis", "xlsxwriter",
                               # 13 MB of dictionaries, imported at the first password check only
                               "zxcvbn")
SETTINGS_OF_OTHER_DEPLOYMENTS = ("PERILSCOPE_JOB_QUEUE", "PERILSCOPE_THROTTLE", "PERILSCOPE_FILE_STORE", "DATABASE_URL")


def test_the_embedded_server_imports_no_sdk_it_does_not_use(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS_OF_OTHER_DEPLOYMENTS}
    env |= {
        "PERILSCOPE_ENV": "test",
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'lean.db'}",
        "PERILSCOPE_FILES_DIR": str(tmp_path / "files"),
    }
    script = (
        "import json, sys\n"
        "import entrypoints.asgi as asgi\n"
        "settings = asgi.container.settings()\n"
        "asgi.container.file_store(); asgi.container.job_queue(); asgi.container.attempt_throttle()\n"
        f"print(json.dumps({{'loaded': [m for m in {list(NOT_FOR_THE_EMBEDDED_SERVER)!r} if m in sys.modules],"
        " 'queue': settings.job_queue, 'files': settings.file_store, 'throttle': settings.throttle}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=PROJECT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert (report["queue"], report["files"], report["throttle"]) == ("inprocess", "local", "database")
    assert report["loaded"] == []
