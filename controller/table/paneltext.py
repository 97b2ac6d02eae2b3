"""What the dealer's panel shows: the seat to light and one line of 40 ASCII characters. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from controller.poker.announce import alarm_read, option_text
from controller.poker.engine.events import (
    BURN,
    COMMUNITY,
    ActionRequired,
    Alarm,
    CardExpected,
    DrawExpected,
    Event,
    NewHandExpected,
)
from controller.table.core import Pause, ShoeWarning
from drivers.seam.device import LINE_WIDTH


def _ascii(text: str) -> str:
    """Printable ASCII only, at most the panel's width (docs/protocol.md, 3.4)."""
    if not (text.isascii() and text.isprintable()):  # ASCII's printables are " " to "~"
        text = "".join(c if " " <= c <= "~" else "?" for c in text)
    return text[:LINE_WIDTH]


def paused_line(pauses: Sequence[Pause]) -> str:
    """What holds the table: a refusal first (only a restart after a fix ends it), else each
    cause with its devices (``PAUSED: shoe and panel lost``)."""
    refused = next((pause for pause in pauses if pause.refused), None)
    if refused is not None:
        return _ascii(f"PAUSED: {refused.device} {refused.cause}; fix+restart")
    devices: dict[str, list[str]] = {}
    for pause in pauses:
        devices.setdefault(pause.cause, []).append(pause.device)
    causes = "; ".join(f"{' and '.join(names)} {cause}" for cause, names in devices.items())
    return _ascii(f"PAUSED: {causes}")


#: The line for each state of the shoe the dealer must see to (docs/app.md, The shoe's state).
SHOE_LINES = {
    ShoeWarning.LID_OPEN: "Shoe lid open: close it",
    ShoeWarning.EMPTY: "Shoe empty: load cards or MISDEAL",
}


def panel_line(
    pending: Event, pauses: Sequence[Pause], shoe: Sequence[ShoeWarning] = ()
) -> tuple[int, str]:
    """The seat to light (0: none) and the line the dealer needs now: a pause, else an alarm,
    else the shoe's warning (the seat the table waits for still lit), else what the table
    waits for."""
    if pauses:
        return 0, paused_line(pauses)
    if isinstance(pending, Alarm):
        # rules-interpretation.md, Integrity: an alarm holds the hand until the dealer resolves it.
        return 0, _ascii(f"ALARM {alarm_read(pending)}: UNDO or MISDEAL")
    seat, line = waiting_for(pending)
    if shoe:
        return seat, SHOE_LINES[shoe[0]]
    return seat, line


def waiting_for(pending: Event) -> tuple[int, str]:  # noqa: PLR0911 one return per thing the table waits for
    """The seat to light and the line for what the table waits for."""
    if isinstance(pending, ActionRequired):
        options = "/".join(option_text(o) for o in pending.options)
        return pending.seat, _ascii(f"S{pending.seat}: {options}")
    if isinstance(pending, CardExpected):
        if pending.destination == BURN:
            return 0, "Burn a card"
        if pending.destination == COMMUNITY:
            return 0, "Community card, face up"
        return pending.seat or 0, _ascii(f"Card to seat {pending.seat}, face {pending.face}")
    if isinstance(pending, DrawExpected):
        return pending.seat, _ascii(f"S{pending.seat}: discards, then DRAW DONE")
    if isinstance(pending, NewHandExpected):
        return 0, _ascii(f"Shuffle; NEW HAND for hand {pending.hand}")
    return 0, ""
