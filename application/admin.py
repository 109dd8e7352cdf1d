"""Administration: users and their roles, system statistics, and the enforced system settings
(SPEC §2 admin pages, §6, §7). Every use case here expects a caller already checked by
`require_admin`, which reads the role from the database rather than trusting the token."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, time

from application.accounts import AccountService, SearchStats
from application.errors import Conflict, Forbidden, InvalidInput, NotAuthenticated, NotFound
from application.ports.accounts import AccessClaims, UnitOfWorkFactory, UserRoles
from application.ports.admin import SystemCounts, UserDirectory
from application.ports.clock import Clock
from application.ports.settings import SystemSettingsStore
from domain.accounts import Role, User
from domain.quota import month_key
from domain.system_settings import SettingsError, SystemSettings, near_limit_threshold

ADMIN_REQUIRED = "Administrator rights are required"
LAST_ADMIN = "You are the only administrator: make another user an administrator before changing your own role."


class AdminService:
    def __init__(
        self,
        uow: UnitOfWorkFactory,
        directory: UserDirectory,
        accounts: AccountService,
        settings: SystemSettingsStore,
        clock: Clock,
        roles: UserRoles,
    ) -> None:
        self._uow = uow
        self._directory = directory
        self._accounts = accounts
        self._settings = settings
        self._clock = clock
        self._roles = roles

    async def require_admin(self, caller: AccessClaims) -> AccessClaims:
        """The role is read from the database: a demoted admin loses access at once, even while
        an access token issued before the change is still valid."""
        async with self._uow() as uow:
            user = await uow.users.by_id(caller.user_id)
        if user is None:
            raise NotAuthenticated("Sign in to continue")
        if user.role is not Role.ADMIN:
            raise Forbidden(ADMIN_REQUIRED)
        return AccessClaims(user_id=user.id)

    async def users(self) -> list[User]:
        return await self._directory.all_users()

    async def user_info(self, user_id: str) -> tuple[User, SearchStats]:
        async with self._uow() as uow:
            user = await uow.users.by_id(user_id)
        if user is None:
            raise NotFound("User not found")
        return user, await self._accounts.search_stats(user_id)

    async def change_role(self, admin: AccessClaims, user_id: str, role: Role) -> User:
        async with self._uow() as uow:
            user = await uow.users.by_id(user_id)
            if user is None:
                raise NotFound("User not found")
            if user.role is role:
                return user
            if user.id == admin.user_id and await self._directory.admin_count() <= 1:
                raise Conflict(LAST_ADMIN)
            await uow.users.set_role(user.id, role)
            await uow.commit()
        self._roles.forget(user.id)
        return replace(user, role=role)

    async def statistics(self) -> SystemCounts:
        now = self._clock.now()
        day_start = datetime.combine(now.date(), time.min, tzinfo=now.tzinfo)
        month_start = day_start.replace(day=1)
        limit = (await self._settings.current()).monthly_search_limit
        return await self._directory.counts(month_key(now), month_start, day_start, near_limit_threshold(limit))

    async def settings(self) -> SystemSettings:
        return await self._settings.current()

    async def save_settings(
        self,
        admin: AccessClaims,
        monthly_search_limit: int,
        rate_limiting: bool,
        search_caching: bool,
        monthly_batch_row_limit: int | None = None,
        require_admin_mfa: bool = False,
    ) -> SystemSettings:
        if monthly_batch_row_limit is None:  # older clients send only SPEC's three settings
            monthly_batch_row_limit = (await self._settings.current()).monthly_batch_row_limit
        try:
            settings = SystemSettings(
                monthly_search_limit, rate_limiting, search_caching, monthly_batch_row_limit,
                require_admin_mfa=require_admin_mfa,
            )
        except SettingsError as error:
            raise InvalidInput(str(error)) from error
        await self._settings.save(settings, saved_by=admin.user_id)
        return settings
