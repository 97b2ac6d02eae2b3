"""``tablectl sim --config table.toml``: the simulator makes the ports and the deck files the
table.toml names (README, For technicians; docs/simulator.md, A bot dealing to a controller),
or refuses with what to write or pass; it exits with the statuses its help states."""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import queue
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from devtime import WAIT

from controller.cli.main import build_parser
from controller.poker.games import GAMES
from drivers.tablectl.link import LinkSettings
from drivers.tablectl.panel import PanelDriver
from drivers.tablectl.shoe import ShoeDriver
from simulator.decks import enrolled, make_decks
from simulator.simtable import demo_config
from simulator.tablefile import TomlValue, write_table_toml


def bench_toml(
    directory: Path,
    *,
    shoe: Mapping[str, TomlValue] | None = None,
    panel: Mapping[str, TomlValue] | None = None,
    decks: tuple[Path, Path] | None = None,
) -> Path:
    """``directory/table.toml`` for a bench: by default its ports ``directory/bench/shoe`` and
    ``panel``, its deck files ``directory/decks/red.txt`` and ``blue.txt`` (not the
    simulator's own names), serials of its own."""
    bench = directory / "bench"
    return write_table_toml(
        directory,
        table_id="BENCH-1",
        game="mambo",
        config=demo_config(GAMES["mambo"], 4),
        shoe=shoe or {"path": bench / "shoe", "serial": "SHOE0042"},
        panel=panel or {"path": bench / "panel", "serial": "PANEL0042"},
        decks=decks or (directory / "decks/red.txt", directory / "decks/blue.txt"),
    )


def run_sim(commands: str, *options: str) -> tuple[int, str, str]:
    """``tablectl sim OPTIONS`` in this process, piped: (status, stdout, stderr)."""
    args = build_parser().parse_args(["sim", *options])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        status = args.run(args, stdin=io.StringIO(commands), stdout=out)
    return status, out.getvalue(), err.getvalue()


def test_the_simulator_makes_the_ports_deck_files_and_serials_the_table_toml_names(
    tmp_path: Path,
) -> None:
    """Without --dir, the links are where [devices.shoe] and [devices.panel] name them, the
    decks are written to the files [decks] names, and the devices announce its serials."""
    config = bench_toml(tmp_path)
    bench, decks = tmp_path / "bench", tmp_path / "decks"
    status, out, err = run_sim("state\n", "--config", str(config), "--seed", "3")
    assert status == 0, out + err
    lines = out.splitlines()
    assert lines[:3] == [
        f"shoe: {bench / 'shoe'}",
        f"panel: {bench / 'panel'}",
        f"decks: {decks / 'red.txt'} {decks / 'blue.txt'}",
    ]
    assert "serial SHOE0042" in out
    assert "serial PANEL0042" in out
    for path, deck in zip(("red.txt", "blue.txt"), make_decks(3), strict=True):
        assert (decks / path).read_text(encoding="ascii") == enrolled(deck).dumps()


@contextlib.contextmanager
def controller_on(directory: Path, shoe: str, panel: str) -> Iterator[None]:
    """A host on the links in ``directory`` once they appear, as ``tablectl run`` opens them
    (expecting the serials its table.toml names): it welcomes both devices and acknowledges
    all they say."""
    done = threading.Event()

    def attach() -> None:
        while not (directory / "panel").exists():
            if done.wait(0.01):
                return
        events: queue.Queue[Any] = queue.Queue()
        with (
            ShoeDriver(LinkSettings(url=str(directory / "shoe"), expected_serial=shoe), events),
            PanelDriver(LinkSettings(url=str(directory / "panel"), expected_serial=panel), events),
        ):
            done.wait()

    host = threading.Thread(target=attach)
    host.start()
    try:
        yield
    finally:
        done.set()
        host.join()


@pytest.mark.timeout(WAIT)  # a bot whose controller never finds the devices would wait for ever
def test_a_bot_deals_to_the_controller_of_the_table_toml_started_without_dir(
    tmp_path: Path,
) -> None:
    """The README's bench: the simulator with ``--bot random --config table.toml`` and no
    --dir, then a controller on what that table.toml names: the bot is welcomed and deals."""
    config = bench_toml(tmp_path)
    with controller_on(tmp_path / "bench", "SHOE0042", "PANEL0042"):
        status, out, err = run_sim(
            "", "--bot", "random", "--config", str(config), "--hands", "1", "--pace", "fast"
        )
    assert status == 0, out + err
    # The bot says it waits, then that it deals, only when the host has not welcomed the
    # devices before the bot looks (simulator/waits.py until_welcomed): either order is right.
    if "bot: waiting for a controller to welcome" in out:
        assert "bot: the controller welcomed the shoe and the panel: dealing" in out
    assert out.splitlines()[-1] == "bot: done after 1 hand"


def _real_device_name(tmp_path: Path) -> Path:
    """A name where the simulator's shoe would go that is already something else's."""
    (tmp_path / "bench").mkdir()
    taken = tmp_path / "bench/shoe"
    taken.write_text("not a pty\n")
    return bench_toml(tmp_path)


def _another_seeds_deck(tmp_path: Path) -> Path:
    """A deck file the table's controller may hold, written by another seed."""
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks/red.txt").write_text(enrolled(make_decks(1)[0]).dumps())
    return bench_toml(tmp_path)


REFUSALS: dict[str, tuple[Callable[[Path], Path], tuple[str, ...], str]] = {
    "another --dir": (
        bench_toml,
        ("--dir", "{tmp}/elsewhere"),
        "the table.toml {config} names the ports {tmp}/bench/shoe and {tmp}/bench/panel: pass "
        "--dir {tmp}/bench, or leave --dir out",
    ),
    "--decks": (
        bench_toml,
        ("--decks", "{tmp}/elsewhere"),
        "names the deck files ({tmp}/decks/red.txt, {tmp}/decks/blue.txt): leave --decks out",
    ),
    "a URL": (
        lambda tmp: bench_toml(tmp, shoe={"url": "socket://192.0.2.10:7001"}),
        (),
        '[devices.shoe] names socket://192.0.2.10:7001: give [devices.shoe] path = "DIR/shoe"',
    ),
    "a udev match": (
        lambda tmp: bench_toml(
            tmp, panel={"vendor_id": "1209", "product_id": "7ab2", "serial": "PANEL0001"}
        ),
        (),
        '[devices.panel] names a udev match: give [devices.panel] path = "DIR/panel"',
    ),
    "another name": (
        lambda tmp: bench_toml(tmp, shoe={"path": tmp / "bench/shoe0"}),
        (),
        '[devices.shoe] path = {tmp}/bench/shoe0: give [devices.shoe] path = "DIR/shoe"',
    ),
    "two folders": (
        lambda tmp: bench_toml(tmp, panel={"path": tmp / "other/panel"}),
        (),
        "the simulator's ports are in one folder",
    ),
    "the devices' folder": (
        lambda tmp: bench_toml(
            tmp, shoe={"path": "/dev/tablectl/shoe"}, panel={"path": "/dev/tablectl/panel"}
        ),
        (),
        "[devices.shoe] path = /dev/tablectl/shoe: /dev holds the real devices' names",
    ),
    "a name taken": (
        _real_device_name,
        (),
        "[devices.shoe] path = {tmp}/bench/shoe is there already and is no simulator's port",
    ),
    "another seed's deck": (
        _another_seeds_deck,
        (),
        "[decks] a = {tmp}/decks/red.txt holds another deck (enrolled from a real shoe, or "
        "written by another --seed): the simulator overwrites no deck but its own for --seed 0",
    ),
}


@pytest.mark.fast
@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_what_the_simulator_cannot_make_is_refused_with_what_to_pass(
    tmp_path: Path, case: str
) -> None:
    """Exit 2 (its help's usage error), one line naming the option or key and what to write
    or pass instead; no device started, no deck file written."""
    write, options, wanted = REFUSALS[case]
    config = write(tmp_path)
    before = sorted(tmp_path.rglob("*"))
    given = (option.format(tmp=tmp_path) for option in options)
    status, out, err = run_sim("", "--config", str(config), *given)
    assert status == 2, out + err
    assert err.startswith("tablectl sim: error: ")
    assert wanted.format(tmp=tmp_path, config=config) in err
    assert len(err.splitlines()) == 1
    assert out == ""
    assert sorted(tmp_path.rglob("*")) == before


def test_a_folder_another_simulator_serves_is_a_usage_error(tmp_path: Path) -> None:
    """Exit 2, as ``tablectl sim --help`` says, naming the folder and what to pass."""
    tmp_path.joinpath(".lock").touch()
    fd = os.open(tmp_path / ".lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the other simulator's hold
        status, out, err = run_sim("", "--dir", str(tmp_path))
    finally:
        os.close(fd)
    assert status == 2, out + err
    assert err == f"tablectl sim: error: another simulator serves {tmp_path}; give another --dir\n"
