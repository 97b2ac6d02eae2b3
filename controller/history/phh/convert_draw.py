"""PHH hand histories in, the draw game: fixed-limit 2-7 triple draw (``F2L3D``, 14.12A).

``draw_hand`` walks the history keeping what the table would know (each hand, the chips
in, the bet) and writes the inputs the table would have seen: the blinds, the cards at
the dealing slot in the order the procedure deals them (a burn before each draw,
14.12A(f)), the discards at the discard reader, the dealer's buttons
(``controller.history.phh.parse`` says what the conversion supplies and refuses).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Final

from controller.history.phh.parse import (
    UNKNOWN,
    ConvertedHand,
    PhhError,
    PhhHand,
    PhhUnsupported,
    action_player,
    action_words,
    burn_comments,
    card_codes,
    known_stacks,
)
from controller.poker.cards import DECK, Card, CardError
from controller.poker.engine.tablesetup import TableSetup
from controller.poker.inputs import Button, ButtonPress, CardRead, ReadPoint, TableInput

_ROUNDS_AT_SMALL_BET: Final = (
    2  # rules-interpretation.md, Betting structure: triple draw rounds 1-2 small
)


class _Converter:
    """Walks the actions, keeping what the table would know: hands, chips in, the bet."""

    def __init__(self, hand: PhhHand) -> None:
        self.hand = hand
        self.inputs: list[TableInput] = [ButtonPress(Button.NEW_HAND)]
        known: set[str] = set(burn_comments(hand.actions))
        self.burns: Iterator[str] = iter(burn_comments(hand.actions))
        for action in hand.actions:
            words = action_words(action)
            shown = words[:2] == ["d", "dh"] and len(words) == 4
            if shown or (len(words) == 3 and words[1] in {"sd", "sm"}):
                known.update(card_codes(words[-1], action))
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
        if card.code in self.dealt:  # the source dealt it again: its reshuffle, not the table's
            raise PhhUnsupported(
                f"{card.code} is dealt twice: the source reshuffled its discards under its "
                "own rules (14.12A(f), rules-interpretation.md, Burns and draws)"
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
            cap = self.hand.posted.cap  # the file's _tablectl_cap, else four
            if self.bets > cap:
                raise PhhUnsupported(
                    f"action {action!r}: bet {self.bets} of a round; the table caps a round at "
                    f"{cap} (_tablectl_cap; rules-interpretation.md, Betting structure: four "
                    "when the file gives none): the source's cap differs"
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
        words = action_words(action)
        if not words:
            used += 1
            continue
        if words[:2] != ["d", "dh"] or len(words) != 4:
            break
        player = action_player(words[2], hand, action)
        cards[player] = card_codes(words[3], action)
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
            replacements.setdefault(player, []).extend(card_codes(words[3], action))
        else:
            discards.append((player, card_codes(words[2], action) if len(words) > 2 else []))
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


def draw_hand(hand: PhhHand, game: str, seats: tuple[int, ...]) -> ConvertedHand:
    """A triple draw hand as its inputs, walked as the table would see them."""
    # The posted stakes first: a file whose chip, cap or rake no table takes goes no further.
    stakes = hand.stakes(
        small_blind=hand.blinds_or_straddles[0], big_blind=hand.blinds_or_straddles[1]
    )
    conv = _Converter(hand)
    conv.blinds()
    actions = list(hand.actions)
    position = _initial_deal(conv, actions)
    segment: list[tuple[int, list[str], str]] = []
    for action in actions[position:]:
        words = action_words(action)
        if not words:  # a comment: a burn is read above, the rest says nothing to the table
            continue
        if words[0] == "d":
            if words[1] != "dh" or len(words) != 4:
                raise PhhError(f"action {action!r}: expected 'd dh pN CARDS' in a draw")
            segment.append((action_player(words[2], hand, action), words, action))
            continue
        player = action_player(words[0], hand, action)
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
    # PHH deals from p1, left of the button, to the button last (14.12A(d)): the last seat.
    config = TableSetup(
        seats=tuple(sorted(seats)),
        stakes=stakes,
        dealer=seats[-1],
        stacks=known_stacks(hand, seats),
        rules=hand.rules,
    )
    return ConvertedHand(game, config, tuple(conv.inputs))
