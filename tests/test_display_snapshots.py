"""SVG snapshots of the dealer's display in the main situations, compared byte for byte.

The committed SVGs under tests/snapshots/display/ are what the dealer sees. A
deliberate change of the look is recorded by running the tests with
``TABLECTL_UPDATE_SNAPSHOTS=1`` and reviewing the new SVGs (they open in any
browser) before committing them. The screenshots are deterministic: fixed size,
no clock, no animation, no focus cursor. They depend on the Textual and Rich
versions that draw them (Textual 8.2 here).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from display_harness import SMALL, WIDE, run_display
from textual.pilot import Pilot

from controller.display.app import DealerDisplay
from controller.display.demo import SCENES, device_lost_scene
from controller.display.view import DeviceView, TableView
from controller.table.core import Cause, Pause
from controller.table.viewbuilder import device_paused

SNAPSHOTS = Path(__file__).parent / "snapshots" / "display"
UPDATE = os.environ.get("TABLECTL_UPDATE_SNAPSHOTS") == "1"

CASES = [
    # 14.13A(d): the lowest up-card brings in, eleven seats.
    ("bring-in", WIDE),
    ("bring-in", SMALL),
    # 14.12A(f): a draw, replacement due.
    ("draw", WIDE),
    # 14.13A(j), (j)1: high-low split of a main and a side pot, odd chip to high.
    ("showdown", WIDE),
    ("showdown", SMALL),
    # rules-interpretation.md, Integrity: a card seen twice holds the hand.
    ("alarm", WIDE),
    ("alarm", SMALL),
    ("device-lost", WIDE),
]


def _screenshot(view: TableView, size: tuple[int, int]) -> str:
    """The screen once it has settled: two screenshots in a row are the same."""

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> str:
        # Seat boxes redraw after their first layout; on a loaded machine that can take
        # more than one pause, so wait until the picture stops changing.
        previous, svg = "", app.export_screenshot(simplify=True)
        for _ in range(20):
            if svg == previous:
                break
            await pilot.pause()
            previous, svg = svg, app.export_screenshot(simplify=True)
        return svg

    return run_display(view, script, size)


@pytest.mark.parametrize(
    ("scene", "size"), CASES, ids=[f"{scene}-{w}x{h}" for scene, (w, h) in CASES]
)
def test_the_display_looks_as_committed(
    scene: str,
    size: tuple[int, int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each main situation (bring-in 14.13A(d), draw 14.12A(f), split showdown 14.13A(j),
    integrity alarm rules-interpretation.md, Integrity, device lost) renders exactly as the
    committed SVG."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    build: Callable[[], TableView] = SCENES[scene]
    looks_as_committed(f"{scene}-{size[0]}x{size[1]}", build(), size, tmp_path)


#: A device that pauses the table for another reason than a lost link: the shoe's reader
#: failed or a card jammed (docs/protocol.md 3.1 STA), or the controller refused the device
#: (docs/protocol.md 4). Each banner is the controller's own text (controller/table/viewbuilder.py).
PAUSES = [
    ("shoe-reader-fault", [Pause("shoe", Cause.READER_FAULT)], SMALL),
    ("shoe-jammed", [Pause("shoe", Cause.JAMMED)], WIDE),
    (
        "shoe-refused",
        [Pause("shoe", Cause.WRONG_SERIAL, "serial SHOE0002; the configuration names SHOE0001")],
        SMALL,
    ),
]


@pytest.mark.parametrize(
    ("name", "pauses", "size"),
    PAUSES,
    ids=[f"{name}-{w}x{h}" for name, _, (w, h) in PAUSES],
)
def test_a_device_that_pauses_the_table_looks_as_committed(
    name: str,
    pauses: list[Pause],
    size: tuple[int, int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/app.md, The shoe's state and Devices lost and found: a reader fault, a jam and a
    refused shoe each pause the table with a banner that says what to do, whole at 80x24."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    view = replace(device_lost_scene(), devices=(device_paused(pauses), DeviceView("panel")))
    looks_as_committed(f"{name}-{size[0]}x{size[1]}", view, size, tmp_path)


def looks_as_committed(name: str, view: TableView, size: tuple[int, int], tmp_path: Path) -> str:
    """``view`` drawn at ``size`` is the committed ``NAME.svg`` (recorded afresh when
    ``TABLECTL_UPDATE_SNAPSHOTS=1``); the SVG drawn."""
    svg = _screenshot(view, size)
    expected = SNAPSHOTS / f"{name}.svg"
    if UPDATE:
        expected.parent.mkdir(parents=True, exist_ok=True)
        expected.write_text(svg, encoding="utf-8")
        return svg
    if not expected.exists():
        pytest.fail(f"no snapshot {expected}; run with TABLECTL_UPDATE_SNAPSHOTS=1 to record it")
    if svg != expected.read_text(encoding="utf-8"):
        actual = tmp_path / expected.name
        actual.write_text(svg, encoding="utf-8")
        pytest.fail(
            f"the display differs from {expected}; what it draws now is in {actual}. "
            "If the change is intended, rerun with TABLECTL_UPDATE_SNAPSHOTS=1 and review."
        )
    return svg
