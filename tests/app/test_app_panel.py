"""The panel's light and line (controller/table/paneltext.py): what the dealer needs now, in the
panel's 40 printable ASCII characters (docs/protocol.md, 3.4)."""

from __future__ import annotations

import pytest

from controller.display.view import DeviceState
from controller.poker.engine.events import (
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
from controller.table.core import REJECTED, Cause, Pause
from controller.table.paneltext import panel_line
from controller.table.viewbuilder import device_paused
from drivers.tablectl.panel import TEXT_WIDTH, Text
from drivers.tablectl.sentences import Hello, Reject
from drivers.tablectl.session import HostReceiver

pytestmark = pytest.mark.fast

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
        (Alarm("Kd", "slot", "seat 2", "seen twice"), [], (0, "ALARM a card: UNDO or MISDEAL")),
        (ASKED, [Pause("shoe", Cause.LOST)], (0, "PAUSED: shoe lost")),
        (
            ASKED,
            [Pause("shoe", Cause.LOST), Pause("panel", Cause.LOST)],
            (0, "PAUSED: shoe and panel lost"),
        ),
    ],
)
def test_the_seat_lit_and_the_line_follow_what_the_table_waits_for(
    pending: Event, paused: list[Pause], shown: tuple[int, str]
) -> None:
    """A seat to act or to be dealt to is lit; a pause outranks everything else."""
    assert panel_line(pending, paused) == shown


def _refusal(serial: str, protocol: int) -> tuple[str, str]:
    """The reason the drivers give for refusing this hello, and their REJ's reason word
    (docs/protocol.md 3.3, 4), as the controller journals them."""
    verdict = HostReceiver("shoe", "SHOE0001").on_hello(
        Hello(0, "RS-200", serial, "2.1.0", protocol, "5A17C0DE")
    )
    assert isinstance(verdict.reply, Reject)
    return verdict.reason, verdict.reply.reason.value


@pytest.mark.parametrize(
    ("serial", "protocol", "cause", "line", "todo"),
    [
        (
            "SHOE0002",
            1,
            Cause.WRONG_SERIAL,
            "PAUSED: shoe wrong serial; fix+restart",
            "correct its serial in [devices.shoe]",
        ),
        (
            "SHOE0001",
            2,
            Cause.WRONG_PROTOCOL,
            "PAUSED: shoe wrong version; fix+restart",
            "firmware speaks this controller's protocol version",
        ),
    ],
)
def test_a_refused_device_is_named_with_its_refusal_and_the_restart_it_needs(
    serial: str, protocol: int, cause: Cause, line: str, todo: str
) -> None:
    """docs/protocol.md 4: a refused device's driver has stopped for good. The panel and the
    display name the refusal (wrong serial or protocol version, told apart by the REJ's
    reason) and say the controller must be restarted once the device or the configuration is
    fixed; "reconnect" would never bring it back. A refusal outranks a lost device."""
    reason, rejected = _refusal(serial, protocol)
    pause = Pause("shoe", REJECTED[rejected], reason)
    assert pause.cause is cause
    assert pause.refused
    assert panel_line(ASKED, [Pause("panel", Cause.LOST), pause]) == (0, line)
    shown = device_paused([pause])
    assert shown.state is DeviceState.REFUSED
    assert shown.pauses
    assert reason in shown.message
    assert todo in shown.message
    assert "restart the controller" in shown.message
    assert "Reconnect" not in shown.message


def test_a_line_the_panel_cannot_show_is_made_showable() -> None:
    """Characters outside printable ASCII become "?", and the line is cut at 40 characters:
    the panel's Text sentence always takes it."""
    alarm = Alarm("tag E0\u00e9\t\x7f" + "9" * 60, "slot", "a card", "not in the deck")
    seat, line = panel_line(alarm, [])
    assert seat == 0
    assert line.startswith("ALARM tag E0???99")
    assert len(line) == TEXT_WIDTH
    assert Text(line).to_fields() == (line,)
