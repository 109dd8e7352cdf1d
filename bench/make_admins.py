"""Creates administrator accounts in one process (the CLI's create-admin starts Python once per
account): `python bench/make_admins.py COUNT EMAIL_PREFIX PASSWORD`, run with the server's
environment and PYTHONPATH, so the accounts land in that run's database through that checkout's
own code. Prints one email a line."""

from __future__ import annotations

import asyncio
import sys

from entrypoints.container import build_container


async def create_admins(count: int, prefix: str, password: str) -> list[str]:
    accounts = build_container().accounts()
    emails = [f"{prefix}{i}@example.com" for i in range(count)]
    for email in emails:
        await accounts.create_admin(email, password)
    return emails


if __name__ == "__main__":
    count, prefix, password = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    print("\n".join(asyncio.run(create_admins(count, prefix, password))))
