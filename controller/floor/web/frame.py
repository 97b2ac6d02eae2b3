"""The site's frame (docs/floor-web.md, The site's frame): the header's links, each role only
those it may open, and a refusal or an error shown to a browser inside the frame with a way back.

The links are read from the routes' own rules (the roles each page lets in), never kept apart:
a role is offered a page exactly when that page lets it in. A refusal is written in plain text
by the page that refuses (replies.py ``refused``); ``ErrorFrame`` puts that text inside the
frame when a browser asked for HTML (its ``Accept``), and leaves it plain for a program.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final

from jinja2 import Environment
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from controller.floor.web import policy
from controller.floor.web.accountpage import WITHOUT_PAGES
from controller.floor.web.adminpage import ADMINS
from controller.floor.web.alarmpage import VIEWERS as ALARM_VIEWERS
from controller.floor.web.users import User
from controller.floor.web.verifypage import VERIFIERS

#: The floor page and its feed: never a face-down card to either (this slice shows no card).
FLOOR_ROLES: Final = frozenset({"supervisor", "surveillance"})


def _search(role: str) -> bool:
    return policy.access(role).finished_hands


#: The header's links, in order: (address, words, who may open it).
LINKS: Final[tuple[tuple[str, str, Callable[[str], bool]], ...]] = (
    ("/admin/users", "Users", ADMINS.__contains__),
    ("/feeds/broadcast", "Broadcast feed", lambda role: role == "broadcaster"),
    ("/floor", "Floor", FLOOR_ROLES.__contains__),
    ("/alarms", "Alarms", ALARM_VIEWERS.__contains__),
    ("/search", "Search", _search),
    ("/verify", "Verify", VERIFIERS.__contains__),
)


def links(role: str) -> list[tuple[str, str]]:
    """The header's links for ``role``: only the pages that let it in."""
    return [(href, words) for href, words, opens in LINKS if opens(role)]


def has_account_page(role: str) -> bool:
    """Whether ``role`` changes its own password (the header's name links there)."""
    return role not in WITHOUT_PAGES


#: The statuses a browser is shown inside the frame (a refusal, a page not found, an error).
FRAMED: Final = frozenset({400, 401, 403, 404, 405, 409, 429, 500, 503})
#: What the body of a plain refusal starts with (replies.py): "403 Forbidden: why".
NAMES: Final = {
    400: "Bad Request",
    401: "Not logged in",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}

#: Finds the user a request's session names (Web.user), and its CSRF token, for the frame.
UserOf = Callable[[Request], Awaitable[tuple[User | None, str]]]


def wants_html(scope: Scope) -> bool:
    for name, value in scope.get("headers", []):
        if name == b"accept":
            return b"text/html" in value
    return False


class ErrorFrame:
    """A plain-text error answer to a browser (``Accept: text/html``) rendered as error.html,
    inside the site's frame; its status and headers (Retry-After, say) kept."""

    def __init__(self, app: ASGIApp, env: Environment, user_of: UserOf) -> None:
        self.app, self.env, self.user_of = app, env, user_of

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not wants_html(scope):
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        body: list[bytes] = []

        async def framing(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start" and _framed(message):
                start = message
                return
            if start is None:
                await send(message)
                return
            body.append(message.get("body", b""))
            if not message.get("more_body", False):
                await self._send(scope, start, b"".join(body), send)

        await self.app(scope, receive, framing)

    async def _send(self, scope: Scope, start: Message, body: bytes, send: Send) -> None:
        status = int(start["status"])
        text = body.decode("utf-8", "replace").strip()
        # replies.refused writes "403 Forbidden: why": the status is the heading, why the text.
        for prefix in (f"{status} {NAMES.get(status, '')}: ", f"{status} "):
            if text.startswith(prefix):
                text = text.removeprefix(prefix)
                break
        try:
            user, csrf = await self.user_of(Request(scope))
        except Exception:  # the store down (a 500, a 503): the frame without the user's links
            user, csrf = None, ""
        page = self.env.get_template("error.html").render(
            status=status,
            title=NAMES.get(status, "Error"),
            reason=text,
            user=user,
            csrf=csrf,
            links=links,
            has_account_page=has_account_page,
        )
        data = page.encode()
        headers = [
            (k, v)
            for k, v in start.get("headers", [])
            if k.lower() not in (b"content-type", b"content-length")
        ]
        headers += [
            (b"content-type", b"text/html; charset=utf-8"),
            (b"content-length", str(len(data)).encode()),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": data})


def _framed(start: Message) -> bool:
    if int(start["status"]) not in FRAMED:
        return False
    for name, value in start.get("headers", []):
        if name.lower() == b"content-type":
            return bytes(value).startswith(b"text/plain")
    return False
