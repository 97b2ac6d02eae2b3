"""The random bot: whole hands of any game played legally, chosen from a seeded generator.

It deals from the simulator's deck model, the deck shuffled anew from the seed before
every hand and cut (13:69F-14.5; rules-interpretation.md, Shuffle, cut and decks), reshuffles a
short stub's discards (14.12A(f)) and sells chips between hands by its ``RebuyRule``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from controller.poker.cards import DECK, Card
from controller.poker.engine import Stakes, TableSetup
from controller.poker.engine.events import (
    ActionRequired,
    Alarm,
    CardDealt,
    CardDiscarded,
    CardExpected,
    DiscardsReshuffled,
    DrawExpected,
    Event,
    HandStarted,
    NewHandExpected,
    Option,
    Refused,
)
from controller.poker.games import GAMES
from controller.poker.games.spec import ForcedBet, GameSpec
from controller.poker.inputs import Button
from simulator.acts import Act, Deal, Discard, Press, Rebuy, Restock, Shuffle
from simulator.bots import Bot, BotError
from simulator.decks import DECK_NAMES, MIN_CUT, cut, shuffled

_IRREGULAR: Final = (Refused, Alarm)
_CARDS: Final = {card.code: card for card in DECK}

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


def short_of_players(stacks: Mapping[int, int | None]) -> str:
    """Why no hand can start at seats with these ``stacks`` (fewer than two have chips)."""
    held = [
        f"seat {seat}: {'unknown' if stack is None else stack}"
        for seat, stack in sorted(stacks.items())
        if stack != 0
    ]
    broke = [str(seat) for seat, stack in sorted(stacks.items()) if stack == 0]
    none = f"seat {broke[0]}" if len(broke) == 1 else f"seats {', '.join(broke)}"
    return f"fewer than two seats have chips ({'; '.join([*held, f'{none}: none'])})"


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


class RandomBot(Bot):
    """Plays whole hands of ``game`` legally, choosing at random from a seeded generator.

    ``game`` is a key of ``controller.poker.games.GAMES`` or a ``GameSpec``; ``seats``
    the occupied seats (or how many, from seat 1); ``stakes`` defaults to
    ``default_stakes``. ``rebuy`` gives known stacks and their rebuy rule; None
    leaves the stacks unknown (no one can go all-in). ``hands`` stops the bot
    after that many hands (None: never). ``config`` plays a table configured
    elsewhere (a ``table.toml``): its seats, stakes, dealer and stacks as they
    are, the rebuy rule topping up only the known stacks. ``weights`` are the
    relative odds of the betting buttons when legal; ``muck_folds`` passes a
    folded hand over the discard reader, as a dealer does when the hand goes
    on. ``alternate_decks`` puts decks A and B in play in turn, hand by hand
    (rules-interpretation.md, Shuffle, cut and decks), ``first_deck`` first; by default
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
        config: TableSetup | None = None,
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
            config = TableSetup(
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
        stacks = self.table.stacks
        rule = self.rebuy
        rebuys = [
            Rebuy(seat, rule.buy_in - stack)
            for seat, stack in sorted(stacks.items())
            if rule is not None and stack is not None and stack < rule.below
        ]
        stacks.update((act.seat, (stacks[act.seat] or 0) + act.chips) for act in rebuys)
        # A seat with no chips is not dealt in, on the bot's table as on the controller's
        # (rules-interpretation.md, Blinds and the button): with fewer than two seats that
        # have chips, no hand can start, and the table refuses the press.
        if sum(1 for stack in stacks.values() if stack != 0) < 2:
            self.ended = short_of_players(stacks)
            return None
        self._started += 1
        self._plan.extend(rebuys)
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
