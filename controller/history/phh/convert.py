"""PHH hand histories in: a hand read by ``controller.history.phh.parse.read_phh`` to the inputs of
a table of its game (``to_hand_script``), by the draw game's walk
(``controller.history.phh.convert_draw``) or the stud games'
(``controller.history.phh.convert_stud``); another variant is refused naming those tablectl converts
(``controller.history.phh.parse.other_variant``). A file that records how the hand settled
(tablectl's export: ``_tablectl_rake``, ``finishing_stacks``) is played through the engine once
converted, and refused unless the engine settles it so, chip for chip.
"""

from __future__ import annotations

from controller.history.phh.convert_draw import draw_hand
from controller.history.phh.convert_stud import stud_hand
from controller.history.phh.parse import (
    DRAW_VARIANTS,
    RAKE_FIELD,
    VARIANTS,
    ConvertedHand,
    PhhHand,
    PhhUnsupported,
    other_variant,
    table_seats,
)
from controller.poker.announce import announce
from controller.poker.engine import Table
from controller.poker.engine.events import HandSettled
from controller.poker.games import GAMES


def to_hand_script(hand: PhhHand) -> ConvertedHand:
    """The PHH hand as the inputs of a table of its game; PhhUnsupported says why not."""
    game = VARIANTS.get(hand.variant)
    if game is None:
        raise other_variant(hand.variant)
    seats = table_seats(hand, GAMES[game])
    if hand.variant in DRAW_VARIANTS:
        converted = draw_hand(hand, game, seats)
    else:
        converted = stud_hand(hand, game, seats)
    check_settlement(hand, converted, seats)
    return converted


def check_settlement(hand: PhhHand, converted: ConvertedHand, seats: tuple[int, ...]) -> None:
    """The converted hand, played through the engine, settles as the file records: the rake
    (``_tablectl_rake``) and every stack ``finishing_stacks`` knows. A hand history replays to
    the table's settlement exactly or not at all: PhhUnsupported names the first difference
    (the source settled by rules the file does not give, such as a rake it leaves out)."""
    if hand.raked is None and hand.finishing_stacks is None:
        return  # nothing recorded to check against (a history from elsewhere)
    table = Table(GAMES[converted.game], converted.config)
    settled = [
        event
        for inp in converted.inputs
        for event in table.apply(inp)
        if isinstance(event, HandSettled)
    ]
    if not settled:  # the source dealt or bet by rules the table does not take
        raise PhhUnsupported(
            f"the hand converted does not settle: the table waits for {announce(table.pending)!r}"
        )
    settlement = settled[0]
    rule = hand.posted.rake_rule()
    if hand.raked is not None and settlement.rake != hand.raked:
        raise PhhUnsupported(
            f"{RAKE_FIELD} = {hand.raked}: the table raked {hand.raked}; the file's stakes "
            f"({rule}) rake {settlement.rake} from the hand"
        )
    stacks = {entry.seat: entry.amount for entry in settlement.stacks}
    finishing = hand.finishing_stacks or (None,) * hand.players  # not given: none known
    for player, (seat, recorded) in enumerate(zip(seats, finishing, strict=True), start=1):
        replayed = stacks.get(seat)
        if recorded is not None and replayed != recorded:
            ends = "an unknown stack" if replayed is None else replayed
            raise PhhUnsupported(
                f"finishing_stacks: p{player} (seat {seat}) ends the hand with {recorded}; "
                f"replayed at the file's stakes ({rule}, raked {settlement.rake}) it ends "
                f"with {ends}: the source settled the hand by rules the file does not give"
            )
