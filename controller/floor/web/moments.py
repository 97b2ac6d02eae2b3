"""The one way a page says a moment (docs/floor-web.md, Moments): UTC to the second,
``2026-12-01 16:25:33 UTC``, the journal's and the store's clock. Every page and every feed a
page's script reads is given its moments already in these words: no template or script formats
a moment itself (tests/floor/test_web_screens.py reads them for one that does).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Final

FORMAT: Final = "%Y-%m-%d %H:%M:%S UTC"


def shown(moment: datetime) -> str:
    """``moment`` as every page shows it."""
    return moment.astimezone(UTC).strftime(FORMAT)


def shown_ts(ts: str) -> str:
    """A record's ``ts`` (the table's clock, ``2026-12-01T16:25:33.950942Z``) as every page
    shows a moment; a ``ts`` that is not one (a record of another writer) as it is."""
    try:
        moment = datetime.fromisoformat(ts.removesuffix("Z"))
    except ValueError:
        return ts
    return shown(moment if moment.tzinfo else moment.replace(tzinfo=UTC))


def shown_if(value: object) -> str | None:
    """A stored moment as every page shows it; None if there is none (a NULL column)."""
    return shown(value) if isinstance(value, datetime) else None
