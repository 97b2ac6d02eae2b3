"""The table page and its feed, the hand page and search (docs/floor-web.md): their routes.

What each role may open and see is the policy's (controller/floor/web/policy.py); what a page
holds is read and masked in controller/floor/web/handpages.py before it is rendered. A response
that carries a face-down card's value is recorded in the access log first
(controller/floor/web/cardlog.py); if it cannot be, the response is not sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Final

import structlog
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from controller.floor.web import auth, cardlog, policy
from controller.floor.web.handpages import HandKey, hand_page, table_page
from controller.floor.web.live import sse
from controller.floor.web.replies import a, refused, signed_in_as
from controller.floor.web.search import FIELDS, QueryError, parse, search
from controller.floor.web.users import User

if TYPE_CHECKING:
    from controller.floor.web.app import Web

log = structlog.get_logger("tablectl.floor.web")

HEARTBEAT: Final = 15.0
#: What ``_changed`` answers when a heartbeat is due rather than a change.
HEARTBEAT_DUE: Final = object()
#: The access log's names of the responses (web.card_views.through).
HAND_PAGE: Final = "hand page"
TABLE_PAGE: Final = "table page"
TABLE_FEED: Final = "table feed"
SEARCH: Final = "search"
WHO_SEES: Final = "docs/floor-web.md, Who sees which card"


def landing(role: str) -> str:
    """Where a login takes the role: the floor, or search for a role that opens only finished
    hands (the auditor: the floor page is not theirs), the users for the admin (who sees no
    hand), the broadcast feed for the broadcaster (nothing else is theirs)."""
    if role == "admin":
        return "/admin/users"
    if role == "broadcaster":
        return "/feeds/broadcast"  # its one feed: a machine's login, no page of its own
    rights = policy.access(role)
    return "/search" if rights.finished_hands and not rights.live_hands else "/floor"


def unlogged() -> Response:
    return refused(503, "the view of these cards could not be recorded: try again")


class Pages:
    def __init__(self, web: Web) -> None:
        self.web = web

    def routes(self) -> list[Route]:
        return [
            Route("/tables/{table_id}", self.table),
            Route("/tables/{table_id}/events", self.table_events),
            Route("/tables/{table_id}/hands/{journal_id}/{hand:int}", self.hand),
            Route("/search", self.search),
        ]

    async def _user(self, request: Request) -> User | Response:
        user = await self.web.user(request)
        if user is None:
            return RedirectResponse("/login", status_code=303)
        return user

    async def table(self, request: Request) -> Response:
        user = await self._user(request)
        if isinstance(user, Response):
            return user
        if not policy.access(user.role).live_hands:
            return refused(
                403,
                f"Forbidden: the table pages are not for your role: {signed_in_as(user.role)} "
                f"({WHO_SEES})",
            )
        table_id = request.path_params["table_id"]
        async with await self.web.reader() as conn:
            page = await table_page(conn, table_id, user.role)
            if page is None:
                return refused(404, f"Not Found: the floor holds no table {table_id!r}")
            if page.face_down_shown and page.hand is not None:
                try:
                    await cardlog.record(conn, user, [page.hand], TABLE_PAGE)
                except cardlog.CardLogError as error:
                    log.error("web_card_view_unrecorded", error=str(error), user=user.name)
                    return unlogged()
        context = {"user": user, "page": page, "data": page.as_json()}
        return self.web.page(request, "table.html", context, self._session(request))

    async def table_events(self, request: Request) -> Response:
        user = await self.web.user(request)
        if user is None or not policy.access(user.role).live_hands:
            return Response("not logged in as a role that sees the tables\n", status_code=401)
        return StreamingResponse(
            self._table_stream(request, user, request.path_params["table_id"]),
            media_type="text/event-stream",
            headers={"x-accel-buffering": "no"},
        )

    async def _table_stream(
        self, request: Request, user: User, table_id: str
    ) -> AsyncIterator[bytes]:
        """The table's page as JSON at connecting, then again whenever its row changes (the
        floor page's Live tells which table changed)."""
        queue = self.web.live.watch()
        sent: dict[str, object] | None = None
        logged: set[HandKey] = set()
        loop = asyncio.get_running_loop()
        beat = loop.time() + HEARTBEAT
        try:
            while True:
                async with await self.web.reader() as conn:
                    page = await table_page(conn, table_id, user.role)
                    if page is None:
                        return
                    if page.face_down_shown and page.hand and page.hand not in logged:
                        try:  # once a hand a feed, before its first face-down card is sent
                            await cardlog.record(conn, user, [page.hand], TABLE_FEED)
                        except cardlog.CardLogError as error:
                            log.error("web_card_view_unrecorded", error=str(error))
                            return
                        logged.add(page.hand)
                data = page.as_json()
                if data != sent:
                    sent = data
                    yield sse("page", data)
                while (turn := await self._changed(queue, table_id, beat)) is HEARTBEAT_DUE:
                    if await self.web.user(request) is None:
                        return  # disabled, or a new password: within a heartbeat
                    yield b": heartbeat\n\n"  # keeps a proxy's read open; finds a gone browser
                    beat = loop.time() + HEARTBEAT
                if not turn:
                    return
        finally:
            self.web.live.unwatch(queue)

    @staticmethod
    async def _changed(
        queue: asyncio.Queue[str | None], table_id: str, beat: float
    ) -> bool | object:
        """Wait until the table's row changes (True); False when the feed must end (the queue
        was dropped); HEARTBEAT_DUE once the loop's clock reaches ``beat``, however busy the
        other tables are (their changes do not put the heartbeat off, so a disabled user's feed
        ends within one)."""
        while True:
            try:
                # asyncio.timeout_at, not wait_for: Python 3.11's wait_for can return a change
                # in the turn the stream is cancelled (the browser gone) and lose the cancel.
                async with asyncio.timeout_at(beat):
                    changed = await queue.get()
            except TimeoutError:
                return HEARTBEAT_DUE
            if changed is None:
                return False
            if changed == table_id:
                return True

    async def hand(self, request: Request) -> Response:
        user = await self._user(request)
        if isinstance(user, Response):
            return user
        params = request.path_params
        key = HandKey(params["table_id"], params["journal_id"], int(params["hand"]))
        async with await self.web.reader() as conn:
            page = await hand_page(conn, key, user.role)
            if page is None:
                return refused(
                    404,
                    f"Not Found: no hand {key.hand} of journal {key.journal_id} at table "
                    f"{key.table_id} that {a(user.role)} may open ({WHO_SEES})",
                )
            if page.replay.face_down_shown:
                try:
                    await cardlog.record(conn, user, [key], HAND_PAGE)
                except cardlog.CardLogError as error:
                    log.error("web_card_view_unrecorded", error=str(error), user=user.name)
                    return unlogged()
        context = {"user": user, "page": page, "frames": page.replay.frames_json()}
        return self.web.page(request, "hand.html", context, self._session(request))

    async def search(self, request: Request) -> Response:
        user = await self._user(request)
        if isinstance(user, Response):
            return user
        if not policy.access(user.role).finished_hands:
            return refused(
                403,
                f"Forbidden: search is not for your role: {signed_in_as(user.role)} ({WHO_SEES})",
            )
        context: dict[str, object] = {"user": user, "problems": [], "results": None}
        status = 200
        try:
            query = parse(dict(request.query_params))
        except QueryError as error:
            context["problems"], status = error.problems, 400
            context["typed"] = {k: request.query_params.get(k, "") for k in FIELDS}
            query = None
        if query is not None:
            context["typed"] = query.typed
            if not query.empty:
                async with await self.web.reader() as conn:
                    found = await search(conn, query, user.role)
                    shown = [f.line for f in found if f.face_down]
                    keys = [HandKey(s.table_id, s.journal_id, s.hand) for s in shown]
                    try:
                        await cardlog.record(conn, user, keys, SEARCH)
                    except cardlog.CardLogError as error:
                        log.error("web_card_view_unrecorded", error=str(error), user=user.name)
                        return unlogged()
                context["results"] = [f.line for f in found]
        return self.web.page(request, "search.html", context, self._session(request), status)

    def _session(self, request: Request) -> auth.Session:
        session = self.web.session(request)
        assert session is not None  # web.user found the session's user
        return session
