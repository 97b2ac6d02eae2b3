"""The scripted bot: a hand script (docs/hand-script.md) played exactly, input by input."""

from __future__ import annotations

from controller.history.script import HandScript
from controller.poker.games import GAMES
from controller.poker.games.spec import GameSpec
from controller.poker.inputs import Button, CardRead, ForeignTag, ReadPoint
from simulator.acts import Act, Deal, Discard, Press, Shuffle, Tag
from simulator.bots import Bot
from simulator.decks import DECK_NAMES, MIN_CUT


class ScriptedBot(Bot):
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
