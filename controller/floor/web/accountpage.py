"""A user's own password, changed in the browser (docs/floor-web.md, Your own password): its
routes.

``/account/password`` (every role with pages; the header's user name links to it): the current
password, the new one twice. The POST carries the session's CSRF token; a wrong current
password counts as a failed login of the user and of the address (the login's rate limit, so
the form is no way round it). Made, the change ends every session of the user, this one too:
the browser goes to the login page, which says so. An admin changes their own password here
too; their account is otherwise the database owner's (``tablectl floor user``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import structlog
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from controller.floor.web import auth, users
from controller.floor.web.replies import a, form_text, refused
from controller.floor.web.users import User

if TYPE_CHECKING:
    from controller.floor.web.app import Web

log = structlog.get_logger("tablectl.floor.web")

PAGE: Final = "/account/password"
#: Where a changed password sends the browser: the login page, saying why.
CHANGED: Final = "/login?changed=1"
#: The broadcaster is an overlay machine's login with no page: an admin sets its password.
WITHOUT_PAGES: Final = frozenset({"broadcaster"})


class AccountPage:
    def __init__(self, web: Web) -> None:
        self.web = web

    def routes(self) -> list[Route]:
        return [
            Route(PAGE, self.page, methods=["GET"]),
            Route(PAGE, self.change, methods=["POST"]),
        ]

    async def _user(self, request: Request) -> User | Response:
        user = await self.web.user(request)
        if user is None:
            return RedirectResponse("/login", status_code=303)
        if user.role in WITHOUT_PAGES:
            return refused(
                403, f"Forbidden: {a(user.role)}'s password is set by an admin, on the users page"
            )
        return user

    async def page(self, request: Request) -> Response:
        user = await self._user(request)
        if isinstance(user, Response):
            return user
        return self._render(request, user, None, 200)

    def _render(self, request: Request, user: User, error: str | None, status: int) -> Response:
        session = self.web.session(request)
        assert session is not None  # web.user found the session's user
        context = {"user": user, "error": error, "min_password": users.MIN_PASSWORD}
        return self.web.page(request, "account_password.html", context, session, status)

    async def change(self, request: Request) -> Response:
        form = await request.form()
        if not auth.csrf_ok(self.web.session(request), form.get(auth.CSRF_FIELD)):
            return refused(403, "Forbidden: the form has expired: load the page again")
        user = await self._user(request)
        if isinstance(user, Response):
            return user
        address = request.client.host if request.client else "unknown"
        wait = max(
            self.web.by_user.retry_after(user.name), self.web.by_address.retry_after(address)
        )
        if wait > 0:
            said = f"Too many wrong passwords: try again in {int(wait) + 1} s."
            response = self._render(request, user, said, 429)
            response.headers["retry-after"] = str(int(wait) + 1)
            return response
        new, again = form_text(form, "new"), form_text(form, "again")
        if new != again:
            return self._render(
                request, user, "The two new passwords differ: type them again.", 400
            )
        try:
            async with await self.web.reader() as conn:
                await users.own_password(conn, user.name, form_text(form, "current"), new)
        except users.ChangeRefused as error:
            if error.status == 403:  # a wrong current password: a guess, as at the login
                self.web.by_user.failed(user.name)
                self.web.by_address.failed(address)
            return self._render(request, user, f"{str(error).capitalize()}.", error.status)
        log.info("web_own_password_changed", user=user.name, role=user.role)
        response = RedirectResponse(CHANGED, status_code=303)
        response.delete_cookie(auth.COOKIE, path="/")
        return response
