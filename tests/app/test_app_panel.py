"""The panel's light and line (controller/app/panel.py): what the dealer needs now, in the
panel's 40 printable ASCII characters (docs/protocol.md, 3.4)."""

from __future__ import annotations

import pytest

from controller.app.panel import panel_line
from controller.engine.events import (
    BURN,
    COMMUNITY,
    SEAT,
    ActionRequired,
    Alarm,
    CardExpected,
    Event,
    NewHandExpected,
    Option,
)
from drivers.panel import TEXT_WIDTH, Text

ASKED = ActionRequired(
    3, "to act", 5, (Option("fold", 0, "fold"), Option("check_call", 5, "call 5"))
)


@pytest.mark.parametrize(
    ("pending", "paused", "shown"),
    [
        (ASKED, [], (3, "S3: fold/call 5")),
        (CardExpected(BURN, None, None), [], (0, "Burn a card")),
        (CardExpected(COMMUNITY, None, None), [], (0, "Community card, face up")),
        (CardExpected(SEAT, 4, "down"), [], (4, "Card to seat 4, face down")),
        (NewHandExpected(7), [], (0, "Shuffle; NEW HAND for hand 7")),
        (Alarm("Kd", "slot", "seat 2", "seen twice"), [], (0, "ALARM Kd: UNDO or MISDEAL")),
        (ASKED, ["shoe"], (0, "PAUSED: shoe lost")),
    ],
)
def test_the_seat_lit_and_the_line_follow_what_the_table_waits_for(
    pending: Event, paused: list[str], shown: tuple[int, str]
) -> None:
    """A seat to act or to be dealt to is lit; a pause outranks everything else."""
    assert panel_line(pending, paused) == shown


def test_a_line_the_panel_cannot_show_is_made_showable() -> None:
    """Characters outside printable ASCII become "?", and the line is cut at 40 characters:
    the panel's Text sentence always takes it."""
    alarm = Alarm("tag E0\u00e9\t\x7f" + "9" * 60, "slot", "a card", "not in the deck")
    seat, line = panel_line(alarm, [])
    assert seat == 0
    assert line.startswith("ALARM tag E0???99")
    assert len(line) == TEXT_WIDTH
    assert Text(line).to_fields() == (line,)
