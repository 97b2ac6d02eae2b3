"""``tablectl sim --bot ...``: a dealer bot plays through the simulated devices.

The technician watches the bot deal (each act printed as ``bot: ...``, each
hand's expected settlement when it is over) while the console stays open for
faults and state. ``controller/cli/commands/sim.py`` declares the bot's options;
``simulator/command.py`` calls ``make_bot`` and ``bot_session``; everything else about the
bot lives here.
"""

from __future__ import annotations

import argparse
import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from controller.config.settings import DECK_NAMES as DECK_KEYS
from controller.config.tabletoml import load_config
from controller.history.script import ScriptError, parse_script
from controller.journal import JsonObject
from controller.poker.engine import ConfigError
from controller.poker.words import counted
from controller.table.control import ControlError, send
from simulator.acts import Act, Rebuy, describe_act, describe_record
from simulator.bots import BotError
from simulator.decks import DECK_NAMES
from simulator.devices import DeviceError
from simulator.pace import Pace
from simulator.random_bot import RandomBot, RebuyRule
from simulator.runner import BotRunner
from simulator.scripted_bot import ScriptedBot
from simulator.table import Simulator
from simulator.waits import RunnerError

Bot = RandomBot | ScriptedBot

#: A dealer waits for a jammed feed (no host acknowledging) as long as it takes; the bot
#: says once that it waits, and why (``BotRunner.on_wait``).
_STALL = 24 * 3600.0


def make_bot(args: argparse.Namespace) -> Bot | None:
    """The bot the options ask for (None: no --bot); a ValueError says what was expected."""
    kind: list[str] | None = args.bot
    if not kind:
        return None
    if kind[0] == "script":
        if len(kind) != 2:
            raise ValueError(f"--bot {' '.join(kind)}: expected 'script FILE'")
        path = Path(kind[1])
        try:
            script = parse_script(path.read_text(encoding="utf-8"), str(path))
        except OSError as error:
            raise ValueError(
                f"--bot script {path}: expected a readable hand script: {error.strerror or error}"
            ) from None
        except UnicodeDecodeError as error:
            raise ValueError(
                f"--bot script {path}: expected a hand script as UTF-8 text, found byte "
                f"0x{error.object[error.start]:02x} at offset {error.start} (a binary file?)"
            ) from None
        except ScriptError as error:
            raise ValueError(f"--bot script {path}: {error}") from None
        if script.errors:
            raise ValueError(f"--bot script {path}: {script.errors[0]}")
        return ScriptedBot(script, game=args.game, seed=args.seed)
    if kind != ["random"]:
        raise ValueError(f"--bot {' '.join(kind)}: expected 'random' or 'script FILE'")
    rebuy = None
    if args.buy_in is not None:
        if args.buy_in <= 0:
            raise ValueError(f"--buy-in {args.buy_in}: expected a positive number of chips")
        rebuy = RebuyRule(buy_in=args.buy_in)
    if args.config is not None:
        return _table_bot(args, rebuy)
    return RandomBot(
        args.game or "mambo", seats=args.seats, seed=args.seed, hands=args.hands, rebuy=rebuy
    )


def _table_bot(args: argparse.Namespace, rebuy: RebuyRule | None) -> RandomBot:
    """The random bot of ``--config``: the table.toml's game, seats, stakes, stacks and decks,
    as its controller has them."""
    try:
        settings = load_config(args.config)
    except ConfigError as error:  # the loader's SettingsError lists every problem
        raise ValueError(f"--config {args.config}: {error}") from None
    if args.game is not None and args.game != settings.game.key:
        raise ValueError(f"--game {args.game}: the table.toml deals {settings.game.key}")
    chip = settings.stakes.chip
    if rebuy is not None and rebuy.buy_in % chip:
        raise ValueError(
            f"--buy-in {rebuy.buy_in}: expected a multiple of the table.toml's smallest chip "
            f"{chip} ([stakes] chip), as the controller sells chips"
        )
    return RandomBot(
        settings.game,
        seed=args.seed,
        hands=args.hands,
        # The table.toml's stacks as the controller has them. A dealer sells no chips: without
        # --buy-in a seat that runs out sits out on both tables; with it the bot buys the seat
        # back through the controller (``controller_rebuys``), as the floor does with
        # ``tablectl seat rebuy`` (docs/simulator.md, When seats go broke).
        rebuy=rebuy,
        config=settings.table_setup(),
        # The table's decks as the controller deals them from a fresh journal: its
        # first hand from [decks] active, then alternating if [decks] alternate.
        alternate_decks=settings.decks.alternate,
        first_deck=DECK_NAMES[DECK_KEYS.index(settings.decks.active)],
    )


@contextlib.contextmanager
def bot_session(
    bot: Bot | None,
    args: argparse.Namespace,
    sim: Simulator,
    say: Callable[[str], None],
    wait_at_end: bool,
) -> Iterator[BotRunner | None]:
    """Run ``bot`` on ``sim`` in a thread for the length of the console session.

    When the console ends (``quit``, end of the input), the bot stops at once,
    unless ``wait_at_end`` (piped input) and the bot has an end: then its hands
    are played out first.
    """
    if bot is None:
        yield None
        return
    # A shuffle, and a card read again at the slot, outlast the controller's repeat window
    # (--repeat-window, docs/simulator.md, Dealer bots), at either pace.
    outlast = Pace.fast(args.repeat_window)
    pace = Pace.human() if args.pace == "human" else outlast
    shuffle, repeat = max(pace.shuffle, outlast.shuffle), max(pace.repeat, outlast.repeat)
    pace = Pace(pace.card, pace.button, shuffle, repeat, stall=_STALL)
    runner = bench_runner(bot, sim, pace, say, on_rebuy=controller_rebuys(args))
    # A bot dealing for a table.toml deals for its controller: from the first card.
    host_first = args.config is not None
    finished = threading.Event()
    # Held while the bot says its last word, and while the console says it waits for it.
    last_word = threading.Lock()
    thread = threading.Thread(
        target=_play,
        args=(runner, say, host_first, finished, last_word),
        name="tablectl-bot",
        daemon=True,
    )
    say(f"bot: {_describe_bot(bot)}")
    thread.start()
    ended = True  # the console ended (quit, end of input), or an exception (a signal) ends it
    try:
        yield runner
        ended = False
    finally:
        finite = isinstance(bot, ScriptedBot) or (bot.hands is not None)
        if ended or not (wait_at_end and finite):
            runner.stop()
        # The wait is on an Event, not on join(): a join that Ctrl-C interrupts may never
        # return when called again (CPython 3.11's thread state lock).
        try:
            if wait_at_end and finite:
                with last_word:  # said before the bot's last word, never after it
                    if not finished.is_set():
                        say("bot: the input is over: waiting for the bot's end (Ctrl-C stops it)")
            finished.wait()
        except KeyboardInterrupt:  # Ctrl-C while waiting for the bot (a jam, no controller)
            runner.stop()
            finished.wait()
        thread.join()


def bench_runner(
    bot: Bot,
    sim: Simulator,
    pace: Pace,
    say: Callable[[str], None],
    *,
    on_rebuy: Callable[[Rebuy], None] | None = None,
) -> BotRunner:
    """The runner of ``tablectl sim --bot``: it prints every act and hand (``bot: ...``);
    ``on_rebuy`` tells the controller of the chips the bot sells (``controller_rebuys``).

    Once a controller is attached, each act waits for its acknowledgement: cards and presses
    travel on two links, and a press must not overtake the card dealt before it. It follows
    the table (``simulator.follow``): no act while a device is out or the controller pauses
    the table, and after a press of the technician's (a misdeal, an undo) the bot's table
    takes it too and the bot waits until the controller shows what its table expects.
    """
    return BotRunner(
        bot,
        sim,
        pace,
        on_act=_printer(bot, say),
        on_rebuy=on_rebuy,
        on_wait=lambda text: say(f"bot: {text}"),
        wait_for_acks=True,
        follow_table=True,
    )


def controller_rebuys(args: argparse.Namespace) -> Callable[[Rebuy], None] | None:
    """With ``--config`` and ``--buy-in``: what tells the table.toml's controller of a rebuy
    the bot makes, before the bot's next hand. No device reports chips sold, so the bot asks
    the controller's control socket (``[control] socket``) as ``tablectl seat rebuy`` does;
    the controller journals it and applies it between hands (docs/app.md, Seat changes). A
    rebuy the controller refuses or cannot be told of stops the bot (``RunnerError``): its
    table would deal a seat the controller leaves out. None: no controller to tell."""
    if args.config is None or args.buy_in is None:
        return None
    socket = load_config(args.config).control_socket  # make_bot read it already

    def rebuy(act: Rebuy) -> None:
        request: JsonObject = {"change": "rebuy", "seat": act.seat, "chips": act.chips}
        try:
            answer = send(socket, request)
        except (ControlError, OSError) as error:
            raise RunnerError(
                f"{describe_act(act)}: the controller was not told: {error}"
            ) from None
        if answer.get("ok") is not True:
            raise RunnerError(
                f"{describe_act(act)}: the controller refused it: {answer.get('reason')}"
            )

    return rebuy


def _describe_bot(bot: Bot) -> str:
    config = bot.config
    seats = " ".join(str(s) for s in config.seats)
    if isinstance(bot, ScriptedBot):
        return f"playing a {bot.spec.name} hand script, seats {seats}"
    hands = "no end" if bot.hands is None else counted(bot.hands, "hand")
    return f"random {bot.spec.name}, seats {seats}, seed {bot.seed}, {hands}"


def _printer(bot: Bot, say: Callable[[str], None]) -> Callable[[Act], None]:
    done = [0]

    def show(act: Act) -> None:
        say(f"bot: {describe_act(act)}")
        while done[0] < len(bot.records):
            say(f"bot: {describe_record(bot.records[done[0]])}")
            done[0] += 1

    return show


def _play(
    runner: BotRunner,
    say: Callable[[str], None],
    host_first: bool,
    finished: threading.Event,
    last_word: threading.Lock,
) -> None:
    last: str | None = None
    try:
        last = _deal(runner, host_first)
    finally:
        with last_word:
            if last is not None:
                say(last)
            finished.set()


def _deal(runner: BotRunner, host_first: bool) -> str:
    """Play the bot's acts; the line that says how it ended."""
    try:
        if host_first and not runner.wait_for_host():
            return "bot: stopped before dealing: no controller welcomed the devices"
        runner.run()
    except (BotError, RunnerError, DeviceError) as error:
        return f"bot: stopped: {error}"
    bot = runner.bot
    played = counted(len(bot.records), "hand")
    if bot.ended is not None and not runner.stopped:
        # Broke seats sit out; with fewer than two seats that have chips no hand can start.
        hint = (
            "; --buy-in N has the bot buy a seat that runs out back up to N chips"
            if isinstance(bot, RandomBot) and bot.rebuy is None
            else ""
        )
        return f"bot: stopped after {played}: {bot.ended}, so no hand can start{hint}"
    return f"bot: {'stopped' if runner.stopped else 'done'} after {played}"
