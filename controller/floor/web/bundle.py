"""The hand page's dispute bundle download (docs/floor-web.md, Verification (the auditor)): the
bundle ``tablectl floor dispute`` makes (controller/cli/commands/floor/dispute.py, its bounds and
lines; controller/history/dispute/ ``make``), packed as one .tar.gz for the browser.

It lives with the commands because it bounds and reads the bundle as ``floor dispute`` does
(that command's own code): the web view (a lower layer) is handed ``make_bundle`` by ``tablectl
floor web`` (controller/cli/commands/floor/web_run.py) rather than importing it. It
reads through the web's own role, which may SELECT every table of the store the builder reads.
"""

from __future__ import annotations

import io
import tarfile
from typing import Final

import psycopg

from controller.cli.commands.floor.dispute import _bounds, _Journal, _lines, _NotHeld
from controller.floor import report
from controller.floor.web.verifypage import Bundle, BundleRefused
from controller.history import dispute
from controller.journal import JournalError, schema

#: The files' mode in the archive: read-only evidence.
MODE: Final = 0o444


def make_bundle(dsn: str, table: str, journal: str, hand: int) -> Bundle:
    """Hand ``hand`` of ``journal`` at ``table``'s bundle as a .tar.gz of one folder; the bundle
    is made only of a chain the floor holds intact (as ``floor dispute``'s). BundleRefused (with
    the HTTP status) saying why it cannot be made."""
    try:
        with psycopg.connect(dsn) as conn:
            held = _intact(conn, table, journal)
            bounds = _bounds(conn, held, hand)
            lines = _lines(conn, held, bounds)
        where = f"the floor's store (table {table}, journal {journal})"
        files = dispute.make(lines, hand=hand, table_id=table, where=bounds, made_from=where)
    except (report.ReportError, _NotHeld) as error:
        raise BundleRefused(str(error), 404) from None
    except (dispute.DisputeError, JournalError, schema.SchemaError) as error:
        raise BundleRefused(str(error), 409) from None
    folder = f"dispute-{table}-hand-{hand}-{journal[:12]}"
    return Bundle(f"{folder}.tar.gz", _packed(folder, files))


def _intact(conn: psycopg.Connection[tuple[object, ...]], table: str, journal: str) -> _Journal:
    """The journal's stored chain walked whole (report.verify, as ``floor dispute``)."""
    walked = [c for c in report.verify(conn, table).chains if c.journal_id == journal]
    if not walked:
        raise report.ReportError(f"table {table!r}: the floor holds no journal {journal!r}")
    if walked[0].problems:
        raise dispute.DisputeError(
            f"table {table} journal {journal}: the floor's chain is not intact: "
            f"{walked[0].problems[0]}"
        )
    return _Journal(table, journal, walked[0].head_seq)


def _packed(folder: str, files: dict[str, bytes]) -> bytes:
    """The files in one folder of a gzipped tar, in name order."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name in sorted(files):
            info = tarfile.TarInfo(f"{folder}/{name}")
            info.size, info.mode = len(files[name]), MODE
            tar.addfile(info, io.BytesIO(files[name]))
    return out.getvalue()
