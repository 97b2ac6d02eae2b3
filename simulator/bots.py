"""Dealer bots: what a dealer does at the table, act by act, with no I/O.

A bot decides the dealer's next act: shuffle and cut, deal the top card
(or a named card), pass a card over the discard reader, press a button, put
reshuffled discards back in the shoe, sell a player chips between hands.
It keeps its own engine ``Table`` to know what the procedure expects and what
is legal, and a ``HandRecord`` of every hand: the inputs it produced and the
settlement it expects, for comparison with what the controller computes from
the hardware path. ``simulator.runner.BotRunner`` performs the acts on the
simulator's devices; ``feed`` performs them on any ``Table`` directly.

- ``ScriptedBot(script)`` plays a hand script (docs/hand-script.md) exactly.
- ``RandomBot(game, seats, stakes, seed)`` plays whole hands of any game
  legally, dealing from the simulator's deck model: the deck shuffled anew
  from the seed before every hand and cut (13:69F-14.5; NOTES.md, Shuffle,
  cut and decks).

Pure: the only randomness is a ``random.Random`` seeded by the caller.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from controller.cards import DECK, Card
from controller.engine import Stakes, Table, TableCheckpoint, TableConfig
from controller.engine.events import (
    ActionRequired,
    Alarm,
    CardDealt,
    CardDiscarded,
    CardExpected,
    DiscardsReshuffled,
    DrawExpected,
    Event,
    HandSettled,
    HandStarted,
    HandVoided,
    NewHandExpected,
    Option,
    PotResult,
    Refused,
    Undone,
)
from controller.games import GAMES
from controller.games.spec import ForcedBet, GameSpec
from controller.inputs import Button, ButtonPress, CardRead, ForeignTag, ReadPoint, TableInput
from controller.script import HandScript
from controller.words import counted
from simulator.decks import DECK_NAMES, MIN_CUT, cut, shuffled

# --- Acts: what the dealer does -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Shuffle:
    """Put ``deck`` in play shuffled from ``seed``, then cut ``cut`` cards off the top
    (13:69F-14.5; NOTES.md, Shuffle, cut and decks: at least ten)."""

    deck: str
    seed: int
    cut: int


@dataclass(frozen=True, slots=True)
class Deal:
    """Deal a card through the shoe's slot: the top card, which is ``card``; or, when
    ``named``, ``card`` from wherever it is (a script names its cards, not their order)."""

    card: Card
    named: bool = False


@dataclass(frozen=True, slots=True)
class Discard:
    """Pass ``card`` over the discard reader into the muck (a draw's discard, a folded hand)."""

    card: Card


@dataclass(frozen=True, slots=True)
class Press:
    """Press a button on the dealer's panel."""

    button: Button


@dataclass(frozen=True, slots=True)
class Restock:
    """Put the reshuffled discards, in this order, under the stub (14.12A(f))."""

    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Rebuy:
    """Sell ``seat`` ``chips`` between hands (the engine learns it by ``Table.rebuy``)."""

    seat: int
    chips: int


@dataclass(frozen=True, slots=True)
class Tag:
    """A tag that is no card of the active deck passes a reader (scripts of incidents)."""

    uid: str
    point: ReadPoint
    reason: str


Act = Shuffle | Deal | Discard | Press | Restock | Rebuy | Tag


# The inputs are frozen values: one of each, made once (a bot makes millions of them).
_SLOT_READS: Final = {card: CardRead(card, ReadPoint.DEALING_SLOT) for card in DECK}
_DISCARD_READS: Final = {card: CardRead(card, ReadPoint.DISCARD_READER) for card in DECK}
_PRESSES: Final = {button: ButtonPress(button) for button in Button}
_CARDS: Final = {card.code: card for card in DECK}


def table_input(act: Act) -> TableInput | None:
    """The engine input an act makes the devices report; None for acts the devices do not
    report (a shuffle, a restock, a rebuy)."""
    kind = type(act)
    if kind is Deal:
        return _SLOT_READS[act.card]  # type: ignore[union-attr]  # kind checked: a Deal
    if kind is Press:
        return _PRESSES[act.button]  # type: ignore[union-attr]  # kind checked: a Press
    if kind is Discard:
        return _DISCARD_READS[act.card]  # type: ignore[union-attr]  # kind checked: a Discard
    if isinstance(act, Tag):
        return ForeignTag(act.uid, act.reason, act.point)
    return None


def feed(table: Table, act: Act) -> list[Event]:
    """Perform ``act`` on ``table`` as the controller would see it; return the events."""
    if isinstance(act, Rebuy):
        table.rebuy(act.seat, act.chips)
        return []
    inp = table_input(act)
    return [] if inp is None else table.apply(inp)


# --- The record of a hand -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand as the bot produced it and the settlement it expects.

    ``acts`` runs from the hand's shuffle (and the rebuys before it) to its last
    input; ``inputs`` are the engine inputs among them, in order; ``settlement``
    is the ``HandSettled`` (every seat's net, the pots, the rake) or ``HandVoided``
    the bot's own table computed.
    """

    hand: int
    game: str
    acts: tuple[Act, ...]
    inputs: tuple[TableInput, ...]
    settlement: HandSettled | HandVoided

    @property
    def net(self) -> dict[int, int]:
        """Every dealt seat's net result (0 for all in a voided hand)."""
        if isinstance(self.settlement, HandVoided):
            return {a.seat: 0 for a in self.settlement.returned}
        return {a.seat: a.amount for a in self.settlement.net}

    @property
    def pots(self) -> tuple[PotResult, ...]:
        """The pots as settled (none in a voided hand)."""
        return self.settlement.pots if isinstance(self.settlement, HandSettled) else ()

    @property
    def rake(self) -> int:
        """The chips the house took from this hand."""
        return self.settlement.rake if isinstance(self.settlement, HandSettled) else 0

    def differences(self, actual: HandSettled | HandVoided | None) -> list[str]:
        """What differs between the expected settlement and ``actual`` (empty: they match)."""
        expected = self.settlement
        if actual is None:
            return [f"hand {self.hand}: expected {expected.kind}, the controller settled nothing"]
        if type(actual) is not type(expected):
            return [f"hand {self.hand}: expected {expected.kind}, got {actual.kind}"]
        out = []
        for name in expected.__dataclass_fields__:
            want, got = getattr(expected, name), getattr(actual, name)
            if want != got:
                out.append(f"hand {self.hand}: {name} expected {want!r}, got {got!r}")
        return out


def describe_act(act: Act) -> str:
    """An act in a dealer's words, for a console or a log."""
    match act:
        case Shuffle():
            text = f"shuffle deck {act.deck} (seed {act.seed}), cut {act.cut}"
        case Deal():
            text = f"deal {act.card.code}" + (" (by name)" if act.named else "")
        case Discard():
            text = f"discard {act.card.code}"
        case Press():
            text = f"press {act.button.value}"
        case Restock():
            text = f"reshuffled discards under the stub: {' '.join(c.code for c in act.cards)}"
        case Rebuy():
            text = f"seat {act.seat} buys {counted(act.chips, 'chip')}"
        case Tag():
            text = f"tag {act.uid} at the {act.point.value} ({act.reason})"
    return text


def describe_record(record: HandRecord) -> str:
    """A hand's expected settlement in one line: every seat's net, the pots and the rake."""
    if isinstance(record.settlement, HandVoided):
        return f"hand {record.hand}: void, every bet returned"
    nets = " ".join(f"{seat}:{net:+d}" for seat, net in sorted(record.net.items()))
    pots = " ".join(f"{pot.name} {pot.amount}" for pot in record.pots)
    return f"hand {record.hand}: net {nets}; pots {pots}; rake {record.rake}"


class BotError(RuntimeError):
    """The bot's own table did not take an act the bot chose: a bug in the bot or engine."""


# --- The shared core ----------------------------------------------------------------------


class _Bot:
    """A stream of acts, each performed on the bot's own table, with a record per hand."""

    def __init__(self, spec: GameSpec, config: TableConfig) -> None:
        self.spec = spec
        self.config = config
        self.table = Table(spec, config)
        self.records: list[HandRecord] = []
        self._acts: list[Act] = []
        self._inputs: list[TableInput] = []
        self._plan: deque[Act] = deque()
        #: The table as it stood before the last new hand, for ``rewind``.
        self._before_hand: TableCheckpoint | None = None

    def __iter__(self) -> Iterator[Act]:
        while (act := self.next_act()) is not None:
            yield act

    def next_act(self) -> Act | None:
        """The dealer's next act (already performed on the bot's own table); None when done."""
        act = self._plan.popleft() if self._plan else self._decide()
        if act is None:
            return None
        self._perform(act)
        return act

    def _decide(self) -> Act | None:
        raise NotImplementedError

    # --- following the controller (docs/simulator.md, The bot follows the controller) ------

    def rewind(self, act: Act) -> None:
        """Take back ``act``, the last one ``next_act`` gave, which the devices never did: the
        technician pressed a button first (``interject``). A card or a button is undone on the
        bot's table as the dealer's undo does it; a new hand goes back to the table before it.
        An act no device reports (a shuffle, a restock, a rebuy) is not taken back: the runner
        does it before the press."""
        inp = table_input(act)
        if inp is None:
            raise BotError(f"rewind {describe_act(act)}: the devices do it at once; not taken back")
        if isinstance(act, Press) and act.button is Button.NEW_HAND:
            if self._before_hand is None:
                raise BotError("rewind new_hand: no table kept from before the hand")
            self.table = Table.from_checkpoint(self.spec, self.config, self._before_hand)
        else:
            undone = self.table.apply(_PRESSES[Button.UNDO])
            if not undone or not isinstance(undone[0], Undone):
                raise BotError(f"rewind {describe_act(act)}: the bot's table did not undo it")
        if not self._acts:  # the act ended a hand: its record goes, the hand is open again
            record = self.records.pop()
            self._acts, self._inputs = list(record.acts), list(record.inputs)
        self._acts.pop()
        self._inputs.pop()
        dropped = list(self._plan)  # what the act led the bot to plan (a folded hand's muck)
        self._plan.clear()
        self._rewound(act)
        self._replanned(dropped)

    def interject(self, act: Press) -> list[Event]:
        """The technician pressed ``act``'s button on the panel between the bot's acts (a
        misdeal, an undo): the bot's table takes it as the controller does, and the bot drops
        the acts it had planned, to decide again from what the table now waits for. A press the
        table refuses changes nothing there, and the plan stands."""
        inp = _PRESSES[act.button]
        events = self.table.apply(inp)
        if any(isinstance(event, Refused) for event in events):
            return events
        self._acts.append(act)
        self._inputs.append(inp)
        for event in events:
            if isinstance(event, HandSettled | HandVoided):
                self._close(event)
        dropped = list(self._plan)
        self._plan.clear()
        self._replanned(dropped)
        return events

    def _rewound(self, act: Act) -> None:
        """What the bot keeps beside its table, put back as it was before ``act``."""
        del act

    def _replanned(self, dropped: list[Act]) -> None:
        """The bot's plan was dropped after a press of the technician's."""
        del dropped

    def _perform(self, act: Act) -> None:
        if isinstance(act, Press) and act.button is Button.NEW_HAND:
            self._keep_before_hand()
        self._acts.append(act)
        inp = table_input(act)
        if inp is not None:
            self._inputs.append(inp)
            events = self.table.apply(inp)
        else:
            events = feed(self.table, act)
        for event in events:
            self._seen(act, event)
            kind = type(event)
            if kind is HandSettled or kind is HandVoided:
                assert isinstance(event, HandSettled | HandVoided)
                self._close(event)
            elif kind is DiscardsReshuffled:
                assert isinstance(event, DiscardsReshuffled)
                self._reshuffled(event)

    def _keep_before_hand(self) -> None:
        try:
            self._before_hand = self.table.checkpoint()
        except ValueError:  # a hand still in play: the press is refused, nothing to take back
            self._before_hand = None

    def _seen(self, act: Act, event: Event) -> None:
        """Every event an act caused on the bot's table, in order."""
        del act, event

    def _reshuffled(self, event: DiscardsReshuffled) -> None:
        del event

    def _close(self, settlement: HandSettled | HandVoided) -> None:
        self.records.append(
            HandRecord(
                hand=settlement.hand,
                game=self.spec.key,
                acts=tuple(self._acts),
                inputs=tuple(self._inputs),
                settlement=settlement,
            )
        )
        self._acts = []
        self._inputs = []


# --- The scripted bot ---------------------------------------------------------------------


class ScriptedBot(_Bot):
    """Plays a hand script (docs/hand-script.md) exactly, input by input.

    Cards are dealt by name (a script does not say where they lie in the shoe);
    before each ``new_hand`` the deck is shuffled from ``seed`` and the hand's
    number, so every named card is in the shoe. Refusals and alarms the script
    holds are part of what it reproduces: they are not errors here. ``game``
    (a key or a spec) is needed when the script has no ``game`` line, and must
    agree with it otherwise; a hand the script leaves unfinished has no record.
    """

    def __init__(
        self, script: HandScript, game: str | GameSpec | None = None, seed: int = 0
    ) -> None:
        given = game.key if isinstance(game, GameSpec) else game
        key = script.game or given
        if key is None:
            raise ValueError("the script names no game and none was given; expected 'game KEY'")
        if given is not None and script.game is not None and given != script.game:
            raise ValueError(f"the script is {script.game!r} but the game given is {given!r}")
        if isinstance(game, GameSpec):
            spec = game
        elif key in GAMES:
            spec = GAMES[key]
        else:
            raise ValueError(f"game {key!r}: expected one of {', '.join(sorted(GAMES))}")
        super().__init__(spec, script.config)
        self.script = script
        self._seed = seed
        self._lines = iter(script.lines)
        self._shuffles = 0

    def _decide(self) -> Act | None:
        line = next(self._lines, None)
        if line is None:
            return None
        inp = line.input
        if isinstance(inp, CardRead):
            if inp.point is ReadPoint.DISCARD_READER:
                return Discard(inp.card)
            return Deal(inp.card, named=True)
        if isinstance(inp, ForeignTag):
            return Tag(inp.tag, inp.point, inp.reason)
        if inp.button is Button.NEW_HAND:
            self._shuffles += 1
            self._plan.append(Press(Button.NEW_HAND))
            return Shuffle(DECK_NAMES[0], self._seed * 1_000_003 + self._shuffles, MIN_CUT)
        return Press(inp.button)


# --- The random bot -----------------------------------------------------------------------

_IRREGULAR: Final = (Refused, Alarm)

#: How often the random bot picks each betting button when it is legal (relative weights).
DEFAULT_WEIGHTS: Final[Mapping[Button, int]] = {
    Button.FOLD: 2,
    Button.CHECK_CALL: 10,
    Button.BET_RAISE: 5,
    Button.ALL_IN: 1,
}


def default_stakes(spec: GameSpec) -> Stakes:
    """Stakes a table of this game can be dealt with: ante and bring-in, or blinds."""
    if spec.forced_bet is ForcedBet.BLINDS:
        return Stakes(small_blind=2, big_blind=5, small_bet=5, big_bet=10)
    return Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10)


def _seats(seats: int | Sequence[int], spec: GameSpec) -> tuple[int, ...]:
    if isinstance(seats, int):
        if not 2 <= seats <= spec.max_seats:
            raise ValueError(
                f"seats={seats}: {spec.name} seats 2 to {spec.max_seats} players ({spec.rule})"
            )
        return tuple(range(1, seats + 1))
    return tuple(seats)


@dataclass(frozen=True, slots=True)
class RebuyRule:
    """Chips for known stacks: every seat starts with ``buy_in``; a seat whose stack has
    fallen below ``below`` after a hand buys back up to ``buy_in`` (table stakes: chips
    come only between hands), so play goes on for as many hands as asked."""

    buy_in: int = 200
    below: int = 1

    def __post_init__(self) -> None:
        if self.buy_in <= 0:
            raise ValueError(f"buy_in={self.buy_in}: expected a positive number of chips")
        if not 0 < self.below <= self.buy_in:
            raise ValueError(f"below={self.below}: expected 1 to the buy-in {self.buy_in}")


@dataclass(slots=True)
class _Shoe:
    """The bot's model of the shoe: the cards in it, top first."""

    stub: list[Card] = field(default_factory=list)


class RandomBot(_Bot):
    """Plays whole hands of ``game`` legally, choosing at random from a seeded generator.

    ``game`` is a key of ``controller.games.GAMES`` or a ``GameSpec``; ``seats``
    the occupied seats (or how many, from seat 1); ``stakes`` defaults to
    ``default_stakes``. ``rebuy`` gives known stacks and their rebuy rule; None
    leaves the stacks unknown (no one can go all-in). ``hands`` stops the bot
    after that many hands (None: never). ``config`` plays a table configured
    elsewhere (a ``table.toml``): its seats, stakes, dealer and stacks as they
    are, the rebuy rule topping up only the known stacks. ``weights`` are the
    relative odds of the betting buttons when legal; ``muck_folds`` passes a
    folded hand over the discard reader, as a dealer does when the hand goes
    on. ``alternate_decks`` puts decks A and B in play in turn, hand by hand
    (NOTES.md, Shuffle, cut and decks), ``first_deck`` first; by default
    ``first_deck`` is shuffled again before every hand (13:69F-14.5).
    """

    def __init__(
        self,
        game: str | GameSpec,
        seats: int | Sequence[int] = 6,
        stakes: Stakes | None = None,
        seed: int = 0,
        *,
        rebuy: RebuyRule | None = RebuyRule(),  # frozen: one shared default is safe
        hands: int | None = None,
        weights: Mapping[Button, int] = DEFAULT_WEIGHTS,
        muck_folds: bool = True,
        alternate_decks: bool = False,
        first_deck: str = DECK_NAMES[0],
        dealer: int = 0,
        config: TableConfig | None = None,
    ) -> None:
        if isinstance(game, str):
            if game not in GAMES:
                raise ValueError(f"game {game!r}: expected one of {', '.join(sorted(GAMES))}")
            spec = GAMES[game]
        else:
            spec = game
        if first_deck not in DECK_NAMES:
            raise ValueError(f"first_deck {first_deck!r}: expected one of {', '.join(DECK_NAMES)}")
        if hands is not None and hands < 0:
            raise ValueError(f"hands={hands}: expected a number of hands >= 0, or None")
        unknown = set(weights) - set(DEFAULT_WEIGHTS)
        if unknown or any(w < 0 for w in weights.values()):
            raise ValueError(
                f"weights {dict(weights)}: expected non-negative weights of "
                f"{' '.join(b.value for b in DEFAULT_WEIGHTS)}"
            )
        if config is None:
            occupied = _seats(seats, spec)
            stacks = dict.fromkeys(occupied, rebuy.buy_in) if rebuy else {}
            config = TableConfig(
                seats=occupied, stakes=stakes or default_stakes(spec), dealer=dealer, stacks=stacks
            )
        super().__init__(spec, config)
        self.seed = seed
        self.rebuy = rebuy
        self.hands = hands
        self.weights = dict(weights)
        self.muck_folds = muck_folds
        self.alternate_decks = alternate_decks
        self._first_deck = DECK_NAMES.index(first_deck)
        self.rebought = 0
        self._rng = random.Random(f"tablectl-bot-{seed}")
        self._shoe = _Shoe()
        self._started = 0
        #: Cards out of play this hand that a short stub would reshuffle (14.12A(f)).
        self._pool: set[Card] = set()
        #: The cards each seat holds this hand, as the bot's table dealt them.
        self._holdings: dict[int, list[Card]] = {}

    # --- deciding -------------------------------------------------------------------------

    def _decide(self) -> Act | None:
        pending = self.table.pending
        if isinstance(pending, NewHandExpected):
            return self._new_hand()
        if isinstance(pending, CardExpected):
            if not self._shoe.stub:
                raise BotError(f"hand {self.table.hand_number}: the shoe is empty; {pending}")
            return Deal(self._shoe.stub.pop(0))
        if isinstance(pending, ActionRequired):
            return Press(Button(self._choose(pending.options).button))
        if isinstance(pending, DrawExpected):
            return self._draw(pending)
        raise BotError(f"hand {self.table.hand_number}: the table stopped on {pending!r}")

    def _new_hand(self) -> Act | None:
        if self.hands is not None and self._started >= self.hands:
            return None
        self._started += 1
        rule = self.rebuy
        if rule is not None:
            for seat, stack in sorted(self.table.stacks.items()):
                if stack is not None and stack < rule.below:
                    self._plan.append(Rebuy(seat, rule.buy_in - stack))
        turn = self._started - 1 if self.alternate_decks else 0
        deck = DECK_NAMES[(self._first_deck + turn) % 2]
        shuffle = Shuffle(deck, self._rng.randrange(2**32), self._rng.randint(MIN_CUT, 42))
        self._shoe.stub = cut(shuffled(shuffle.seed), shuffle.cut)
        self._plan.append(shuffle)
        self._plan.append(Press(Button.NEW_HAND))
        return self._plan.popleft()

    def _choose(self, options: Sequence[Option]) -> Option:
        weights = [self.weights.get(Button(o.button), 0) for o in options]
        if not any(weights):  # every legal button weighs nothing: take the first
            return options[0]
        return self._rng.choices(options, weights)[0]

    def _draw(self, pending: DrawExpected) -> Act:
        """Discards for the drawing seat, passed over the discard reader, then draw done."""
        hand = self._hand_of(pending.seat)
        # Never ask for more cards than the stub and the discards a short stub would
        # reshuffle can give (14.12A(f)); one more for the draw's burn.
        spare = len(self._shoe.stub) + len(self._pool) - 1
        count = min(self._rng.randint(0, len(hand)), max(spare, 0))
        for card in self._rng.sample(hand, count):
            self._plan.append(Discard(card))
        self._plan.append(Press(Button.DRAW_DONE))
        return self._plan.popleft()

    def _hand_of(self, seat: int) -> list[Card]:
        return list(self._holdings.get(seat, ()))

    # --- performing -----------------------------------------------------------------------

    def _perform(self, act: Act) -> None:
        if isinstance(act, Rebuy):
            self.rebought += act.chips
        pending = self.table.pending
        folder = (
            pending.seat
            if isinstance(act, Press)
            and act.button is Button.FOLD
            and isinstance(pending, ActionRequired)
            else None
        )
        folded = self._hand_of(folder) if folder is not None else []
        super()._perform(act)
        if folder is None:
            return
        self._pool.update(folded)  # a folded hand joins the discards (14.12A(f))
        if self.muck_folds and not isinstance(self.table.pending, NewHandExpected):
            self._plan.extend(Discard(card) for card in folded)

    def _seen(self, act: Act, event: Event) -> None:
        kind = type(event)
        if kind is CardDealt:
            seat = event.seat  # type: ignore[attr-defined]  # kind checked: a CardDealt
            if seat is not None:
                self._holdings[seat].append(_CARDS[event.card])  # type: ignore[attr-defined]  # a CardDealt
        elif kind is CardDiscarded:
            assert isinstance(event, CardDiscarded)
            card = _CARDS[event.card]
            self._holdings[event.seat].remove(card)
            self._pool.add(card)
        elif kind is HandStarted:
            assert isinstance(event, HandStarted)
            self._pool = set()
            self._holdings = {seat: [] for seat in event.seats}
        elif kind in _IRREGULAR:
            raise BotError(
                f"hand {self.table.hand_number}: the table did not take {act!r}: {event!r}"
            )

    def _rewound(self, act: Act) -> None:
        if isinstance(act, Deal):
            self._shoe.stub.insert(0, act.card)  # never dealt: still the shoe's top card
        elif isinstance(act, Press) and act.button is Button.NEW_HAND:
            self._started -= 1  # the hand was never begun: it is still to play

    def _replanned(self, dropped: list[Act]) -> None:
        if any(isinstance(act, Press) and act.button is Button.NEW_HAND for act in dropped):
            self._started -= 1  # its new hand was never pressed: it is still to play
        self._follow_table()

    def _follow_table(self) -> None:
        """The seats' cards and the cards out of play, read again from the bot's table after
        an undo or a misdeal changed it (14.12A(f): the discards a short stub reshuffles)."""
        self._holdings = {seat: list(self.table.cards_of(seat)) for seat in self._holdings}
        held = {card for cards in self._holdings.values() for card in cards}
        self._pool.difference_update(held)

    def _reshuffled(self, event: DiscardsReshuffled) -> None:
        # 14.12A(f): the dealer reshuffles the discards; they go under what is left.
        cards = [Card.parse(code) for code in event.cards]
        self._rng.shuffle(cards)
        self._shoe.stub.extend(cards)
        self._plan.appendleft(Restock(tuple(cards)))
        self._pool.difference_update(cards)

    @property
    def chips_in_play(self) -> int:
        """The chips at the table now: every known stack and the pot of a hand in play."""
        stacks = sum(s for s in self.table.stacks.values() if s is not None)
        if isinstance(self.table.pending, NewHandExpected):  # the last hand's pot is paid out
            return stacks
        return stacks + self.table.state.pot

    @property
    def raked(self) -> int:
        """Every chip the house has taken so far."""
        return sum(record.rake for record in self.records)
