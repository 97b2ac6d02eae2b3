"""``tablectl display``: the demo scenes, the headless screenshot, and bad options."""

from __future__ import annotations

import array
import asyncio
import errno
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from display_harness import settle

from controller.cli.main import main
from controller.display.attach import AttachedDisplay, LinkBanner
from controller.display.demo import SCENES
from controller.display.demo_app import DemoDisplay
from controller.display.view import TableView

# Not in the fast tier: each test runs the display's Textual app, 2 s of the tier's CPU in all
# (docs/testing.md, How the tier stays fast).


def test_without_demo_a_configuration_that_cannot_be_read_is_named_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --demo the display attaches to the table of --config (docs/display.md): a
    configuration it cannot read is named, with what is wrong, and nothing is drawn."""
    unreadable = tmp_path / "table.toml"
    unreadable.write_text("not a table\n")  # one not there is refused as the line is read
    assert main(["display", "--config", str(unreadable)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablectl display: ")
    assert str(unreadable) in err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--demo", "--socket", "/run/t.sock"], "expected --config or --socket without --demo"),
        (["--scene", "alarm"], "expected --demo with them"),
        (["--screenshot", "x.svg"], "expected --demo with them"),
    ],
)
def test_options_that_do_not_go_together_exit_2(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["display", *argv]) == 2
    assert said in capsys.readouterr().err


def test_config_and_socket_are_one_or_the_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "t.toml"
    config.touch()
    with pytest.raises(SystemExit) as caught:
        main(["display", "--config", str(config), "--socket", "/run/t.sock"])
    assert caught.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_run_display_is_gone_and_says_what_to_run_instead(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The display no longer runs inside the controller: run --display says to run
    the table without it and the display beside it, and exits 2 before opening anything."""
    config = tmp_path / "table.toml"
    config.touch()
    assert main(["run", "--display", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "tablectl run --config FILE" in err
    assert "tablectl display --config FILE" in err
    assert "quitting it leaves the table running" in err
    assert list(tmp_path.iterdir()) == [config]


def test_a_screenshot_of_a_demo_scene_is_written_as_svg(tmp_path: Path) -> None:
    """``--screenshot`` renders a scene headless at ``--size`` and exits 0."""
    out = tmp_path / "alarm.svg"
    assert (
        main(["display", "--demo", "--scene", "alarm", "--size", "80x24", "--screenshot", str(out)])
        == 0
    )
    svg = out.read_text(encoding="utf-8")
    assert svg.startswith("<svg")
    assert "UNDO" in svg


#: What --screenshot expects, said after why a path cannot take the file.
WRITABLE = "expected a writable file path in an existing folder"


def _screenshot_refused(path: Path | str, capsys: pytest.CaptureFixture[str]) -> str:
    """``--screenshot path`` exits 2 with one line and no traceback; the line."""
    argv = ["display", "--demo", "--scene", "alarm", "--screenshot", str(path)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.splitlines()) == 1, captured.err
    assert captured.err.endswith(f"; {WRITABLE}\n")
    return captured.err


def test_a_screenshot_into_a_missing_folder_names_the_path_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file in a folder that does not exist (it was a FileNotFoundError traceback)."""
    path = tmp_path / "nonexist" / "x.svg"
    err = _screenshot_refused(path, capsys)
    assert err.startswith(f"tablectl display: --screenshot {path}: no folder {path.parent}; ")
    assert not path.parent.exists()


def test_a_screenshot_onto_a_folder_or_under_a_file_names_the_path_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder given as the file, and a file given as the folder: each said as it is."""
    err = _screenshot_refused(tmp_path, capsys)
    assert err.startswith(f"tablectl display: --screenshot {tmp_path}: it is a folder; ")
    plain = tmp_path / "plain.txt"
    plain.write_text("kept", encoding="utf-8")
    err = _screenshot_refused(plain / "x.svg", capsys)
    assert err.startswith(f"tablectl display: --screenshot {plain / 'x.svg'}: {plain} is not a ")
    assert plain.read_text(encoding="utf-8") == "kept"


#: linux/fs.h: the inode flags ioctls and the immutable flag (chattr +i).
FS_IOC_GETFLAGS, FS_IOC_SETFLAGS, FS_IMMUTABLE_FL = 0x80086601, 0x40086602, 0x10


def _set_immutable(path: Path, *, on: bool) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        flags = array.array("l", [0])
        fcntl.ioctl(descriptor, FS_IOC_GETFLAGS, flags, True)
        flags[0] = flags[0] | FS_IMMUTABLE_FL if on else flags[0] & ~FS_IMMUTABLE_FL
        fcntl.ioctl(descriptor, FS_IOC_SETFLAGS, flags)
    finally:
        os.close(descriptor)


@pytest.fixture
def unwritable_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder the running user may not write in: immutable (chattr +i: root included) when
    run as root, else read-only permissions."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    if os.geteuid() == 0:
        try:
            _set_immutable(folder, on=True)
        except OSError as error:  # a file system without inode flags (some overlays)
            pytest.skip(f"cannot make the folder immutable here: {error}")
        try:
            yield folder
        finally:
            _set_immutable(folder, on=False)
    else:
        folder.chmod(0o555)
        try:
            yield folder
        finally:
            folder.chmod(0o755)


def test_a_screenshot_where_it_may_not_be_written_says_why_and_exits_2(
    unwritable_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unwritable folder: refused before the scene is drawn, with the system's reason."""
    path = unwritable_folder / "x.svg"
    err = _screenshot_refused(path, capsys)
    reason = os.strerror(errno.EPERM if os.geteuid() == 0 else errno.EACCES)
    assert err.startswith(f"tablectl display: --screenshot {path}: cannot write it: {reason}; ")
    assert not path.exists()


def test_a_screenshot_the_device_cannot_take_says_why_and_exits_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A file that opens but cannot take the SVG (/dev/full: no space left) is said too."""
    err = _screenshot_refused("/dev/full", capsys)
    reason = os.strerror(errno.ENOSPC)
    assert err.startswith(f"tablectl display: --screenshot /dev/full: cannot write it: {reason}; ")


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--size", "big"], "size 'big': expected COLUMNSxROWS, e.g. 120x40"),
        (["--size", "20x5"], "size '20x5': expected at least 40x12"),
        (["--interval", "0"], "interval '0': expected seconds above 0"),
        (["--interval", "nan"], "interval 'nan': expected seconds above 0"),
        (["--scene", "river"], "invalid choice: 'river'"),
    ],
)
def test_a_bad_option_is_refused_naming_it(
    option: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad input gets a clear error that names the input and what was expected."""
    with pytest.raises(SystemExit) as exit_info:
        main(["display", "--demo", *option])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_the_demo_steps_through_its_scenes_on_n_and_wraps_around() -> None:
    """``n`` shows the next scene; after the last comes the first again."""
    views = [SCENES["bring-in"](), SCENES["alarm"]()]

    async def session() -> list[int | None]:
        app = DemoDisplay(views, interval=3600)
        seen = []
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(3):
                await pilot.pause()
                seen.append(app.view.hand_number)
                await pilot.press("n")
        return seen

    assert asyncio.run(session()) == [1042, 88, 1042]


def test_the_demo_moves_on_by_itself_every_interval() -> None:
    """The demo's timer shows the next scene after ``interval`` seconds, without a key."""
    views = [SCENES["bring-in"](), SCENES["draw"]()]

    async def session() -> tuple[int, TableView]:
        app = DemoDisplay(views, interval=0.05)
        async with app.run_test(size=(120, 40)) as pilot:
            # Generous: it costs nothing once the timer has fired, and a loaded machine is slow.
            await settle(pilot, lambda: app.steps > 0, seconds=30.0)
            app.exit()
            return app.steps, app.views[app.position]

    steps, current = asyncio.run(session())
    assert steps >= 1
    assert current == views[steps % len(views)], "the scene the steps moved to"


def test_a_demo_without_views_is_refused() -> None:
    """The error says what the demo expected."""
    with pytest.raises(ValueError, match="expected at least one view"):
        DemoDisplay([], interval=1)


def _quit_once_refused(monkeypatch: pytest.MonkeyPatch, banners: list[str]) -> None:
    """``AttachedDisplay.run`` headless: once the first try has failed, keep the banner's
    text and press q, as the dealer does."""

    def run(app: AttachedDisplay) -> None:
        async def session() -> None:
            async with app.run_test(size=(120, 40)) as pilot:
                assert await settle(pilot, lambda: bool(app.problem), seconds=30.0)
                banners.append(str(app.query_one(LinkBanner).content))
                await pilot.press("q")

        asyncio.run(session())

    monkeypatch.setattr(AttachedDisplay, "run", run)


def test_a_display_that_reached_no_table_does_not_say_one_keeps_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--socket`` where no table answers, then q: no table was reached, so none is said to
    keep running; the line says why none was reached."""
    path = tmp_path / "nope.sock"
    _quit_once_refused(monkeypatch, [])
    assert main(["display", "--socket", str(path)]) == 0
    out = capsys.readouterr().out
    assert out == (
        f"tablectl display: closed; no table was reached: no display socket at {path} "
        "(is the table running?)\n"
    )


def test_the_banner_says_the_controller_is_not_reachable_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The red banner's label says it, and the rest says why and when the display tries
    again: not "CONTROLLER NOT REACHABLE Controller not reachable: ..."."""
    path = tmp_path / "nope.sock"
    banners: list[str] = []
    _quit_once_refused(monkeypatch, banners)
    assert main(["display", "--socket", str(path)]) == 0
    (banner,) = banners
    assert banner.startswith(f"CONTROLLER NOT REACHABLE: no display socket at {path} (is ")
    assert banner.lower().count("not reachable") == 1
