"""The one place where ports meet their adapters, chosen by settings."""

from __future__ import annotations

from dependency_injector import containers, providers

from adapters.clock import SystemClock
from adapters.db.account_repositories import SqlUnitOfWork
from adapters.db.engine import create_engine, create_session_factory, is_sqlite
from adapters.db.sqlite_loop_store import SqliteLoopSearchStore
from adapters.db.writer import SqlWriter
from adapters.identity.oidc_client import OidcIdentityProvider
from adapters.identity.oidc_providers import ClientCredentials
from adapters.identity.pending_state import SignedPendingSignIn
from adapters.mail.outbox import OutboxMailer
from adapters.mail.smtp import SmtpConfig, SmtpMailer
from adapters.security.access_tokens import JwtAccessTokens
from adapters.security.attempt_limiter import SlidingWindowLimiter
from adapters.security.passwords import Argon2PasswordHasher
from adapters.db.settings_repository import SqlSystemSettingsStore
from adapters.db.user_directory import SqlUserDirectory
from application.accounts import AccountPolicy, AccountService
from application.admin import AdminService
from application.rate_limit import RequestRateLimit
from domain.system_settings import SystemSettings
from adapters.db.batch_repository import SqlBatchStore
from adapters.jobs.in_process import InProcessJobQueue
from adapters.jobs.taskiq_queue import TaskiqJobQueue, make_broker
from application.batch import BatchService
from application.contact import ContactService
from application.external_sign_in import ExternalSignIn
from application.lookup import LookupProviders, LookupService
from adapters.address_parser import UsaddressParser
from adapters.reference_data.memory_index import (
    BuildingRecords,
    BusinessRegistryPlaces,
    NaicsTable,
    NriCountyScores,
    ReferenceIndex,
    ZipCentroidGeocoder,
)
from adapters.db.search_repositories import SqlQuotaLedger, SqlSearchStore
from adapters.providers.census_geocoder import CensusGeocoder
from adapters.providers.common import new_http_client
from adapters.providers.google_photos import GooglePlacePhotos
from adapters.providers.google_places import GooglePlacesProvider
from adapters.providers.yelp_fusion import YelpFusionProvider
from application.photos import PlacePhotos
from entrypoints.settings import Settings


class Container(containers.DeclarativeContainer):
    settings = providers.Dependency(instance_of=Settings)

    clock = providers.Singleton(SystemClock)
    engine = providers.Singleton(create_engine, url=settings.provided.database_url)
    # Tests override this with a factory bound to one connection inside a rolled-back transaction.
    session_factory = providers.Singleton(create_session_factory, bind=engine)
    # Every store that writes gets this one writer: on SQLite, one write transaction at a time.
    writer = providers.Singleton(SqlWriter, sessions=session_factory)
    unit_of_work = providers.Factory(SqlUnitOfWork, writer=writer)

    password_hasher = providers.Singleton(Argon2PasswordHasher)
    access_tokens = providers.Singleton(
        JwtAccessTokens,
        secret=settings.provided.secret_key,
        lifetime_seconds=providers.Callable(lambda s: s.access_token_minutes * 60, settings),
    )
    login_limiter = providers.Singleton(SlidingWindowLimiter, max_failures=5, window_seconds=900)

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
        defaults=providers.Factory(SystemSettings, monthly_search_limit=settings.provided.monthly_search_limit),
        clock=clock,
    )
    request_rate_limit = providers.Singleton(
        RequestRateLimit,
        settings=system_settings,
        window=providers.Singleton(
            SlidingWindowLimiter, max_failures=settings.provided.rate_limit_per_minute, window_seconds=60
        ),
    )

    account_policy = providers.Singleton(AccountPolicy, reset_url_base=settings.provided.base_url)
    accounts = providers.Singleton(
        AccountService,
        uow=unit_of_work.provider,
        hasher=password_hasher,
        tokens=access_tokens,
        limiter=login_limiter,
        clock=clock,
        policy=account_policy,
        dummy_hash=providers.Singleton(lambda hasher: hasher.hash_of_random_password(), password_hasher),
        settings=system_settings,
    )
    admin = providers.Singleton(
        AdminService,
        uow=unit_of_work.provider,
        directory=providers.Singleton(SqlUserDirectory, sessions=session_factory),
        accounts=accounts,
        settings=system_settings,
        clock=clock,
    )

    contact = providers.Singleton(
        ContactService,
        mailer=mailer,
        recipients=settings.provided.contact_recipients,
        limiter=providers.Singleton(SlidingWindowLimiter, max_failures=5, window_seconds=3600),
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
    reference_index = providers.Singleton(ReferenceIndex, sessions=session_factory)
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
    lookup_providers = providers.Singleton(
        LookupProviders,
        parser=providers.Singleton(UsaddressParser),
        geocoder=geocoder,
        places=places,
        perils=providers.Singleton(NriCountyScores, index=reference_index),
        buildings=providers.Singleton(BuildingRecords, index=reference_index),
        naics=providers.Singleton(NaicsTable, index=reference_index),
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
    lookup = providers.Singleton(
        LookupService,
        providers=lookup_providers,
        searches=search_store,
        quota=quota_ledger,
        clock=clock,
        settings=system_settings,
        rate_limit=request_rate_limit,
    )

    # --- batch ---------------------------------------------------------------------
    batch_store = providers.Singleton(SqlBatchStore, sessions=session_factory, writer=writer)
    in_process_queue = providers.Singleton(InProcessJobQueue)
    job_queue = providers.Selector(
        providers.Callable(lambda s: s.job_queue, settings),
        inprocess=in_process_queue,
        taskiq=providers.Singleton(
            TaskiqJobQueue,
            broker=providers.Singleton(
                make_broker, redis_url=settings.provided.redis_url, queue_name=settings.provided.job_queue_name
            ),
        ),
    )
    batch = providers.Singleton(
        BatchService, store=batch_store, lookup=lookup, searches=search_store, clock=clock, queue=job_queue.provider
    )
    # The queue runs the service's jobs and the service enqueues them: both get a lazy handle.
    in_process_queue.add_kwargs(service=batch.provider)


def build_container(settings: Settings | None = None) -> Container:
    return Container(settings=settings or Settings.from_env())
