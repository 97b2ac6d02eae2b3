"""Sessions, CSRF and the login rate limit of the web view (docs/floor-web.md, Security).

A session is a cookie signed with the key in ``[web] secret_file`` (itsdangerous): the user's
name, the moment their password was set and a CSRF token, valid for ``SESSION_SECONDS``. It is
HttpOnly, SameSite=Strict and, over TLS, Secure. Every request looks the user up again (as the
web's role), so a user disabled, or given a new password, is out at their next request. Before a
login the cookie holds only the CSRF token, so the login form is protected too.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from itsdangerous import BadSignature, URLSafeTimedSerializer

COOKIE: Final = "tablectl_floor_session"
#: A shift and a little: a session older than this logs in again.
SESSION_SECONDS: Final = 12 * 3600
CSRF_FIELD: Final = "csrf_token"


@dataclass(frozen=True, slots=True)
class Session:
    csrf: str
    user: str | None = None
    #: The user's password_changed_at (ISO 8601) when the session was made.
    since: str | None = None


class Sessions:
    """Signs and reads the session cookie."""

    def __init__(self, secret: bytes, *, secure: bool) -> None:
        self._serializer = URLSafeTimedSerializer(secret, salt="tablectl floor web session")
        self.secure = secure

    def read(self, cookie: str | None) -> Session | None:
        """The cookie's session (None: none, forged, or older than SESSION_SECONDS)."""
        if not cookie:
            return None
        try:
            data = self._serializer.loads(cookie, max_age=SESSION_SECONDS)
        except BadSignature:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("csrf"), str):
            return None
        user, since = data.get("user"), data.get("since")
        return Session(
            data["csrf"],
            user if isinstance(user, str) else None,
            since if isinstance(since, str) else None,
        )

    def write(self, session: Session) -> str:
        return self._serializer.dumps(
            {"csrf": session.csrf, "user": session.user, "since": session.since}
        )

    def cookie_options(self) -> dict[str, object]:
        return {
            "key": COOKIE,
            "max_age": SESSION_SECONDS,
            "httponly": True,
            "samesite": "strict",
            "secure": self.secure,
            "path": "/",
        }


def new_csrf() -> str:
    return secrets.token_urlsafe(32)


def csrf_ok(session: Session | None, sent: object) -> bool:
    """The form's token is the session's (compared in constant time)."""
    return (
        session is not None
        and isinstance(sent, str)
        and hmac.compare_digest(session.csrf.encode(), sent.encode())
    )


#: Failed logins allowed per user name within WINDOW seconds.
MAX_FAILURES: Final = 5
#: Per address: more, as several people log in at one terminal of the surveillance room.
MAX_ADDRESS_FAILURES: Final = 20
WINDOW: Final = 300.0
#: Keys held before the stale ones are swept.
PRUNE_AT: Final = 1000


class RateLimit:
    """Failed logins per key (a user name, an address) in a sliding window; a key over the
    limit is refused, right password or not, until its oldest failure leaves the window."""

    def __init__(
        self,
        limit: int = MAX_FAILURES,
        window: float = WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit, self.window, self._clock = limit, window, clock
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, key: str) -> deque[float]:
        now = self._clock()
        found = self._failures.get(key)
        if found is None:
            return deque()
        while found and found[0] <= now - self.window:
            found.popleft()
        if not found:
            del self._failures[key]
        return found

    def retry_after(self, *keys: str) -> float:
        """Seconds until every key may try again (0: they may now)."""
        wait = 0.0
        for key in keys:
            recent = self._recent(key)
            if len(recent) >= self.limit:
                wait = max(wait, recent[0] + self.window - self._clock())
        return wait

    def failed(self, *keys: str) -> None:
        now = self._clock()
        if len(self._failures) >= PRUNE_AT:
            # Forget the keys whose failures have all left the window: the memory held is
            # what WINDOW seconds of failures need, however many names are tried.
            for stale in [k for k, at in self._failures.items() if at[-1] <= now - self.window]:
                del self._failures[stale]
        for key in keys:
            self._failures.setdefault(key, deque()).append(now)

    def __len__(self) -> int:
        return len(self._failures)

    def succeeded(self, *keys: str) -> None:
        for key in keys:
            self._failures.pop(key, None)
