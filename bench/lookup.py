"""Single lookups as users make them (#29): every request a new address, from many signed-in users
at once (or API keys), on the embedded default or on PostgreSQL, with 1 or more server processes;
optionally beside another checkout (today's main), in interleaved rounds, with the ratios.

    .venv/bin/python bench/lookup.py [--seconds 20] [--users 32] [--api-keys] [--workers 1 [2]]
        [--database embedded|postgresql] [--checkout PATH] [--vs PATH] [--rounds 2] [--rate-limiting counted|off]
        [--profile DIR]

Addresses: the eval set's streets (/work/shared/data/eval) with walking house numbers, so no
address is asked twice in a run and the 24-hour search cache never answers (the cache-hit rate
printed says so). Users: N administrators, because the monthly limit a regular user may be given
caps at 100 searches (domain/system_settings.py) and a run makes thousands; an administrator's
searches are still counted and stored in the same transaction (application/search_quota.py), so
the writes are those of any user. API keys (--api-keys): one a user, on an Enterprise plan with a
daily limit the run never reaches, calling GET /api/v1/risk-assessment (which has no cache).
Rate limit: by default counted, as production does, at a per-minute limit the run never reaches
(PERILSCOPE_RATE_LIMIT_PER_MINUTE); --rate-limiting off switches it off in the admin settings.

PostgreSQL: --database postgresql (the default when DATABASE_URL is a postgresql URL) creates a
database on DATABASE_URL's server for each server under test, migrates it, loads the data, and
drops it afterwards. --vs and --workers with several values start one server each, all before the
first round; each round then measures them in turn (A, B, A, B) so the machine's drift falls on
all alike, and the ratios are each side over the first (the --vs checkout, else the fewest
processes). Every figure row says the machine's load while it was measured: the cores busy in all,
in the server and in this generator (the rest, "others", is other work on the machine, and on
PostgreSQL the database server too). Server CPU a request holds still where wall figures drift.
--profile DIR samples each server with py-spy in round 1 and prints each function's CPU a request.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import os
import re
import statistics
import subprocess
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.loadgen import TimedRun, percentile, run_for  # noqa: E402
from bench.server import ROOT, cpu_seconds, fresh_postgres_database, running_server  # noqa: E402
# Only to tell streets apart as the search cache does (this checkout's reading of addresses).
from adapters.address_parser import UsaddressParser  # noqa: E402
from domain.address import AddressError  # noqa: E402

import httpx  # noqa: E402

EVAL_ADDRESSES = ROOT.parent / "shared" / "data" / "eval" / "addresses_cms_hospitals_2017.csv"
DEFAULT_POSTGRES = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
PASSWORD = "Bench!lookup-pass-29"
UNREACHABLE_PER_MINUTE = 1_000_000_000
SETUP_TIMEOUT = 60  # sign-ins hash passwords: slow when other work takes the machine's cores
WARM_UP_SECONDS = 3  # usaddress's model, the reference data, the connection pools


# --- the addresses ------------------------------------------------------------------------------

class UniqueAddresses:
    """The eval set's numbered streets, taken in turn; each pass moves every house number two
    further up the street (same side), so no address comes twice and the cache has nothing."""

    def __init__(self, csv_path: Path = EVAL_ADDRESSES) -> None:
        with csv_path.open(newline="") as file:
            numbered = (re.match(r"(\d+) (.+)", row["address"]) for row in csv.DictReader(file))
            rows = [(int(found[1]), found[2]) for found in numbered if found]
        # One row a street as the search cache tells buildings apart (the parser's key: suffixes
        # abbreviated, floors and suites cut, ZIP): two hospitals on one street would otherwise
        # walk onto each other's numbers (100 and 102 Main St meet at 104) and the cache answer.
        one_a_street = {}
        for number, rest in rows:
            street = street_identity(number + 2, rest)
            if street is not None:
                one_a_street.setdefault(street, (number, rest))
        self._streets = list(one_a_street.values())
        self._index = count()

    def next(self) -> str:
        i = next(self._index)
        number, rest_of_address = self._streets[i % len(self._streets)]
        return f"{number + 2 * (i // len(self._streets) + 1)} {rest_of_address}"


PARSER = UsaddressParser()


def street_identity(number: int, rest_of_address: str) -> str | None:
    """The cache's building key without its house number, or None when the parser does not read
    `number` as the house number (then walking it would not make new buildings)."""
    try:
        key = PARSER.parse(f"{number} {rest_of_address}").key
    except AddressError:
        return None
    if key is None or not key.street.startswith(f"{number} "):
        return None
    return f"{key.street.removeprefix(f'{number} ')} {key.zip5}"


def lookup_path(api_keys: bool, address: str) -> str:
    if api_keys:
        return f"/api/v1/risk-assessment?address={quote(address)}"
    return f"/api/nearby-search?address={quote(address)}"


# --- one server under test -------------------------------------------------------------------

@dataclass
class Side:
    """A server under test: a checkout, with so many processes; its figures, round by round."""

    label: str
    checkout: Path
    workers: int
    base_url: str = ""
    server_pid: int = 0
    callers: list[dict[str, str]] = field(default_factory=list)  # each connection's headers
    rounds: list[Measurement] = field(default_factory=list)


def commit_of(checkout: Path) -> str:
    sha = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return f"{sha}{'+uncommitted' if dirty else ''}"


def start(stack: ExitStack, side: Side, args: argparse.Namespace) -> None:
    """Database, migration, data, server, accounts and settings for one side; torn down with `stack`."""
    extra_env = {"PERILSCOPE_RATE_LIMIT_PER_MINUTE": str(UNREACHABLE_PER_MINUTE)}
    if args.database == "postgresql":
        extra_env["DATABASE_URL"] = stack.enter_context(fresh_postgres_database(args.postgres_url))
    processes: list[subprocess.Popen] = []
    side.base_url, env = stack.enter_context(
        running_server(workers=side.workers, extra_env=extra_env, on_start=processes.append, checkout=side.checkout))
    side.server_pid = processes[0].pid
    tokens = signed_in_users(side, env, args.users)
    admin = {"Authorization": f"Bearer {tokens[0]}"}
    save_settings(side.base_url, admin, rate_limiting=args.rate_limiting == "counted")
    if args.api_keys:
        side.callers = [{"X-API-Key": api_key(side.base_url, admin, token)} for token in tokens]
    else:
        side.callers = [{"Authorization": f"Bearer {token}"} for token in tokens]


def signed_in_users(side: Side, env: dict[str, str], users: int) -> list[str]:
    """`users` administrators, made in one process by the side's own code, each signed in: their
    access tokens. (Each sign-in gives back its attempt, so the per-address throttle lets all in.)"""
    made = subprocess.run([sys.executable, str(ROOT / "bench" / "make_admins.py"), str(users), "bench-user-", PASSWORD],
                          env=env, cwd=side.checkout, check=True, capture_output=True, text=True)
    tokens = []
    for email in made.stdout.split():
        response = httpx.post(f"{side.base_url}/api/auth/login", json={"email": email, "password": PASSWORD},
                              timeout=SETUP_TIMEOUT)
        response.raise_for_status()
        tokens.append(response.json()["access_token"])
    return tokens


def save_settings(base_url: str, admin: dict[str, str], rate_limiting: bool) -> None:
    """The saved settings a real install has (cache on), with the rate limit as asked. The monthly
    limit is the highest allowed; it binds no administrator."""
    settings = {"monthly_search_limit": 100, "rate_limiting": rate_limiting, "search_caching": True}
    httpx.put(f"{base_url}/api/admin/settings", json=settings, headers=admin, timeout=SETUP_TIMEOUT).raise_for_status()


def api_key(base_url: str, admin: dict[str, str], user_token: str) -> str:
    """An API key of the user's, on an Enterprise plan whose daily limit the run never reaches."""
    user = {"Authorization": f"Bearer {user_token}"}
    uid = httpx.get(f"{base_url}/api/auth/me", headers=user, timeout=SETUP_TIMEOUT).raise_for_status().json()["user"]["uid"]
    httpx.post(f"{base_url}/api/admin/update-user-plan", headers=admin,
               json={"uid": uid, "plan": "enterprise", "daily_limit": 10_000_000}, timeout=SETUP_TIMEOUT).raise_for_status()
    created = httpx.post(f"{base_url}/api/api-keys", headers=user, json={"name": "bench", "scopes": ["read"]},
                         timeout=SETUP_TIMEOUT)
    return created.raise_for_status().json()["key"]


# --- measuring -----------------------------------------------------------------------------

@dataclass
class Load:
    """Cores busy while a figure was taken: in all, in the server's processes, in this generator."""

    machine: float
    server: float
    generator: float

    def __str__(self) -> str:
        others = max(0.0, self.machine - self.server - self.generator)
        return f"cores busy {self.machine:.1f} (server {self.server:.1f}, generator {self.generator:.1f}, others {others:.1f})"


def busy_and_total_ticks() -> tuple[int, int]:
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return sum(fields) - idle, sum(fields)


def measured(side: Side, seconds: float, work) -> tuple[TimedRun, Load, float]:  # noqa: ANN001
    """Runs `work` (a coroutine factory) and returns its result, the load meanwhile and the
    server's CPU seconds per request (a figure that holds still on a busy machine)."""
    busy0, total0 = busy_and_total_ticks()
    server0, own0 = cpu_seconds(side.server_pid) or 0.0, time.process_time()
    seen: TimedRun = asyncio.run(work())
    busy1, total1 = busy_and_total_ticks()
    server_cpu = (cpu_seconds(side.server_pid) or 0.0) - server0
    cores = os.cpu_count() or 1
    load = Load(machine=cores * (busy1 - busy0) / max(1, total1 - total0),
                server=server_cpu / seen.wall, generator=(time.process_time() - own0) / seen.wall)
    return seen, load, server_cpu / max(1, len(seen.latencies))


@dataclass
class Measurement:
    lookups: TimedRun
    lookup_load: Load
    server_cpu_per_lookup: float
    health: TimedRun
    health_load: Load


def measure_round(side: Side, addresses: UniqueAddresses, args: argparse.Namespace) -> Measurement:
    def next_lookup() -> str:
        return lookup_path(args.api_keys, addresses.next())

    lookups, lookup_load, cpu_per_lookup = measured(
        side, args.seconds, lambda: run_for(side.base_url, args.seconds, next_lookup, side.callers))
    # The floor: the framework alone, same connections, right after.
    health, health_load, _ = measured(
        side, args.health_seconds, lambda: run_for(side.base_url, args.health_seconds, lambda: "/health",
                                                     [{}] * len(side.callers)))
    return Measurement(lookups, lookup_load, cpu_per_lookup, health, health_load)


def warm_up(side: Side, addresses: UniqueAddresses, args: argparse.Namespace) -> None:
    asyncio.run(run_for(side.base_url, WARM_UP_SECONDS, lambda: lookup_path(args.api_keys, addresses.next()),
                        side.callers))


# --- profiling ---------------------------------------------------------------------------

@dataclass
class Sampler:
    process: subprocess.Popen
    output: Path


def start_profile(side: Side, args: argparse.Namespace) -> Sampler:
    """py-spy on the server's processes for the lookups of this round (not /health's), sampling
    without pausing them (--nonblocking), all threads: aiosqlite's work runs in its own."""
    args.profile.mkdir(parents=True, exist_ok=True)
    output = args.profile / f"{side.label.replace(' ', '-')}.txt"
    py_spy = Path(sys.executable).parent / "py-spy"
    process = subprocess.Popen(
        [str(py_spy), "record", "--pid", str(side.server_pid), "--subprocesses", "--nonblocking", "--rate", "200",
         "--duration", str(int(args.seconds)), "--format", "raw", "--output", str(output)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return Sampler(process, output)


def function_name(frame: str) -> str:
    """'add_charged (/work/main/adapters/db/search_repositories.py:107)' to 'add_charged (search_repositories.py)'."""
    function, _, where = frame.partition(" (")
    return f"{function} ({where.rsplit('/', 1)[-1].split(':')[0]})" if where else function


def print_profile(sampler: Sampler, cpu_per_request: float, top: int = 40) -> None:
    """Each function's share of the server's CPU samples, its callees included, as milliseconds of
    CPU a request (the share times the measured CPU a request)."""
    sampler.process.wait(timeout=60)
    inclusive: dict[str, int] = {}
    total = 0
    for line in sampler.output.read_text().splitlines():
        stack, _, samples = line.rpartition(" ")
        total += int(samples)
        for name in set(map(function_name, stack.split(";"))):  # once a stack, however deep the recursion
            inclusive[name] = inclusive.get(name, 0) + int(samples)
    print(f"  profile: {total} samples in {sampler.output}; CPU ms a request, callees included:")
    for name, samples in sorted(inclusive.items(), key=lambda item: -item[1])[:top]:
        print(f"    {samples / total * cpu_per_request * 1000:6.2f} ms  {100 * samples / total:5.1f}%  {name}")


# --- printing ------------------------------------------------------------------------------

def ms(seconds: float) -> str:
    return f"{seconds * 1000:6.1f}"


def figures(seen: TimedRun) -> str:
    return (f"{seen.per_second:6.0f} req/s  p50 {ms(percentile(seen.latencies, 50))}  "
            f"p99 {ms(percentile(seen.latencies, 99))}  max {ms(max(seen.latencies))} ms")


def print_round(number: int, side: Side, m: Measurement, api_keys: bool) -> None:
    lookups = m.lookups
    hit_rate = "n/a (no cache on v1)" if api_keys else f"{100 * lookups.cache_hits / len(lookups.latencies):.1f}%"
    not_ok = {status: n for status, n in lookups.statuses.items() if status != "200"}
    print(f"round {number}  {side.label:<28} lookups {figures(lookups)}  "
          f"server CPU {m.server_cpu_per_lookup * 1000:.1f} ms/req  cache hits {hit_rate}  "
          f"non-200 {not_ok or 'none'}  | {m.lookup_load}", flush=True)
    print(f"         {'':<28} /health {figures(m.health)}  | {m.health_load}", flush=True)


def print_summary(sides: list[Side]) -> None:
    """Medians per side, and each side over the first (the reference) round by round: a pair was
    measured back to back, so its ratio holds when the machine's speed drifts."""
    print("\nmedians over rounds:")
    for side in sides:
        print(f"  {side.label:<28} "
              f"{statistics.median(m.lookups.per_second for m in side.rounds):6.0f} req/s  "
              f"p50 {ms(statistics.median(percentile(m.lookups.latencies, 50) for m in side.rounds))}  "
              f"p99 {ms(statistics.median(percentile(m.lookups.latencies, 99) for m in side.rounds))} ms  "
              f"server CPU {statistics.median(m.server_cpu_per_lookup for m in side.rounds) * 1000:.1f} ms/req  "
              f"/health {statistics.median(m.health.per_second for m in side.rounds):6.0f} req/s")
    reference = sides[0]
    for side in sides[1:]:
        print(f"\n{side.label} / {reference.label}, round by round:")
        for number, (mine, theirs) in enumerate(zip(side.rounds, reference.rounds), start=1):
            print(f"  round {number}: req/s x{mine.lookups.per_second / theirs.lookups.per_second:.2f}  "
                  f"p50 x{percentile(mine.lookups.latencies, 50) / percentile(theirs.lookups.latencies, 50):.2f}  "
                  f"p99 x{percentile(mine.lookups.latencies, 99) / percentile(theirs.lookups.latencies, 99):.2f}  "
                  f"server CPU/req x{mine.server_cpu_per_lookup / theirs.server_cpu_per_lookup:.2f}")


# --- the run ---------------------------------------------------------------------------------

def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20, help="each measured run of lookups")
    parser.add_argument("--health-seconds", type=float, default=5, help="each run of GET /health, the floor")
    parser.add_argument("--users", type=int, default=32, help="distinct users, one connection each")
    parser.add_argument("--api-keys", action="store_true", help="GET /api/v1/risk-assessment with an API key each")
    parser.add_argument("--workers", type=int, nargs="+", default=[1], help="server processes; several: one server each")
    on_postgres = os.environ.get("DATABASE_URL", "").startswith("postgresql")
    parser.add_argument("--database", choices=["embedded", "postgresql"], default="postgresql" if on_postgres else "embedded")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    parser.add_argument("--vs", type=Path, help="the reference measured beside it, e.g. a git worktree of main")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds (A, B, A, B ...)")
    parser.add_argument("--rate-limiting", choices=["counted", "off"], default="counted",
                        help="counted: on, at a per-minute limit never reached (env); off: switched off in admin settings")
    parser.add_argument("--profile", type=Path, metavar="DIR",
                        help="sample each server with py-spy in round 1 (pip install py-spy) and print the top costs")
    args = parser.parse_args()
    args.postgres_url = os.environ.get("DATABASE_URL") if on_postgres else DEFAULT_POSTGRES
    return args


def sides_to_measure(args: argparse.Namespace) -> list[Side]:
    """The reference first (the --vs checkout, else the fewest processes): the ratios are each
    other side over it, so above 1 in req/s and below 1 in latency is better."""
    checkouts = ([args.vs.resolve()] if args.vs else []) + [args.checkout.resolve()]
    return [Side(f"{commit_of(checkout)} x{workers} proc", checkout, workers)
            for checkout in checkouts for workers in args.workers]


def main() -> None:
    args = parse_arguments()
    addresses = UniqueAddresses()  # one stream for the whole run: no address is asked twice
    sides = sides_to_measure(args)
    caller = "API keys, GET /api/v1/risk-assessment" if args.api_keys else "signed-in users, GET /api/nearby-search"
    rate_limit = (f"rate limit counted (PERILSCOPE_RATE_LIMIT_PER_MINUTE={UNREACHABLE_PER_MINUTE})"
                  if args.rate_limiting == "counted" else "rate limit off (admin settings)")
    print(f"{args.database}, {args.users} {caller}, unique addresses, {args.seconds:g} s a run, {rate_limit}, "
          f"search cache on, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start", flush=True)
    with ExitStack() as stack:
        for side in sides:
            start(stack, side, args)
            warm_up(side, addresses, args)
        for number in range(1, args.rounds + 1):
            for side in sides:
                sampler = start_profile(side, args) if args.profile and number == 1 else None
                side.rounds.append(measure_round(side, addresses, args))
                print_round(number, side, side.rounds[-1], args.api_keys)
                if sampler is not None:
                    print_profile(sampler, side.rounds[-1].server_cpu_per_lookup)
    print_summary(sides)


if __name__ == "__main__":
    main()
