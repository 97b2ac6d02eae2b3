"""PHH hand histories in: read a Poker Hand History file and turn its hand into a hand script.

PHH (the uoftcprg "poker hand history" format, TOML) records a hand as its
variant, stakes, starting stacks and an ``actions`` list: ``d dh p1 7h6c4c3d2c``
(cards dealt to a player), ``p3 f`` / ``p3 cc`` / ``p3 cbr 500000`` (fold,
check or call, bet or raise to), ``p2 sd 9d6c`` (stand pat or discard),
``p2 sm 7h6d2c8s5s`` (show or muck). ``read_phh`` reads one file into a
``PhhHand``; ``to_hand_script`` turns a fixed-limit 2-7 triple draw hand
(``F2L3D``) into the inputs a table would have seen (``controller.script``):
the cards at the dealing slot in the order the procedure deals them, the
discards at the discard reader, the dealer's buttons. It turns the stud games
tablectl's export writes under custom codes (``F5S`` five-card stud, 14.13;
``FMB/6`` Mambo, 14.13A) back into their inputs too, by playing them through
the engine: each card where the table expects it, each action the option the
table offers for it. This is the import half of tablectl's PHH support;
export lives with the application.

What the conversion supplies: PHH records no burns, so the burn before each
draw (14.12A(f); NOTES.md, Burns and draws) is the card of a ``# burn Xx``
comment where the history has one (tablectl's export writes them), otherwise a
card no one in the hand holds; a card the history hides (``??``) is likewise
such a card. Comments (``# ...``) are otherwise ignored. Players
``p1..pN`` sit in the seats of PHH's ``seats`` (tablectl's export writes it), in
that order, else in seats 1..N: dealt from p1, the button (triple draw) on the
last, so p1 is the small blind (heads-up the button, p2, posts it), as PHH
orders them; a seat past the game's (14.12A(b), 14.13(b), 14.13A(b)) is refused. A starting
stack of ``inf`` (PokerKit's unknown stack; tablectl's export writes it for a seat
whose stack the table does not know) is an unknown stack: it bets, it is never all-in.
What it refuses, with ``PhhUnsupported`` naming why: other variants,
straddles, unequal antes, a card dealt twice (the source reshuffled under its
own rules), a showdown hand the history hides, and in stud an action the table
would not offer (another seat to act, a bet the fixed limit does not make).
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final

from controller.announce import announce
from controller.cards import DECK, Card, CardError
from controller.engine import Table
from controller.engine.config import RULE_NAMES, ConfigError, HouseRules, Stakes, TableConfig
from controller.engine.events import (
    BURN,
    COMMUNITY,
    ActionRequired,
    ActionTaken,
    Alarm,
    CardExpected,
    HandSettled,
    Option,
    Refused,
    RoundStarted,
)
from controller.games import GAMES
from controller.games.spec import GameSpec
from controller.inputs import Button, ButtonPress, CardRead, ReadPoint, TableInput
from controller.script import write_script

#: PHH variant codes tablectl can convert, and the game each becomes: PHH's standard triple
#: draw, and the custom codes tablectl's export writes for the stud games (docs/app.md).
VARIANTS: Final = {"F2L3D": "triple-draw", "F5S": "five-card-stud", "FMB/6": "mambo"}
#: The variants dealt with blinds and draws; the others with antes, a bring-in and up-cards.
DRAW_VARIANTS: Final = frozenset({"F2L3D"})
#: What each code of VARIANTS is, for the refusal of another variant.
_VARIANT_NAMES: Final = {
    "F2L3D": "fixed-limit 2-7 triple draw, 14.12A",
    "F5S": "fixed-limit five-card stud, 14.13",
    "FMB/6": "fixed-limit Mambo stud high-low six or better, 14.13A",
}
UNKNOWN: Final = "??"
_ROUNDS_AT_SMALL_BET: Final = 2  # NOTES.md, Betting structure: triple draw rounds 1-2 small
#: NOTES.md, Betting structure: one bet and three raises a round, the big blind the first bet.
CAP: Final = 4


class PhhError(ValueError):
    """A PHH file that cannot be read: the message names the field and what was expected."""


class PhhUnsupported(PhhError):
    """A well-formed hand tablectl does not convert: another variant, or rules that differ."""


@dataclass(frozen=True, slots=True)
class PhhHand:
    """The fields of one PHH hand that a conversion uses (others are kept in ``extra``)."""

    variant: str
    antes: tuple[int, ...]
    blinds_or_straddles: tuple[int, ...]
    small_bet: int
    big_bet: int
    #: None: a stack the history does not know (PHH's ``inf``, as tablectl's export writes it).
    starting_stacks: tuple[int | None, ...]
    actions: tuple[str, ...]
    extra: dict[str, object] = field(default_factory=dict)
    #: What the lowest up-card brings in for (stud; 0 in a blinds game).
    bring_in: int = 0
    #: PHH's ``seats``: the seat of p1, p2, ... (None: the file gives none).
    seats: tuple[int, ...] | None = None
    #: PHH's ``seat_count``: how many seats the source's table has (None: not given).
    seat_count: int | None = None
    #: The house rules tablectl's export writes (``_tablectl_short_all_in`` ...); NOTES.md's
    #: defaults for a rule the file does not give.
    rules: HouseRules = field(default_factory=HouseRules)

    @property
    def players(self) -> int:
        """How many players the hand seats."""
        return len(self.starting_stacks)


def _ints(data: dict[str, object], key: str, source: str) -> tuple[int, ...]:
    value = data.get(key)
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise PhhError(f"{source}: {_given(data, key)}; expected a list of whole chip amounts")
    return tuple(value)


def _given(data: dict[str, object], key: str) -> str:
    """The field as the file gives it, for an error: ``key = value``, or that it is missing."""
    return f"{key} = {data[key]!r}" if key in data else f"{key} is missing"


def _stacks(data: dict[str, object], source: str) -> tuple[int | None, ...]:
    """``starting_stacks``: whole chip amounts, ``inf`` (None here) for a stack not known."""
    value = data.get("starting_stacks")
    if isinstance(value, list) and all(v == math.inf for v in value if isinstance(v, float)):
        known = [v for v in value if not isinstance(v, float)]
        if all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in known):
            return tuple(None if isinstance(v, float) else v for v in value)
    raise PhhError(
        f"{source}: {_given(data, 'starting_stacks')}; expected a list of whole chip amounts "
        "(inf for a stack not known)"
    )


def _int(data: dict[str, object], key: str, source: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise PhhError(f"{source}: {_given(data, key)}; expected a positive whole amount")
    return value


def _seats(data: dict[str, object], players: int, source: str) -> tuple[int, ...] | None:
    """PHH's ``seats``: one distinct seat number from 1 a player, within ``seat_count``."""
    if "seats" not in data:
        return None
    value = data["seats"]
    count = data.get("seat_count")
    if count is not None and (not isinstance(count, int) or isinstance(count, bool) or count < 1):
        raise PhhError(f"{source}: {_given(data, 'seat_count')}; expected a number of seats")
    if (
        isinstance(value, list)
        and len(value) == players
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value)
        and len(set(value)) == players
        and (count is None or max(value) <= count)
    ):
        return tuple(value)
    within = f" up to seat_count {count}" if count is not None else ""
    raise PhhError(
        f"{source}: {_given(data, 'seats')}; expected one distinct seat number from 1{within} "
        f"for each of the {players} players"
    )


#: The prefix of the user-defined fields (PHH: a leading underscore) of the house rules.
RULE_FIELD_PREFIX: Final = "_tablectl_"


def _rules(data: dict[str, object], source: str) -> HouseRules:
    """The house rules the file's ``_tablectl_<rule>`` fields give (tablectl's export)."""
    fields_ = {f"{RULE_FIELD_PREFIX}{name}": name for name in RULE_NAMES}
    words = {fields_[key]: value for key, value in data.items() if key in fields_}
    try:
        return HouseRules.from_words(words, where=f"{source}: {RULE_FIELD_PREFIX}<rule>")
    except ConfigError as error:
        raise PhhError(str(error)) from None


def read_phh(text: str, source: str = "<phh>") -> PhhHand:
    """Read one PHH hand (TOML); PhhError names the field that is missing or malformed."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PhhError(f"{source}: not TOML: {error}") from None
    variant = data.get("variant")
    if not isinstance(variant, str):
        raise PhhError(f"{source}: {_given(data, 'variant')}; expected a variant code like 'F2L3D'")
    if variant not in VARIANTS:  # before its fields: another variant has other ones
        raise _other_variant(variant)
    actions = data.get("actions")
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise PhhError(f"{source}: {_given(data, 'actions')}; expected a list of action strings")
    stacks = _stacks(data, source)
    draw = variant in DRAW_VARIANTS
    count = data.get("seat_count")
    hand = PhhHand(
        variant=variant,
        antes=_ints(data, "antes", source) if "antes" in data else (0,) * len(stacks),
        blinds_or_straddles=(
            _ints(data, "blinds_or_straddles", source) if draw else (0,) * len(stacks)
        ),
        small_bet=_int(data, "small_bet", source),
        big_bet=_int(data, "big_bet", source),
        starting_stacks=stacks,
        actions=tuple(actions),
        extra={k: v for k, v in data.items() if k not in _FIELDS},
        bring_in=0 if draw else _int(data, "bring_in", source),
        seats=_seats(data, len(stacks), source),
        seat_count=count if isinstance(count, int) else None,
        rules=_rules(data, source),
    )
    for key in ("antes", "blinds_or_straddles"):
        if len(getattr(hand, key)) != hand.players:
            raise PhhError(
                f"{source}: {key} has {len(getattr(hand, key))} entries; expected one per "
                f"player ({hand.players}, as starting_stacks)"
            )
    return hand


_FIELDS: Final = frozenset(
    {"variant", "antes", "blinds_or_straddles", "small_bet", "big_bet", "starting_stacks"}
    | {"actions", "bring_in", "seats", "seat_count"}
)


@dataclass(frozen=True, slots=True)
class ConvertedHand:
    """A PHH hand as a table's setup and inputs; ``script()`` writes it as a hand script."""

    game: str
    config: TableConfig
    inputs: tuple[TableInput, ...]

    def script(self) -> str:
        """The hand as a hand script (docs/hand-script.md)."""
        return write_script(self.game, self.config, list(self.inputs))


def _player(word: str, hand: PhhHand, action: str) -> int:
    if not (word.startswith("p") and word[1:].isdigit() and 1 <= int(word[1:]) <= hand.players):
        raise PhhError(f"action {action!r}: {word!r}; expected a player p1 to p{hand.players}")
    return int(word[1:])


def _words(action: str) -> list[str]:
    """The action's words without its comment (``d dh p1 Kh # up``)."""
    return action.split("#", 1)[0].split()


def _burns(actions: Sequence[str]) -> list[str]:
    """The cards of the ``# burn Xx`` comments, in order (tablectl's export writes them)."""
    return [
        words[2]
        for words in (a.split() for a in actions)
        if len(words) == 3 and words[:2] == ["#", "burn"]
    ]


def _codes(text: str, action: str) -> list[str]:
    if len(text) % 2:
        raise PhhError(f"action {action!r}: {text!r}; expected two-character card codes")
    return [text[i : i + 2] for i in range(0, len(text), 2)]


class _Converter:
    """Walks the actions, keeping what the table would know: hands, chips in, the bet."""

    def __init__(self, hand: PhhHand) -> None:
        self.hand = hand
        self.inputs: list[TableInput] = [ButtonPress(Button.NEW_HAND)]
        known: set[str] = set(_burns(hand.actions))
        self.burns: Iterator[str] = iter(_burns(hand.actions))
        for action in hand.actions:
            words = _words(action)
            shown = words[:2] == ["d", "dh"] and len(words) == 4
            if shown or (len(words) == 3 and words[1] in {"sd", "sm"}):
                known.update(_codes(words[-1], action))
        try:
            codes = {Card.parse(code).code for code in known - {UNKNOWN}}
        except CardError as error:
            raise PhhError(f"a card of the actions: {error}") from None
        # Cards no one in the hand holds: the burns, and the cards the history hides.
        self.spare: Iterator[Card] = iter([c for c in DECK if c.code not in codes])
        self.held: dict[int, list[str]] = {p: [] for p in range(1, hand.players + 1)}
        self.dealt: set[str] = set()
        # An unknown stack bets without limit and is never all-in (docs/deploy.md, [stacks]).
        self.stacks: dict[int, float] = {
            player: math.inf if stack is None else stack
            for player, stack in enumerate(hand.starting_stacks, start=1)
        }
        self.commit = dict.fromkeys(self.stacks, 0)
        self.current = 0
        self.round = 0
        self.bets = 1  # the big blind is the first round's first bet (docs/rules-interpretation.md)

    def card(self, code: str) -> Card:
        """A card of the hand: a hidden one (``??``) becomes a card no one in the hand holds."""
        if code == UNKNOWN:
            return next(self.spare)
        try:
            card = Card.parse(code)
        except CardError as error:
            raise PhhError(f"a card dealt: {error}") from None
        if card.code in self.dealt:  # the source dealt it again: its reshuffle, not NOTES.md's
            raise PhhUnsupported(
                f"{card.code} is dealt twice: the source reshuffled its discards under its "
                "own rules (14.12A(f), NOTES.md, Burns and draws)"
            )
        self.dealt.add(card.code)
        return card

    def put(self, player: int, amount: int) -> None:
        stack = self.stacks[player]
        if stack < amount:
            amount = int(stack)  # a known stack short of the amount: all it has
        self.stacks[player] = stack - amount
        self.commit[player] += amount

    def blinds(self) -> None:
        small, big = self.hand.blinds_or_straddles[:2]
        if any(self.hand.blinds_or_straddles[2:]):
            raise PhhUnsupported("blinds_or_straddles has a straddle; triple draw has two blinds")
        if len(set(self.hand.antes)) != 1:
            raise PhhUnsupported(f"antes {self.hand.antes}: expected one ante for every player")
        players = self.hand.players
        if players == 2:  # heads-up PHH lists the big blind first: p2 is the button
            small, big = big, small
        for player, amount in ((1, small), (2, big)):
            self.put(player, amount)
        self.current = max(small, big)

    def bet(self, player: int, words: list[str], action: str) -> None:
        """A betting action as the button the dealer presses, checked against fixed limit."""
        verb = words[1]
        if verb == "f":
            self.inputs.append(ButtonPress(Button.FOLD))
            return
        if verb == "cc":
            to_call = self.current - self.commit[player]
            short = self.stacks[player] < to_call
            self.put(player, to_call)
            self.inputs.append(ButtonPress(Button.ALL_IN if short else Button.CHECK_CALL))
            return
        if verb != "cbr" or len(words) != 3 or not words[2].isdigit():
            raise PhhError(f"action {action!r}: expected f, cc, cbr AMOUNT, sd or sm")
        unit = self.hand.small_bet if self.round < _ROUNDS_AT_SMALL_BET else self.hand.big_bet
        level = unit if self.current < unit else self.current + unit
        target = int(words[2])
        cost = target - self.commit[player]
        if target != level and cost != self.stacks[player]:
            raise PhhUnsupported(
                f"action {action!r}: a raise to {target}; fixed limit raises to {level}"
            )
        all_in = cost >= self.stacks[player] and target <= level
        if target == level:
            self.bets += 1
            if self.bets > CAP:
                raise PhhUnsupported(
                    f"action {action!r}: bet {self.bets} of a round; NOTES.md, Betting "
                    f"structure caps a round at {CAP} (the source's cap differs)"
                )
        self.put(player, cost)
        self.current = max(self.current, self.commit[player])
        self.inputs.append(
            ButtonPress(Button.ALL_IN if all_in and target < level else Button.BET_RAISE)
        )

    def new_round(self) -> None:
        self.round += 1
        self.commit = dict.fromkeys(self.stacks, 0)
        self.current = 0
        self.bets = 0


def _initial_deal(conv: _Converter, actions: Sequence[str]) -> int:
    """The opening deal: each player's five cards, re-ordered round by round from the button's
    left, the button last (14.12A(d)). Returns how many actions it used."""
    hand = conv.hand
    cards: dict[int, list[str]] = {}
    used = 0
    for action in actions:
        words = _words(action)
        if not words:
            used += 1
            continue
        if words[:2] != ["d", "dh"] or len(words) != 4:
            break
        player = _player(words[2], hand, action)
        cards[player] = _codes(words[3], action)
        used += 1
    if sorted(cards) != list(range(1, hand.players + 1)) or {len(c) for c in cards.values()} != {5}:
        raise PhhError("the actions must begin with five cards dealt to every player (d dh)")
    for round_ in range(5):
        for player in range(1, hand.players + 1):
            card = conv.card(cards[player][round_])
            conv.held[player].append(card.code)
            conv.inputs.append(CardRead(card))
    return used


def _draw(conv: _Converter, segment: list[tuple[int, list[str], str]]) -> None:
    """One draw: each player's discards, draw done, then its new cards; the burn before the
    draw's first new card (14.12A(f)). PHH lists every discard before the new cards; the
    table deals one player at a time, so the new cards move up to their player."""
    discards: list[tuple[int, list[str]]] = []
    replacements: dict[int, list[str]] = {}
    for player, words, action in segment:
        if words[0] == "d":
            replacements.setdefault(player, []).extend(_codes(words[3], action))
        else:
            discards.append((player, _codes(words[2], action) if len(words) > 2 else []))
    burned = False
    for player, thrown in discards:
        held = conv.held[player]
        for code in thrown:
            # A hidden card: the first card the conversion gave in place of one.
            hidden = [c for c in held if c not in conv.dealt]
            thrown_code = (hidden[0] if hidden else code) if code == UNKNOWN else code
            if thrown_code not in held:
                raise PhhError(f"p{player} discards {code}, a card it does not hold ({held})")
            held.remove(thrown_code)
            conv.inputs.append(CardRead(Card.parse(thrown_code), ReadPoint.DISCARD_READER))
        conv.inputs.append(ButtonPress(Button.DRAW_DONE))
        new = replacements.pop(player, [])
        if len(new) != len(thrown):
            raise PhhError(f"p{player} discards {len(thrown)} and is dealt {len(new)}")
        if new and not burned:  # 14.12A(f): the burn before the draw's first new card
            burn = next(conv.burns, None)
            conv.inputs.append(CardRead(next(conv.spare) if burn is None else conv.card(burn)))
            burned = True
        for code in new:
            card = conv.card(code)
            conv.held[player].append(card.code)
            conv.inputs.append(CardRead(card))


def _other_variant(variant: str) -> PhhUnsupported:
    """The refusal of a variant tablectl does not convert, naming those it does."""
    codes = sorted(VARIANTS)
    names = "; ".join(_VARIANT_NAMES[code] for code in codes)
    return PhhUnsupported(f"variant {variant!r}; tablectl converts {codes} ({names}) only")


def _table_seats(hand: PhhHand, spec: GameSpec) -> tuple[int, ...]:
    """The seat of each player, p1 first: PHH's ``seats``, else 1..N; within the game's."""
    seats = hand.seats or tuple(range(1, hand.players + 1))
    if max(seats) > spec.max_seats:
        raise PhhUnsupported(
            f"seats {list(seats)}: {spec.name} seats at most {spec.max_seats} players, in seats "
            f"1 to {spec.max_seats} ({spec.rule})"
        )
    return seats


def _known_stacks(hand: PhhHand, seats: tuple[int, ...]) -> dict[int, int]:
    """The stacks the history knows, by seat (a seat left out has an unknown stack)."""
    return {
        seat: stack
        for seat, stack in zip(seats, hand.starting_stacks, strict=True)
        if stack is not None
    }


def to_hand_script(hand: PhhHand) -> ConvertedHand:
    """The PHH hand as the inputs of a table of its game; PhhUnsupported says why not."""
    game = VARIANTS.get(hand.variant)
    if game is None:
        raise _other_variant(hand.variant)
    seats = _table_seats(hand, GAMES[game])
    if hand.variant in DRAW_VARIANTS:
        return _draw_hand(hand, game, seats)
    return _stud_hand(hand, game, seats)


def _draw_hand(hand: PhhHand, game: str, seats: tuple[int, ...]) -> ConvertedHand:
    """A triple draw hand as its inputs, walked as the table would see them."""
    conv = _Converter(hand)
    conv.blinds()
    actions = list(hand.actions)
    position = _initial_deal(conv, actions)
    segment: list[tuple[int, list[str], str]] = []
    for action in actions[position:]:
        words = _words(action)
        if not words:  # a comment: a burn is read above, the rest says nothing to the table
            continue
        if words[0] == "d":
            if words[1] != "dh" or len(words) != 4:
                raise PhhError(f"action {action!r}: expected 'd dh pN CARDS' in a draw")
            segment.append((_player(words[2], hand, action), words, action))
            continue
        player = _player(words[0], hand, action)
        verb = words[1] if len(words) > 1 else ""
        if verb == "sd":
            if any(w[0] == "d" or p == player for p, w, _a in segment):
                # The last draw is over (its new cards are out, or this player drew in it)
                # and no one could bet between (all-in or folded but one): the next draw.
                _draw(conv, segment)
                segment = []
            if not segment:
                conv.new_round()
            segment.append((player, words, action))
            continue
        if segment:
            _draw(conv, segment)
            segment = []
        if verb == "sm":
            if len(words) == 2 and any(c not in conv.dealt for c in conv.held[player]):
                raise PhhUnsupported(f"p{player} mucks at the showdown a hand the source hides")
            continue  # the table shows every live hand itself (14.12A(l))
        conv.bet(player, words, action)
    if segment:
        _draw(conv, segment)
    stakes = Stakes(
        small_bet=hand.small_bet,
        big_bet=hand.big_bet,
        ante=hand.antes[0],
        small_blind=hand.blinds_or_straddles[0],
        big_blind=hand.blinds_or_straddles[1],
        cap=CAP,
    )
    # PHH deals from p1, left of the button, to the button last (14.12A(d)): the last seat.
    config = TableConfig(
        seats=tuple(sorted(seats)),
        stakes=stakes,
        dealer=seats[-1],
        stacks=_known_stacks(hand, seats),
        rules=hand.rules,
    )
    return ConvertedHand(game, config, tuple(conv.inputs))


# --- the stud games: played through the engine -------------------------------------------


def _stud_hand(hand: PhhHand, game: str, seats: tuple[int, ...]) -> ConvertedHand:
    """A five-card stud or Mambo hand (as tablectl's export writes it) as its inputs: each
    card given where the table expects it, each action the option the table offers for it."""
    if len(set(hand.antes)) != 1:
        raise PhhUnsupported(f"antes {hand.antes}: expected one ante for every player")
    try:
        stakes = Stakes(
            small_bet=hand.small_bet,
            big_bet=hand.big_bet,
            ante=hand.antes[0],
            bring_in=hand.bring_in,
            cap=CAP,
        )
    except ConfigError as error:
        raise PhhError(f"the stakes: {error}") from None
    # p1 is dealt first (14.13(c), 14.13A(c)): the dealer sits just before its seat.
    config = TableConfig(
        seats=tuple(sorted(seats)),
        stakes=stakes,
        dealer=seats[0] - 1,
        stacks=_known_stacks(hand, seats),
        rules=hand.rules,
    )
    walk = _StudWalk(Table(GAMES[game], config), hand, seats)
    walk.take(ButtonPress(Button.NEW_HAND), "the new hand")
    for action in hand.actions:
        walk.action(action)
    if not walk.settled:
        raise PhhError(
            f"the actions end before the hand does: the table waits for "
            f"{announce(walk.table.pending)!r}"
        )
    return ConvertedHand(game, config, tuple(walk.inputs))


#: The buttons a PHH betting action may be, in the order tried (a full action before all-in).
_STUD_BUTTONS: Final = {
    "f": ("fold",),
    "cc": ("check_call", "all_in"),
    "pb": ("check_call", "all_in"),  # the bring-in posted (14.13(d), 14.13A(d))
    "cbr": ("bet_raise", "all_in"),
}


class _StudWalk:
    """The engine dealt and played as the history tells it; the inputs it took."""

    def __init__(self, table: Table, hand: PhhHand, seats: tuple[int, ...]) -> None:
        self.table = table
        self.hand = hand
        self.seats = seats
        self.inputs: list[TableInput] = []
        self.settled = False
        #: Each seat's chips in the betting round so far (``cbr`` gives the round's total).
        self.round: dict[int, int] = {}
        named = {
            code for action in hand.actions for code in _named_cards(action) if code != UNKNOWN
        }
        self.spare: Iterator[Card] = iter([c for c in DECK if c.code not in named])

    def take(self, inp: TableInput, action: str) -> None:
        events = self.table.apply(inp)
        for event in events:
            if isinstance(event, Refused | Alarm):
                raise PhhUnsupported(f"action {action!r}: the table answers {announce(event)}")
            if isinstance(event, RoundStarted):
                self.round = {}
            elif isinstance(event, ActionTaken):
                self.round[event.seat] = event.round_total
            self.settled = self.settled or isinstance(event, HandSettled)
        self.inputs.append(inp)

    def action(self, action: str) -> None:
        words = action.split()
        if len(words) == 3 and words[:2] == ["#", "burn"]:  # tablectl's export writes burns
            self._burn(words[2], action)
            return
        words = _words(action)
        if not words:
            return  # another comment
        if words[0] == "d":
            self._deal(words, action)
        elif words[1:2] == ["sm"]:
            return  # the table shows every hand left in itself (14.13(h), 14.13A(j))
        else:
            self._act(words, action)

    def _card(self, code: str) -> Card:
        if code == UNKNOWN:  # a card the history hides: one no one in it holds
            return next(self.spare)
        try:
            return Card.parse(code)
        except CardError as error:
            raise PhhError(f"a card dealt: {error}") from None

    def _burn(self, code: str, action: str) -> None:
        pending = self.table.pending
        if not (isinstance(pending, CardExpected) and pending.destination == BURN):
            raise PhhError(f"action {action!r}: the table waits for {announce(pending)!r}")
        self.take(CardRead(self._card(code)), action)

    def _deal(self, words: list[str], action: str) -> None:
        if words[1] == "dh" and len(words) == 4:
            where: str | int = self.seats[_player(words[2], self.hand, action) - 1]
        elif words[1] == "db" and len(words) == 3:
            where = COMMUNITY
        else:
            raise PhhError(f"action {action!r}: expected 'd dh pN CARD' or 'd db CARD'")
        for code in _codes(words[-1], action):  # one card an action, or a player's several
            pending = self.table.pending
            if isinstance(pending, CardExpected) and pending.destination == BURN:
                # PHH has no burns; the history does not name this one (14.13(e), 14.13A(f)).
                self.take(CardRead(next(self.spare)), action)
                pending = self.table.pending
            if not isinstance(pending, CardExpected) or where not in (
                pending.seat,
                pending.destination,
            ):
                raise PhhError(f"action {action!r}: the table waits for {announce(pending)!r}")
            self.take(CardRead(self._card(code)), action)

    def _act(self, words: list[str], action: str) -> None:
        seat = self.seats[_player(words[0], self.hand, action) - 1]
        pending = self.table.pending
        if not isinstance(pending, ActionRequired) or pending.seat != seat:
            raise PhhError(
                f"action {action!r} (seat {seat}): the table waits for {announce(pending)!r}"
            )
        option = self._option(pending, words, action)
        self.take(ButtonPress(Button(option.button)), action)

    def _option(self, pending: ActionRequired, words: list[str], action: str) -> Option:
        """The option the table offers for the action: ``cbr`` the one to the round's total."""
        buttons = _STUD_BUTTONS.get(words[1])
        if buttons is None or len(words) != (3 if words[1] == "cbr" else 2):
            raise PhhError(f"action {action!r}: expected pb, f, cc, cbr AMOUNT or sm")
        offered = [o for button in buttons for o in pending.options if o.button == button]
        if words[1] == "cbr":
            if not words[2].isdigit():
                raise PhhError(f"action {action!r}: expected a whole amount to bet or raise to")
            adds = int(words[2]) - self.round.get(pending.seat, 0)
            offered = [o for o in offered if o.amount == adds]
        if not offered:
            choices = ", ".join(o.meaning for o in pending.options)
            raise PhhUnsupported(f"action {action!r}: the table offers {choices}")
        return offered[0]


def _named_cards(action: str) -> list[str]:
    """The cards an action (or a ``# burn`` comment) names."""
    words = action.split()
    if len(words) == 3 and words[:2] == ["#", "burn"]:
        return [words[2]]
    words = _words(action)
    if words[:1] == ["d"] or words[1:2] == ["sm"]:
        return _codes(words[-1], action) if len(words) >= 3 else []
    return []
