"""A new shoe backend plugs into the seam with one registry entry (docs/drivers.md, Adding
a backend): table.toml names its kind, its backend checks its keys, ``tablectl run``'s
service opens it, ``tablectl status`` and ``config`` show it, and its reads are journaled
with the host's origin (docs/journal.md, Durability), nothing acknowledged to the device."""

from __future__ import annotations

from pathlib import Path

import pytest
from apphelp import THREE_SEATS, journal_records
from toy_backend import ToyReader

from controller.cli.commands.config import summary
from controller.cli.commands.status import check_devices
from controller.config.tabletoml import SettingsError, load_config
from controller.table.service import build_controller
from drivers.seam import registry
from simulator.table import Simulator
from simulator.tablefile import write_table_toml


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one entry a new backend adds (drivers/seam/registry.py)."""
    monkeypatch.setitem(registry.BACKENDS["shoe"], "toy", "toy_backend:ToyShoe")


def table_toml(tmp_path: Path, shoe: dict[str, object]) -> Path:
    with Simulator(transport="memory", directory=tmp_path / "sim", seed=1) as sim:
        decks = sim.write_deck_files(tmp_path / "decks")
    return write_table_toml(
        tmp_path,
        table_id="TOY-1",
        game="mambo",
        config=THREE_SEATS,
        shoe=shoe,  # type: ignore[arg-type]  # TOML values
        panel={"path": "/nonexistent/panel"},
        decks=decks,
    )


def test_its_keys_are_its_own_and_checked_by_it(tmp_path: Path) -> None:
    with pytest.raises(SettingsError) as caught:
        load_config(table_toml(tmp_path, {"kind": "toy", "path": "/dev/ttyACM0"}))
    keys = [p.key for p in caught.value.problems]
    assert keys == ["devices.shoe.path", "devices.shoe.port"]  # not its key; its key missing


def test_the_run_opens_it_and_journals_its_reads_with_the_hosts_origin(tmp_path: Path) -> None:
    settings = load_config(table_toml(tmp_path, {"kind": "toy", "port": "toy://1"}))
    assert settings.shoe.kind == "toy"
    assert "shoe: toy: a toy reader at toy://1" in summary(settings)
    devices, _ = check_devices(settings)
    first = devices[0]
    assert (first.role, first.kind, first.configured) == ("shoe", "toy", "toy://1")
    controller = build_controller(settings)
    shoe = controller.shoe
    assert isinstance(shoe, ToyReader)
    try:
        shoe.start()
        controller.drain()
        shoe.read("E0AA000000000001")
        shoe.read("E0AA000000000002")
        controller.drain()
    finally:
        controller.close()
    records = journal_records(settings.journal.dir)
    ready = [d for k, d in records if k == "device" and d.get("event") == "ready"]
    assert [(d["device"], d["boot"]) for d in ready] == [("shoe", shoe.boot)]
    reads = [d for k, d in records if k in ("card", "tag") and d.get("device") == "shoe"]
    assert [(d["boot"], d["seq"]) for d in reads] == [(shoe.boot, 0), (shoe.boot, 1)]
    assert shoe.committed == [0, 1]  # the controller said it; the device took nothing
