"""The hole-card access log (docs/floor-web.md, The hole-card access log): every page or feed
response that carries a face-down card's value is recorded in ``web.card_views`` (who, their
role, when, the table, journal and hand, through which page or feed) before it is sent.

The web's role may only add to that table (controller/floor/web/dbschema.py, migration 2): what it
holds stays as written. A response whose record cannot be written is not sent (CardLogError).
Each view recorded is logged too, ``web_card_view`` (docs/floor-web.md, Who did what): who and
which hands, never a card.
"""

from __future__ import annotations

from collections.abc import Iterable

import psycopg
import structlog

from controller.floor.web.handpages import HandKey
from controller.floor.web.users import User

AsyncConn = psycopg.AsyncConnection[tuple[object, ...]]

log = structlog.get_logger("tablectl.floor.web")


class CardLogError(Exception):
    """The view could not be recorded: the response that would carry the cards is refused."""


async def record(conn: AsyncConn, user: User, hands: Iterable[HandKey], through: str) -> None:
    """Record that ``user`` is being sent the face-down cards of ``hands`` through ``through``
    (one row a hand, in one transaction, committed before this returns)."""
    rows = [(user.name, user.role, h.table_id, h.journal_id, h.hand, through) for h in hands]
    if not rows:
        return
    try:
        async with conn.transaction(), conn.cursor() as cur:
            await cur.executemany(
                "INSERT INTO web.card_views (user_name, role, table_id, journal_id, hand, through)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                rows,
            )
    except psycopg.Error as error:
        raise CardLogError(str(error).strip() or type(error).__name__) from error
    log.info(
        "web_card_view",
        user=user.name,
        role=user.role,
        through=through,
        hands=[{"table": t, "journal": j, "hand": h} for _, _, t, j, h, _ in rows],
    )
