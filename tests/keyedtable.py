"""A keyed simulated table's journal, for the tests of what a signed journal proves:
the dispute bundle (tests/test_dispute.py), the floor's bundle and its verifications
(tests/floor/test_floor_dispute.py, test_floor_verify.py, test_web_verify.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest

from controller.config.settings import JournalSettings, KeySettings
from controller.history import attest
from controller.journal import keyfiles, schema
from controller.journal.record import parse_line
from controller.table.loop import Controller
from simulator.clock import ManualClock
from simulator.lockstep import LockstepDealer
from simulator.pace import Pace
from simulator.simtable import SimTable
from simulator.tablefile import write_table_toml


def keyed_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table_id: str, seed: int) -> Path:
    """A keyed Mambo table's table.toml whose journal holds four hands over two starts (hands
    1-2, then a restart, hands 3-4), each start journaling its software record as ``tablectl
    run`` does (controller/table/service.py ``software_record``: this installation's manifest).
    The key is ``keys/table.key`` (``table.pub`` beside it), the journal ``journal/``."""
    keys = KeySettings(tmp_path / "keys" / "table.key")
    keyfiles.init(keys)
    found = attest.installed(None)
    software = schema.SoftwareData(found.version, dict(found.files), {}, found.digest)
    build = Controller.build

    def build_with_software(**kwargs: Any) -> Controller:  # SimTable gives none (a test table)
        return build(software=software, **kwargs)

    monkeypatch.setattr(Controller, "build", build_with_software)
    options = JournalSettings(tmp_path / "journal")
    with SimTable(
        "mambo", options, seed=seed, directory=tmp_path, keys=keys, table_id=table_id,
        clock=ManualClock(),
    ) as table:  # fmt: skip
        bot = LockstepDealer.for_table(
            table.sim, table.controller, table.spec, table.config, seed=seed, hands=4,
            pace=Pace.fast(table.repeat_window), timeout=30.0,
        )  # fmt: skip
        assert bot.run(2) == 2
        table.stop_controller()
        controller = table.start_controller()
        bot.follow(controller)
        bot.run()
        assert controller.core.finished == 4
        config = write_table_toml(
            tmp_path, table_id=table_id, game="mambo", config=table.config,
            shoe={"path": "/dev/ttyS8"}, panel={"path": "/dev/ttyS9"}, decks=table.deck_files,
        )  # fmt: skip
    config.write_text(config.read_text() + f'\n[keys]\nprivate_key = "{keys.private_key}"\n')
    return config


def store_as_owner(owner_dsn: str, table_id: str, lines: list[bytes]) -> None:
    """Each line put in place of the table's stored record of its seq, and the journal's head
    hash made the last line's: a rewrite in the floor's store as only its owner could make."""
    with psycopg.connect(owner_dsn, autocommit=True) as conn, conn.transaction():
        for line in lines:
            record = parse_line(line)
            conn.execute(
                "UPDATE records SET line = %s, hash = %s, prev = %s WHERE table_id = %s "
                "AND seq = %s",
                (line, record.hash, record.prev, table_id, record.seq),
            )
        conn.execute(
            "UPDATE journals SET head_hash = %s WHERE table_id = %s",
            (parse_line(lines[-1]).hash, table_id),
        )
