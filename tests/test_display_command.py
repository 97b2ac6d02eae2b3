"""``tablectl display``: the demo scenes, the headless screenshot, and bad options."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli import main


def test_without_demo_the_display_says_what_it_needs_and_exits_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Following a live table needs the engine adapter; the command says so instead of hanging."""
    assert main(["display"]) == 2
    assert "use --demo" in capsys.readouterr().err


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
        (["--interval", "0"], "interval '0': expected seconds above 0"),
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
