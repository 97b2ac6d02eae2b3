"""What the dealer's panel shows: the seat to light and one line of 40 ASCII characters. Pure."""

from __future__ import annotations

from controller.engine.events import (
    BURN,
    COMMUNITY,
    ActionRequired,
    Alarm,
    CardExpected,
    DrawExpected,
    Event,
    NewHandExpected,
)
from drivers.panel import TEXT_WIDTH


def _ascii(text: str) -> str:
    """Printable ASCII only, at most the panel's width (docs/protocol.md, 3.4)."""
    if not (text.isascii() and text.isprintable()):  # ASCII's printables are " " to "~"
        text = "".join(c if " " <= c <= "~" else "?" for c in text)
    return text[:TEXT_WIDTH]


def panel_line(pending: Event, paused_by: list[str]) -> tuple[int, str]:  # noqa: PLR0911 one return per thing the table waits for
    """The seat to light (0: none) and the line the dealer needs now."""
    if paused_by:
        return 0, _ascii(f"PAUSED: {' and '.join(paused_by)} lost")
    if isinstance(pending, Alarm):
        # NOTES.md, Integrity: an alarm holds the hand until the dealer resolves it.
        return 0, _ascii(f"ALARM {pending.read}: UNDO or MISDEAL")
    if isinstance(pending, ActionRequired):
        options = "/".join(o.meaning for o in pending.options)
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
