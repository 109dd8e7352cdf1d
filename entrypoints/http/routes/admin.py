"""SPEC §7's admin calls plus the saved system settings. Every handler takes the `admin`
dependency, so anonymous callers get 401 and regular users 403 before the handler runs."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal

import msgspec
from litestar import get, post, put
from litestar.params import FromPath, JSONBody

from domain.accounts import Role
from domain.api_access import UserPlan
from domain.system_settings import SystemSettings
from entrypoints.http.dependencies import Admin, Administration, ApiPlansService, TwoFactorGate
from entrypoints.http.openapi import JSON_BODY, admin_only
from entrypoints.http.routes.auth import user_info_json

UserId = Annotated[str, msgspec.Meta(max_length=36)]


class RoleChange(msgspec.Struct):
    uid: UserId
    role: Literal["user", "admin"]


class PlanChange(msgspec.Struct):
    uid: UserId
    plan: Literal["standard", "premium", "enterprise"]
    daily_limit: int | None = None  # Enterprise only: its custom number of requests a day


class SettingsBody(msgspec.Struct):
    monthly_search_limit: int
    rate_limiting: bool
    search_caching: bool
    monthly_batch_row_limit: int | None = None  # kept as saved when left out
    require_admin_mfa: bool = False


def plan_json(plan: UserPlan) -> dict[str, Any]:
    return {"plan": plan.plan.value, "daily_limit": plan.daily_limit}


def settings_json(settings: SystemSettings) -> dict[str, Any]:
    return dataclasses.asdict(settings)


@get("/api/admin/list-users", tags=["admin"], summary="Every account, newest first", **admin_only())
async def list_users(admin_service: Administration, admin: Admin) -> dict[str, Any]:
    return {"status": "success", "users": [user_info_json(user) for user in await admin_service.users()]}


@get(
    "/api/admin/user-info/{uid:str}",
    tags=["admin"],
    summary="One account with its search statistics",
    **admin_only(400, 404),
)
async def user_info(
    admin_service: Administration, api_plans: ApiPlansService, admin: Admin, uid: FromPath[str]
) -> dict[str, Any]:
    user, stats = await admin_service.user_info(uid)
    plan = await api_plans.plan_of(user.id)
    return {
        "status": "success",
        "user": {**user_info_json(user), "search_stats": dataclasses.asdict(stats), "api_plan": plan_json(plan)},
    }


@post(
    "/api/admin/update-user-role",
    tags=["admin"],
    status_code=200,
    summary="Make a user an admin or a regular user",
    **admin_only(JSON_BODY, 404, 409),
)
async def update_user_role(admin_service: Administration, admin: Admin, data: JSONBody[RoleChange]) -> dict[str, Any]:
    user = await admin_service.change_role(admin, data.uid, Role(data.role))
    return {"status": "success", "user": user_info_json(user)}


@post(
    "/api/admin/update-user-plan",
    tags=["admin"],
    status_code=200,
    summary="Set a user's public API plan (daily_limit only with enterprise); enforced from the next request",
    **admin_only(JSON_BODY, 404),
)
async def update_user_plan(api_plans: ApiPlansService, admin: Admin, data: JSONBody[PlanChange]) -> dict[str, Any]:
    plan = await api_plans.set_plan(data.uid, data.plan, data.daily_limit)
    return {"status": "success", "uid": data.uid, "api_plan": plan_json(plan)}


@get("/api/admin/search-stats", tags=["admin"], summary="Users and searches across the system", **admin_only())
async def search_stats(admin_service: Administration, api_plans: ApiPlansService, admin: Admin) -> dict[str, Any]:
    stats = dataclasses.asdict(await admin_service.statistics())
    api_today = await api_plans.today()
    # The public API's use today (UTC), beside SPEC's search counts.
    stats.update(api_requests_today=api_today.requests, api_callers_today=api_today.callers)
    return {"status": "success", "stats": stats}


@get("/api/admin/settings", tags=["admin"], summary="The saved system settings", **admin_only())
async def get_settings(admin_service: Administration, admin: Admin) -> dict[str, Any]:
    return {"status": "success", "settings": settings_json(await admin_service.settings())}


@put(
    "/api/admin/settings",
    tags=["admin"],
    summary="Save the system settings; enforced from the next request",
    **admin_only(JSON_BODY, 409),
)
async def put_settings(
    admin_service: Administration, mfa_gate: TwoFactorGate, admin: Admin, data: JSONBody[SettingsBody]
) -> dict[str, Any]:
    if data.require_admin_mfa:
        await mfa_gate.refuse_requiring_without_own_enrolment(admin.user_id)
    saved = await admin_service.save_settings(
        admin, data.monthly_search_limit, data.rate_limiting, data.search_caching, data.monthly_batch_row_limit,
        require_admin_mfa=data.require_admin_mfa,
    )
    return {"status": "success", "settings": settings_json(saved)}


ROUTES = [list_users, user_info, update_user_role, update_user_plan, search_stats, get_settings, put_settings]
