"""Pots, side pots, the rake and the division of each pot to the chip. Pure arithmetic.

Side pots follow the table-stakes rule (rules-interpretation.md, Betting structure): each
level of commitment that an all-in player reached closes a pot, and a pot is
divided among the seats still in that put at least that level in. Chips that
only one seat put in (an uncalled bet) are handed back, never raked. The rake
is taken before any pot is divided (rules-interpretation.md, Betting structure; 14.19(c)),
from the main pot first (docs/rules-interpretation.md, Rake).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from controller.poker.cards import Rank
from controller.poker.engine.events import OddChipAward, PotResult, SeatAmount, ShareResult
from controller.poker.engine.tablesetup import Stakes
from controller.poker.games.spec import OddChip, Rated, Showdown, ShowdownShare
from controller.poker.hand_tables import ACE_LOW


@dataclass(slots=True)
class Pot:
    """A pot being built: its chips, the seats eligible for it, whether it is an uncalled bet."""

    amount: int
    eligible: tuple[int, ...]
    returned: bool = False


def build_pots(committed: Mapping[int, int], live: Sequence[int]) -> list[Pot]:
    """The main pot and the side pots, from each seat's chips in and the seats still in.

    ``live`` is in dealing order; eligible seats keep that order.
    """
    top = max(committed.values())
    if len(live) > 1 and all(committed[seat] == top for seat in live):
        # Nobody went all-in short: one pot, and every seat still in called all of it.
        return [Pot(sum(committed.values()), tuple(live))]
    levels = sorted({amount for amount in committed.values() if amount > 0})
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, previous) for c in committed.values())
        eligible = tuple(seat for seat in live if committed[seat] >= level)
        contributors = [seat for seat, c in committed.items() if c > previous]
        previous = level
        # Only its owner put these chips in: an uncalled bet, handed back.
        returned = len(contributors) == 1 and eligible == (contributors[0],)
        # Folded chips above every live seat's level join the pot below; a layer with
        # the same eligible seats as the pot below is the same pot.
        if not eligible or (
            pots[-1:] and (pots[-1].eligible, pots[-1].returned) == (eligible, returned)
        ):
            pots[-1].amount += amount
        else:
            pots.append(Pot(amount, eligible, returned))
    return pots


def rake_of(pots: Sequence[Pot], stakes: Stakes, showdown: bool) -> int:
    """The rake: a percentage of the contested chips, down to the smallest chip, capped."""
    if not stakes.rake_percent or not (showdown or stakes.rake_without_showdown):
        return 0
    contested = sum(pot.amount for pot in pots if not pot.returned)
    rake = contested * stakes.rake_percent // 100 // stakes.chip * stakes.chip
    return rake if stakes.rake_cap is None else min(rake, stakes.rake_cap)


def _odd_chip_order(
    rule: OddChip, winners: Sequence[int], rated: Mapping[int, Rated | None], order: Sequence[int]
) -> list[int]:
    """The tied winners in the order the odd-chip rule serves them, first served first."""
    if rule is OddChip.FIRST_LEFT_OF_BUTTON:
        # rules-interpretation.md, Odd chips: the first tied player clockwise from the button, then
        # the next.
        return sorted(winners, key=order.index)

    def highest(seat: int) -> list[tuple[int, int]]:
        value = rated[seat]
        assert value is not None  # a winner's hand qualified
        # 14.13A(j)2, rules-interpretation.md, Odd chips: the highest card as it plays in the hand,
        # so in 5-4-3-2-A (Mambo's 3-2-A) the five (three) outranks the ace, which plays low; if the
        # tied hands share it (Mambo's community card), the next highest decides
        # (docs/rules-interpretation.md, Odd chips).
        return sorted(
            (
                (
                    ACE_LOW if value.ace_low and card.rank is Rank.ACE else int(card.rank),
                    int(card.suit),
                )
                for card in value.cards
            ),
            reverse=True,
        )

    def lowest_low(seat: int) -> list[tuple[int, int]]:
        value = rated[seat]
        assert value is not None  # a winner's hand qualified
        # 14.13A(j)3: the lowest low card by suit; a shared one (the community card) decides
        # nothing, so the next lowest does.
        return sorted(
            (ACE_LOW if card.rank is Rank.ACE else int(card.rank), int(card.suit))
            for card in value.cards
        )

    if rule is OddChip.HIGHEST_CARD_BY_SUIT:
        return sorted(winners, key=highest, reverse=True)
    return sorted(winners, key=lowest_low)


def _odd_chips(
    share: ShowdownShare,
    winners: Sequence[int],
    rated: Mapping[int, Rated | None],
    order: Sequence[int],
    *,
    chips: int,
    chip: int,
) -> list[OddChipAward]:
    """Who receives the ``chips`` odd chips of a share its tied ``winners`` cannot divide."""
    served = _odd_chip_order(share.odd_chip, winners, rated, order)
    if not share.odd_chips_one_at_a_time:  # 14.13A(j)1-3: the whole excess to one player
        return [OddChipAward(served[0], chips * chip, share.odd_chip_rule)]
    # rules-interpretation.md, Odd chips: one at a time in the rule's order, no player more than one
    # (there are fewer odd chips than tied players).
    return [OddChipAward(seat, chip, share.odd_chip_rule) for seat in served[:chips]]


def _best(eligible: Sequence[int], rated: Mapping[int, Rated | None]) -> list[int]:
    best = max((v.strength for s in eligible if (v := rated[s]) is not None), default=None)
    if best is None:
        return []
    return [s for s in eligible if (v := rated[s]) is not None and v.strength == best]


def divide(
    pot: Pot,
    *,
    name: str,
    rake: int,
    showdown: Showdown,
    rated: Mapping[str, Mapping[int, Rated | None]],
    order: Sequence[int],
    chip: int,
) -> PotResult:
    """Divide one pot (after its rake) among its winners, to the smallest chip.

    Two shares split the pot in halves, the odd chip of the split to the first
    (14.13A(j)1); a share no eligible hand qualifies for goes to the other
    (14.13A(k)); tied hands divide a share and its odd chips go by the share's
    rule (14.13A(j)2-3; rules-interpretation.md, Odd chips): one at a time, or all to one player.
    """
    amount = pot.amount - rake
    awards: dict[int, int] = {}
    odd: list[OddChipAward] = []
    results: list[ShareResult] = []
    if len(pot.eligible) == 1 or not rated:  # uncontested or returned: no hand is compared
        seat = pot.eligible[0]
        awards[seat] = amount
        why = "uncalled bet returned" if pot.returned else "uncontested"
        results.append(ShareResult("whole", amount, (seat,), why))
    else:
        contested: list[tuple[ShowdownShare, list[int]]] = []
        for share in showdown.shares:
            winners = _best(pot.eligible, rated[share.name])
            if winners:
                contested.append((share, winners))
        units = amount // chip
        portions = [units] if len(contested) == 1 else [units - units // 2, units // 2]
        for (share, winners), share_units in zip(contested, portions, strict=True):
            split_odd = len(contested) == 2 and units % 2 and share is showdown.shares[0]
            if split_odd and len(winners) == 1:  # 14.13A(j)1: the split's odd chip goes high
                odd.append(OddChipAward(winners[0], chip, showdown.split_rule))
            each, rest = divmod(share_units, len(winners))
            for seat in winners:
                awards[seat] = awards.get(seat, 0) + each * chip
            if rest:
                odd_chips = _odd_chips(
                    share, winners, rated[share.name], order, chips=rest, chip=chip
                )
                for award in odd_chips:
                    awards[award.seat] += award.chips
                    odd.append(award)
            value = rated[share.name][winners[0]]
            description = value.description if value is not None else ""
            results.append(ShareResult(share.name, share_units * chip, tuple(winners), description))
    return PotResult(
        name=name,
        amount=pot.amount,
        rake=rake,
        eligible=pot.eligible,
        shares=tuple(results),
        awards=tuple(SeatAmount(seat, chips) for seat, chips in awards.items()),
        odd_chips=tuple(odd),
        returned=pot.returned,
    )


def settle_pots(
    *,
    committed: Mapping[int, int],
    live: Sequence[int],
    order: Sequence[int],
    stakes: Stakes,
    showdown: Showdown,
    rated: Mapping[str, Mapping[int, Rated | None]],
) -> tuple[list[PotResult], int]:
    """Every pot divided and the total rake. ``rated`` is empty when no showdown was held."""
    pots = build_pots(committed, live)
    total_rake = rake_of(pots, stakes, showdown=bool(rated))
    results: list[PotResult] = []
    left = total_rake
    for number, pot in enumerate(pots):
        rake = 0 if pot.returned else min(left, pot.amount)
        left -= rake
        results.append(
            divide(
                pot,
                name=f"side pot {number}" if number else "main pot",
                rake=rake,
                showdown=showdown,
                rated=rated,
                order=order,
                chip=stakes.chip,
            )
        )
    return results, total_rake
