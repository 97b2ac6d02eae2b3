"""Benchmark: complete hands per second through the engine, against PokerKit.

Plays N hands of each game through ``controller.poker.engine`` (6-handed, a shuffled
deck read card by card at the dealing slot, random legal buttons; in triple
draw random discards too, each passed over the discard reader), then the same
number of 6-handed hands in PokerKit (>= 0.7.7): fixed-limit five-card stud
declared as a custom ``State`` (one down one up, three up streets, low-card
bring-in, burns, antes) beside the stud games, and PokerKit's own
``FixedLimitDeuceToSevenLowballTripleDraw`` beside triple draw. Both sides use
the same policy: never fold when a check is free, otherwise a uniform choice
among the legal actions; a drawing player discards each card with probability
one half. Prints the hands per second and the ratios; the target is at least
5x PokerKit.

    python benchmarks/engine.py [--hands N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.poker.cards import DECK, Card
from controller.poker.engine import Stakes, Table, TableSetup
from controller.poker.engine.autoplay import Discarder, play_hand, stand_pat
from controller.poker.engine.events import ActionRequired, DrawExpected, Option
from controller.poker.games import GAMES

if TYPE_CHECKING:
    from pokerkit import State

SEATS = (1, 2, 3, 4, 5, 6)
STAKES = Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10, cap=4)
#: Triple draw: blinds instead of the ante and bring-in (14.12A(c), 14.10).
DRAW_STAKES = Stakes(small_blind=2, big_blind=5, small_bet=5, big_bet=10, cap=4)
STACK = 1_000_000  # deep stacks on both sides: no all-ins, hands are comparable
CHUNK = 250  # hands per game per interleaved round


def _chooser(rng: random.Random) -> Callable[[ActionRequired], Option]:
    def choose(pending: ActionRequired) -> Option:
        options = pending.options
        if pending.to_call == 0 and len(options) > 1 and options[0].button == "fold":
            options = options[1:]  # no fold when a check is free
        return options[int(rng.random() * len(options))]

    return choose


def _discarder(rng: random.Random) -> Discarder:
    def discard(pending: DrawExpected, hand: tuple[Card, ...]) -> list[Card]:
        del pending
        return [card for card in hand if rng.random() < 0.5]

    return discard


def engine_seconds(game: str, hands: int, rng: random.Random) -> float:
    """CPU seconds the engine takes to play ``hands`` hands of ``game``."""
    spec = GAMES[game]
    stacks = dict.fromkeys(SEATS, STACK)
    stakes = DRAW_STAKES if spec.has_draws else STAKES
    table = Table(spec, TableSetup(seats=SEATS, stakes=stakes, stacks=stacks, dealer=SEATS[-1]))
    choose = _chooser(rng)
    discard = _discarder(rng) if spec.has_draws else stand_pat
    decks = []
    for _ in range(hands):
        deck = list(DECK)
        rng.shuffle(deck)
        decks.append(deck)
    start = time.process_time()
    for deck in decks:
        play_hand(table, deck, choose, discard=discard)
    return time.process_time() - start


def pokerkit_seconds(hands: int, rng: random.Random) -> float:
    """CPU seconds PokerKit takes to play ``hands`` 6-handed fixed-limit five-card stud hands."""
    from pokerkit import (  # noqa: PLC0415  -- a benchmark-only dependency
        Automation,
        BettingStructure,
        Deck,
        Mode,
        Opening,
        StandardHighHand,
        State,
        Street,
    )

    automations = (
        Automation.ANTE_POSTING,
        Automation.BET_COLLECTION,
        Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING,
        Automation.HOLE_DEALING,
        Automation.BOARD_DEALING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )
    streets = (
        Street(False, (False, True), 0, False, Opening.LOW_CARD, 5, 4),
        Street(True, (True,), 0, False, Opening.HIGH_HAND, 5, 4),
        Street(True, (True,), 0, False, Opening.HIGH_HAND, 10, 4),
        Street(True, (True,), 0, False, Opening.HIGH_HAND, 10, 4),
    )
    start = time.process_time()
    for _ in range(hands):
        state = State(
            automations,
            Deck.STANDARD,
            (StandardHighHand,),
            streets,
            BettingStructure.FIXED_LIMIT,
            True,
            1,  # ante
            0,  # no blinds
            2,  # bring-in
            STACK,
            len(SEATS),
            mode=Mode.CASH_GAME,
        )
        while state.status:
            if state.can_post_bring_in():
                state.post_bring_in()
                continue
            _random_betting_action(state, rng)
    return time.process_time() - start


def _random_betting_action(state: State, rng: random.Random) -> None:
    """One of the betting actions PokerKit allows ``state`` now, at random (no free fold)."""
    actions: list[Callable[[], object]] = []
    if state.can_fold() and state.checking_or_calling_amount != 0:
        actions.append(state.fold)
    if state.can_check_or_call():
        actions.append(state.check_or_call)
    if state.can_complete_bet_or_raise_to():
        actions.append(state.complete_bet_or_raise_to)
    actions[int(rng.random() * len(actions))]()


def pokerkit_triple_draw_seconds(hands: int, rng: random.Random) -> float:
    """CPU seconds PokerKit takes to play ``hands`` 6-handed fixed-limit 2-7 triple draw hands."""
    from pokerkit import (  # noqa: PLC0415  -- a benchmark-only dependency
        Automation,
        FixedLimitDeuceToSevenLowballTripleDraw,
        Mode,
    )

    automations = (
        Automation.ANTE_POSTING,
        Automation.BET_COLLECTION,
        Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING,
        Automation.HOLE_DEALING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )
    start = time.process_time()
    for _ in range(hands):
        state = FixedLimitDeuceToSevenLowballTripleDraw.create_state(
            automations,
            True,
            0,  # no ante
            (DRAW_STAKES.small_blind, DRAW_STAKES.big_blind),
            DRAW_STAKES.small_bet,
            DRAW_STAKES.big_bet,
            STACK,
            len(SEATS),
            mode=Mode.CASH_GAME,
        )
        while state.status:
            if state.can_stand_pat_or_discard():
                index = state.stand_patter_or_discarder_index
                assert index is not None  # a player is to draw
                hole = state.hole_cards[index]
                state.stand_pat_or_discard([card for card in hole if rng.random() < 0.5])
                continue
            _random_betting_action(state, rng)
    return time.process_time() - start


def main() -> int:
    """Run the benchmark and print the table of results."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    seconds = dict.fromkeys([*GAMES, "pokerkit", "pokerkit-triple-draw"], 0.0)
    # Interleaved chunks, in CPU time: a machine shared with other work slows both sides alike.
    chunk = max(1, min(CHUNK, args.hands))
    done = 0
    while done < args.hands:
        size = min(chunk, args.hands - done)
        for game in GAMES:
            seconds[game] += engine_seconds(game, size, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PokerKit warns on legal but pointless actions
            seconds["pokerkit"] += pokerkit_seconds(size, rng)
            seconds["pokerkit-triple-draw"] += pokerkit_triple_draw_seconds(size, rng)
        done += size
    rates = {name: args.hands / spent for name, spent in seconds.items()}
    print(f"hands per game: {args.hands}, 6-handed, seed {args.seed}, CPU time, interleaved")
    for game in GAMES:
        print(f"tablectl engine, {game:15s} {rates[game]:10.0f} hands/s")
    pokerkit = rates["pokerkit"]
    pokerkit_draw = rates["pokerkit-triple-draw"]
    print(f"PokerKit, five-card-stud        {pokerkit:10.0f} hands/s")
    print(f"PokerKit, triple-draw           {pokerkit_draw:10.0f} hands/s")
    ratio = rates["five-card-stud"] / pokerkit
    print(f"ratio (five-card stud, engine / PokerKit): {ratio:.1f}x (target >= 5x)")
    ratio = rates["triple-draw"] / pokerkit_draw
    print(f"ratio (triple draw, engine / PokerKit):    {ratio:.1f}x (target >= 5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
