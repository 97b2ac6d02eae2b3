"""The alarms page, its live feed and a supervisor's acknowledgement (docs/floor-web.md, Alarms):
their routes.

``/alarms`` (supervisors and surveillance): the open alarms first, newest first, then those
acknowledged, with who, when and the note. A supervisor acknowledges an open one with a note
(``POST /alarms/{id}/ack``, CSRF-checked); surveillance watches. ``/alarms/events`` sends the
list again whenever a table's open alarms change (controller/floor/web/live.py tells it), and at
least every heartbeat, so a list acknowledged in another browser is right here too.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Final

import structlog
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from controller.floor.web import auth
from controller.floor.web.alarms import (
    AckError,
    AlarmRow,
    acknowledge,
    acknowledge_group,
    alarm_rows,
)
from controller.floor.web.live import sse
from controller.floor.web.replies import refused, signed_in_as
from controller.floor.web.users import User

if TYPE_CHECKING:
    from controller.floor.web.app import Web

log = structlog.get_logger("tablectl.floor.web")

#: Who sees the alarms page and its feed; who may acknowledge (docs/floor-web.md, Alarms).
VIEWERS: Final = frozenset({"supervisor", "surveillance"})
ACKNOWLEDGERS: Final = frozenset({"supervisor"})
HEARTBEAT: Final = 15.0


class AlarmPage:
    def __init__(self, web: Web) -> None:
        self.web = web

    def routes(self) -> list[Route]:
        return [
            Route("/alarms", self.page),
            Route("/alarms/events", self.events),
            Route("/alarms/{alarm_id:int}/ack", self.ack, methods=["POST"]),
            Route("/alarms/{alarm_id:int}/ack-group", self.ack_group, methods=["POST"]),
        ]

    async def _viewer(self, request: Request) -> User | Response:
        user = await self.web.user(request)
        if user is None:
            return RedirectResponse("/login", status_code=303)
        if user.role not in VIEWERS:
            return refused(
                403,
                "Forbidden: the alarms are for supervisors and surveillance: "
                + signed_in_as(user.role),
            )
        return user

    async def _rows(self) -> list[AlarmRow]:
        async with await self.web.reader() as conn:
            return await alarm_rows(conn)

    async def page(self, request: Request) -> Response:
        user = await self._viewer(request)
        if isinstance(user, Response):
            return user
        return self._render(request, user, await self._rows(), None, 200)

    def _render(
        self, request: Request, user: User, rows: list[AlarmRow], error: str | None, status: int
    ) -> Response:
        session = self.web.session(request)
        assert session is not None  # web.user found the session's user
        context = {
            "user": user,
            "alarms": rows,
            "open": sum(1 for row in rows if row.ack is None),
            "can_ack": user.role in ACKNOWLEDGERS,
            "error": error,
        }
        return self.web.page(request, "alarms.html", context, session, status)

    async def ack(self, request: Request) -> Response:
        form = await request.form()
        if not auth.csrf_ok(self.web.session(request), form.get(auth.CSRF_FIELD)):
            return refused(403, "Forbidden: the form has expired: load the alarms page again")
        user = await self._viewer(request)
        if isinstance(user, Response):
            return user
        if user.role not in ACKNOWLEDGERS:
            return refused(
                403, f"Forbidden: a supervisor acknowledges alarms: {signed_in_as(user.role)}"
            )
        alarm_id = int(request.path_params["alarm_id"])
        note = form.get("note")
        try:
            async with await self.web.reader() as conn:
                alarm = await acknowledge(conn, alarm_id, user.name, str(note or ""))
        except AckError as error:
            return self._render(request, user, await self._rows(), str(error), error.status)
        log.info(
            "alarm_acknowledged",
            alarm=alarm_id,
            table=alarm.table_id,
            kind=alarm.kind,
            by=user.name,
        )
        # The floor page's row loses the alarm at once, and every alarms page is told.
        self.web.live.mark(alarm.table_id, 0)
        self.web.live.alarms_changed()
        return RedirectResponse("/alarms", status_code=303)

    async def ack_group(self, request: Request) -> Response:
        """One acknowledgement for the open alarms of one cause at a table (the group the page
        showed, up to the alarm named), each recorded (docs/floor-web.md, Alarms)."""
        form = await request.form()
        if not auth.csrf_ok(self.web.session(request), form.get(auth.CSRF_FIELD)):
            return refused(403, "Forbidden: the form has expired: load the alarms page again")
        user = await self._viewer(request)
        if isinstance(user, Response):
            return user
        if user.role not in ACKNOWLEDGERS:
            return refused(
                403, f"Forbidden: a supervisor acknowledges alarms: {signed_in_as(user.role)}"
            )
        alarm_id = int(request.path_params["alarm_id"])
        try:
            async with await self.web.reader() as conn:
                alarm, done = await acknowledge_group(
                    conn, alarm_id, user.name, str(form.get("note") or "")
                )
        except AckError as error:
            return self._render(request, user, await self._rows(), str(error), error.status)
        for each in done:
            log.info(
                "alarm_acknowledged",
                alarm=each,
                table=alarm.table_id,
                kind=alarm.kind,
                by=user.name,
                group=len(done),
            )
        self.web.live.mark(alarm.table_id, 0)
        self.web.live.alarms_changed()
        return RedirectResponse("/alarms", status_code=303)

    async def events(self, request: Request) -> Response:
        user = await self.web.user(request)
        if user is None or user.role not in VIEWERS:
            return Response("not logged in as a supervisor or surveillance\n", status_code=401)
        return StreamingResponse(
            self._stream(request),
            media_type="text/event-stream",
            headers={"x-accel-buffering": "no"},
        )

    async def _stream(self, request: Request) -> AsyncIterator[bytes]:
        told = self.web.live.watch_alarms()
        try:
            sent = [row.as_json() for row in await self._rows()]
            yield sse("alarms", sent)
            while True:
                try:
                    async with asyncio.timeout(HEARTBEAT):  # not wait_for: it can lose a cancel
                        await told.get()
                except TimeoutError:
                    if await self.web.user(request) is None:
                        return  # a disabled user's feed ends within a heartbeat
                    yield b": heartbeat\n\n"
                rows = [row.as_json() for row in await self._rows()]
                if rows != sent:
                    sent = rows
                    yield sse("alarms", rows)
        finally:
            self.web.live.unwatch_alarms(told)
