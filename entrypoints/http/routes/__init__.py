"""Every HTTP route of the app; a feature adds its module's ROUTES here."""

from entrypoints.http.routes import admin, auth, batch, contact, health, mfa, oidc, photos, searches

ROUTE_HANDLERS = [
    *health.ROUTES,
    *auth.ROUTES,
    *oidc.ROUTES,
    *mfa.ROUTES,
    *searches.ROUTES,
    *photos.ROUTES,
    *contact.ROUTES,
    *batch.ROUTES,
    *admin.ROUTES,
]
