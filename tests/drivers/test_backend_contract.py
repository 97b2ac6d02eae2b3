"""The device seam's contract, the same tests against every registered backend
(drivers/seam/registry.py), in python-can's way: each backend opened only through the
registry, on its emulated device (tests/drivers/benches.py), says the neutral events of
drivers/seam/events.py. A backend the registry names without a bench fails here."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from benches import BENCHES, Bench

from controller.poker.inputs import ReadPoint
from controller.tomlcheck import Problem, Section
from drivers.seam import registry
from drivers.seam.device import (
    Backend,
    OpenOptions,
    PanelBackend,
    PanelFeatures,
    ShoeBackend,
)
from drivers.seam.events import (
    PANEL,
    ROLES,
    SEQ_MODULUS,
    SHOE,
    DeviceDown,
    DeviceUp,
    HelloOutcome,
)
from drivers.seam.settings import DeviceSettings

ENTRIES = sorted((role, kind) for role in ROLES for kind in registry.kinds(role))


def read(backend: type[Backend], role: str, keys: dict[str, object]) -> tuple[Any, list[Problem]]:
    """The backend's settings of a ``[devices.<role>]`` section, and its problems."""
    problems: list[Problem] = []
    section = Section(problems, f"devices.{role}", keys, ("kind", *backend.keys), {})
    return backend.read_settings(section), problems


@pytest.fixture(params=ENTRIES, ids=[f"{role}-{kind}" for role, kind in ENTRIES])
def bench(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str, Bench]]:
    role, kind = request.param
    make = BENCHES.get((role, kind))
    if make is None:
        pytest.fail(f"the {role} backend {kind!r} has no bench in tests/drivers/benches.py")
    with make(tmp_path) as made:
        yield role, kind, made


def test_every_registered_backend_is_its_role_and_kind() -> None:
    """Each entry loads a backend of its role, its kind, with its own keys and summary."""
    for role, kind in ENTRIES:
        backend = registry.backend(role, kind)
        assert (backend.role, backend.kind) == (role, kind)
        assert issubclass(backend, ShoeBackend if role == SHOE else PanelBackend)
        assert "kind" not in backend.keys
        assert len(set(backend.keys)) == len(backend.keys), f"{kind}: a key listed twice"
        assert backend.summary


def test_a_kind_not_registered_is_refused_naming_the_kinds() -> None:
    with pytest.raises(registry.UnknownBackend, match="expected one of 'tablectl'"):
        registry.backend(SHOE, "tablectll")


def test_the_backend_reads_its_keys_and_names_a_bad_one(bench: tuple[str, str, Bench]) -> None:
    """Its section reads into its settings (the role and kind it is, where its device is);
    a value it refuses is one problem naming its key, and no settings."""
    role, kind, device = bench
    backend = registry.backend(role, kind)
    settings, problems = read(backend, role, device.section())
    assert problems == []
    assert isinstance(settings, DeviceSettings)
    assert (settings.role, settings.kind) == (role, kind)
    assert settings.ports()
    assert settings.describe()
    key, value = device.bad_key()
    refused, problems = read(backend, role, {**device.section(), key: value})
    assert refused is None
    assert [p.key for p in problems] == [f"devices.{role}.{key}"]


def test_the_device_comes_up_acts_and_goes_down(bench: tuple[str, str, Bench]) -> None:
    """Opened through the registry and started: DeviceUp (a new session, its boot the
    device's), one act as its neutral event numbered 0..9999 and acknowledged (or not, as it
    declares), DeviceDown when its cable is pulled, and a stop that returns."""
    role, kind, device = bench
    backend = registry.backend(role, kind)
    settings, _ = read(backend, role, device.section())
    events: queue.Queue[Any] = queue.Queue()
    options = OpenOptions(clock=device.clock, ack_after_commit=True)
    opened = (
        registry.shoe_backend(kind).open(settings, events, options)
        if role == SHOE
        else registry.panel_backend(kind).open(settings, events, options)
    )
    assert opened.device == role
    if role == SHOE:
        assert ReadPoint.DEALING_SLOT in opened.points  # type: ignore[union-attr]
    else:
        assert isinstance(opened.features, PanelFeatures)  # type: ignore[union-attr]
    device.come_up()
    opened.start()
    try:
        assert opened.running
        up = device.wait(events, DeviceUp)
        assert (up.device, up.outcome) == (role, HelloOutcome.NEW_SESSION)
        assert up.boot
        assert opened.boot == up.boot
        device.act()
        acted = device.wait(events, object)
        while not device.acted(acted):
            acted = device.wait(events, object)
        seq = acted.seq
        assert isinstance(seq, int)
        assert 0 <= seq < SEQ_MODULUS
        assert isinstance(opened.acknowledges, bool)
        opened.commit(seq)  # journaled: the device is told if it takes acknowledgements
        device.go_down()
        down = device.wait(events, DeviceDown)
        assert down.device == role
        assert down.reason
    finally:
        opened.stop()
    assert not opened.running
    assert isinstance(opened.line_totals(), dict)


def test_every_role_has_the_default_kind() -> None:
    """A section without ``kind`` is the protocol's device, for the shoe and the panel."""
    for role in (SHOE, PANEL):
        assert registry.kinds(role)[0] == registry.DEFAULT_KIND
