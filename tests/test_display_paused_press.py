"""A press refused while the table is paused reaches the dealer's display: the view the
controller builds after it (``ViewBuilder``, controller/table/viewbuilder.py) keeps the pause's
banner and shows the refusal, naming the pause and asking for the press again once it has ended
(docs/app.md, Devices lost and found; rules-interpretation.md, Integrity)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

import pytest
from display_harness import WIDE
from test_display_live import FIVE_CARD_STUD, ready_core
from test_display_snapshots import looks_as_committed

from controller.display.view import DeviceState, TableView
from controller.history.script import parse_script
from controller.journal import tablerecords as rec
from controller.poker.engine.events import Refused
from controller.poker.inputs import Button, ButtonPress, CardRead
from controller.table.viewbuilder import ViewBuilder

TABLE_ID: Final = "T-7"
#: What the display's log shows for a fold pressed while the shoe is lost.
REFUSAL: Final = (
    "Refused fold: the table is paused (shoe lost); press fold again once the pause has ended."
)


def paused_press_view() -> tuple[TableView, TableView]:
    """Five-card stud (14.13) to seat 4's turn on third street (FIVE_CARD_STUD's first view),
    the shoe lost, then fold pressed: the views after the shoe's loss and after the press."""
    text = FIVE_CARD_STUD.split("# view: bet")[0]
    script = parse_script(text, "paused")
    core = ready_core(script)
    builder = ViewBuilder(TABLE_ID)
    seq = 0
    for seq, line in enumerate(script.lines, start=1):
        device = "shoe" if isinstance(line.input, CardRead) else "panel"
        builder.observe(core.take(*rec.input_data(line.input, rec.Origin(device, "boot", seq))))
    core.take(rec.DEVICE, {"device": "shoe", "event": "lost", "reason": "unplugged"})
    builder.observe([])
    lost = builder.build(core)
    press = rec.input_data(ButtonPress(Button.FOLD), rec.Origin("panel", "boot", seq + 1))
    events = core.take(*press)
    assert events == [
        Refused(
            "fold", "the table is paused (shoe lost); press fold again once the pause has ended"
        )
    ]
    builder.observe(events)
    return lost, builder.build(core)


def test_the_refusal_is_the_last_line_of_the_displays_log_under_the_pauses_banner() -> None:
    lost, refused = paused_press_view()
    assert refused.log[-1] == REFUSAL
    assert refused.log[-2] == lost.log[-1]  # the strip goes on from where it was
    assert [(d.name, d.state) for d in refused.pausing_devices] == [("shoe", DeviceState.LOST)]
    # Nothing else moved: the seat still to act, its options as they were.
    assert refused.to_act == lost.to_act
    assert refused.seats == lost.seats


@pytest.mark.parametrize("size", [WIDE], ids=[f"{WIDE[0]}x{WIDE[1]}"])
def test_a_press_refused_while_paused_looks_as_committed(
    size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The screen after the refused press: the shoe's banner, the seat to act, and the refusal
    in the log (tests/snapshots/display/live-paused-press-120x40.svg)."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    _lost, refused = paused_press_view()
    svg = looks_as_committed(f"live-paused-press-{size[0]}x{size[1]}", refused, size, tmp_path)
    assert "press&#160;fold&#160;again" in svg or "press fold again" in svg
