"""What a dealer bot reads at the table before its next act, as a dealer does.

A dealer does not deal into a shoe whose cable is out, nor start a hand while
the panel says the table is paused; after a misdeal or an undo they look at
what the panel asks for now. ``BotRunner(follow_table=True)`` (``tablectl sim
--bot`` and ``tablectl demo``) reads the same things here: the devices'
plugs and the shoe's faults, and the line the controller shows on the panel
(``controller.table.paneltext``: ``PAUSED: ...`` first, then ``ALARM ...``, else
what the table waits for). docs/simulator.md, The bot follows the controller.
"""

from __future__ import annotations

from typing import Final, Protocol

from controller.poker.engine import Table
from controller.poker.engine.events import Alarm, Event, HandVoided, Refused, Undone
from controller.poker.words import counted
from controller.table.paneltext import SHOE_LINES, panel_line
from drivers.seam.events import Reader
from simulator.table import DEVICES, Simulator

#: How the controller's panel line begins while a device pauses the table, and while an
#: integrity alarm holds the hand (controller/table/paneltext.py, ``panel_line``).
PAUSED: Final = "PAUSED"
ALARM: Final = "ALARM"


class FollowingBot(Protocol):
    """A bot with its own engine table (``simulator.bots``)."""

    @property
    def table(self) -> Table: ...


def table_hold(sim: Simulator, bot: FollowingBot, hosted: set[str]) -> str | None:
    """Why the bot must make no act now, in the technician's words; None: go on.

    Read on the devices first (an unplugged cable, a reader fault, a jam: the controller may
    not have heard of it yet; a device a controller welcomed before and has not welcomed
    again since it came back: what it reads now would not be acknowledged in step, and a
    press could overtake a card), then on the panel's line: the controller pauses the table,
    or an alarm holds the hand that the bot's own table does not hold (a fault injected from
    the console): the dealer resolves it, with undo or misdeal (rules-interpretation.md, Integrity).
    ``hosted`` keeps the devices a controller has welcomed so far (updated here).
    """
    with sim.locked():
        unplugged = [name for name in DEVICES if not sim.devices[name].endpoint.plugged]
        now = {name for name in DEVICES if sim.devices[name].core.link.welcomed}
        reader, jammed, text = sim.shoe.reader, sim.shoe.jammed, sim.panel.text
    hosted |= now
    waiting = [name for name in DEVICES if name in hosted and name not in now]
    cable, witness = sim.panel_cable, sim.press_witness
    if cable is not None and not cable.plugged:
        unplugged.append("panel")
    if unplugged:
        name = unplugged[0]
        return f"the {name} is unplugged ('fault replug {name}' plugs it back in)"
    if waiting:
        return f"the controller has not welcomed the {waiting[0]} back yet"
    if witness is not None:
        # A keypad's controller says nothing to it: its display says whether it holds it.
        held = witness.ready()
        if held is not None:
            return held
    return _shoe_hold(reader, jammed) or _panel_hold(text, bot)


def _shoe_hold(reader: Reader, jammed: bool) -> str | None:
    if reader is Reader.FAULT:
        return "the shoe's reader is in a fault ('fault reader ok' mends it)"
    if jammed:
        return "the shoe's feed is jammed ('fault jam off' frees it)"
    return None


def _panel_hold(text: str, bot: FollowingBot) -> str | None:
    if text.startswith(PAUSED):
        return f"the controller paused the table: {text!r}"
    if _foreign(text, bot):
        return f"the controller holds the hand: {text!r} (press undo or misdeal)"
    return None


def foreign_alarm(sim: Simulator, bot: FollowingBot) -> bool:
    """Whether the controller's panel shows an alarm the bot's own table does not hold: a
    read the bot did not make (a fault injected from the console)."""
    with sim.locked():
        text = sim.panel.text
    return _foreign(text, bot)


def _foreign(text: str, bot: FollowingBot) -> bool:
    return text.startswith(ALARM) and not isinstance(bot.table.pending, Alarm)


def welcomed(sim: Simulator) -> set[str]:
    """The devices a host (the controller) has welcomed and not lost since."""
    with sim.locked():
        return {name for name in DEVICES if sim.devices[name].core.link.welcomed}


def controller_line(sim: Simulator) -> str | None:
    """The line a controller shows on the panel now; None while no controller has welcomed
    the panel (nothing there to follow)."""
    with sim.locked():
        panel = sim.devices["panel"].core
        return sim.panel.text if panel.link.welcomed else None


def expected_line(bot: FollowingBot) -> str:
    """The panel's line for what the bot's table waits for, as the controller words it."""
    return panel_line(bot.table.pending, ())[1]


def agrees(shown: str, expected: str) -> bool:
    """Whether the controller's line says the table waits for what the bot's table does: the
    same line, or a shoe warning that stands in for it while the seat stays lit (docs/app.md,
    The shoe's state)."""
    return shown == expected or shown in SHOE_LINES.values()


def follows(events: list[Event], bot: FollowingBot) -> str:
    """What the bot's table made of a press of the technician's, for the console."""
    refused = next((e for e in events if isinstance(e, Refused)), None)
    if refused is not None:
        return f"refused ({refused.reason}); the bot goes on as it was"
    waits = expected_line(bot)
    voided = next((e for e in events if isinstance(e, HandVoided)), None)
    if voided is not None:
        returned = sum(entry.amount for entry in voided.returned)
        return (
            f"hand {voided.hand} void, {counted(returned, 'chip')} returned; "
            f"the bot follows the controller: {waits!r}"
        )
    undone = next((e for e in events if isinstance(e, Undone)), None)
    taken = f"{undone.input} undone" if undone is not None else "taken"
    return f"{taken}; the bot follows the controller: {waits!r}"
