"""Two ``tablectl run`` on one table's devices: the second is refused at its start with one
line naming the port and the first one's pid, and the first deals on, losing nothing
(docs/drivers.md, One controller per device; docs/deploy.md, Two controllers on one
table's devices).

The devices are the simulator's ptys, the controllers real processes, as at the bench; each
controller has its own table.toml, journal and sockets, and the same [devices].
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from apphelp import AS_ROOT, PATIENCE, table_toml
from test_app_commands import ROOT, log_lines, wait_for_log
from test_app_signals import stop, wait_count

from controller.journal import verify
from controller.poker.inputs import Button
from simulator.table import Simulator

TABLECTL = [sys.executable, "-m", "controller", "run"]
#: What the first table's log must never say while the second one tries its devices.
LOSSES = {"comm_lost", "device_sentences_lost", "table_paused", "port_held", "sentences_lost"}


def own_table(folder: Path, sim: Simulator) -> Path:
    """A table.toml in ``folder`` (its journal, decks and log there) on the simulator's
    devices, its control and display sockets in ``folder`` too."""
    folder.mkdir()
    config = table_toml(folder, sim)
    with config.open("a", encoding="utf-8") as toml:
        toml.write(f'\n[control]\nsocket = "{folder / "c.sock"}"\n')
        toml.write(f'\n[display]\nsocket = "{folder / "d.sock"}"\n')
    return config


def test_a_second_controller_on_a_running_tables_devices_is_refused_naming_port_and_holder(
    tmp_path: Path,
) -> None:
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as sim:
        first_config = own_table(tmp_path / "first", sim)
        second_config = own_table(tmp_path / "second", sim)
        first_log = tmp_path / "first" / "tablectl.log"
        second_log = tmp_path / "second" / "tablectl.log"
        errors = (tmp_path / "first.err").open("wb")
        with errors:
            first = subprocess.Popen(
                [*TABLECTL, "--config", str(first_config), *AS_ROOT],
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                stdout=errors,
                stderr=errors,
            )
        try:
            assert wait_count(first_log, "device_back", 2), "the first table has both devices"

            second = subprocess.run(
                [*TABLECTL, "--config", str(second_config), *AS_ROOT],
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                capture_output=True,
                text=True,
                timeout=PATIENCE,
                check=False,
            )
            assert second.returncode == 1, second.stderr
            (line,) = second.stderr.splitlines()
            shoe = sim.address("shoe")
            real = os.path.realpath(shoe)
            assert line.startswith(
                f"tablectl run: the shoe's port {shoe} ({real}) is held by pid {first.pid} ("
            ), line
            assert f"controller run --config {first_config}" in line
            assert "[devices.shoe]" in line
            assert "docs/deploy.md, Two controllers on one table's devices" in line
            # The refused table said so in its own log, and never heard a device.
            said = [e for e in log_lines(second_log) if e.get("event") == "port_held"]
            assert [e["level"] for e in said] == ["error"]
            assert not [e for e in log_lines(second_log) if e.get("event") == "device_ready"]

            # The first table deals on: a press and the cards reach it, nothing is lost.
            sim.shuffle(3)
            sim.press(Button.NEW_HAND)
            wait_for_log(first_log, "hand_started")
            sim.deal()  # seat 1, face down: no burn before the first round (14.13A(c))
            sim.deal()  # seat 2, face down
            assert wait_count(first_log, "card_dealt", 2)
            assert first.poll() is None, (tmp_path / "first.err").read_text()
            assert stop(first, signal.SIGTERM) == 0, (tmp_path / "first.err").read_text()
        finally:
            if first.poll() is None:
                first.kill()
                first.wait()
    lost = [e for e in log_lines(first_log) if e.get("event") in LOSSES]
    assert lost == []
    assert verify(tmp_path / "first" / "journal").intact
