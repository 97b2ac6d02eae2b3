"""``[devices.shoe] kind = "pn532"``: its keys read and checked, each problem naming its key."""

from __future__ import annotations

from typing import Any

import pytest

from controller.tomlcheck import Problem, Section
from drivers.pn532.backend import KEYS, Pn532Settings, Pn532ShoeBackend
from drivers.seam.settings import Port

pytestmark = pytest.mark.fast


def read(data: dict[str, Any]) -> tuple[Pn532Settings | None, list[str]]:
    problems: list[Problem] = []
    section = Section(problems, "devices.shoe", data, ("kind", *KEYS), {})
    return Pn532ShoeBackend.read_settings(section), [str(p) for p in problems]


def test_two_readers_and_a_baud_rate() -> None:
    settings, problems = read(
        {
            "kind": "pn532",
            "port": "/dev/tablectl/shoe",
            "discard_port": "/dev/tablectl/shoe-discard",
            "baudrate": 921600,
        }
    )
    assert problems == []
    assert settings == Pn532Settings(
        "shoe", "pn532", "/dev/tablectl/shoe", "/dev/tablectl/shoe-discard", 921600
    )
    assert settings.ports() == (
        Port("shoe", "/dev/tablectl/shoe", None),
        Port("shoe.discard", "/dev/tablectl/shoe-discard", None),
    )
    assert settings.describe() == (
        "PN532 shoe: dealing slot reader at /dev/tablectl/shoe, discard reader at "
        "/dev/tablectl/shoe-discard; 921600 baud"
    )


def test_the_slot_alone_at_the_power_up_rate() -> None:
    settings, problems = read({"kind": "pn532", "port": "/dev/ttyUSB0"})
    assert problems == []
    assert settings is not None
    assert (settings.discard_port, settings.baud) == (None, 115200)
    assert [p.name for p in settings.ports()] == ["shoe"]


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({}, "devices.shoe.port = (missing): expected a PN532 reader's serial port"),
        ({"port": 7}, "devices.shoe.port = 7: expected a PN532 reader's serial port"),
        (
            {"port": "/dev/a", "baudrate": 100000},
            "devices.shoe.baudrate = 100000: expected a rate the PN532's HSU runs at: 9600, 19200",
        ),
        (
            {"port": "/dev/a", "baudrate": "fast"},
            'devices.shoe.baudrate = "fast": expected the PN532\'s HSU baud rate',
        ),
        (
            {"port": "/dev/a", "discard_port": "/dev/a"},
            'devices.shoe.discard_port = "/dev/a": expected another port than port',
        ),
        (
            {"port": "/dev/a", "discard": "/dev/b"},
            'devices.shoe.discard = "/dev/b": no such key; expected one of the keys of '
            "[devices.shoe]: kind, port, discard_port, baudrate (did you mean 'discard_port'?)",
        ),
    ],
)
def test_each_problem_names_its_key(data: dict[str, Any], problem: str) -> None:
    settings, problems = read({"kind": "pn532", **data})
    # An unknown key is the section's own problem (the file is refused for it), not the
    # backend's: the backend's keys still read.
    assert (settings is None) == ("no such key" not in problem)
    assert len(problems) == 1
    assert problems[0].startswith(problem)
