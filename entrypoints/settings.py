"""Settings from the environment (see .env.example). Nothing else reads os.environ."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from domain.batch_input import DEFAULT_MAX_BYTES, DEFAULT_MAX_ROWS
from entrypoints.secret_store import load_or_create_secret

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# Secrets that have been published (earlier defaults, documentation examples): never accepted.
KNOWN_PUBLIC_SECRETS = frozenset({
    "dev-only-secret-change-me-in-production-please",
    "change-me", "changeme", "secret", "your-secret-key", "please-change-this-secret-key-in-production",
})
OIDC_PROVIDERS = ("google", "github", "facebook", "x")
GEOCODERS = ("embedded", "census")
PLACES_PROVIDERS = ("registry", "google", "yelp")
THROTTLES = ("database", "redis")
# A public API batch is one JSON body: at most this many addresses of at most ~450 bytes each
# fit the 16 MB the batch routes read (entrypoints/http/routes/v1_batches.py).
API_BATCH_ADDRESSES_CEILING = 30_000
FILE_STORES = ("local", "s3")
MAX_LOCAL_WORKERS = 16


def default_local_workers(environment: str | None) -> int:
    # Tests start servers by the dozen; they ask for local workers when they test them.
    if environment == "test":
        return 0
    return max(0, min(3, (os.cpu_count() or 1) - 1))


class SettingsError(RuntimeError):
    pass


@dataclass(frozen=True, slots=True)
class OidcClient:
    provider: str
    client_id: str
    client_secret: str
    # Only for a hosted or test IdP; the four named providers have built-in endpoints.
    issuer_url: str | None = None


@dataclass(frozen=True, slots=True)
class Settings:
    environment: str = "development"
    secret_key: str = ""  # from PERILSCOPE_SECRET_KEY, else made once under var_dir (secret_store.py)
    var_dir: Path = PROJECT_ROOT / "var"
    database_url: str = f"sqlite+aiosqlite:///{PROJECT_ROOT / 'var' / 'perilscope.db'}"
    data_dir: Path = PROJECT_ROOT.parent / "shared" / "data"
    base_url: str = "http://127.0.0.1:8000"
    web_dist: Path = PROJECT_ROOT / "web" / "dist"
    access_token_minutes: int = 15
    # How long a rotated refresh token still refreshes, for two tabs refreshing at once.
    refresh_reuse_seconds: float = 10.0
    monthly_search_limit: int = 10  # until an administrator saves System Settings
    monthly_batch_row_limit: int = 10_000  # regular users' batch rows a month, likewise
    user_storage_bytes: int = 200 * 1024 * 1024  # each user's uploads and exports together
    api_batch_max_addresses: int = 10_000  # addresses one public API batch may hold (a larger one: 413)
    upload_retention_hours: int = 24  # unused uploads are deleted after this
    batch_max_rows: int = DEFAULT_MAX_ROWS  # address rows one uploaded CSV may hold (more: 413)
    upload_max_bytes: int = DEFAULT_MAX_BYTES  # bytes one uploaded CSV may hold (more: 413)
    rate_limit_per_minute: int = 60  # lookups, uploads and batches per user, when rate limiting is on
    mailer: str = "outbox"
    smtp_host: str = "localhost"
    smtp_port: int = 587
    smtp_username: str | None = None
    smtp_password: str | None = None
    smtp_starttls: bool = True
    mail_from: str = "PerilScope <no-reply@perilscope.local>"
    contact_recipients: tuple[str, ...] = ("sales@perilscope.local", "support@perilscope.local")
    oidc_clients: tuple[OidcClient, ...] = field(default_factory=tuple)
    geocoder: str = "embedded"  # or 'census'
    job_queue: str = "inprocess"  # or 'taskiq' (workers: `perilscope worker`)
    redis_url: str = "redis://127.0.0.1:6379/0"
    signups_per_address_per_hour: int = 20
    throttle: str = "database"  # where sign-in attempts and request counts live: 'database' or 'redis'
    job_queue_name: str = "perilscope:batch"
    places_provider: str = "registry"  # or 'google', 'yelp'
    google_maps_api_key: str | None = None
    yelp_api_key: str | None = None
    log_level: str = "INFO"
    # Rows per chunk of a batch job (one task each). Each chunk costs a fixed share (its claim, its
    # files, a tally part that starts its top lists afresh, a part to merge at the end): 5,000 rows
    # spend less CPU per row than 2,000 (bench/batch.py), and a worker holds one chunk's records
    # (about 6 KB a row) while it writes them.
    batch_chunk_rows: int = 5000
    batch_chunk_attempts: int = 3  # tries of a failing chunk before its rows are marked failed
    batch_lease_seconds: float = 30.0  # a worker's hold on a chunk, renewed while it works
    batch_sweep_seconds: float = 10.0  # how often each process looks for chunks of dead workers
    # Processes beside an embedded server that run batch chunks (entrypoints/local_workers.py);
    # from the environment: one per core but the server's, at most 3, and none in tests.
    local_workers: int = 0
    # Load the reference data when the server starts, in the background (none in tests, unless asked).
    warm_reference_data: bool = False
    # How often (seconds) a process asks whether `perilscope data load` changed the reference data
    # it holds in memory (adapters/reference_data/memory_index.py); the browser tests set it low.
    reference_recheck_seconds: float = 30.0
    # Files under jobs/ and exports/ that no row names, older than this, are a crash's leftovers:
    # deleted (application/orphan_files.py), every orphan_sweep_seconds in each process.
    orphan_file_age_seconds: float = 3600.0
    orphan_sweep_seconds: float = 900.0
    # Hosts (names or IPs) webhooks may call although they resolve to a private or loopback
    # address; lower case. Empty: only public addresses are called.
    webhook_allowed_hosts: tuple[str, ...] = ()
    metrics_token: str | None = None  # /metrics answers only this bearer; unset: no /metrics
    # `perilscope worker` processes serve their metrics on this port (and the next, one per process
    # of `--workers N`), to the same bearer; unset: none.
    worker_metrics_port: int | None = None
    # Loopback unless told: a scraper on another machine is named by the operator (0.0.0.0 or an address).
    worker_metrics_host: str = "127.0.0.1"
    worker_processes: int = 1  # set by `perilscope worker --workers N` for its processes
    file_store: str = "local"  # where uploads and exports live: 'local' (files_dir) or 's3'
    files_dir: Path = PROJECT_ROOT / "var" / "files"
    s3_endpoint_url: str | None = None  # unset: AWS S3 itself; else MinIO, Ceph, R2...
    s3_bucket: str | None = None
    s3_region: str | None = None

    @property
    def is_development(self) -> bool:
        return self.environment in {"development", "test"}

    @property
    def secure_cookies(self) -> bool:
        return self.base_url.startswith("https://")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        defaults = cls()

        def get(name: str, default: str | None = None) -> str | None:
            value = env.get(name)
            return value if value not in (None, "") else default

        var_dir = Path(get("PERILSCOPE_VAR_DIR", str(defaults.var_dir))).resolve()
        settings = cls(
            environment=get("PERILSCOPE_ENV", defaults.environment),
            secret_key=get("PERILSCOPE_SECRET_KEY") or load_or_create_secret(var_dir),
            var_dir=var_dir,
            database_url=get("DATABASE_URL", defaults.database_url),
            data_dir=Path(get("PERILSCOPE_DATA_DIR", str(defaults.data_dir))).resolve(),
            base_url=get("PERILSCOPE_BASE_URL", defaults.base_url),
            web_dist=Path(get("PERILSCOPE_WEB_DIST", str(defaults.web_dist))),
            access_token_minutes=int(get("PERILSCOPE_ACCESS_TOKEN_MINUTES", "15")),
            refresh_reuse_seconds=float(get("PERILSCOPE_REFRESH_REUSE_SECONDS", str(defaults.refresh_reuse_seconds))),
            monthly_search_limit=int(get("PERILSCOPE_MONTHLY_SEARCH_LIMIT", "10")),
            monthly_batch_row_limit=int(get("PERILSCOPE_MONTHLY_BATCH_ROW_LIMIT", str(defaults.monthly_batch_row_limit))),
            user_storage_bytes=int(get("PERILSCOPE_USER_STORAGE_BYTES", str(defaults.user_storage_bytes))),
            api_batch_max_addresses=int(
                get("PERILSCOPE_API_BATCH_MAX_ADDRESSES", str(defaults.api_batch_max_addresses))
            ),
            upload_retention_hours=int(get("PERILSCOPE_UPLOAD_RETENTION_HOURS", str(defaults.upload_retention_hours))),
            batch_max_rows=int(get("PERILSCOPE_BATCH_MAX_ROWS", str(defaults.batch_max_rows))),
            upload_max_bytes=int(get("PERILSCOPE_UPLOAD_MAX_BYTES", str(defaults.upload_max_bytes))),
            rate_limit_per_minute=int(get("PERILSCOPE_RATE_LIMIT_PER_MINUTE", "60")),
            mailer=get("PERILSCOPE_MAILER", defaults.mailer),
            smtp_host=get("SMTP_HOST", defaults.smtp_host),
            smtp_port=int(get("SMTP_PORT", str(defaults.smtp_port))),
            smtp_username=get("SMTP_USERNAME"),
            smtp_password=get("SMTP_PASSWORD"),
            smtp_starttls=get("SMTP_STARTTLS", "true").lower() in {"1", "true", "yes"},
            mail_from=get("PERILSCOPE_MAIL_FROM", defaults.mail_from),
            contact_recipients=tuple(
                a.strip() for a in get("PERILSCOPE_CONTACT_RECIPIENTS", ",".join(defaults.contact_recipients)).split(",")
                if a.strip()
            ),
            oidc_clients=_oidc_clients(get),
            geocoder=get("PERILSCOPE_GEOCODER", defaults.geocoder),
            job_queue=get("PERILSCOPE_JOB_QUEUE", defaults.job_queue),
            redis_url=get("REDIS_URL", defaults.redis_url),
            # Counters live where the queue does: Redis with the Redis queue, else the database.
            throttle=get("PERILSCOPE_THROTTLE", "redis" if get("PERILSCOPE_JOB_QUEUE") == "taskiq" else defaults.throttle),
            signups_per_address_per_hour=int(get("PERILSCOPE_SIGNUPS_PER_ADDRESS_PER_HOUR", "20")),
            job_queue_name=get("PERILSCOPE_JOB_QUEUE_NAME", defaults.job_queue_name),
            places_provider=get("PERILSCOPE_PLACES_PROVIDER", defaults.places_provider),
            google_maps_api_key=get("GOOGLE_MAPS_API_KEY"),
            yelp_api_key=get("YELP_API_KEY"),
            log_level=get("PERILSCOPE_LOG_LEVEL", defaults.log_level),
            batch_chunk_rows=int(get("PERILSCOPE_BATCH_CHUNK_ROWS", str(defaults.batch_chunk_rows))),
            batch_chunk_attempts=int(get("PERILSCOPE_BATCH_CHUNK_ATTEMPTS", str(defaults.batch_chunk_attempts))),
            batch_lease_seconds=float(get("PERILSCOPE_BATCH_LEASE_SECONDS", str(defaults.batch_lease_seconds))),
            batch_sweep_seconds=float(get("PERILSCOPE_BATCH_SWEEP_SECONDS", str(defaults.batch_sweep_seconds))),
            local_workers=int(get("PERILSCOPE_LOCAL_WORKERS", str(default_local_workers(get("PERILSCOPE_ENV"))))),
            warm_reference_data=(get("PERILSCOPE_WARM_REFERENCE_DATA") or
                                 ("false" if get("PERILSCOPE_ENV") == "test" else "true")).lower() in {"1", "true", "yes"},
            reference_recheck_seconds=float(get("PERILSCOPE_REFERENCE_RECHECK_SECONDS",
                                                str(defaults.reference_recheck_seconds))),
            orphan_file_age_seconds=float(get("PERILSCOPE_ORPHAN_FILE_AGE_SECONDS",
                                              str(defaults.orphan_file_age_seconds))),
            orphan_sweep_seconds=float(get("PERILSCOPE_ORPHAN_SWEEP_SECONDS", str(defaults.orphan_sweep_seconds))),
            webhook_allowed_hosts=tuple(
                h.strip().strip("[]").lower() for h in (get("PERILSCOPE_WEBHOOK_ALLOWED_HOSTS") or "").split(",")
                if h.strip()
            ),
            metrics_token=get("PERILSCOPE_METRICS_TOKEN"),
            worker_metrics_port=int(port) if (port := get("PERILSCOPE_WORKER_METRICS_PORT")) else None,
            worker_metrics_host=get("PERILSCOPE_WORKER_METRICS_HOST", defaults.worker_metrics_host),
            worker_processes=int(get("PERILSCOPE_WORKER_PROCESSES", str(defaults.worker_processes))),
            file_store=get("PERILSCOPE_FILE_STORE", defaults.file_store),
            files_dir=Path(get("PERILSCOPE_FILES_DIR", str(var_dir / "files"))).resolve(),
            s3_endpoint_url=get("PERILSCOPE_S3_ENDPOINT_URL"),
            s3_bucket=get("PERILSCOPE_S3_BUCKET"),
            s3_region=get("PERILSCOPE_S3_REGION"),
        )
        settings.check()
        return settings

    def check(self) -> None:
        if self.secret_key.strip().lower() in KNOWN_PUBLIC_SECRETS:
            raise SettingsError(
                "PERILSCOPE_SECRET_KEY is a published example, so anyone could sign sessions with it; set a long "
                "random secret (`python -c 'import secrets; print(secrets.token_urlsafe(48))'`) or unset it to "
                "have one made under var/."
            )
        if len(self.secret_key) < 32:
            raise SettingsError("PERILSCOPE_SECRET_KEY must be at least 32 characters long.")
        if self.access_token_minutes > 50:
            raise SettingsError("Access tokens may live at most 50 minutes.")
        if not 0 <= self.refresh_reuse_seconds <= 60:
            raise SettingsError(
                "PERILSCOPE_REFRESH_REUSE_SECONDS must be from 0 to 60: a rotated token that works longer is a "
                "stolen copy's chance."
            )
        if self.user_storage_bytes < 1024 * 1024:
            raise SettingsError("PERILSCOPE_USER_STORAGE_BYTES must be at least 1048576 (1 MB).")
        if not 1 <= self.api_batch_max_addresses <= API_BATCH_ADDRESSES_CEILING:
            raise SettingsError(
                f"PERILSCOPE_API_BATCH_MAX_ADDRESSES must be from 1 to {API_BATCH_ADDRESSES_CEILING:,} "
                "(the request body of a batch is bounded too)."
            )
        if self.batch_max_rows < 1 or self.upload_max_bytes < 1:
            raise SettingsError("PERILSCOPE_BATCH_MAX_ROWS and PERILSCOPE_UPLOAD_MAX_BYTES must be at least 1.")
        if self.upload_retention_hours < 1:
            raise SettingsError("PERILSCOPE_UPLOAD_RETENTION_HOURS must be at least 1.")
        if self.batch_chunk_rows < 1 or self.batch_chunk_attempts < 1:
            raise SettingsError("PERILSCOPE_BATCH_CHUNK_ROWS and PERILSCOPE_BATCH_CHUNK_ATTEMPTS must be at least 1.")
        if self.batch_lease_seconds <= 0 or self.batch_sweep_seconds <= 0:
            raise SettingsError("PERILSCOPE_BATCH_LEASE_SECONDS and PERILSCOPE_BATCH_SWEEP_SECONDS must be positive.")
        if self.reference_recheck_seconds < 0:
            raise SettingsError("PERILSCOPE_REFERENCE_RECHECK_SECONDS must not be negative.")
        if not 0 <= self.local_workers <= MAX_LOCAL_WORKERS:
            raise SettingsError(f"PERILSCOPE_LOCAL_WORKERS must be from 0 to {MAX_LOCAL_WORKERS}.")
        if self.orphan_file_age_seconds < 60 or self.orphan_sweep_seconds <= 0:
            # A file is written before the row naming it: a young unnamed file may be about to be named.
            raise SettingsError("PERILSCOPE_ORPHAN_FILE_AGE_SECONDS must be at least 60 and "
                                "PERILSCOPE_ORPHAN_SWEEP_SECONDS positive.")
        if self.geocoder not in GEOCODERS:
            raise SettingsError(f"PERILSCOPE_GEOCODER must be one of {', '.join(GEOCODERS)}, not {self.geocoder!r}.")
        if self.throttle not in THROTTLES:
            raise SettingsError(f"PERILSCOPE_THROTTLE must be one of {', '.join(THROTTLES)}, not {self.throttle!r}.")
        if self.metrics_token is not None and len(self.metrics_token) < 24:
            raise SettingsError("PERILSCOPE_METRICS_TOKEN must be at least 24 characters long (a random value).")
        if self.worker_metrics_port is not None:
            if self.metrics_token is None:
                raise SettingsError("PERILSCOPE_WORKER_METRICS_PORT needs PERILSCOPE_METRICS_TOKEN: a worker's "
                                    "metrics answer only its bearer, like the server's /metrics.")
            if not 1 <= self.worker_metrics_port <= 65536 - max(self.worker_processes, 1):
                raise SettingsError("PERILSCOPE_WORKER_METRICS_PORT must be a TCP port, with room for one port per "
                                    "worker process after it.")
        if self.file_store not in FILE_STORES:
            raise SettingsError(
                f"PERILSCOPE_FILE_STORE must be one of {', '.join(FILE_STORES)}, not {self.file_store!r}."
            )
        if self.file_store == "s3" and not self.s3_bucket:
            raise SettingsError(
                "PERILSCOPE_FILE_STORE=s3 needs PERILSCOPE_S3_BUCKET (and PERILSCOPE_S3_ENDPOINT_URL for a store "
                "other than AWS S3; credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)."
            )
        if self.places_provider not in PLACES_PROVIDERS:
            raise SettingsError(
                f"PERILSCOPE_PLACES_PROVIDER must be one of {', '.join(PLACES_PROVIDERS)}, "
                f"not {self.places_provider!r}."
            )
        if self.places_provider == "google" and not self.google_maps_api_key:
            raise SettingsError("PERILSCOPE_PLACES_PROVIDER=google needs GOOGLE_MAPS_API_KEY (a Places API key).")
        if self.places_provider == "yelp" and not self.yelp_api_key:
            raise SettingsError("PERILSCOPE_PLACES_PROVIDER=yelp needs YELP_API_KEY (a Yelp Fusion API key).")


def _oidc_clients(get) -> tuple[OidcClient, ...]:  # noqa: ANN001
    clients = []
    for provider in OIDC_PROVIDERS:
        client_id = get(f"{provider.upper()}_CLIENT_ID")
        client_secret = get(f"{provider.upper()}_CLIENT_SECRET")
        if client_id and client_secret:
            clients.append(OidcClient(provider, client_id, client_secret))
    issuer = get("OIDC_ISSUER_URL")
    if issuer and get("OIDC_CLIENT_ID") and get("OIDC_CLIENT_SECRET"):
        clients.append(OidcClient("oidc", get("OIDC_CLIENT_ID"), get("OIDC_CLIENT_SECRET"), issuer_url=issuer))
    return tuple(clients)
