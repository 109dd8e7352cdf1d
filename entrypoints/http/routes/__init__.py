"""Every HTTP route of the app; a feature adds its module's ROUTES here."""

from entrypoints.http.routes import (
    admin,
    api_keys,
    auth,
    batch,
    contact,
    export_rows,
    health,
    mfa,
    oidc,
    photos,
    portfolio,
    searches,
    v1,
    v1_batches,
    webhooks,
)

ROUTE_HANDLERS = [
    *health.ROUTES,
    *auth.ROUTES,
    *oidc.ROUTES,
    *mfa.ROUTES,
    *searches.ROUTES,
    *photos.ROUTES,
    *contact.ROUTES,
    *batch.ROUTES,
    *portfolio.ROUTES,
    *export_rows.ROUTES,
    *admin.ROUTES,
    *api_keys.ROUTES,
    *v1.ROUTES,
    *webhooks.ROUTES,
    *v1_batches.ROUTES,
]
