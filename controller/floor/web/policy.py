"""Who sees which card of a hand on the floor's web view (docs/floor-web.md, Who sees which card).

Pure: a role and a hand's state in, what that role may see out. The one rule of which card is
face down is controller/poker/announce.py ``hidden_cards`` (a hole card, 14.13(c), 14.13A(c),(f) and
14.12A(d); a burn; a card to the muck; a draw's discards, face down by 14.12A(f)); this module
only says, per role, whether those may be shown, and applies it to an event's cards. The masking
is done on the server before anything is rendered or sent: a masked card is ``None``, never a
value in the HTML or the JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from controller.poker.announce import hidden_cards
from controller.poker.engine import events as ev


@dataclass(frozen=True, slots=True)
class Access:
    """What one role may open and see."""

    #: The table pages and the hand page of a hand still in progress.
    live_hands: bool
    #: A face-down card's value while its hand is in progress.
    face_down_live: bool
    #: The hand page, and search, of a settled or voided hand.
    finished_hands: bool
    #: A face-down card's value once its hand is settled or voided (as ``tablectl recall``).
    face_down_finished: bool
    #: A hole card once the broadcast's delay has run out, hand in progress or not: the
    #: broadcast feed (FEEDS), a stream's overlay.
    delayed_hole_cards: bool = False


#: The policy, one entry a role (docs/floor-web.md, Who sees which card).
POLICY: Final[dict[str, Access]] = {
    # Everything, live: the cameras' room follows the hole cards as they are dealt.
    "surveillance": Access(
        live_hands=True,
        face_down_live=True,
        finished_hands=True,
        face_down_finished=True,
        delayed_hole_cards=True,
    ),
    # The floor, tables and recall: never a face-down card of a hand in progress; a finished
    # hand as recall shows it.
    "supervisor": Access(
        live_hands=True, face_down_live=False, finished_hands=True, face_down_finished=True
    ),
    # Read-only recall and verification: finished hands only, with their cards.
    "auditor": Access(
        live_hands=False, face_down_live=False, finished_hands=True, face_down_finished=True
    ),
    # The users only: no hand page.
    "admin": Access(
        live_hands=False, face_down_live=False, finished_hands=False, face_down_finished=False
    ),
    # A stream's overlay machine: the broadcast feed alone, no page, no other feed.
    "broadcaster": Access(
        live_hands=False,
        face_down_live=False,
        finished_hands=False,
        face_down_finished=False,
        delayed_hole_cards=True,
    ),
}

#: Nothing at all: a role this policy does not name (a newer database's, say).
NOTHING: Final = Access(False, False, False, False)


def access(role: str) -> Access:
    return POLICY.get(role, NOTHING)


def may_open(role: str, *, in_progress: bool) -> bool:
    """Whether ``role`` may open a hand (its page, a search result) in this state."""
    rights = access(role)
    return rights.live_hands if in_progress else rights.finished_hands


def sees_face_down(role: str, *, in_progress: bool) -> bool:
    """Whether ``role`` may see the value of a card ``hidden_cards`` names in this state."""
    rights = access(role)
    return rights.face_down_live if in_progress else rights.face_down_finished


def masked(event: ev.Event, role: str, *, in_progress: bool) -> frozenset[str]:
    """The cards of ``event`` that ``role`` may not see now: its hidden cards, or none."""
    if sees_face_down(role, in_progress=in_progress):
        return frozenset()
    return frozenset(hidden_cards(event))


def shown(card: str, event: ev.Event, role: str, *, in_progress: bool) -> str | None:
    """``card`` (one of ``event``'s) as ``role`` may see it: its code, or None (face down)."""
    return None if card in masked(event, role, in_progress=in_progress) else card


def carries_face_down(events: list[ev.Event], role: str, *, in_progress: bool) -> bool:
    """Whether showing ``events`` to ``role`` shows the value of a face-down card: the
    responses the hole-card access log records (docs/floor-web.md, The hole-card access log)."""
    if not sees_face_down(role, in_progress=in_progress):
        return False
    return any(hidden_cards(event) for event in events)


# The feeds for other systems (docs/floor-web.md, Feeds): which face-down card each may carry,
# and when. A card face up (an up card, a community card, 14.13(c)) and a card turned over at
# the showdown are the table's to see and every feed carries them; this says only what a feed
# may carry of the cards ``hidden_cards`` names.

#: When a feed may carry a hole card (a card dealt face down to a seat).
LIVE: Final = "live"
AFTER_DELAY: Final = "after the delay"
AT_SHOWDOWN: Final = "at the showdown"


@dataclass(frozen=True, slots=True)
class FeedRule:
    """One feed's card policy and who may open it."""

    #: When a hole card may be carried: LIVE, AFTER_DELAY ([web.feeds] broadcast_delay seconds
    #: after the record that dealt it) or AT_SHOWDOWN (only if turned over there).
    hole_cards: str
    #: A folded seat's hole cards: carried (by the rule above) or never. None: the room's
    #: choice, [web.feeds] broadcast_folded.
    folded: bool | None
    #: The other face-down cards: burns, cards to the muck, a draw's discards (14.12A(f)).
    other_face_down: bool
    #: Who may open it: the roles of POLICY with this right (a field of ``Access``).
    opened_by: str
    #: Where the rule comes from.
    cite: str

    def roles(self) -> frozenset[str]:
        # getattr, not a default: a right misspelt is an AttributeError, never a guess.
        return frozenset(
            role for role, rights in POLICY.items() if getattr(rights, self.opened_by) is True
        )


#: The three feeds (docs/floor-web.md, Feeds), as data: the one place their cards are decided.
FEEDS: Final[dict[str, FeedRule]] = {
    # Live, every card: the cameras' room, as its table and hand pages (surveillance only).
    "surveillance": FeedRule(
        hole_cards=LIVE,
        folded=True,
        other_face_down=True,
        opened_by="face_down_live",
        cite="docs/floor-web.md, Feeds; 14.13(c), 14.13A(c),(f) hole cards; 14.12A(f) discards",
    ),
    # A stream's overlay: a hole card once the delay has passed, a folded seat's never unless
    # the room chooses; no burn, muck or discard. It carries face-down cards of hands still in
    # progress, delayed: surveillance, and the broadcaster's own login, which opens nothing else.
    "broadcast": FeedRule(
        hole_cards=AFTER_DELAY,
        folded=None,
        other_face_down=False,
        opened_by="delayed_hole_cards",
        cite="docs/floor-web.md, Feeds (broadcast_delay, broadcast_folded); 14.13(c) hole cards",
    ),
    # No face-down card ever before the showdown; what is turned over there is public. It
    # carries what a supervisor sees of a hand in progress, so every role that opens live
    # hands may open it.
    "public": FeedRule(
        hole_cards=AT_SHOWDOWN,
        folded=False,
        other_face_down=False,
        opened_by="live_hands",
        cite="docs/floor-web.md, Feeds; 14.13(c) hole cards; 14.12A(f) discards",
    ),
}


@dataclass(frozen=True, slots=True)
class HoleCard:
    """What the feed's rule needs to know of a card dealt face down to a seat."""

    #: The moment (Unix seconds) of the record that dealt it: the later of the table's clock
    #: (its ``ts``) and the floor's (when the floor received it), so the delay has passed on
    #: both clocks before the card is carried (feed.py ``delay_from``).
    dealt_at: float
    #: Its seat has folded.
    folded: bool
    #: Turned over at the showdown: the table's to see.
    shown: bool


def feed_carries(
    rule: FeedRule, card: HoleCard, *, now: float, delay: float, folded_too: bool
) -> bool:
    """Whether a feed under ``rule`` may carry ``card``'s value at ``now`` (``delay`` and
    ``folded_too``: [web.feeds] broadcast_delay and broadcast_folded)."""
    if card.shown:
        return True
    if card.folded and not (folded_too if rule.folded is None else rule.folded):
        return False
    if rule.hole_cards == LIVE:
        return True
    if rule.hole_cards == AFTER_DELAY:
        return now >= card.dealt_at + delay
    return False
