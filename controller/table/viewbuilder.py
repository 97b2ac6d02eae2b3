"""The engine's state as the dealer's display shows it: a ``TableView``. Pure.

``ViewBuilder.observe(events)`` follows what the engine announced (the chips
in front of each seat this round, the last showdown, the last announcements);
``build(core)`` makes the snapshot. Hole cards reach the view only as
``FACE_DOWN`` (docs/display.md: the screen shows what the table shows).
"""

from __future__ import annotations

from collections import deque
from typing import Final

from controller.display.view import (
    FACE_DOWN,
    ActionOption,
    ActionPrompt,
    AlarmView,
    Award,
    Destination,
    DeviceState,
    DeviceView,
    NextCard,
    OddChip,
    PotView,
    SeatStatus,
    SeatView,
    Severity,
    ShowdownView,
    ShownCard,
    ShownHand,
    TableView,
    device_lost,
    posted_rules,
    posted_stakes,
)
from controller.poker.announce import alarm_read, announce, option_words, told
from controller.poker.cards import Card
from controller.poker.engine import events as ev
from controller.poker.engine.betting import to_call_reason
from controller.poker.engine.hand import SeatState
from controller.poker.engine.machine import DRAWING, IN_HAND
from controller.poker.games.spec import ForcedBet
from controller.poker.inputs import Button
from controller.table.core import Cause, Pause, ShoeWarning, TableCore
from drivers.seam.events import ROLES

LOG_LINES: Final = 4


class ViewBuilder:
    """Builds the display's view of one table from the core and the events it announced."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self._bets: dict[int, int] = {}
        self._shown: ev.Showdown | None = None
        self._settled: ev.HandSettled | None = None
        # The log strip's events, worded only when a view is built: the controller follows
        # them after every input, with a display attached or not (docs/performance.md).
        self._log: deque[ev.Event] = deque(maxlen=LOG_LINES)

    def observe(self, events: list[ev.Event]) -> None:
        """Follow the engine's events (after every input)."""
        for event in events:
            if isinstance(event, ev.HandStarted):
                self._bets.clear()
                self._shown, self._settled = None, None
            elif isinstance(event, ev.RoundCompleted):
                # Every round ends so, a skipped one too; not at a street's start: the blinds,
                # posted before the first street starts, are its live bets (14.10(c),(d)).
                self._bets.clear()
            elif isinstance(event, ev.BlindPosted):
                self._bets[event.seat] = event.amount
            elif isinstance(event, ev.ActionTaken):
                self._bets[event.seat] = event.round_total
            elif isinstance(event, ev.Showdown):
                self._shown = event
            elif isinstance(event, ev.HandSettled):
                self._settled = event
                self._bets.clear()
            if not isinstance(event, ev.CardExpected | ev.ActionRequired):
                self._log.append(event)

    def build(self, core: TableCore) -> TableView:
        """The view of the table now."""
        table = core.table
        state = table.state
        in_hand = state.phase in IN_HAND
        button_game = table.spec.forced_bet is ForcedBet.BLINDS
        seats = tuple(
            SeatView(
                number=seat.seat,
                stack=seat.stack,
                bet=self._bets.get(seat.seat, 0) if in_hand else 0,
                cards=_cards(seat.down, seat.up),
                status=_status(seat, in_hand),
                button=button_game and seat.seat == state.dealer,
            )
            for seat in state.seats
        )
        live = tuple(s.seat for s in state.seats if s.dealt_in and not s.folded)
        # The engine's pot holds every chip put in; the bets still in front are not gathered.
        gathered = state.pot - sum(seat.bet for seat in seats)
        pending = table.pending
        return TableView(
            game=table.spec.name,
            table_id=self.table_id,
            seats=seats,
            hand_number=state.hand or None,
            street=state.street or "",
            stakes=posted_stakes(table.stakes, table.spec.forced_bet),
            rules=posted_rules(table.rules, table.spec),
            pots=self._pots(in_hand, state.pot, gathered, live),
            community=tuple(Card.parse(c) for c in state.community),
            next_card=_next_card(pending, state.phase == DRAWING),
            to_act=action_prompt(pending),
            alarms=_alarms(pending, core),
            devices=_devices(core),
            showdown=self._showdown(),
            dealer_prompt=dealer_prompt(pending),
            log=tuple(announce(event) for event in self._log),
            hand_in_progress=in_hand,
            deck=core.deck.deck if core.deck is not None else "",
        )

    def _pots(
        self, in_hand: bool, pot: int, gathered: int, live: tuple[int, ...]
    ) -> tuple[PotView, ...]:
        """During a hand, the chips gathered; after a showdown, each pot as it was divided."""
        if in_hand:
            return (PotView("Pot", gathered, live),) if pot else ()
        settled = self._settled
        if settled is None or settled.uncontested or self._shown is None:
            return ()
        return tuple(
            PotView(_pot_name(p.name), p.amount, p.eligible) for p in settled.pots if not p.returned
        )

    def _showdown(self) -> ShowdownView | None:
        settled = self._settled
        if settled is None or settled.uncontested or self._shown is None:
            return None
        by_seat: dict[int, dict[str, ev.ShownHand]] = {}
        for hand in self._shown.hands:
            by_seat.setdefault(hand.seat, {})[hand.share] = hand
        hands = []
        for seat, shares in by_seat.items():
            first = next(iter(shares.values()))
            high = shares.get("high", first)
            # A game of one share (triple draw: low only) names the hand once.
            low = shares.get("low") if "high" in shares else None
            hands.append(
                ShownHand(
                    seat,
                    tuple(Card.parse(c) for c in first.cards),
                    high.description,
                    low.description if low is not None else None,
                )
            )
        awards: list[Award] = []
        odd: list[OddChip] = []
        for pot in settled.pots:
            name = _pot_name(pot.name)
            for award in pot.awards:
                won = [s.share for s in pot.shares if award.seat in s.winners]
                awards.append(Award(name, award.seat, award.amount, " and ".join(won)))
            odd.extend(OddChip(name, o.seat, o.chips, o.rule) for o in pot.odd_chips)
        return ShowdownView(tuple(hands), tuple(awards), tuple(odd), settled.rake)


def _pot_name(name: str) -> str:
    """The engine's "main pot", "side pot 1" as the screen begins a line with it."""
    return name[:1].upper() + name[1:]


def _cards(down: tuple[str, ...], up: tuple[str, ...]) -> tuple[ShownCard, ...]:
    return (FACE_DOWN,) * len(down) + tuple(Card.parse(c) for c in up)


def _status(seat: SeatState, in_hand: bool) -> SeatStatus:
    """Where the seat stands: a seat dealt in is in the hand from its start, before its first
    card (``HandStarted.seats``: its ante is in the pot); only a seat the hand was not dealt
    to sits out."""
    if seat.folded:
        return SeatStatus.FOLDED
    if seat.all_in:
        return SeatStatus.ALL_IN
    if in_hand and not seat.dealt_in:
        return SeatStatus.SITTING_OUT
    return SeatStatus.ACTIVE


def _next_card(pending: ev.Event, drawing: bool) -> NextCard:
    if isinstance(pending, ev.DrawExpected):
        return NextCard(Destination.DISCARDS, pending.seat)
    if not isinstance(pending, ev.CardExpected):
        return NextCard()
    if pending.destination == ev.BURN:
        return NextCard(Destination.BURN)
    if pending.destination == ev.COMMUNITY:
        return NextCard(Destination.COMMUNITY)
    if drawing:
        return NextCard(Destination.REPLACEMENT, pending.seat)
    face = Destination.FACE_UP if pending.face == "up" else Destination.FACE_DOWN
    return NextCard(face, pending.seat)


#: Why a seat that owes chips acts, when no opener rule names it: the engine's reason is then
#: only the amount ("to call 5"), which the screen already says from ``to_call``.
FACES_A_BET: Final = "Faces a bet"


def action_prompt(pending: ev.Event) -> ActionPrompt | None:
    """What the display asks of the seat to act (None: the table waits for no action).

    The amount to call is said once: the engine's plain "to call 5" becomes "Faces a bet",
    and the screen adds "· to call 5" from ``to_call``.
    """
    if not isinstance(pending, ev.ActionRequired):
        return None
    reason = pending.reason
    if pending.to_call and reason == to_call_reason(pending.to_call):
        reason = FACES_A_BET
    return ActionPrompt(
        pending.seat,
        reason,
        tuple(action_option(o) for o in pending.options),
        pending.to_call,
    )


def action_option(option: ev.Option) -> ActionOption:
    """``raise to 15`` becomes the words ``raise to`` and the number 15, as the display sets
    them: the table's words for an option (announce.option_words)."""
    words, number = option_words(option)
    return ActionOption(Button(option.button), words, number)


def _alarms(pending: ev.Event, core: TableCore) -> tuple[AlarmView, ...]:
    alarms = []
    if isinstance(pending, ev.Alarm):
        # rules-interpretation.md, Integrity: the alarm holds the hand until the dealer resolves it.
        # Its card is "a card", in its reason too (the other deck's card): announce.told.
        reason = told(pending, pending.reason)
        alarms.append(
            AlarmView(
                Severity.ALARM,
                f"{alarm_read(pending).capitalize()} at the {pending.point}: {reason}.",
                "Put the card aside and press UNDO, or press MISDEAL.",
                "rules-interpretation.md, Integrity",
            )
        )
    for name in ROLES:
        device = core.devices[name]
        if device.connected and device.restarted:
            alarms.append(AlarmView(Severity.WARNING, f"The {name} restarted.", device.message))
        elif device.connected and device.lost:
            alarms.append(
                AlarmView(
                    Severity.WARNING, f"The {name} lost sentences {device.lost}.", device.message
                )
            )
    alarms.extend(SHOE_WARNINGS[warning] for warning in core.shoe_warnings)
    return tuple(alarms)


#: The shoe's states the dealer must see to without a pause (docs/app.md, The shoe's state).
SHOE_WARNINGS: Final[dict[ShoeWarning, AlarmView]] = {
    ShoeWarning.LID_OPEN: AlarmView(
        Severity.WARNING,
        "The shoe's lid is open during the hand.",
        "Close it, and deal only through the slot: a card taken through the lid is not read.",
    ),
    ShoeWarning.EMPTY: AlarmView(
        Severity.WARNING,
        "The shoe is empty and a card is due.",
        "Load the cards still to be dealt (at a draw, the reshuffled discards: 14.12A(f)), "
        "or press MISDEAL.",
    ),
}


def _devices(core: TableCore) -> tuple[DeviceView, ...]:
    pauses: dict[str, list[Pause]] = {}
    for pause in core.pauses:
        pauses.setdefault(pause.device, []).append(pause)
    return tuple(
        device_paused(pauses[name]) if name in pauses else DeviceView(name) for name in ROLES
    )


#: What stops the table at a shoe that reports a fault, and what brings it back
#: (docs/protocol.md 3.1 ``STA``; docs/app.md, The shoe's state).
_FAULTS: Final[dict[Cause, str]] = {
    Cause.READER_FAULT: (
        "the shoe's RFID reader reports a fault: a card dealt now leaves the shoe unread. "
        "Deal no card; power-cycle the shoe (it tests its reader again) or call a technician."
    ),
    Cause.JAMMED: (
        "a card is jammed in the shoe's slot. Free it and let it leave through the slot: "
        "a card pulled out by hand is not read."
    ),
}


#: What brings a refused device back: its driver has stopped for good, so the
#: controller is restarted once the device or the configuration is right (docs/app.md).
_REFUSED_TODO: Final[dict[Cause, str]] = {
    Cause.WRONG_SERIAL: (
        "Connect the {name} the configuration names, or correct its serial in "
        "[devices.{name}]; then restart the controller (systemctl restart tablectl)."
    ),
    Cause.WRONG_PROTOCOL: (
        "Connect a {name} whose firmware speaks this controller's protocol version; "
        "then restart the controller (systemctl restart tablectl)."
    ),
    Cause.REFUSED: (
        "Fix the {name} or the configuration; then restart the controller "
        "(systemctl restart tablectl)."
    ),
}


def device_paused(pauses: list[Pause]) -> DeviceView:
    """The display's view of a device that pauses the table: what is wrong and what brings
    the table back (docs/app.md, Devices lost and found, and The shoe's state)."""
    pause = pauses[0]
    name = pause.device
    if pause.cause in _FAULTS:
        what = " Also, ".join(_FAULTS[p.cause] for p in pauses)
        return DeviceView(
            name,
            DeviceState.FAULT,
            f"Table paused: {what} The hand resumes where it stopped when the {name} reports "
            "it cleared.",
        )
    if pause.refused:
        return DeviceView(
            name,
            DeviceState.REFUSED,
            f"Table paused: {name} refused ({pause.cause}): {pause.detail}. "
            + _REFUSED_TODO[pause.cause].format(name=name)
            + " The hand resumes where it stopped.",
        )
    return device_lost(name)


def dealer_prompt(pending: ev.Event) -> str:
    """What the display asks of the dealer when no seat acts and no card is due."""
    if isinstance(pending, ev.NewHandExpected):
        return f"Shuffle and cut the other deck, then press NEW HAND (hand {pending.hand})"
    if isinstance(pending, ev.DrawExpected):
        return f"Seat {pending.seat}: discards over the reader, then DRAW DONE (none: stands pat)"
    return ""


__all__ = ["DeviceState", "ViewBuilder"]
