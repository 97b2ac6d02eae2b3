"""The technician's console of the simulator: deal, press, inject faults, look at the devices.

A ``cmd.Cmd`` shell over a running ``Simulator``. At a terminal it has line
editing, history and completion of command names (and of buttons, cards,
devices and faults) through ``readline``; from a pipe it reads one command a
line and prints only the results, so a script's output reads cleanly. A bad
command never stops the console: it prints ``error: <command>: <what was
wrong and what was expected>``, and the exit status of a piped run says
whether any command failed. Reading the arguments is ``simulator.console_args``; the
faults and their injection, ``simulator.console_faults``.
"""

from __future__ import annotations

import cmd
import difflib
import shlex
import time
from typing import Final, TextIO

from controller.poker.cards import DECK, Card, CardError
from controller.poker.inputs import Button
from controller.poker.words import counted
from simulator.console_args import UsageError, as_device, as_number, completions
from simulator.console_faults import FAULTS, inject
from simulator.decks import DeckError
from simulator.devices import DeviceError
from simulator.faults import FaultError
from simulator.runner import BotRunner
from simulator.table import DEVICES, Simulator

_ERRORS: Final = (UsageError, DeviceError, FaultError, DeckError, CardError)

#: What ``bot`` takes.
BOT_COMMANDS: Final = ("pause", "resume", "stop")
#: How long ``press`` waits for a running bot to make the press between two of its acts
#: (milliseconds, but for a bot waiting on the devices: a jam, a controller gone).
PRESS_PATIENCE: Final = 5.0


class Console(cmd.Cmd):
    """``tablectl sim``'s command shell."""

    intro = ""
    doc_header = "Commands (type 'help COMMAND' for its arguments and an example):"

    def __init__(
        self, sim: Simulator, stdin: TextIO, stdout: TextIO, interactive: bool, seed: int = 0
    ) -> None:
        super().__init__(stdin=stdin, stdout=stdout)
        self.sim = sim
        self.interactive = interactive
        self.use_rawinput = interactive
        self.prompt = "sim> " if interactive else ""
        self.failures = 0
        self._next_seed = seed + 1
        self._command = ""
        #: The dealer bot's runner while ``tablectl sim --bot`` runs one (``bot`` and ``press``).
        self.runner: BotRunner | None = None

    # --- plumbing -------------------------------------------------------------------------

    def say(self, text: str) -> None:
        """Print one result line."""
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def emptyline(self) -> bool:
        return False  # an empty line does nothing (cmd's default repeats the last command)

    def default(self, line: str) -> None:
        word = line.split(maxsplit=1)[0]
        if word.startswith("#"):
            return  # a comment in a script
        names = self.command_names()
        close = difflib.get_close_matches(word, names, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        self.fail(f"unknown command {word!r}{hint} Type 'help' for the commands.")

    def fail(self, message: str) -> None:
        """Report a command that could not be carried out."""
        self.failures += 1
        prefix = f"{self._command}: " if self._command else ""
        self.say(f"error: {prefix}{message}")

    def onecmd(self, line: str) -> bool:
        self._command = line.split(maxsplit=1)[0] if line.split() else ""
        if self._command not in self.command_names():
            self._command = ""
        try:
            return super().onecmd(line)
        except _ERRORS as exc:
            self.fail(str(exc))
            return False

    def command_names(self) -> list[str]:
        """Every command the console takes."""
        return sorted(name[3:] for name in self.get_names() if name.startswith("do_"))

    def args(self, arg: str, low: int, high: int, form: str) -> list[str]:
        """The command's arguments; UsageError unless there are ``low`` to ``high``."""
        try:
            words = shlex.split(arg)
        except ValueError as exc:
            raise UsageError(f"{exc}; expected {form}") from None
        if not low <= len(words) <= high:
            raise UsageError(f"expected {form}; got {arg.strip() or 'nothing'!r}")
        return words

    # --- dealing --------------------------------------------------------------------------

    def do_deal(self, arg: str) -> None:
        """deal [CARD | COUNT]: deal the top card (or COUNT cards), or a named card from the stub.

        Examples: 'deal' deals the top card; 'deal Kd' takes the king of diamonds wherever
        it is; 'deal 5' deals the top five.
        """
        words = self.args(arg, 0, 1, "'deal', 'deal CARD' (e.g. 'deal Kd') or 'deal COUNT'")
        if words and words[0].isdigit():
            count = int(words[0])
            if not 1 <= count <= 52:
                raise UsageError(f"count {count}: expected 1 to 52 cards")
            for _ in range(count):
                card = self.sim.deal()
                self.say(f"dealt {card.code} {self._tag_and_stub(card)}")
            return
        card = self.sim.deal(Card.parse(words[0]) if words else None)
        self.say(f"dealt {card.code} {self._tag_and_stub(card)}")

    def do_burn(self, arg: str) -> None:
        """burn: burn the top card; it leaves through the slot and is read like any card.

        Example: 'burn' before each stud street after the first (rules-interpretation.md, Burns and
        draws).
        """
        self.args(arg, 0, 0, "'burn' with no arguments")
        card = self.sim.burn()
        self.say(f"burned {card.code} {self._tag_and_stub(card)}")

    def _tag_and_stub(self, card: Card) -> str:
        with self.sim.locked():
            shoe = self.sim.shoe
            reads = shoe.dealt[-1].reads
            read = {0: "NOT read (reader fault)", 1: "read once"}.get(reads, f"read {reads} times")
            return f"(tag {shoe.deck.uid(card)}, {read}); {counted(len(shoe.stub), 'card')} left"

    def do_discard(self, arg: str) -> None:
        """discard CARD...: pass cards over the discard reader into the muck.

        Example: 'discard 7c 2h' (a draw's discards, or a folded hand).
        """
        words = self.args(arg, 1, 52, "'discard CARD...' (e.g. 'discard 7c 2h')")
        cards = [Card.parse(word) for word in words]
        for card in cards:
            self.sim.discard(card)
        self.say(f"discarded {' '.join(card.code for card in cards)} over the discard reader")

    def complete_deal(self, text: str, *_: object) -> list[str]:
        return completions([card.code for card in DECK], text)

    complete_discard = complete_deal

    def do_shuffle(self, arg: str) -> None:
        """shuffle [SEED]: gather the deck in play and shuffle it (from SEED, or the next seed).

        Example: 'shuffle' or 'shuffle 42'.
        """
        words = self.args(arg, 0, 1, "'shuffle' or 'shuffle SEED' (a whole number)")
        seed = int(as_number("shuffle", "seed", words[0], int)) if words else self._take_seed()
        self.sim.shuffle(seed)
        self._say_stub(f"shuffled from seed {seed}")

    def _take_seed(self) -> int:
        seed = self._next_seed
        self._next_seed += 1
        return seed

    def _say_stub(self, what: str) -> None:
        with self.sim.locked():
            shoe = self.sim.shoe
            top = shoe.stub[0].code if shoe.stub else "-"
            self.say(
                f"deck {shoe.deck.name} {what}: {counted(len(shoe.stub), 'card')}, top card {top}"
            )

    def do_newdeck(self, arg: str) -> None:
        """newdeck: load the deck in play in new-deck order (2c 2d 2h 2s 3c ... As), unshuffled.

        Example: 'newdeck', then 'deal 52' while 'tablectl enroll' reads the shoe.
        """
        self.args(arg, 0, 0, "'newdeck' with no arguments")
        self.sim.new_deck_order()
        self._say_stub("in new-deck order")

    def do_cut(self, arg: str) -> None:
        """cut COUNT: cut COUNT cards off the top to the bottom (at least 10, 13:69F-14.5).

        Example: 'cut 17'.
        """
        words = self.args(arg, 1, 1, "'cut COUNT' (at least 10)")
        count = int(as_number("cut", "count", words[0], int))
        self.sim.cut(count)
        self._say_stub(f"cut {count}")

    def do_deck(self, arg: str) -> None:
        """deck A|B [SEED]: put a deck in play, shuffled; the decks alternate
        (rules-interpretation.md, Shuffle, cut and decks).

        Example: 'deck B' after deck A's round.
        """
        words = self.args(arg, 1, 2, "'deck A' or 'deck B', and a seed if wanted")
        seed = (
            int(as_number("deck", "seed", words[1], int)) if len(words) > 1 else self._take_seed()
        )
        self.sim.use_deck(words[0].upper(), seed)
        self._say_stub(f"in play, shuffled from seed {seed}")

    def complete_deck(self, text: str, *_: object) -> list[str]:
        return completions(["A", "B"], text)

    # --- the panel ------------------------------------------------------------------------

    def do_press(self, arg: str) -> None:
        """press BUTTON: press a button on the dealer's panel.

        Buttons: new_hand fold check_call bet_raise all_in draw_done misdeal undo.
        Example: 'press check_call'.
        """
        buttons = " ".join(b.value for b in Button)
        words = self.args(arg, 1, 1, f"'press BUTTON', a button of: {buttons}")
        try:
            button = Button(words[0].lower())
        except ValueError:
            raise UsageError(f"button {words[0]!r}: expected one of: {buttons}") from None
        press = self.runner.interject(button) if self.runner is not None else None
        if press is None:
            self.sim.press(button)
            self.say(f"pressed {button.value}")
            return
        # The bot's runner presses it between two of the bot's acts, and the bot follows.
        if not press.done.wait(PRESS_PATIENCE):
            self.say(f"press {button.value}: the bot presses it once it can (it waits)")
        elif press.error:
            raise UsageError(f"button {button.value}: {press.error}")
        else:
            self.say(f"pressed {button.value}")

    def complete_press(self, text: str, *_: object) -> list[str]:
        return completions([b.value for b in Button], text)

    # --- the dealer bot -------------------------------------------------------------------

    def do_bot(self, arg: str) -> None:
        """bot pause|resume|stop: hold the dealer bot before its next act, let it go on, or stop it.

        'bot stop' ends the bot (the console stays); a paused bot waits while you inject faults.
        Example: 'bot pause', then 'fault lid open', then 'bot resume'.
        """
        words = self.args(arg, 1, 1, f"'bot {'|'.join(BOT_COMMANDS)}'")
        runner = self.runner
        if runner is None:
            raise UsageError("no bot runs; start the simulator with --bot random or --bot script")
        what = words[0].lower()
        if what not in BOT_COMMANDS:
            raise UsageError(f"bot {words[0]!r}: expected {' or '.join(BOT_COMMANDS)}")
        if runner.stopped:
            raise UsageError("the bot has stopped; start the simulator again for another bot")
        if what == "pause":
            runner.pause()
            self.say("bot paused: it makes no act until 'bot resume'")
        elif what == "resume":
            runner.unpause()
            self.say("bot resumed")
        else:
            runner.stop()
            self.say("bot stopping after the act in hand")

    def complete_bot(self, text: str, *_: object) -> list[str]:
        return completions(list(BOT_COMMANDS), text)

    # --- faults ---------------------------------------------------------------------------

    def do_fault(self, arg: str) -> None:
        """fault NAME [ARGUMENTS]: inject a fault; 'help fault' lists them all.

        Examples: 'fault drop shoe 2', 'fault delay panel 1.5', 'fault unplug shoe',
        'fault lid open', 'fault duplicate 3', 'fault other-deck Kd', 'fault twice'.
        """
        words = self.args(arg, 1, 4, "'fault NAME [ARGUMENTS]' (see 'help fault')")
        name, rest = words[0].lower(), words[1:]
        spec = FAULTS.get(name)
        if spec is None:
            raise UsageError(f"no fault {name!r}; expected one of: {' '.join(FAULTS)}")
        form = "'" + " ".join(filter(None, ("fault", name, spec.arguments))) + "'"
        low = len([a for a in spec.arguments.split() if not a.startswith("[")])
        high = len(spec.arguments.split())
        if not low <= len(rest) <= high:
            raise UsageError(f"expected {form}; got {' '.join(words)!r}")
        self.say(inject(self.sim, name, rest))

    def complete_fault(self, text: str, line: str, begidx: int, _end: int) -> list[str]:
        words = line[:begidx].split()
        if len(words) == 1:
            return completions(list(FAULTS), text)
        name = words[1]
        arguments = FAULTS[name].arguments.split() if name in FAULTS else []
        position = len(words) - 2
        if position < len(arguments):
            wanted = arguments[position].strip("[]")
            options = {
                "DEVICE": list(DEVICES),
                "open|closed": ["open", "closed"],
                "fault|ok": ["fault", "ok"],
                "on|off": ["on", "off"],
                "CARD": [card.code for card in DECK],
            }.get(wanted, [])
            return completions(options, text)
        return []

    def help_fault(self) -> None:
        """Every fault, its arguments and what it does."""
        self.say("fault NAME [ARGUMENTS]: inject a fault. DEVICE is shoe or panel.")
        width = max(len(f"{n} {s.arguments}") for n, s in FAULTS.items())
        for name, spec in FAULTS.items():
            self.say(f"  fault {f'{name} {spec.arguments}':<{width}}  {spec.summary}")
        self.say("Example: 'fault garble shoe 3', then 'deal': the card arrives after resends.")

    # --- looking --------------------------------------------------------------------------

    def do_state(self, arg: str) -> None:
        """state: show both devices: port, host link, sequence numbers, faults, shoe, panel.

        Example: 'state'.
        """
        self.args(arg, 0, 0, "'state' with no arguments")
        self.say(self.sim.describe())

    def do_trace(self, arg: str) -> None:
        """trace DEVICE on|all|off: print what DEVICE writes (>) and hears (<) on its line.

        'on' leaves out heartbeats, 'all' shows them too. Example: 'trace shoe on', then 'deal'.
        """
        words = self.args(arg, 2, 2, "'trace DEVICE on|all|off' (e.g. 'trace shoe on')")
        device, mode = as_device(words[0].lower()), words[1].lower()
        if mode not in ("on", "all", "off"):
            raise UsageError(f"trace {mode!r}: expected on, all or off")
        self.sim.trace(device, None if mode == "off" else self.say, heartbeats=mode == "all")
        self.say(f"trace of the {device} {mode}")

    def complete_trace(self, text: str, line: str, begidx: int, _end: int) -> list[str]:
        words = line[:begidx].split()
        return completions(list(DEVICES) if len(words) == 1 else ["on", "all", "off"], text)

    def do_paths(self, arg: str) -> None:
        """paths: show where programs open the shoe and the panel.

        Example: 'paths', then open the shoe's path in the controller's configuration.
        """
        self.args(arg, 0, 0, "'paths' with no arguments")
        for device in DEVICES:
            cable = self.sim.panel_cable if device == "panel" else None
            plugged = cable.plugged if cable else self.sim.devices[device].endpoint.plugged
            self.say(f"{device}: {self.sim.address(device)}{'' if plugged else ' (unplugged)'}")

    def do_wait(self, arg: str) -> None:
        """wait SECONDS: let SECONDS pass (in a script, for the host to catch up).

        What falls due meanwhile (a heartbeat, a resend) is written before the next command.
        Example: 'wait 0.5'.
        """
        words = self.args(arg, 1, 1, "'wait SECONDS' (at most 60)")
        seconds = as_number("wait", "seconds", words[0], float)
        if not 0 <= seconds <= 60:
            raise UsageError(f"seconds {words[0]!r}: expected 0 to 60")
        time.sleep(seconds)
        # The serving thread writes on its own time, late on a busy machine: whatever the
        # devices owe by now goes out (and into a trace) before the next command is read.
        with self.sim.locked():
            pass

    def do_help(self, arg: str) -> None:
        """help [COMMAND]: list the commands, or show one command's arguments and example."""
        topic = arg.strip()
        if not topic:
            self.say(self.doc_header)
            for name in self.command_names_for_help():
                doc = (getattr(self, f"do_{name}").__doc__ or "").strip().splitlines()[0]
                self.say(f"  {doc}")
            return
        if topic == "fault":
            self.help_fault()
            return
        method = getattr(self, f"do_{topic}", None)
        if method is None:
            names = " ".join(self.command_names_for_help())
            raise UsageError(f"no command {topic!r}; expected one of: {names}")
        self.say("\n".join(line.strip() for line in (method.__doc__ or "").strip().splitlines()))

    def complete_help(self, text: str, *_: object) -> list[str]:
        return completions(self.command_names(), text)

    def do_quit(self, arg: str) -> bool:
        """quit: unplug the devices and leave (also 'exit', or Ctrl-D)."""
        self.args(arg, 0, 0, "'quit' with no arguments")
        return True

    do_exit = do_quit

    def do_EOF(self, arg: str) -> bool:
        """EOF: the end of the input (Ctrl-D) leaves as 'quit' does."""
        if self.interactive:
            self.say("")
        return True

    def command_names_for_help(self) -> list[str]:
        """The commands 'help' lists (EOF is not one a technician types)."""
        return [name for name in self.command_names() if name not in ("EOF", "exit")]
