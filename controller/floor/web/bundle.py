"""The hand page's dispute bundle download (docs/floor-web.md, Verification (the auditor)): the
bundle ``tablectl floor dispute`` makes (controller/floor/disputestore.py, its bounds and lines;
controller/history/dispute/ ``make``), packed as one .tar.gz for the browser. ``tablectl floor
web`` serves with it (controller/floor/web/httpserver.py). It reads through the web's own role,
which may SELECT every table of the store the builder reads.
"""

from __future__ import annotations

import io
import tarfile
from typing import Final

import psycopg

from controller.floor import disputestore, report
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
            held = disputestore.intact(conn, table, journal)
            bounds = disputestore.bounds(conn, held, hand)
            lines = disputestore.lines(conn, held, bounds)
        where = f"the floor's store (table {table}, journal {journal})"
        files = dispute.make(lines, hand=hand, table_id=table, where=bounds, made_from=where)
    except (report.ReportError, disputestore.NotHeld) as error:
        raise BundleRefused(str(error), 404) from None
    except (dispute.DisputeError, JournalError, schema.SchemaError) as error:
        raise BundleRefused(str(error), 409) from None
    folder = f"dispute-{table}-hand-{hand}-{journal[:12]}"
    return Bundle(f"{folder}.tar.gz", _packed(folder, files))


def _packed(folder: str, files: dict[str, bytes]) -> bytes:
    """The files in one folder of a gzipped tar, in name order."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name in sorted(files):
            info = tarfile.TarInfo(f"{folder}/{name}")
            info.size, info.mode = len(files[name]), MODE
            tar.addfile(info, io.BytesIO(files[name]))
    return out.getvalue()
