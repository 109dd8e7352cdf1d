"""The one place where ports meet their adapters, chosen by settings."""

from __future__ import annotations

import os
import socket
from datetime import timedelta

from dependency_injector import containers, providers

from adapters.clock import SystemClock
from adapters.db.account_repositories import SqlUnitOfWork
from adapters.db.engine import create_engine, create_session_factory, is_sqlite
from adapters.db.sqlite_loop_store import SqliteLoopSearchStore
from adapters.db.writer import SqlWriter
from adapters.results.chunk_writer import ParquetChunkWriter
from adapters.files.local import LocalFileStore
from adapters.identity.oidc_client import OidcIdentityProvider
from adapters.identity.oidc_providers import ClientCredentials
from adapters.identity.pending_state import SignedPendingSignIn
from adapters.mail.outbox import OutboxMailer
from adapters.mail.smtp import SmtpConfig, SmtpMailer
from adapters.security.access_tokens import JwtAccessTokens
from adapters.security.api_tokens import JwtApiTokens
from adapters.db.api_repositories import SqlApiAnswerStore, SqlApiKeyStore, SqlDailyUsageLedger, SqlPlanStore
from application.api_keys import ApiKeyService
from application.api_plans import ApiPlans
from application.public_api import PublicApi
from application.api_batches import ApiBatches
from application.idempotency import Idempotency
from adapters.db.idempotency_repository import SqlIdempotencyStore
from adapters.security.password_strength import ZxcvbnPasswordStrength
from adapters.security.passwords import Argon2PasswordHasher
from adapters.db.throttle import SqlAttemptThrottle, SqlRequestWindow
from adapters.db.settings_repository import SqlSystemSettingsStore
from adapters.db.user_directory import SqlUserDirectory
from adapters.db.user_roles import CachedUserRoles
from application.accounts import AccountPolicy, AccountService
from application.mfa import MfaGate, MfaService
from adapters.db.mfa_repository import SqlMfaStore
from adapters.security.mfa_challenge import SignedMfaChallenge
from adapters.security.secret_box import AesGcmSecretBox
from adapters.security.totp import PyotpCodes, SegnoQrCodes
from application.admin import AdminService
from application.heavy_work import HeavyWork
from application.rate_limit import RequestRateLimit
from application.throttles import signups_per_address_rule
from domain.batch_input import UploadCaps
from domain.system_settings import SystemSettings
from adapters.db.batch_repository import SqlBatchStore
from adapters.db.chunk_repository import SqlChunkStore
from adapters.db.file_references import SqlFileReferences
from application.orphan_files import OrphanFiles
from application.batch_runner import ChunkPolicy
from adapters.db.batch_usage_repository import SqlBatchRowLedger
from adapters.jobs.in_process import InProcessJobQueue
from adapters.metrics.prometheus import PrometheusMetrics
from application.batch import BatchService
from application.portfolio import PortfolioService
from application.export_rows import ExportRowsService
from application.batch_limits import BatchAllowance, BatchLimits
from application.contact import ContactService
from application.external_sign_in import ExternalSignIn
from application.lookup import LookupProviders, LookupService
from application.search_quota import SearchQuota
from adapters.address_parser import UsaddressParser
from adapters.reference_data.memory_index import (
    BuildingRecords,
    BusinessRegistryPlaces,
    LoadedDatasets,
    NaicsTable,
    NriCountyScores,
    NriTractScores,
    ReferenceIndex,
    ZipAndPlaceCountyLocator,
    ZipCentroidGeocoder,
)
from adapters.db.search_repositories import SqlQuotaLedger, SqlSearchStore
from adapters.providers.census_geocoder import CensusGeocoder
from adapters.reference_data.place_points import CountyPoints, EmbeddedPlaceResolver
from adapters.providers.common import new_http_client
from adapters.providers.google_photos import GooglePlacePhotos
from adapters.providers.google_places import GooglePlacesProvider
from adapters.providers.yelp_fusion import YelpFusionProvider
from application.photos import PlacePhotos
from adapters.db.webhook_repositories import SqlDeliveryStore, SqlSigningSecretStore
from adapters.webhooks.http import HttpxWebhookSender, LoopHostResolver
from application.webhooks import WebhookPolicy, Webhooks
from entrypoints import optional_adapters
from entrypoints.settings import Settings


def worker_identity() -> str:
    """host:pid of this process: who holds a chunk's lease (made when the process builds its
    container, so each forked worker has its own)."""
    return f"{socket.gethostname()}:{os.getpid()}"


class Container(containers.DeclarativeContainer):
    settings = providers.Dependency(instance_of=Settings)

    clock = providers.Singleton(SystemClock)
    metrics = providers.Singleton(PrometheusMetrics)
    engine = providers.Singleton(create_engine, url=settings.provided.database_url)
    # Tests override this with a factory bound to one connection inside a rolled-back transaction.
    session_factory = providers.Singleton(create_session_factory, bind=engine)
    # Every store that writes gets this one writer: on SQLite, one write transaction at a time.
    writer = providers.Singleton(SqlWriter, sessions=session_factory)
    unit_of_work = providers.Factory(SqlUnitOfWork, writer=writer)

    user_roles = providers.Singleton(CachedUserRoles, sessions=session_factory)
    password_hasher = providers.Singleton(Argon2PasswordHasher)
    access_tokens = providers.Singleton(
        JwtAccessTokens,
        secret=settings.provided.secret_key,
        lifetime_seconds=providers.Callable(lambda s: s.access_token_minutes * 60, settings),
    )
    # Sign-in, sign-up, reset and contact throttles and the request rate limit, shared by every
    # process: Redis when PERILSCOPE_THROTTLE=redis (the default with the Redis queue), else the database.
    # Redis, S3 and Taskiq adapters come from entrypoints/optional_adapters.py, which imports
    # their SDKs only when chosen: the embedded server's memory stays without them.
    throttle_redis = providers.Singleton(optional_adapters.throttle_redis, settings.provided.redis_url)
    attempt_throttle = providers.Selector(
        providers.Callable(lambda s: s.throttle, settings),
        database=providers.Singleton(SqlAttemptThrottle, sessions=session_factory, writer=writer, clock=clock),
        redis=providers.Singleton(optional_adapters.redis_attempt_throttle, redis=throttle_redis, clock=clock),
    )
    request_window = providers.Selector(
        providers.Callable(lambda s: s.throttle, settings),
        database=providers.Singleton(SqlRequestWindow, writer=writer, clock=clock),
        redis=providers.Singleton(optional_adapters.redis_request_window, redis=throttle_redis, clock=clock),
    )

    mailer = providers.Selector(
        providers.Callable(lambda s: s.mailer, settings),
        outbox=providers.Singleton(OutboxMailer, session_factory=session_factory, writer=writer, clock=clock),
        smtp=providers.Singleton(
            SmtpMailer,
            config=providers.Factory(
                SmtpConfig,
                host=settings.provided.smtp_host,
                port=settings.provided.smtp_port,
                username=settings.provided.smtp_username,
                password=settings.provided.smtp_password,
                starttls=settings.provided.smtp_starttls,
                sender=settings.provided.mail_from,
            ),
        ),
    )

    system_settings = providers.Singleton(
        SqlSystemSettingsStore,
        sessions=session_factory,
        writer=writer,
        defaults=providers.Factory(
            SystemSettings,
            monthly_search_limit=settings.provided.monthly_search_limit,
            monthly_batch_row_limit=settings.provided.monthly_batch_row_limit,
        ),
        clock=clock,
    )
    request_rate_limit = providers.Singleton(
        RequestRateLimit,
        settings=system_settings,
        window=request_window,
        per_minute=settings.provided.rate_limit_per_minute,
    )

    # --- two-factor sign-in --------------------------------------------------------------
    mfa_store = providers.Singleton(SqlMfaStore, sessions=session_factory, writer=writer)
    mfa_challenges = providers.Singleton(SignedMfaChallenge, secret=settings.provided.secret_key)
    mfa_gate = providers.Singleton(MfaGate, store=mfa_store, sealer=mfa_challenges, settings=system_settings)

    account_policy = providers.Singleton(
        AccountPolicy,
        reset_url_base=settings.provided.base_url,
        refresh_reuse_window=providers.Callable(lambda seconds: timedelta(seconds=seconds),
                                                settings.provided.refresh_reuse_seconds),
        signups_per_address=providers.Callable(signups_per_address_rule, settings.provided.signups_per_address_per_hour),
    )
    accounts = providers.Singleton(
        AccountService,
        uow=unit_of_work.provider,
        hasher=password_hasher,
        tokens=access_tokens,
        throttle=attempt_throttle,
        clock=clock,
        policy=account_policy,
        dummy_hash=providers.Singleton(lambda hasher: hasher.hash_of_random_password(), password_hasher),
        settings=system_settings,
        roles=user_roles,
        strength=providers.Singleton(ZxcvbnPasswordStrength),
        second_factor=mfa_gate,
    )
    mfa = providers.Singleton(
        MfaService,
        store=mfa_store,
        codes=providers.Singleton(PyotpCodes),
        qr=providers.Singleton(SegnoQrCodes),
        box=providers.Singleton(AesGcmSecretBox, secret_key=settings.provided.secret_key),
        sealer=mfa_challenges,
        hasher=password_hasher,
        # Codes tried, 5 per sign-in attempt and per account in 15 minutes (ASVS 2.2.1), shared.
        throttle=attempt_throttle,
        clock=clock,
        accounts=accounts,
        gate=mfa_gate,
        uow=unit_of_work.provider,
    )
    admin = providers.Singleton(
        AdminService,
        uow=unit_of_work.provider,
        directory=providers.Singleton(SqlUserDirectory, sessions=session_factory),
        accounts=accounts,
        settings=system_settings,
        clock=clock,
        roles=user_roles,
    )

    contact = providers.Singleton(
        ContactService,
        mailer=mailer,
        recipients=settings.provided.contact_recipients,
        throttle=attempt_throttle,
    )

    external_identity = providers.Singleton(
        OidcIdentityProvider,
        clients=providers.Callable(
            lambda s: [
                ClientCredentials(c.provider, c.client_id, c.client_secret, c.issuer_url) for c in s.oidc_clients
            ],
            settings,
        ),
    )
    pending_sign_in_sealer = providers.Singleton(SignedPendingSignIn, secret=settings.provided.secret_key)
    external_sign_in = providers.Singleton(
        ExternalSignIn, identity=external_identity, sealer=pending_sign_in_sealer, accounts=accounts
    )

    # --- property lookup ---------------------------------------------------------
    # One outgoing HTTP client for every third-party provider; closed on shutdown (http/app.py).
    http_client = providers.Singleton(new_http_client, timeout_seconds=10.0)
    reference_index = providers.Singleton(
        ReferenceIndex, sessions=session_factory, recheck_seconds=settings.provided.reference_recheck_seconds
    )
    geocoder = providers.Selector(
        providers.Callable(lambda s: s.geocoder, settings),
        embedded=providers.Singleton(ZipCentroidGeocoder, index=reference_index),
        census=providers.Singleton(
            CensusGeocoder,
            client=http_client,
            fallback=providers.Singleton(ZipCentroidGeocoder, index=reference_index),
        ),
    )
    places = providers.Selector(
        providers.Callable(lambda s: s.places_provider, settings),
        registry=providers.Singleton(BusinessRegistryPlaces, index=reference_index),
        google=providers.Singleton(
            GooglePlacesProvider, client=http_client, api_key=settings.provided.google_maps_api_key
        ),
        yelp=providers.Singleton(YelpFusionProvider, client=http_client, api_key=settings.provided.yelp_api_key),
    )
    # Photos come through the server with the Google key; without a key there is no photo source.
    photo_source = providers.Singleton(
        lambda key, client: GooglePlacePhotos(client(), key) if key else None,
        settings.provided.google_maps_api_key,
        http_client.provider,
    )
    place_photos = providers.Singleton(PlacePhotos, source=photo_source)
    naics_table = providers.Singleton(NaicsTable, index=reference_index)
    lookup_providers = providers.Singleton(
        LookupProviders,
        parser=providers.Singleton(UsaddressParser),
        geocoder=geocoder,
        places=places,
        perils=providers.Singleton(NriCountyScores, index=reference_index),
        locator=providers.Singleton(ZipAndPlaceCountyLocator, index=reference_index),
        buildings=providers.Singleton(BuildingRecords, index=reference_index),
        naics=naics_table,
        catalogue=providers.Singleton(LoadedDatasets, index=reference_index),
        tracts=providers.Singleton(NriTractScores, index=reference_index),
        points=providers.Singleton(CountyPoints, index=reference_index),
        places_named=providers.Singleton(EmbeddedPlaceResolver, index=reference_index),
    )
    # On SQLite (the embedded default) the lookup's hot write skips aiosqlite's thread hops.
    search_store = providers.Selector(
        providers.Callable(lambda s: "sqlite" if is_sqlite(s.database_url) else "server", settings),
        sqlite=providers.Singleton(
            SqliteLoopSearchStore, sessions=session_factory, writer=writer, database_url=settings.provided.database_url
        ),
        server=providers.Singleton(SqlSearchStore, sessions=session_factory, writer=writer),
    )
    quota_ledger = providers.Singleton(SqlQuotaLedger, writer=writer)
    search_quota = providers.Singleton(
        SearchQuota,
        ledger=quota_ledger,
        searches=search_store,
        settings=system_settings,
        rate_limit=request_rate_limit,
        roles=user_roles,
        clock=clock,
    )
    lookup = providers.Singleton(
        LookupService,
        providers=lookup_providers,
        searches=search_store,
        quota=search_quota,
        clock=clock,
        settings=system_settings,
        metrics=metrics,
    )

    # --- public API (/api/v1): keys, short-lived bearer tokens, plans and daily limits ------
    api_keys = providers.Singleton(
        ApiKeyService,
        store=providers.Singleton(SqlApiKeyStore, sessions=session_factory, writer=writer),
        tokens=providers.Singleton(
            JwtApiTokens,
            secret=settings.provided.secret_key,
            lifetime_seconds=providers.Callable(lambda s: s.access_token_minutes * 60, settings),
        ),
        clock=clock,
    )
    api_plans = providers.Singleton(
        ApiPlans,
        plans=providers.Singleton(SqlPlanStore, sessions=session_factory, writer=writer),
        usage=providers.Singleton(SqlDailyUsageLedger, sessions=session_factory, writer=writer),
        roles=user_roles,
        clock=clock,
    )

    public_api = providers.Singleton(
        PublicApi,
        lookup=lookup,
        plans=api_plans,
        answers=providers.Singleton(SqlApiAnswerStore, sessions=session_factory, writer=writer),
        clock=clock,
    )

    # --- signed webhooks when a public-API batch ends (application/webhooks.py) ---------
    webhook_sender = providers.Singleton(HttpxWebhookSender)
    webhooks = providers.Singleton(
        Webhooks,
        deliveries=providers.Singleton(SqlDeliveryStore, sessions=session_factory, writer=writer),
        secrets=providers.Singleton(SqlSigningSecretStore, sessions=session_factory, writer=writer),
        box=providers.Singleton(AesGcmSecretBox, secret_key=settings.provided.secret_key, purpose="perilscope-webhook-secret"),
        resolver=providers.Singleton(LoopHostResolver),
        sender=webhook_sender,
        clock=clock,
        policy=providers.Factory(
            WebhookPolicy, allowed_hosts=providers.Callable(lambda s: frozenset(s.webhook_allowed_hosts), settings)
        ),
    )
    # The ports of application/ports/webhooks.py, both served by the one service.
    callback_url_check = webhooks
    batch_ended_listener = webhooks
    # --- files: uploads, chunk results and exports, streamed ------------------------------
    file_store = providers.Selector(
        providers.Callable(lambda s: s.file_store, settings),
        local=providers.Singleton(LocalFileStore, root=settings.provided.files_dir),
        s3=providers.Singleton(
            optional_adapters.s3_file_store,
            endpoint_url=settings.provided.s3_endpoint_url,
            region=settings.provided.s3_region,
            bucket=settings.provided.s3_bucket,
        ),
    )

    orphan_files = providers.Singleton(
        OrphanFiles, files=file_store, references=providers.Singleton(SqlFileReferences, sessions=session_factory),
        clock=clock, min_age=providers.Callable(lambda s: timedelta(seconds=s.orphan_file_age_seconds), settings),
    )

    # --- batch ---------------------------------------------------------------------
    batch_store = providers.Singleton(SqlBatchStore, sessions=session_factory, writer=writer)
    in_process_queue = providers.Singleton(InProcessJobQueue, metrics=metrics)
    job_queue = providers.Selector(
        providers.Callable(lambda s: s.job_queue, settings),
        inprocess=in_process_queue,
        taskiq=providers.Singleton(
            optional_adapters.taskiq_job_queue,
            redis_url=settings.provided.redis_url,
            queue_name=settings.provided.job_queue_name,
        ),
    )
    batch_allowance = providers.Singleton(
        BatchAllowance,
        ledger=providers.Singleton(SqlBatchRowLedger, sessions=session_factory, writer=writer),
        storage=batch_store,
        settings=system_settings,
        clock=clock,
        roles=user_roles,
        limits=providers.Factory(
            BatchLimits,
            storage_bytes=settings.provided.user_storage_bytes,
            upload_retention=providers.Callable(lambda s: timedelta(hours=s.upload_retention_hours), settings),
        ),
    )
    chunk_store = providers.Singleton(SqlChunkStore, sessions=session_factory, writer=writer)
    chunk_policy = providers.Singleton(
        ChunkPolicy,
        chunk_rows=settings.provided.batch_chunk_rows,
        max_attempts=settings.provided.batch_chunk_attempts,
        lease_seconds=settings.provided.batch_lease_seconds,
        # A queued chunk is given a new task once it has waited a lease with nothing running.
        stale_seconds=settings.provided.batch_lease_seconds,
    )
    batch = providers.Singleton(
        BatchService, store=batch_store, lookup=lookup, searches=search_store, clock=clock, queue=job_queue.provider,
        allowance=batch_allowance,
        downloads=providers.Singleton(optional_adapters.result_downloads, files=file_store),
        chunks=chunk_store, files=file_store, results=providers.Singleton(ParquetChunkWriter),
        scores=providers.Singleton(optional_adapters.export_scores),
        policy=chunk_policy, worker_id=providers.Callable(worker_identity),
        ended=batch_ended_listener, metrics=metrics,
        caps=providers.Factory(
            UploadCaps, max_rows=settings.provided.batch_max_rows, max_bytes=settings.provided.upload_max_bytes
        ),
        # Each user's detailed downloads and legacy searches at once, counted in every process.
        heavy=providers.Singleton(HeavyWork, throttle=attempt_throttle),
    )
    # The public API's batches (/api/v1/search/batch) on the same jobs, charged to the daily plan.
    api_batches = providers.Singleton(
        ApiBatches, batch=batch, plans=api_plans, callback_check=callback_url_check, clock=clock,
        max_addresses=settings.provided.api_batch_max_addresses,
    )
    idempotency = providers.Singleton(
        Idempotency,
        store=providers.Singleton(SqlIdempotencyStore, sessions=session_factory, writer=writer),
        box=providers.Singleton(AesGcmSecretBox, secret_key=settings.provided.secret_key, purpose="perilscope-idempotency"),
        clock=clock
    )
    # The queue runs the service's jobs and the service enqueues them: both get a lazy handle.
    in_process_queue.add_kwargs(service=batch.provider)
    # The portfolio's summaries: group-bys over the export's dataset (adapters/results/portfolio.py, H5).
    portfolios = providers.Singleton(
        PortfolioService, store=batch_store, files=file_store, naics=naics_table,
        queries=providers.Singleton(optional_adapters.portfolio_queries, files=file_store),
    )
    # The viewer's pages: queries over the export's dataset (adapters/results/viewer.py, H4).
    export_rows = providers.Singleton(
        ExportRowsService, store=batch_store, files=file_store,
        queries=providers.Singleton(optional_adapters.viewer_queries, files=file_store),
    )


def build_container(settings: Settings | None = None) -> Container:
    return Container(settings=settings or Settings.from_env())
