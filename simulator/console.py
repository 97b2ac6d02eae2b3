"""The technician's console of the simulator: deal, press, inject faults, look at the devices.

A ``cmd.Cmd`` shell over a running ``Simulator``. At a terminal it has line
editing, history and completion of command names (and of buttons, cards,
devices and faults) through ``readline``; from a pipe it reads one command a
line and prints only the results, so a script's output reads cleanly. A bad
command never stops the console: it prints ``error: <command>: <what was
wrong and what was expected>``, and the exit status of a piped run says
whether any command failed.
"""

from __future__ import annotations

import cmd
import difflib
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TextIO

from controller.cards import DECK, Card, CardError
from controller.inputs import Button
from controller.words import counted
from drivers.sentences import Lid, Reader
from simulator.decks import DeckError
from simulator.devices import DeviceError
from simulator.faults import FaultError
from simulator.runner import BotRunner
from simulator.table import DEVICES, Simulator


class UsageError(ValueError):
    """A command given the wrong arguments; the message shows the expected form."""


@dataclass(frozen=True, slots=True)
class FaultSpec:
    """One fault the ``fault`` command injects: its arguments and what it does."""

    arguments: str
    summary: str


FAULTS: Final[dict[str, FaultSpec]] = {
    "drop": FaultSpec("DEVICE [COUNT]", "lose the next COUNT sentences the device writes (1)"),
    "garble": FaultSpec("DEVICE [COUNT]", "flip a bit in each of the next COUNT sentences (1)"),
    "delay": FaultSpec(
        "DEVICE SECONDS [COUNT]", "hold the next COUNT sentences (1); what follows waits behind"
    ),
    "noise": FaultSpec("DEVICE [BYTES]", "a burst of BYTES random bytes on the line (64)"),
    "silent": FaultSpec(
        "DEVICE [SECONDS]", "the device hangs, deaf and mute, for SECONDS or until 'speak'"
    ),
    "speak": FaultSpec("DEVICE", "the hung device recovers"),
    "unplug": FaultSpec("DEVICE", "pull the USB cable: the port fails and its link goes"),
    "replug": FaultSpec("DEVICE", "plug it back in behind the same link; it says hello"),
    "power-cycle": FaultSpec("DEVICE", "switch off and on: a new boot id, unsent sentences lost"),
    "clear": FaultSpec("DEVICE", "disarm the line faults armed on the device"),
    "lid": FaultSpec("open|closed", "open or close the shoe's lid"),
    "reader": FaultSpec(
        "fault|ok", "the shoe's RFID reader fails (cards leave unread) or recovers"
    ),
    "jam": FaultSpec("on|off", "a card sticks in the shoe's slot, or is freed"),
    "duplicate": FaultSpec(
        "[EXTRA]", "the next card dealt lingers: read EXTRA more times (2), 50 ms apart"
    ),
    "reread": FaultSpec(
        "[SECONDS]", "the next card dealt passes the slot again SECONDS later (1): read twice"
    ),
    "uptime": FaultSpec("MS", "the shoe's clock runs on to MS ms (4294967000: it wraps soon)"),
    "foreign": FaultSpec("", "a tag enrolled in neither deck passes the slot"),
    "other-deck": FaultSpec("[CARD]", "a card of the deck not in play passes the slot"),
    "twice": FaultSpec("[CARD]", "a card already dealt passes the slot again"),
}

_ERRORS: Final = (UsageError, DeviceError, FaultError, DeckError, CardError)

#: What ``bot`` takes.
BOT_COMMANDS: Final = ("pause", "resume", "stop")
#: How long ``press`` waits for a running bot to make the press between two of its acts
#: (milliseconds, but for a bot waiting on the devices: a jam, a controller gone).
PRESS_PATIENCE: Final = 5.0


def _number(command: str, name: str, text: str, kind: Callable[[str], float]) -> float:
    try:
        return kind(text)
    except ValueError:
        expected = "a whole number" if kind is int else "a number"
        raise UsageError(f"{name} {text!r}: expected {expected}") from None


def _device(text: str) -> str:
    if text not in DEVICES:
        raise UsageError(f"device {text!r}: expected {' or '.join(DEVICES)}")
    return text


def _complete(options: list[str], text: str) -> list[str]:
    return [option for option in options if option.startswith(text)]


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

        Example: 'burn' before each stud street after the first (NOTES.md, Burns and draws).
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
        return _complete([card.code for card in DECK], text)

    complete_discard = complete_deal

    def do_shuffle(self, arg: str) -> None:
        """shuffle [SEED]: gather the deck in play and shuffle it (from SEED, or the next seed).

        Example: 'shuffle' or 'shuffle 42'.
        """
        words = self.args(arg, 0, 1, "'shuffle' or 'shuffle SEED' (a whole number)")
        seed = int(_number("shuffle", "seed", words[0], int)) if words else self._take_seed()
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
        """cut COUNT: cut COUNT cards off the top to the bottom (at least 10, NOTES.md).

        Example: 'cut 17'.
        """
        words = self.args(arg, 1, 1, "'cut COUNT' (at least 10)")
        count = int(_number("cut", "count", words[0], int))
        self.sim.cut(count)
        self._say_stub(f"cut {count}")

    def do_deck(self, arg: str) -> None:
        """deck A|B [SEED]: put a deck in play, shuffled; the decks alternate (NOTES.md).

        Example: 'deck B' after deck A's round.
        """
        words = self.args(arg, 1, 2, "'deck A' or 'deck B', and a seed if wanted")
        seed = int(_number("deck", "seed", words[1], int)) if len(words) > 1 else self._take_seed()
        self.sim.use_deck(words[0].upper(), seed)
        self._say_stub(f"in play, shuffled from seed {seed}")

    def complete_deck(self, text: str, *_: object) -> list[str]:
        return _complete(["A", "B"], text)

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
        return _complete([b.value for b in Button], text)

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
        return _complete(list(BOT_COMMANDS), text)

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
        self.say(self._inject(name, rest))

    def _inject(self, name: str, rest: list[str]) -> str:
        if name in ("lid", "reader", "jam"):
            return self._shoe_state(name, rest[0].lower())
        if name in ("duplicate", "reread", "uptime"):
            return self._shoe_reader(name, rest)
        sim = self.sim
        if name == "foreign":
            return f"a stray tag {sim.foreign_tag()} passed the slot (enrolled in neither deck)"
        if name in ("other-deck", "twice"):
            card = Card.parse(rest[0]) if rest else None
            if name == "other-deck":
                card = sim.other_deck(card)
                return f"{card.code} of the deck not in play passed the slot"
            card = sim.dealt_twice(card)
            return f"{card.code}, dealt already, passed the slot again"
        device = _device(rest[0].lower())
        return self._line_fault(name, device, rest[1:])

    def _shoe_reader(self, name: str, rest: list[str]) -> str:
        """The reads the shoe's reader makes, timed on its clock (docs/protocol.md 7)."""
        where = f"fault {name}"
        if name == "duplicate":
            extra = int(_number(where, "extra", rest[0], int)) if rest else 2
            self.sim.duplicate_reads(extra)
            return f"the next card dealt will be read {extra + 1} times"
        if name == "reread":
            after = _number(where, "seconds", rest[0], float) if rest else 1.0
            self.sim.reread(after)
            return f"the next card dealt will pass the slot again {after:g} s later"
        ms = int(_number(where, "ms", rest[0], int))
        self.sim.set_uptime(ms)
        return f"the shoe's clock reads {ms} ms"

    def _shoe_state(self, name: str, value: str) -> str:
        choices = {"lid": ("open", "closed"), "reader": ("fault", "ok"), "jam": ("on", "off")}
        if value not in choices[name]:
            raise UsageError(f"{name} {value!r}: expected {' or '.join(choices[name])}")
        if name == "lid":
            self.sim.set_lid(Lid(value))
        elif name == "reader":
            self.sim.set_reader(Reader(value))
        else:
            self.sim.set_jam(value == "on")
        return f"shoe {name} {value}"

    def _line_fault(self, name: str, device: str, rest: list[str]) -> str:
        sim = self.sim
        where = f"fault {name}"
        if name in ("drop", "garble"):
            count = int(_number(where, "count", rest[0], int)) if rest else 1
            (sim.drop if name == "drop" else sim.garble)(device, count)
            verb = "dropped" if name == "drop" else "garbled"
            return f"the {device}'s next {counted(count, 'sentence')} will be {verb}"
        if name == "delay":
            if not rest:
                raise UsageError(f"expected 'fault delay {device} SECONDS [COUNT]'")
            seconds = _number(where, "seconds", rest[0], float)
            count = int(_number(where, "count", rest[1], int)) if len(rest) > 1 else 1
            sim.delay(device, seconds, count)
            return f"the {device}'s next {counted(count, 'sentence')} will be held {seconds:g} s"
        if name == "noise":
            length = int(_number(where, "bytes", rest[0], int)) if rest else 64
            sim.noise(device, length)
            return f"{counted(length, 'byte')} of noise on the {device}'s line"
        if name == "silent":
            hang = _number(where, "seconds", rest[0], float) if rest else None
            sim.silence(device, hang)
            until = f"for {hang:g} s" if hang is not None else "until 'fault speak'"
            return f"the {device} is silent {until}"
        actions: dict[str, tuple[Callable[[str], None], str]] = {
            "speak": (sim.speak, "speaks again"),
            "unplug": (sim.unplug, "is unplugged"),
            "replug": (sim.replug, f"is plugged back in at {sim.address(device)}"),
            "power-cycle": (sim.power_cycle, "was switched off and on"),
            "clear": (sim.clear_faults, "has no line fault armed"),
        }
        action, done = actions[name]
        action(device)
        return f"the {device} {done}"

    def complete_fault(self, text: str, line: str, begidx: int, _end: int) -> list[str]:
        words = line[:begidx].split()
        if len(words) == 1:
            return _complete(list(FAULTS), text)
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
            return _complete(options, text)
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
        device, mode = _device(words[0].lower()), words[1].lower()
        if mode not in ("on", "all", "off"):
            raise UsageError(f"trace {mode!r}: expected on, all or off")
        self.sim.trace(device, None if mode == "off" else self.say, heartbeats=mode == "all")
        self.say(f"trace of the {device} {mode}")

    def complete_trace(self, text: str, line: str, begidx: int, _end: int) -> list[str]:
        words = line[:begidx].split()
        return _complete(list(DEVICES) if len(words) == 1 else ["on", "all", "off"], text)

    def do_paths(self, arg: str) -> None:
        """paths: show where programs open the shoe and the panel.

        Example: 'paths', then open the shoe's path in the controller's configuration.
        """
        self.args(arg, 0, 0, "'paths' with no arguments")
        for device in DEVICES:
            plugged = self.sim.devices[device].endpoint.plugged
            self.say(f"{device}: {self.sim.address(device)}{'' if plugged else ' (unplugged)'}")

    def do_wait(self, arg: str) -> None:
        """wait SECONDS: let SECONDS pass (in a script, for the host to catch up).

        What falls due meanwhile (a heartbeat, a resend) is written before the next command.
        Example: 'wait 0.5'.
        """
        words = self.args(arg, 1, 1, "'wait SECONDS' (at most 60)")
        seconds = _number("wait", "seconds", words[0], float)
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
        return _complete(self.command_names(), text)

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
