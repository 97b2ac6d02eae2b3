"""The auditor's verification page and the hand's dispute bundle (docs/floor-web.md, Verification
(the auditor)): their routes.

- ``/verify``: every stored journal's chain at the witness (controller/floor/web/chains.py),
  read-only;
- ``/verify/{table}/{journal}``: the journal's page; ``POST`` (CSRF-checked) walks it again from
  the store and shows the verdict. The walk changes nothing; it is a POST because it is work a
  link (a crawler, a prefetch) should not start;
- ``/tables/{table}/hands/{journal}/{hand}/dispute.tar.gz``: the hand's dispute bundle as
  ``tablectl floor dispute`` makes it, recorded in the hole-card access log before it is sent
  (it carries the hand's face-down cards). The builder is controller/floor/web/bundle.py's,
  handed in as ``Web.bundler`` by the server (controller/floor/web/httpserver.py); a view built
  without one refuses the download.

For auditors and surveillance; a supervisor (and anyone else) is refused with the reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import structlog
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from controller.floor.web import auth, cardlog
from controller.floor.web.chains import NoSuchJournal, chain_states, reverify
from controller.floor.web.handpages import BUNDLE_ROLES, HandKey
from controller.floor.web.replies import refused, signed_in_as
from controller.floor.web.users import User

if TYPE_CHECKING:
    from controller.floor.web.app import Web

log = structlog.get_logger("tablectl.floor.web")

#: Who may open the verification pages (docs/floor-web.md, Users and roles: the auditor's
#: verification; surveillance sees everything). The bundle's roles are hands.BUNDLE_ROLES (the hand
#: page links it for them).
VERIFIERS: Final = frozenset({"auditor", "surveillance"})
#: The access log's name of the download (web.card_views.through).
DISPUTE_BUNDLE: Final = "dispute bundle"


@dataclass(frozen=True, slots=True)
class Bundle:
    """A dispute bundle packed for the browser: its file name and bytes."""

    name: str
    data: bytes


class BundleRefused(Exception):
    """The bundle cannot be made as asked: why, and the HTTP status to answer with."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


#: Makes a bundle: (the web role's DSN, table, journal, hand) -> Bundle, or BundleRefused.
Bundler = Callable[[str, str, str, int], Bundle]


class VerifyPage:
    def __init__(self, web: Web) -> None:
        self.web = web

    def routes(self) -> list[Route]:
        return [
            Route("/verify", self.overview),
            Route("/verify/{table_id}/{journal_id}", self.journal, methods=["GET"]),
            Route("/verify/{table_id}/{journal_id}", self.walk, methods=["POST"]),
            Route("/tables/{table_id}/hands/{journal_id}/{hand:int}/dispute.tar.gz", self.bundle),
        ]

    async def _verifier(
        self, request: Request, roles: frozenset[str] = VERIFIERS
    ) -> User | Response:
        user = await self.web.user(request)
        if user is None:
            return RedirectResponse("/login", status_code=303)
        if user.role not in roles:
            who = " and ".join(sorted(roles))
            return refused(
                403,
                f"Forbidden: verification is for {who}: {signed_in_as(user.role)}",
            )
        return user

    def _render(
        self, request: Request, name: str, context: dict[str, object], status: int = 200
    ) -> Response:
        session = self.web.session(request)
        assert session is not None  # web.user found the session's user
        return self.web.page(request, name, context, session, status)

    async def overview(self, request: Request) -> Response:
        user = await self._verifier(request)
        if isinstance(user, Response):
            return user
        async with await self.web.reader() as conn:
            states = await chain_states(conn)
        return self._render(request, "verify.html", {"user": user, "states": states})

    async def journal(self, request: Request) -> Response:
        user = await self._verifier(request)
        if isinstance(user, Response):
            return user
        return await self._journal_page(request, user, walk=False)

    async def walk(self, request: Request) -> Response:
        form = await request.form()
        if not auth.csrf_ok(self.web.session(request), form.get(auth.CSRF_FIELD)):
            return refused(403, "Forbidden: the form has expired: load the page again")
        user = await self._verifier(request)
        if isinstance(user, Response):
            return user
        return await self._journal_page(request, user, walk=True)

    async def _journal_page(self, request: Request, user: User, *, walk: bool) -> Response:
        table_id = request.path_params["table_id"]
        journal_id = request.path_params["journal_id"]
        async with await self.web.reader() as conn:
            states = await chain_states(conn, (table_id, journal_id))
            if not states:
                return refused(
                    404,
                    f"Not Found: the floor holds no journal {journal_id!r} of table {table_id!r}",
                )
            verdict = None
            if walk:
                try:
                    verdict = await reverify(conn, table_id, journal_id)
                except NoSuchJournal as error:
                    return refused(404, f"Not Found: {error}")
        if verdict is not None:
            # A walk that does not vouch for the journal is a warning (journald priority 4),
            # not news: docs/floor-web.md, Who did what.
            said = log.info if verdict.verified else log.warning
            said(
                "web_journal_verified",
                user=user.name,
                table=table_id,
                journal=journal_id,
                records=verdict.records,
                verified=verdict.verified,
                verdict=verdict.verdict,
            )
        context = {"user": user, "state": states[0], "verdict": verdict}
        return self._render(request, "verify_journal.html", context)

    async def bundle(self, request: Request) -> Response:
        user = await self._verifier(request, BUNDLE_ROLES)
        if isinstance(user, Response):
            return user
        params = request.path_params
        key = HandKey(params["table_id"], params["journal_id"], int(params["hand"]))
        if self.web.bundler is None:
            return refused(503, "the dispute bundle is made by `tablectl floor web` alone")
        try:
            made = await asyncio.to_thread(
                self.web.bundler,
                self.web.config.web_database.dsn(),
                key.table_id,
                key.journal_id,
                key.hand,
            )
        except BundleRefused as error:
            return refused(error.status, f"the dispute bundle cannot be made: {error}")
        async with await self.web.reader() as conn:
            try:  # the bundle holds the hand's face-down cards: recorded before it is sent
                await cardlog.record(conn, user, [key], DISPUTE_BUNDLE)
            except cardlog.CardLogError as error:
                log.error("web_card_view_unrecorded", error=str(error), user=user.name)
                return refused(503, "the view of these cards could not be recorded: try again")
        return Response(
            made.data,
            media_type="application/gzip",
            headers={"content-disposition": f'attachment; filename="{made.name}"'},
        )
