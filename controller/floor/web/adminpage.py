"""The admin's user pages (docs/floor-web.md, The admin's user pages):
their routes.

``/admin/users`` (admins only, where their login takes them): every user with their role, state,
when made and when their password was last set, the forms to add a user and to change one (a
new password, a role, disabled or enabled), and the latest lines of the log of changes. Every
change is a POST carrying the session's CSRF token; it is made by the owner's functions of the
web schema (controller/floor/web/users.py ``add_by_admin`` and the rest), which refuse any admin
account and the admin's own: those are the database owner's (``tablectl floor user``). A change
refused shows the page again with the reason and its status; one made redirects to the page.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Final

import structlog
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from controller.floor.web import auth, users
from controller.floor.web.moments import shown
from controller.floor.web.replies import form_text, refused, signed_in_as
from controller.floor.web.users import User

if TYPE_CHECKING:
    from controller.floor.web.app import Web

log = structlog.get_logger("tablectl.floor.web")

#: Who may open the page (docs/floor-web.md, Users and roles).
ADMINS: Final = frozenset({"admin"})
PAGE: Final = "/admin/users"
#: A change of one user: the connection, the acting admin, the user's name, the form; what was
#: done, in words (for the log).
Action = Callable[[users.AsyncConn, str, str, FormData], Awaitable[str]]


async def _add(conn: users.AsyncConn, actor: str, _name: str, form: FormData) -> str:
    name, role = form_text(form, "name").strip(), form_text(form, "role")
    await users.add_by_admin(conn, actor, name, role, form_text(form, "password"))
    return f"added {name} as {role}"


async def _password(conn: users.AsyncConn, actor: str, name: str, form: FormData) -> str:
    await users.passwd_by_admin(conn, actor, name, form_text(form, "password"))
    return f"set a new password for {name}"


async def _role(conn: users.AsyncConn, actor: str, name: str, form: FormData) -> str:
    role = form_text(form, "role")
    await users.role_by_admin(conn, actor, name, role)
    return f"made {name} {role}"


async def _disable(conn: users.AsyncConn, actor: str, name: str, _form: FormData) -> str:
    await users.disabled_by_admin(conn, actor, name, disabled=True)
    return f"disabled {name}"


async def _enable(conn: users.AsyncConn, actor: str, name: str, _form: FormData) -> str:
    await users.disabled_by_admin(conn, actor, name, disabled=False)
    return f"enabled {name}"


class AdminPage:
    def __init__(self, web: Web) -> None:
        self.web = web

    def routes(self) -> list[Route]:
        one = PAGE + "/{name}"
        return [
            Route(PAGE, self.page, methods=["GET"]),
            Route(PAGE, self._change(_add), methods=["POST"]),
            Route(one + "/password", self._change(_password), methods=["POST"]),
            Route(one + "/role", self._change(_role), methods=["POST"]),
            Route(one + "/disable", self._change(_disable), methods=["POST"]),
            Route(one + "/enable", self._change(_enable), methods=["POST"]),
        ]

    async def _admin(self, request: Request) -> User | Response:
        user = await self.web.user(request)
        if user is None:
            return RedirectResponse("/login", status_code=303)
        if user.role not in ADMINS:
            return refused(
                403,
                "Forbidden: the user pages are for admins (a user is changed by an admin here, "
                "or by the database owner with `tablectl floor user`): " + signed_in_as(user.role),
            )
        return user

    async def page(self, request: Request) -> Response:
        user = await self._admin(request)
        if isinstance(user, Response):
            return user
        return await self._render(request, user, None, 200, {})

    async def _render(
        self,
        request: Request,
        user: User,
        error: str | None,
        status: int,
        typed: dict[str, str],
    ) -> Response:
        async with await self.web.reader() as conn:
            accounts = await users.accounts(conn)
            changes = await users.changes(conn)
        session = self.web.session(request)
        assert session is not None  # web.user found the session's user
        context = {
            "user": user,
            "accounts": [_shown_account(a, user.name) for a in accounts],
            "changes": [_shown_change(c) for c in changes],
            "roles": users.GIVEN_ROLES,
            "min_password": users.MIN_PASSWORD,
            "error": error,
            "typed": typed,
        }
        return self.web.page(request, "admin_users.html", context, session, status)

    def _change(self, change: Action) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            form = await request.form()
            if not auth.csrf_ok(self.web.session(request), form.get(auth.CSRF_FIELD)):
                return refused(403, "Forbidden: the form has expired: load the users page again")
            user = await self._admin(request)
            if isinstance(user, Response):
                return user
            name = str(request.path_params.get("name", ""))
            try:
                async with await self.web.reader() as conn:
                    done = await change(conn, user.name, name, form)
            except users.ChangeRefused as error:
                # What was typed is kept, but never a password (it goes back to no page).
                typed = {"name": form_text(form, "name"), "role": form_text(form, "role")}
                return await self._render(request, user, str(error), error.status, typed)
            log.info("web_user_changed", by=user.name, what=done)
            return RedirectResponse(PAGE, status_code=303)

        return endpoint


def _shown_account(account: users.Account, me: str) -> dict[str, object]:
    """A row of the list: its times as the pages show them (UTC, to the second), and whether the
    admin may change it here (not an admin's, not their own: the database owner's)."""
    return {
        "name": account.name,
        "role": account.role,
        "disabled": account.disabled,
        "created": shown(account.created_at),
        "password_changed": shown(account.password_changed_at),
        "mine": account.name == me,
        "changeable": account.role != "admin" and account.name != me,
    }


def _shown_change(change: users.Change) -> dict[str, str]:
    return {
        "at": shown(change.at),
        "actor": change.actor,
        "user_name": change.user_name,
        "change": change.change,
    }
