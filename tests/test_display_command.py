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


def test_without_demo_the_display_points_to_the_live_displays_and_exits_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A live table's display runs in the controller (run --display, demo): without --demo the
    command says where, instead of hanging."""
    assert main(["display"]) == 2
    err = capsys.readouterr().err
    assert "expected --demo" in err
    assert "tablectl run --config FILE --display" in err
    assert "tablectl demo" in err


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
