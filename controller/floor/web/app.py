"""The floor's web view as an ASGI application (Starlette): ``build(config)`` (docs/floor-web.md).

Every page and feed is behind a login; each route names the roles that may use it. The store is
read as the web's own role (``[web] user``, which may add to its two logs and change nothing
else), one connection a request (and one for the live feed's reads).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Final

import psycopg
import structlog
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from controller.floor.floortoml import FloorConfig
from controller.floor.web import auth, users
from controller.floor.web.accountpage import AccountPage
from controller.floor.web.adminpage import AdminPage
from controller.floor.web.alarmpage import AlarmPage
from controller.floor.web.feedstreams import Feeds
from controller.floor.web.floorview import floor_rows
from controller.floor.web.frame import FLOOR_ROLES, ErrorFrame, has_account_page, links
from controller.floor.web.live import Live, sse
from controller.floor.web.pages import Pages, landing
from controller.floor.web.replies import refused, signed_in_as
from controller.floor.web.verifypage import Bundler, VerifyPage

log = structlog.get_logger("tablectl.floor.web")

HERE: Final = Path(__file__).parent
HEARTBEAT: Final = 15.0
HEADERS: Final = (
    # No inline script or style anywhere: scripts and styles come from /static only.
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        b"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


class SecurityHeaders:
    """Adds HEADERS (and HSTS over TLS) to every response."""

    def __init__(self, app: ASGIApp, *, tls: bool) -> None:
        self.app = app
        self.headers = [*HEADERS]
        if tls:
            self.headers.append((b"strict-transport-security", b"max-age=31536000"))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *self.headers]
            await send(message)

        await self.app(scope, receive, with_headers if scope["type"] == "http" else send)


class Web:
    """The routes, over one configuration, its session key and its live feed."""

    def __init__(self, config: FloorConfig, secret: bytes, bundler: Bundler | None = None) -> None:
        self.config = config
        #: The dispute bundle's maker, handed in by ``tablectl floor web`` (verifypage.py).
        self.bundler = bundler
        self.sessions = auth.Sessions(secret, secure=config.web.secure_cookies)
        self.by_user = auth.RateLimit(auth.MAX_FAILURES)
        self.by_address = auth.RateLimit(auth.MAX_ADDRESS_FAILURES)
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        # The header offers each role only what it may open (frame.py).
        self.templates.env.globals.update(links=links, has_account_page=has_account_page)
        self.live = Live(config, self.reader)

    async def reader(self) -> psycopg.AsyncConnection[tuple[object, ...]]:
        """A connection as the web's role: it reads, and may only add to the web's logs."""
        return await psycopg.AsyncConnection.connect(
            self.config.web_database.dsn(), autocommit=True
        )

    def session(self, request: Request) -> auth.Session | None:
        return self.sessions.read(request.cookies.get(auth.COOKIE))

    async def framed_user(self, request: Request) -> tuple[users.User | None, str]:
        """The request's user and CSRF token, for an error shown in the frame (frame.py)."""
        session = self.session(request)
        return await self.user(request), session.csrf if session is not None else ""

    async def user(self, request: Request) -> users.User | None:
        """The session's user, if still enabled with the same password."""
        session = self.session(request)
        if session is None or session.user is None:
            return None
        async with await self.reader() as conn:
            user = await users.find(conn, session.user)
        if user is None or user.password_changed_at.isoformat() != session.since:
            return None
        return user

    def page(
        self,
        request: Request,
        name: str,
        context: Mapping[str, object],
        session: auth.Session,
        status: int = 200,
    ) -> Response:
        response = self.templates.TemplateResponse(
            request, name, {**context, "csrf": session.csrf}, status_code=status
        )
        response.set_cookie(value=self.sessions.write(session), **self.sessions.cookie_options())  # type: ignore[arg-type]
        return response

    # Routes.
    async def home(self, request: Request) -> Response:
        # Where the role's login lands (an admin's is the users, an auditor's search).
        user = await self.user(request)
        return RedirectResponse(landing(user.role) if user else "/login", status_code=303)

    async def login_form(self, request: Request) -> Response:
        # A visitor gets a session holding only a CSRF token; a session already logged in is
        # kept as it is (showing the form logs no one out: a GET changes nothing).
        session = self.session(request) or auth.Session(auth.new_csrf())
        changed = request.query_params.get("changed") == "1"  # accountpage.CHANGED
        return self.page(request, "login.html", {"error": None, "changed": changed}, session)

    async def login(self, request: Request) -> Response:
        form = await request.form()
        session = self.session(request)
        if not auth.csrf_ok(session, form.get(auth.CSRF_FIELD)):
            return forbidden("the form has expired: load the login page again")
        assert session is not None
        name = str(form.get("user", "")).strip()
        password = str(form.get("password", ""))
        address = request.client.host if request.client else "unknown"
        wait = max(self.by_user.retry_after(name), self.by_address.retry_after(address))
        if wait > 0:
            # docs/floor-web.md, Who did what: each login, failure, lockout and logout.
            log.warning(
                "web_login_locked_out", user=name, address=address, retry_after=int(wait) + 1
            )
            context = {"error": f"Too many failed logins: try again in {int(wait) + 1} s."}
            response = self.page(request, "login.html", context, session, status=429)
            response.headers["retry-after"] = str(int(wait) + 1)
            return response
        async with await self.reader() as conn:
            user = await users.check_password(conn, name, password)
        if user is None:
            self.by_user.failed(name)
            self.by_address.failed(address)
            log.warning("web_login_failed", user=name, address=address)
            context = {"error": "Wrong user name or password."}
            return self.page(request, "login.html", context, session, status=401)
        self.by_user.succeeded(name)  # the address's failures stand: they may be another's
        log.info("web_login", user=user.name, role=user.role, address=address)
        # A new token at login: a token seen before the login is worth nothing after it.
        fresh = auth.Session(auth.new_csrf(), user.name, user.password_changed_at.isoformat())
        response = RedirectResponse(landing(user.role), status_code=303)
        response.set_cookie(value=self.sessions.write(fresh), **self.sessions.cookie_options())  # type: ignore[arg-type]
        return response

    async def logout(self, request: Request) -> Response:
        form = await request.form()
        session = self.session(request)
        if not auth.csrf_ok(session, form.get(auth.CSRF_FIELD)):
            return forbidden("the form has expired: load the page again")
        address = request.client.host if request.client else "unknown"
        log.info("web_logout", user=None if session is None else session.user, address=address)
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(auth.COOKIE, path="/")
        return response

    async def floor(self, request: Request) -> Response:
        user = await self.user(request)
        if user is None:
            return RedirectResponse("/login", status_code=303)
        if user.role not in FLOOR_ROLES:
            return forbidden(
                "the floor page is for supervisors and surveillance: " + signed_in_as(user.role)
            )
        async with await self.reader() as conn:
            rows = await floor_rows(conn)
        session = self.session(request)
        assert session is not None
        context = {
            "user": user,
            "rows": rows,
            "games": sorted({r.game for r in rows if r.game}),
            # A table not heard from for [web] silent_after seconds is flagged silent: its row
            # here, and by floor.js against this clock as the page stays open.
            "silent_after": self.config.web.silent_after,
            "now": time.time(),
        }
        return self.page(request, "floor.html", context, session)

    async def events(self, request: Request) -> Response:
        user = await self.user(request)
        if user is None or user.role not in FLOOR_ROLES:
            return Response("not logged in as a supervisor or surveillance\n", status_code=401)
        return StreamingResponse(
            self._stream(request),
            media_type="text/event-stream",
            headers={"x-accel-buffering": "no"},  # nginx: pass each event on at once
        )

    async def _stream(self, request: Request) -> AsyncIterator[bytes]:
        queue = self.live.listen()
        try:
            async with await self.reader() as conn:
                rows = await floor_rows(conn)
            yield sse("snapshot", [row.as_json() for row in rows])
            yield self.live.status()
            while True:
                try:
                    async with asyncio.timeout(HEARTBEAT):  # not wait_for: it can lose a cancel
                        message = await queue.get()
                except TimeoutError:
                    # A disabled user's stream ends within a heartbeat.
                    if await self.user(request) is None:
                        return
                    yield b": heartbeat\n\n"
                    continue
                if message is None:
                    return
                yield message
        finally:
            self.live.leave(queue)


def forbidden(reason: str) -> Response:
    return Response(f"403 Forbidden: {reason}\n", status_code=403, media_type="text/plain")


async def _server_error(request: Request, error: Exception) -> Response:
    """A fault of the view's own: a page saying so, never a bare "Internal Server Error". The
    exception goes on to uvicorn, which logs it through the root handler: one JSON line, its
    traceback a field (controller/floor/web/httpserver.py)."""
    return refused(
        500,
        f"Internal Server Error: {request.url.path} could not be shown "
        f"({type(error).__name__}); the floor's web log holds the fault",
    )


def build(
    config: FloorConfig, secret: bytes, bundler: Bundler | None = None
) -> tuple[ASGIApp, Web]:
    web = Web(config, secret, bundler)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        task = asyncio.create_task(web.live.run())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    app = Starlette(
        routes=[
            Route("/", web.home),
            Route("/login", web.login_form, methods=["GET"]),
            Route("/login", web.login, methods=["POST"]),
            Route("/logout", web.logout, methods=["POST"]),
            Route("/floor", web.floor),
            Route("/floor/events", web.events),
            *Pages(web).routes(),
            *AlarmPage(web).routes(),
            *AdminPage(web).routes(),
            *AccountPage(web).routes(),
            *VerifyPage(web).routes(),
            *Feeds(web).routes(),
            Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
        ],
        lifespan=lifespan,
        exception_handlers={Exception: _server_error},
    )
    framed = ErrorFrame(app, web.templates.env, web.framed_user)
    return SecurityHeaders(framed, tls=config.web.secure_cookies), web
