"""``tablectl display``: the demo scenes, the headless screenshot, and bad options."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from display_harness import settle

from controller.cli import main
from controller.display.demo import SCENES
from controller.display.demo_app import DemoDisplay
from controller.display.view import TableView

pytestmark = pytest.mark.fast


def test_without_demo_a_configuration_that_cannot_be_read_is_named_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --demo the display attaches to the table of --config (docs/display.md): a
    configuration it cannot read is named, with what is wrong, and nothing is drawn."""
    missing = tmp_path / "table.toml"
    assert main(["display", "--config", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablectl display: ")
    assert str(missing) in err


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


def test_config_and_socket_are_one_or_the_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["display", "--config", "t.toml", "--socket", "/run/t.sock"])
    assert caught.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_run_display_is_gone_and_says_what_to_run_instead(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 15: the display no longer runs inside the controller: run --display says to run
    the table without it and the display beside it, and exits 2 before opening anything."""
    assert main(["run", "--display", "--config", str(tmp_path / "table.toml")]) == 2
    err = capsys.readouterr().err
    assert "tablectl run --config FILE" in err
    assert "tablectl display --config FILE" in err
    assert "quitting it leaves the table running" in err
    assert list(tmp_path.iterdir()) == []


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
