"""In-memory adapters for use-case tests: a unit of work over plain dicts, a fake hasher and a clock you can advance."""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Self

from adapters.security.access_tokens import JwtAccessTokens
from adapters.security.password_strength import ZxcvbnPasswordStrength
from application.accounts import AccountPolicy, AccountService
from application.batch import BatchService
from application.batch_limits import BatchAllowance, BatchLimits
from application.lookup import LookupProviders, LookupService
from application.ports.lookup import CountyPerils, StoredSearch
from domain.county_choice import CountyChoice, CountyShare, choose_county, place_key
from domain.occupancy import Building, GeoPoint, Occupant, OccupantCoverage, ParsedAddress
from domain.perils import PerilScores
from application.ports.accounts import PasswordResetRecord, RefreshTokenRecord, SearchActivity
from application.ports.batch import BatchJob, ExportFile, UploadedFile
from application.batch_runner import ChunkPolicy
from application.ports.chunks import (
    ChunkFiles,
    ChunkOutput,
    ChunkSource,
    ClaimedChunk,
    FailedInput,
    JobChunks,
    NoRoomForExport,
    StoredChunkInput,
)
from application.ports.files import StoredFile, checked_key, missing
from domain.chunks import ChunkPlan
from contextlib import asynccontextmanager
from collections.abc import AsyncIterator, Iterable, Sequence
from application.ports.webhooks import BatchEndedListener
from domain.system_settings import SystemSettings
from domain.accounts import Role, User
from domain.throttling import ThrottleRule, ThrottleState, next_attempt, refunded


class FakeClock:
    """Time that moves only when a test advances it; a sleeper wakes when it has moved far enough."""

    def __init__(self, start: datetime = datetime(2025, 3, 14, 9, 0, tzinfo=UTC)) -> None:
        self._now = start
        self._sleepers: list[tuple[datetime, asyncio.Future[None]]] = []

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta) -> None:
        self._now += delta
        due = [(wake, future) for wake, future in self._sleepers if wake <= self._now]
        self._sleepers = [sleeper for sleeper in self._sleepers if sleeper not in due]
        for _, future in due:
            if not future.done():
                future.set_result(None)

    @property
    def sleepers(self) -> int:
        return len(self._sleepers)

    async def sleep(self, seconds: float) -> None:
        future = asyncio.get_running_loop().create_future()
        self._sleepers.append((self._now + timedelta(seconds=seconds), future))
        await future

    def monotonic(self) -> float:
        return self._now.timestamp()


class FakeHasher:
    """Reversible on purpose: the use cases' logic is under test, not argon2."""

    async def hash(self, password: str) -> str:
        return f"fake${password}"

    async def verify(self, password_hash: str, password: str) -> bool:
        return password_hash == f"fake${password}"


@dataclass
class Store:
    users: dict[str, User] = field(default_factory=dict)
    external: dict[tuple[str, str], str] = field(default_factory=dict)
    refresh_tokens: dict[str, RefreshTokenRecord] = field(default_factory=dict)
    resets: dict[str, PasswordResetRecord] = field(default_factory=dict)
    searches: list[tuple[str, datetime]] = field(default_factory=list)


class InMemoryUsers:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def add(self, user: User) -> None:
        self._s.users[user.id] = user

    async def by_id(self, user_id: str) -> User | None:
        return self._s.users.get(user_id)

    async def by_email(self, email: str) -> User | None:
        return next((u for u in self._s.users.values() if u.email == email), None)

    async def update_profile(self, user_id: str, display_name: str | None, photo_url: str | None) -> None:
        self._s.users[user_id] = replace(self._s.users[user_id], display_name=display_name, photo_url=photo_url)

    async def set_password_hash(self, user_id: str, password_hash: str) -> None:
        self._s.users[user_id] = replace(self._s.users[user_id], password_hash=password_hash)

    async def set_role(self, user_id: str, role: Role) -> None:
        self._s.users[user_id] = replace(self._s.users[user_id], role=role)

    async def by_external_identity(self, issuer: str, subject: str) -> User | None:
        user_id = self._s.external.get((issuer, subject))
        return self._s.users.get(user_id) if user_id else None

    async def link_external_identity(self, user_id: str, issuer: str, subject: str) -> None:
        self._s.external[(issuer, subject)] = user_id


class InMemoryRefreshTokens:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def add(self, record: RefreshTokenRecord) -> None:
        self._s.refresh_tokens[record.id] = record

    async def by_hash(self, token_hash: str) -> RefreshTokenRecord | None:
        return next((r for r in self._s.refresh_tokens.values() if r.token_hash == token_hash), None)

    async def revoke(self, token_id: str, at: datetime) -> bool:
        record = self._s.refresh_tokens[token_id]
        if record.revoked_at is not None:
            return False
        self._s.refresh_tokens[token_id] = replace(record, revoked_at=at)
        return True

    async def revoked_at(self, token_id: str) -> datetime | None:
        return self._s.refresh_tokens[token_id].revoked_at

    async def family_alive(self, family_id: str, now: datetime) -> bool:
        return any(r.family_id == family_id and r.revoked_at is None and r.expires_at > now
                   for r in self._s.refresh_tokens.values())

    async def revoke_family(self, family_id: str, at: datetime) -> None:
        self._revoke_where(lambda r: r.family_id == family_id, at)

    async def revoke_all_for_user(self, user_id: str, at: datetime, except_family: str | None = None) -> None:
        self._revoke_where(lambda r: r.user_id == user_id and r.family_id != except_family, at)

    def _revoke_where(self, matches, at: datetime) -> None:  # noqa: ANN001
        for key, record in list(self._s.refresh_tokens.items()):
            if matches(record) and record.revoked_at is None:
                self._s.refresh_tokens[key] = replace(record, revoked_at=at)


class InMemoryPasswordResets:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def add(self, record: PasswordResetRecord) -> None:
        self._s.resets[record.id] = record

    async def by_hash(self, token_hash: str) -> PasswordResetRecord | None:
        return next((r for r in self._s.resets.values() if r.token_hash == token_hash), None)

    async def mark_used(self, reset_id: str, at: datetime) -> bool:
        record = self._s.resets[reset_id]
        if record.used_at is not None:
            return False
        self._s.resets[reset_id] = replace(record, used_at=at)
        return True

    async def invalidate_unused(self, user_id: str, at: datetime) -> None:
        for key, record in list(self._s.resets.items()):
            if record.user_id == user_id and record.used_at is None:
                self._s.resets[key] = replace(record, used_at=at)


class InMemorySearchActivity:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def activity(self, user_id: str, month: str) -> SearchActivity:
        mine = sorted(at for uid, at in self._s.searches if uid == user_id)
        in_month = [at for at in mine if f"{at.year:04d}-{at.month:02d}" == month]
        return SearchActivity(len(in_month), len(mine), mine[-1] if mine else None)


class InMemoryUnitOfWork:
    """Works on a copy of the store; commit publishes it, leaving without commit discards it."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def __aenter__(self) -> Self:
        self._work = copy.deepcopy(self._store)
        self.users = InMemoryUsers(self._work)
        self.refresh_tokens = InMemoryRefreshTokens(self._work)
        self.password_resets = InMemoryPasswordResets(self._work)
        self.search_activity = InMemorySearchActivity(self._work)
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def commit(self) -> None:
        for name in ("users", "external", "refresh_tokens", "resets", "searches"):
            setattr(self._store, name, copy.deepcopy(getattr(self._work, name)))


class InMemorySystemSettings:
    def __init__(self, settings: SystemSettings | None = None) -> None:
        self.settings = settings or SystemSettings()

    async def current(self) -> SystemSettings:
        return self.settings

    async def save(self, settings: SystemSettings, saved_by: str) -> None:
        self.settings = settings


class InMemoryThrottle:
    """The model of domain/throttling.py over a dict (the adapters do the same atomically)."""

    def __init__(self, clock: FakeClock) -> None:
        self._clock = clock
        self.states: dict[str, ThrottleState] = {}

    async def attempt(self, key: str, rule: ThrottleRule) -> float:
        state, wait = next_attempt(rule, self.states.get(key), self._clock.now().timestamp())
        if state is not None:
            self.states[key] = state
        return wait

    async def refund(self, key: str) -> None:
        state = refunded(self.states.get(key))
        if state is not None:
            self.states[key] = state

    async def clear(self, key: str) -> None:
        self.states.pop(key, None)


class InMemoryRequestWindow:
    """Fixed windows over a dict: (key, window number) -> requests counted."""

    def __init__(self, clock: FakeClock) -> None:
        self._clock = clock
        self.counts: dict[tuple[str, int], int] = {}

    async def admit(self, key: str, limit: int, window_seconds: int) -> float:
        now = self._clock.now().timestamp()
        window = int(now // window_seconds)
        self.counts[key, window] = self.counts.get((key, window), 0) + 1
        return 0.0 if self.counts[key, window] <= limit else max((window + 1) * window_seconds - now, 1.0)


class InMemoryRoles:
    def __init__(self, store: Store) -> None:
        self._s = store

    async def role_of(self, user_id: str) -> Role | None:
        user = self._s.users.get(user_id)
        return user.role if user else None

    def forget(self, user_id: str) -> None:
        return None


class CountingHasher(FakeHasher):
    def __init__(self) -> None:
        self.verifications = 0

    async def verify(self, password_hash: str, password: str) -> bool:
        self.verifications += 1
        return await super().verify(password_hash, password)


@dataclass
class AccountsWorld:
    service: AccountService
    store: Store
    clock: FakeClock
    throttle: InMemoryThrottle
    hasher: CountingHasher


def in_memory_accounts(policy: AccountPolicy | None = None) -> AccountsWorld:
    store = Store()
    clock = FakeClock()
    throttle = InMemoryThrottle(clock)
    hasher = CountingHasher()
    service = AccountService(
        uow=lambda: InMemoryUnitOfWork(store),
        hasher=hasher,
        tokens=JwtAccessTokens("test-secret-" + "s" * 32, lifetime_seconds=900),
        throttle=throttle,
        clock=clock,
        policy=policy or AccountPolicy(reset_url_base="https://app.example"),
        dummy_hash="fake$" + "unguessable" * 3,
        settings=InMemorySystemSettings(),
        roles=InMemoryRoles(store),
        strength=ZxcvbnPasswordStrength(),
    )
    return AccountsWorld(service, store, clock, throttle, hasher)


# --- the lookup's ports, in memory -------------------------------------------------------------


class InMemorySearchStore:
    def __init__(self) -> None:
        self.searches: list[StoredSearch] = []
        self.used_by_month: dict[tuple[str, str], int] = {}

    async def add(self, search: StoredSearch) -> None:
        self.searches.append(search)

    async def add_charged(self, search: StoredSearch, month: str, limit: int | None) -> bool:
        used = self.used_by_month.get((search.user_id, month), 0)
        if limit is not None and used >= limit:
            return False
        self.used_by_month[(search.user_id, month)] = used + 1
        self.searches.append(search)
        return True

    async def used(self, user_id: str, month: str) -> int:
        return self.used_by_month.get((user_id, month), 0)

    async def latest_answer(self, building_key: str, since: datetime) -> dict | None:
        matching = [s for s in self.searches if s.building_key == building_key and s.created_at >= since and s.result]
        return matching[-1].result if matching else None

    async def recent(self, user_id: str, limit: int) -> list[StoredSearch]:
        return [s for s in reversed(self.searches) if s.user_id == user_id][:limit]

    async def get(self, user_id: str, search_id: str) -> StoredSearch | None:
        return next((s for s in self.searches if s.id == search_id and s.user_id == user_id), None)

    async def neighbours(self, user_id: str, search: StoredSearch) -> tuple[str | None, str | None]:
        return None, None


class CountingPlacesFake:
    name = "fake places"

    def __init__(self, occupants: dict[str, list[Occupant]] | None = None, covered: bool = True) -> None:
        self.occupants = occupants or {}
        self.calls = 0
        self.covered = covered

    async def occupants_at(self, address: ParsedAddress, point: GeoPoint | None) -> list[Occupant]:
        self.calls += 1
        return list(self.occupants.get(str(address.key), []))

    async def coverage(self, address: ParsedAddress, point: GeoPoint | None) -> OccupantCoverage:
        return OccupantCoverage(covered=self.covered, source=self.name, covers="Occupant data: the fake's table")


class TableLocator:
    """ZIP and place tables as dictionaries, decided by the real domain rule."""

    name = "fake tables"

    def __init__(self, zip_shares: dict[str, list[CountyShare]], places: dict[tuple[str, str], dict[str, float]]) -> None:
        self._zips = zip_shares
        self._places = places

    async def locate(self, address: ParsedAddress) -> CountyChoice:
        place = self._places.get(((address.state or ""), place_key(address.city or "")), {})
        return choose_county(self._zips.get(address.zip5, []), place)


class DictPerils:
    name = "fake NRI"

    def __init__(self, counties: dict[str, CountyPerils]) -> None:
        self._counties = counties

    async def for_county(self, county_fips: str) -> CountyPerils | None:
        return self._counties.get(county_fips)


class NoGeocoder:
    name = "none"

    async def geocode(self, address: ParsedAddress) -> GeoPoint | None:
        return None


class NoBuildings:
    name = "none"

    async def building_at(self, key) -> Building | None:  # noqa: ANN001
        return None


class NoNaics:
    async def titles(self, codes: set[str]) -> dict[str, str]:
        return {}

    def code_for_types(self, types: list[str]) -> str | None:
        return None


class NoCatalogue:
    async def versions(self) -> list:
        return []


class InMemoryQuotaLedger:
    def __init__(self, store: InMemorySearchStore) -> None:
        self._store = store

    async def reserve(self, user_id: str, month: str, limit: int | None) -> bool:
        used = self._store.used_by_month.get((user_id, month), 0)
        if limit is not None and used >= limit:
            return False
        self._store.used_by_month[(user_id, month)] = used + 1
        return True

    async def release(self, user_id: str, month: str) -> None:
        self._store.used_by_month[(user_id, month)] -= 1


def county(fips: str, name: str, total: float) -> CountyPerils:
    return CountyPerils(fips, name, "AK", PerilScores(scores={}, total=total, total_rating="Relatively Low"), "1.20.0")


@dataclass
class LookupWorld:
    service: LookupService
    clock: FakeClock
    places: CountingPlacesFake
    searches: InMemorySearchStore
    settings: InMemorySystemSettings
    users: dict[str, Role]


class DictRoles:
    def __init__(self, users: dict[str, Role]) -> None:
        self._users = users

    async def role_of(self, user_id: str) -> Role | None:
        return self._users.get(user_id)

    def forget(self, user_id: str) -> None:
        return None


def in_memory_lookup(
    search_caching: bool = True,
    monthly_limit: int = 10,
    tracts: object = None,
    buildings: object = None,
    geocoder: object = None,
    points: object = None,
    places_named: object = None,
) -> LookupWorld:
    """Anchorage's ZIP 99503 lies in one county; 99501 is split between two by its addresses."""
    from adapters.address_parser import UsaddressParser
    from application.rate_limit import RequestRateLimit
    from application.search_quota import SearchQuota

    clock = FakeClock()
    searches = InMemorySearchStore()
    places = CountingPlacesFake()
    settings = InMemorySystemSettings(SystemSettings(monthly_search_limit=monthly_limit, search_caching=search_caching))
    users: dict[str, Role] = {}
    providers = LookupProviders(
        parser=UsaddressParser(),
        geocoder=geocoder or NoGeocoder(),
        places=places,
        perils=DictPerils({"02020": county("02020", "Anchorage", 31.2), "02122": county("02122", "Kenai Peninsula", 44.0)}),
        locator=TableLocator(
            {"99503": [CountyShare("02020", 1.0)], "99501": [CountyShare("02020", 0.6), CountyShare("02122", 0.4)]},
            {("AK", "KENAI"): {"02122": 1.0}},
        ),
        buildings=buildings or NoBuildings(),
        naics=NoNaics(),
        catalogue=NoCatalogue(),
        tracts=tracts,  # type: ignore[arg-type]
        points=points,  # type: ignore[arg-type]
        places_named=places_named,  # type: ignore[arg-type]
    )
    quota = SearchQuota(
        ledger=InMemoryQuotaLedger(searches),
        searches=searches,
        settings=settings,
        rate_limit=RequestRateLimit(settings, InMemoryRequestWindow(clock), per_minute=1000),
        roles=DictRoles(users),
        clock=clock,
    )
    service = LookupService(providers=providers, searches=searches, quota=quota, clock=clock, settings=settings)
    return LookupWorld(service, clock, places, searches, settings, users)


def sample_answer(search_id: str = "s1") -> "LookupResult":
    """A small typed answer for storage tests: one occupant at 701 5th Ave, Seattle."""
    from domain.address import BuildingKey
    from domain.lookup_result import Location, LookupResult, Provenance

    address = ParsedAddress("701 5th Ave", "Seattle", "WA", "98104", None, BuildingKey("701 5TH AVE", "98104"))
    return LookupResult(
        search_id=search_id, query="701 5th Ave, Seattle, WA 98104", address=address,
        location=Location("zip", "53033", "King", "WA", 1.0, False, point=GeoPoint(47.6045, -122.3305, "building")),
        perils=PerilScores(scores={"ERQK": 99.2}, ratings={"ERQK": "Very High"}, total=99.1, total_rating="Very High"),
        building=None,
        provenance=Provenance("1.20.0", "embedded", "registry", "NRI", None, "2026-11-23T10:00:00+00:00"),
        occupants=(Occupant(name="Columbia Center Tenant", vicinity="701 5th Ave", naics_code="531120"),),
    )


# --- the batch's ports, in memory ---------------------------------------------------------------

UNFINISHED_JOBS = ("queued", "running")


class InMemoryBatchStore:
    """Uploads, jobs and exports in dicts; it is the StorageMeter too (uploads and exports count).
    Set `add_job_failure` to make the next `add_job` raise it, as a database error would."""

    def __init__(self) -> None:
        self.uploads: dict[str, UploadedFile] = {}
        self.jobs: dict[str, BatchJob] = {}
        self.exports_stored: list[ExportFile] = []
        self.add_job_failure: Exception | None = None

    async def add_upload(self, upload: UploadedFile, storage_limit: int) -> bool:
        if await self.storage_used(upload.user_id) + upload.size_bytes > storage_limit:
            return False
        self.uploads[upload.id] = upload
        return True

    async def storage_used(self, user_id: str) -> int:
        stored = [*self.uploads.values(), *self.exports_stored]
        return sum(item.size_bytes for item in stored if item.user_id == user_id)

    async def purge_uploads(self, created_before: datetime) -> list[str | None]:
        def needed(upload: UploadedFile) -> bool:
            users = [job for job in self.jobs.values() if job.file_id == upload.id]
            if any(job.status in UNFINISHED_JOBS for job in users):
                return True
            return not users and upload.created_at >= created_before

        gone = [file_id for file_id, upload in self.uploads.items() if not needed(upload)]
        return [self.uploads.pop(file_id).file_key for file_id in gone]

    async def upload(self, user_id: str | None, file_id: str) -> UploadedFile | None:
        upload = self.uploads.get(file_id)
        return upload if upload and user_id in (None, upload.user_id) else None

    async def add_job(self, job: BatchJob) -> None:
        if self.add_job_failure is not None:
            failure, self.add_job_failure = self.add_job_failure, None
            raise failure
        self.jobs[job.id] = job

    async def job(self, user_id: str | None, job_id: str) -> BatchJob | None:
        job = self.jobs.get(job_id)
        return job if job and user_id in (None, job.user_id) else None

    async def unfinished_job_ids(self) -> list[str]:
        return [job.id for job in self.jobs.values() if job.status in UNFINISHED_JOBS]

    async def unfinished_jobs(self, user_id: str) -> list[BatchJob]:
        mine = [job for job in self.jobs.values() if job.user_id == user_id and job.status in UNFINISHED_JOBS]
        return sorted(mine, key=lambda job: job.created_at)

    async def start(self, job_id: str, at: datetime) -> None:
        running = replace(self.jobs[job_id], status="running", stage="search", done=0, started_at=at, error=None)
        self.jobs[job_id] = running

    async def progress(self, job_id: str, stage: str, done: int) -> None:
        self.jobs[job_id] = replace(self.jobs[job_id], stage=stage, done=done)

    async def finish(self, job_id: str, export: ExportFile, at: datetime) -> None:
        job = self.jobs[job_id]
        self.exports_stored.append(replace(export, job_id=job_id))
        self.jobs[job_id] = replace(job, status="done", stage="export", done=job.total, finished_at=at,
                                    export_name=export.name)

    async def fail(self, job_id: str, error: str, at: datetime) -> None:
        self.jobs[job_id] = replace(self.jobs[job_id], status="failed", error=error[:500], finished_at=at)

    async def add_export(self, export: ExportFile, storage_limit: int | None = None) -> bool:
        if storage_limit is not None and await self.storage_used(export.user_id) + export.size_bytes > storage_limit:
            return False
        self.exports_stored.append(export)
        return True

    async def exports(self, user_id: str) -> list[ExportFile]:
        mine = [export for export in self.exports_stored if export.user_id == user_id]
        return sorted(mine, key=lambda export: export.exported_at, reverse=True)

    async def batch_exports(self, user_id: str, offset: int, limit: int) -> list[ExportFile]:
        return [export for export in await self.exports(user_id) if export.job_id][offset : offset + limit]

    def _stored_export(self, user_id: str, name: str) -> ExportFile | None:
        return next((e for e in self.exports_stored if e.user_id == user_id and e.name == name), None)

    async def export(self, user_id: str, name: str) -> ExportFile | None:
        return self._stored_export(user_id, name)

    async def legacy_text(self, user_id: str, name: str, detailed: bool) -> str | None:
        return None  # every export here is stored as files

    async def delete_export(self, user_id: str, name: str) -> ExportFile | None:
        export = self._stored_export(user_id, name)
        if export is not None:
            self.exports_stored.remove(export)
        return export


class RecordingJobQueue:
    """Records the jobs and chunk tasks enqueued and runs none: a test runs them with
    `BatchWorld.run` (or `BatchService.run` and `run_chunk`)."""

    def __init__(self) -> None:
        self.enqueued: list[str] = []
        self.chunk_tasks = 0

    async def enqueue(self, job_id: str) -> None:
        self.enqueued.append(job_id)

    async def enqueue_chunks(self, count: int) -> None:
        self.chunk_tasks += count


@dataclass
class _StoredChunk:
    job_id: str
    plan: ChunkPlan
    input_key: str | None
    line_offset: int
    enqueued_at: datetime
    status: str = "queued"
    attempts: int = 0
    lease_owner: str | None = None
    lease_expires_at: datetime | None = None
    result: ChunkFiles | None = None
    error: str | None = None
    finished_at: datetime | None = None
    rows_answered: int = 0


class InMemoryChunkStore:
    """ChunkStore in dicts, with the SQL store's rules (adapters/db/chunk_repository.py)."""

    def __init__(self, jobs: InMemoryBatchStore) -> None:
        self._jobs = jobs
        self.chunks: dict[str, list[_StoredChunk]] = {}
        self._last_claimed: dict[str, datetime] = {}
        self._finisher: dict[str, tuple[str, datetime]] = {}
        self._splitter: dict[str, tuple[str, datetime]] = {}
        self.split_whole: set[str] = set()

    def _splittable(self, job_id: str, now: datetime) -> bool:
        holder = self._splitter.get(job_id)
        return (self._jobs.jobs[job_id].status in UNFINISHED_JOBS and job_id not in self.split_whole
                and (holder is None or holder[1] < now))

    def _splitting(self, job_id: str, owner: str) -> bool:
        return job_id not in self.split_whole and self._splitter.get(job_id, ("",))[0] == owner

    async def begin_split(self, job_id: str, owner: str, now: datetime, until: datetime) -> int | None:
        if not self._splittable(job_id, now):
            return None
        self._splitter[job_id] = (owner, until)
        return len(self.chunks.get(job_id, []))

    async def renew_split(self, job_id: str, owner: str, until: datetime) -> bool:
        if not self._splitting(job_id, owner):
            return False
        self._splitter[job_id] = (owner, until)
        return True

    async def add_chunks(self, job_id: str, owner: str, chunks: Iterable[StoredChunkInput], now: datetime) -> bool:
        if not self._splitting(job_id, owner):
            return False
        self.chunks.setdefault(job_id, []).extend(
            _StoredChunk(job_id, c.plan, c.input_key, c.line_offset, now) for c in chunks)
        return True

    async def end_split(self, job_id: str, owner: str, count: int) -> bool:
        if not self._splitting(job_id, owner) or len(self.chunks.get(job_id, [])) != count:
            return False
        self.chunks.setdefault(job_id, [])
        self.split_whole.add(job_id)
        del self._splitter[job_id]
        return True

    async def queued_count(self, job_id: str) -> int:
        return sum(c.status == "queued" for c in self.chunks.get(job_id, []))

    async def unsplit_jobs(self, now: datetime, limit: int) -> list[str]:
        waiting = [job for job in self._jobs.jobs.values() if self._splittable(job.id, now)]
        return [job.id for job in sorted(waiting, key=lambda job: job.created_at)][:limit]

    def _in_flight(self, job_id: str, now: datetime) -> int:
        return sum(c.status == "running" and c.lease_expires_at >= now for c in self.chunks[job_id])

    async def claim(self, owner: str, now: datetime, lease_until: datetime, max_attempts: int,
                    exhausted: bool = False) -> ClaimedChunk | None:
        def claimable(c: _StoredChunk) -> bool:
            if self._jobs.jobs[c.job_id].status not in UNFINISHED_JOBS:
                return False
            expired = c.status == "running" and c.lease_expires_at < now
            if exhausted:
                return expired and c.attempts >= max_attempts
            return (c.status == "queued" or expired) and c.attempts < max_attempts

        minimum = datetime.min.replace(tzinfo=now.tzinfo)
        candidates = [c for chunks in self.chunks.values() for c in chunks if claimable(c)]
        if not candidates:
            return None
        chunk = min(candidates, key=lambda c: (self._in_flight(c.job_id, now), self._last_claimed.get(c.job_id, minimum),
                                               self._jobs.jobs[c.job_id].created_at, c.plan.index))
        chunk.status, chunk.attempts, chunk.lease_owner, chunk.lease_expires_at = "running", chunk.attempts + 1, owner, lease_until
        self._last_claimed[chunk.job_id] = now
        job = self._jobs.jobs[chunk.job_id]
        self._jobs.jobs[job.id] = replace(job, status="running" if job.status == "queued" else job.status,
                                          started_at=job.started_at or now)
        return ClaimedChunk(chunk.job_id, chunk.plan, ChunkSource(chunk.input_key, None), chunk.line_offset,
                            chunk.attempts, owner)

    def _held(self, claimed: ClaimedChunk) -> _StoredChunk | None:
        chunk = self.chunks[claimed.job_id][claimed.plan.index]
        held = (chunk.status, chunk.attempts, chunk.lease_owner) == ("running", claimed.attempt, claimed.owner)
        return chunk if held else None

    async def renew(self, chunk: ClaimedChunk, lease_until: datetime, answered: int | None = None) -> bool:
        if (held := self._held(chunk)) is None:
            return False
        held.lease_expires_at = lease_until
        if answered is not None and (answered := min(answered, chunk.plan.row_count)) > held.rows_answered:
            job = self._jobs.jobs[chunk.job_id]
            self._jobs.jobs[job.id] = replace(job, done=job.done + answered - held.rows_answered)
            held.rows_answered = answered
        return True

    async def complete(self, chunk: ClaimedChunk, result: ChunkFiles, now: datetime) -> bool:
        if (held := self._held(chunk)) is None:
            return False
        held.status, held.result, held.error = ("failed" if result.failed else "done"), result, result.error
        held.finished_at = now
        held.lease_expires_at = None
        job = self._jobs.jobs[chunk.job_id]
        self._jobs.jobs[job.id] = replace(job, done=job.done + chunk.plan.row_count - held.rows_answered)
        held.rows_answered = chunk.plan.row_count
        return True

    async def release(self, chunk: ClaimedChunk, error: str, now: datetime) -> bool:
        if (held := self._held(chunk)) is None:
            return False
        held.status, held.lease_expires_at, held.enqueued_at, held.error = "queued", None, now, error
        return True

    async def requeue_expired(self, now: datetime, max_attempts: int) -> int:
        expired = [c for chunks in self.chunks.values() for c in chunks
                   if c.status == "running" and c.lease_expires_at < now and c.attempts < max_attempts
                   and self._jobs.jobs[c.job_id].status in UNFINISHED_JOBS]
        for chunk in expired:
            chunk.status, chunk.lease_expires_at, chunk.enqueued_at = "queued", None, now
        return len(expired)

    async def requeue_stale(self, enqueued_before: datetime, now: datetime) -> int:
        every = [c for chunks in self.chunks.values() for c in chunks]
        if any(c.status == "running" and c.lease_expires_at >= now for c in every):
            return 0
        stale = [c for c in every if c.status == "queued" and c.enqueued_at < enqueued_before
                 and self._jobs.jobs[c.job_id].status in UNFINISHED_JOBS]
        for chunk in stale:
            chunk.enqueued_at = now
        return len(stale)

    def _finishable(self, job_id: str, now: datetime) -> bool:
        job = self._jobs.jobs[job_id]
        holder = self._finisher.get(job_id)
        return (job.status == "running" and job_id in self.split_whole
                and all(c.status in ("done", "failed") for c in self.chunks[job_id])
                and (holder is None or holder[1] < now))

    async def begin_finishing(self, job_id: str, owner: str, now: datetime, until: datetime) -> bool:
        if not self._finishable(job_id, now):
            return False
        self._finisher[job_id] = (owner, until)
        self._jobs.jobs[job_id] = replace(self._jobs.jobs[job_id], stage="export")
        return True

    async def renew_finishing(self, job_id: str, owner: str, until: datetime) -> bool:
        if self._finisher.get(job_id, ("",))[0] != owner:
            return False
        self._finisher[job_id] = (owner, until)
        return True

    async def finishable_jobs(self, now: datetime) -> list[str]:
        return [job_id for job_id in self.chunks if self._finishable(job_id, now)]

    async def results(self, job_id: str) -> AsyncIterator[ChunkOutput]:
        for chunk in self.chunks[job_id]:
            result = chunk.result
            yield ChunkOutput(chunk.plan, result.facts_key, result.scores_key, result.size_bytes, result.user_columns)

    async def finish(self, job_id: str, owner: str, export: ExportFile, now: datetime,
                     storage_limit: int | None = None) -> bool:
        if self._jobs.jobs[job_id].status != "running" or self._finisher.get(job_id, ("",))[0] != owner:
            return False
        used = await self._jobs.storage_used(export.user_id)
        if storage_limit is not None and used + export.size_bytes > storage_limit:
            raise NoRoomForExport(used)
        await self._jobs.finish(job_id, export, now)
        for chunk in self.chunks[job_id]:
            if chunk.status == "done":  # as the SQL store: a done chunk's input is read no more
                chunk.input_key = None
            if chunk.result is not None:  # nor any chunk's score rows (merged into the export's)
                chunk.result = replace(chunk.result, scores_key=None)
        return True

    async def fail(self, job_id: str, error: str, now: datetime) -> bool:
        if self._jobs.jobs[job_id].status not in UNFINISHED_JOBS:
            return False
        await self._jobs.fail(job_id, error, now)
        return True

    async def job_chunks(self, job_id: str, now: datetime) -> JobChunks | None:
        if job_id not in self.split_whole:
            return None
        chunks = self.chunks[job_id]
        workers = {c.lease_owner for c in chunks if c.status == "running" and c.lease_expires_at >= now}
        return JobChunks(total=len(chunks), done=sum(c.status == "done" for c in chunks),
                         failed=sum(c.status == "failed" for c in chunks),
                         rows_failed=sum(c.result.rows_failed for c in chunks if c.result), worker_count=len(workers),
                         last_finished_at=max((c.finished_at for c in chunks if c.finished_at), default=None))

    async def failed_inputs(self, job_id: str) -> list[FailedInput]:
        return [FailedInput(ChunkSource(c.input_key, None), c.line_offset, c.error or "", c.plan.row_count)
                for c in self.chunks.get(job_id, []) if c.status == "failed"]

    async def done_input_keys(self, job_id: str) -> list[str]:
        return [c.input_key for c in self.chunks.get(job_id, []) if c.status == "done" and c.input_key]


class InMemoryFileStore:
    """FileStore in a dict, with the port's rules: a writer's file appears whole when its block
    ends, nothing when it raises (application/ports/files.py)."""

    def __init__(self, piece_size: int = 64 * 1024) -> None:
        self.files: dict[str, bytes] = {}
        self.written_at = datetime(2025, 3, 14, 9, 0, tzinfo=UTC)  # every file's modification time
        self._piece_size = piece_size  # reads come in pieces of this size, records cut anywhere

    @asynccontextmanager
    async def open_writer(self, key: str) -> AsyncIterator[_MemoryWriter]:
        writer = _MemoryWriter()
        yield writer
        self.files[checked_key(key)] = bytes(writer.data)

    async def read(self, key: str, chunk_size: int | None = None) -> AsyncIterator[bytes]:
        if key not in self.files:
            raise missing(key)
        data, chunk_size = self.files[key], chunk_size or self._piece_size
        for start in range(0, len(data), chunk_size):
            yield data[start:start + chunk_size]

    async def read_range(self, key: str, start: int, length: int) -> bytes:
        if key not in self.files:
            raise missing(key)
        return self.files[key][start:start + length]

    async def size(self, key: str) -> int:
        if key not in self.files:
            raise missing(key)
        return len(self.files[key])

    async def delete(self, key: str) -> None:
        self.files.pop(key, None)

    async def exists(self, key: str) -> bool:
        return key in self.files

    async def discard_unfinished(self, written_before: datetime) -> int:
        return 0  # a writer's file appears whole or not at all: nothing is left half written

    async def list_files(self, prefix: str) -> AsyncIterator[StoredFile]:
        for key in [key for key in self.files if key.startswith(prefix)]:
            yield StoredFile(key, len(self.files[key]), self.written_at)

    def text(self, key: str | None) -> str:
        """A stored file as text ('' for no key): what a test reads back."""
        return self.files[key].decode() if key else ""


async def collected(chunks: AsyncIterator[bytes]) -> bytes:
    """A streamed file's bytes, whole (tests only)."""
    return b"".join([chunk async for chunk in chunks])


async def stored_facts(files: object, export: ExportFile, columns: list[str] | None = None) -> list[dict[str, object]]:
    """A batch export's facts rows (adapters/results/schema.py), in the manifest's order, read
    from its chunks' Parquet files in any FileStore (tests only)."""
    import io

    import pyarrow.parquet as pq

    from application.ports.results import read_manifest

    assert export.manifest_key is not None, "not a dataset"
    manifest = await read_manifest(files, export.manifest_key)  # type: ignore[arg-type]
    return [row for chunk in manifest.chunks for row in pq.read_table(
        io.BytesIO(await collected(files.read(chunk.facts))), columns=columns).to_pylist()]  # type: ignore[attr-defined]


class _MemoryWriter:
    def __init__(self) -> None:
        self.data = bytearray()

    async def write(self, chunk: bytes) -> None:
        self.data += chunk


class InMemoryBatchRowLedger:
    def __init__(self) -> None:
        self.rows_by_month: dict[tuple[str, str], int] = {}

    async def reserve(self, user_id: str, month: str, rows: int, limit: int | None) -> bool:
        used = self.rows_by_month.get((user_id, month), 0)
        if limit is not None and used + rows > limit:
            return False
        self.rows_by_month[(user_id, month)] = used + rows
        return True

    async def release(self, user_id: str, month: str, rows: int) -> None:
        self.rows_by_month[(user_id, month)] -= rows

    async def used(self, user_id: str, month: str) -> int:
        return self.rows_by_month.get((user_id, month), 0)


@dataclass
class BatchWorld:
    service: BatchService
    lookup: LookupWorld
    store: InMemoryBatchStore
    queue: RecordingJobQueue
    rows: InMemoryBatchRowLedger
    chunks: InMemoryChunkStore
    files: InMemoryFileStore

    def export_text(self, export: ExportFile, detailed: bool = False) -> str:
        """The stored CSV (or detailed JSON Lines) of an export that is not a dataset (rows a client sent)."""
        return self.files.text(export.detail_key if detailed else export.csv_key)

    def export_facts(self, export: ExportFile) -> list[dict[str, object]]:
        """A batch export's facts rows (adapters/results/schema.py), in the manifest's order, read
        from its chunks' Parquet files as stored (tests only)."""
        import io

        import pyarrow.parquet as pq

        from application.ports.results import decode_manifest

        assert export.manifest_key is not None, "not a dataset"
        manifest = decode_manifest(self.files.files[export.manifest_key])
        return [row for chunk in manifest.chunks
                for row in pq.read_table(io.BytesIO(self.files.files[chunk.facts])).to_pylist()]

    async def run(self, job_id: str) -> None:
        """The job's task, then every chunk task it and its chunks send, as a worker would."""
        await self.service.run(job_id)
        while self.queue.chunk_tasks:
            self.queue.chunk_tasks -= 1
            await self.service.run_chunk()


def in_memory_batch(
    storage_bytes: int = 1024 * 1024, monthly_batch_row_limit: int = 100, monthly_search_limit: int = 10,
    policy: ChunkPolicy = ChunkPolicy(),
    ended: BatchEndedListener | None = None,
    files: InMemoryFileStore | None = None,
) -> BatchWorld:
    """The batch use case over `in_memory_lookup`'s world (Anchorage's ZIPs 99501 and 99503)."""
    lookup = in_memory_lookup(monthly_limit=monthly_search_limit)
    lookup.settings.settings = replace(lookup.settings.settings, monthly_batch_row_limit=monthly_batch_row_limit)
    store, queue, rows = InMemoryBatchStore(), RecordingJobQueue(), InMemoryBatchRowLedger()
    allowance = BatchAllowance(
        ledger=rows,
        storage=store,
        settings=lookup.settings,
        clock=lookup.clock,
        limits=BatchLimits(storage_bytes=storage_bytes, upload_retention=timedelta(hours=24)),
        roles=DictRoles(lookup.users),
    )
    from adapters.results.chunk_writer import ParquetChunkWriter
    from adapters.results.export_scores import ParquetExportScores
    from adapters.results.downloads import ResultDownloads

    chunks, files = InMemoryChunkStore(store), files or InMemoryFileStore()
    service = BatchService(store=store, lookup=lookup.service, searches=lookup.searches, clock=lookup.clock,
                           queue=lambda: queue, allowance=allowance, downloads=ResultDownloads(files),
                           chunks=chunks, files=files, results=ParquetChunkWriter(), scores=ParquetExportScores(), policy=policy,
                           worker_id="test-worker:1", ended=ended)
    return BatchWorld(service, lookup, store, queue, rows, chunks, files)
