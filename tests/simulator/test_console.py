"""``tablectl sim``: the technician's console, piped from stdin and at a real terminal."""

from __future__ import annotations

import contextlib
import io
import os
import re
import select
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import serial
from sim_host import PortHost

from controller.cli.main import build_parser
from drivers.tablectl.panel import Light, Text
from simulator.decks import make_decks, read_deck_file, shuffled
from simulator.table import Simulator

ROOT = Path(__file__).resolve().parents[2]
SIMULATOR_MD = ROOT / "docs/simulator.md"


def tablectl_sim(directory: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "controller", "sim", "--dir", str(directory), *extra]


def run_piped(directory: Path, commands: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        tablectl_sim(directory, *extra),
        input=commands,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
        check=False,
    )


@dataclass(frozen=True)
class Run:
    """What a console run printed and its exit status."""

    returncode: int
    stdout: str
    stderr: str


def run_console(directory: Path, commands: str, *extra: str) -> Run:
    """``tablectl sim`` in this process, its stdin a pipe-like text stream."""
    args = build_parser().parse_args(["sim", "--dir", str(directory), *extra])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        status = args.run(args, stdin=io.StringIO(commands), stdout=out)
    return Run(status, out.getvalue(), err.getvalue())


def test_sim_is_a_registered_command_with_help() -> None:
    """COMMAND_MODULES has 'sim'; its options are documented."""
    help_text = build_parser()._subparsers._group_actions[0].choices["sim"].format_help()  # type: ignore[union-attr]  # argparse keeps its sub-parsers privately
    for option in ("--dir", "--seed", "--decks", "--watch", "--protocol"):
        assert option in help_text


def test_piped_commands_print_results_and_the_stub_follows_the_seed(tmp_path: Path) -> None:
    """From stdin: the paths first, then one result per command, in the shuffle's order."""
    result = run_piped(
        tmp_path, "deal\nburn\ndeal Kd\npress check_call\npaths\nquit\n", "--seed", "5"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"shoe: {tmp_path / 'shoe'}"
    assert lines[1] == f"panel: {tmp_path / 'panel'}"
    order = [c for c in shuffled(5) if c.code != "Kd"]
    assert lines[4].startswith(f"dealt {order[0].code} (tag {make_decks(5)[0].uid(order[0])}")
    assert lines[5].startswith(f"burned {order[1].code} ")
    assert lines[6].startswith("dealt Kd ")
    assert lines[7] == "pressed check_call"
    assert "sim>" not in result.stdout, "no prompt when reading from a pipe"
    assert not (tmp_path / "shoe").exists(), "the links go when the simulator stops"


def doc_samples() -> list[tuple[str, list[str]]]:
    """docs/simulator.md's samples of ``tablectl sim`` with output: (command line, output)."""
    text = SIMULATOR_MD.read_text(encoding="utf-8")
    samples = []
    for block in re.findall(r"^```\n(\$ .*?)^```", text, re.MULTILINE | re.DOTALL):
        command, *output = block.splitlines()
        if "tablectl sim" in command and output and not output[0].startswith("$"):
            samples.append((command.removeprefix("$ "), output))
    return samples


def test_the_guide_has_the_samples_checked_below() -> None:
    """Both samples with output (the start, and commands piped) are found in the guide."""
    assert [command.split()[-1] for command, _ in doc_samples()] == ["7", "5"]


@pytest.mark.parametrize(("command", "output"), doc_samples())
def test_the_guides_samples_are_what_the_simulator_prints(
    tmp_path: Path, command: str, output: list[str]
) -> None:
    """Each sample of docs/simulator.md, run as written (in a private folder), prints the lines
    the guide shows; a tag the guide elides (``E00401...``) matches any tag."""
    piped, _, sim = command.rpartition("| ")
    argv = shlex.split(sim)[2:]
    stdin = shlex.split(piped)[1].replace("\\n", "\n") if piped else "quit\n"
    folder = argv[argv.index("--dir") + 1] if "--dir" in argv else "/run/tablectl-sim"
    if "--dir" in argv:
        argv[argv.index("--dir") : argv.index("--dir") + 2] = []
    result = run_piped(tmp_path, stdin, *argv)
    assert result.returncode == 0, result.stdout + result.stderr
    expected = [
        line.replace(folder, str(tmp_path)).replace(" Type 'help' for the commands.", "")
        for line in output
        if line != "sim>"  # the prompt, only at a terminal
    ]
    printed = result.stdout.splitlines()
    assert len(printed) == len(expected), result.stdout
    for line, want in zip(printed, expected, strict=True):
        pattern = re.escape(want).replace(re.escape("E00401..."), "E00401[0-9A-F]{10}")
        assert re.fullmatch(pattern, line), (
            f"the guide shows {want!r}; the simulator printed {line!r}"
        )


def test_newdeck_loads_new_deck_order_and_deal_takes_a_count(tmp_path: Path) -> None:
    """'newdeck' then 'deal 5' deals 2c 2d 2h 2s 3c, the order 'tablectl enroll' expects."""
    result = run_console(tmp_path, "newdeck\ndeal 5\ndeal 53\n")
    lines = result.stdout.splitlines()[3:]
    assert lines[1] == "deck A in new-deck order: 52 cards, top card 2c"
    assert [line.split()[1] for line in lines[2:7]] == ["2c", "2d", "2h", "2s", "3c"]
    assert lines[7] == "error: deal: count 53: expected 1 to 52 cards"


def test_the_last_card_left_is_counted_in_the_singular(tmp_path: Path) -> None:
    """Dealing 51 of 52 leaves '1 card left', not '1 cards left'."""
    result = run_console(tmp_path, "deal 51\ndeal\n")
    lines = result.stdout.splitlines()
    assert lines[-2].endswith("; 1 card left")
    assert lines[-1].endswith("; 0 cards left")


def test_the_deck_files_are_written_for_the_controller(tmp_path: Path) -> None:
    """Both decks' enrollment files are written, and read back as the seed's decks."""
    result = run_console(
        tmp_path / "links", "quit\n", "--seed", "8", "--decks", str(tmp_path / "d")
    )
    assert result.returncode == 0
    a, b = make_decks(8)
    assert read_deck_file(tmp_path / "d" / "deck-A.txt") == a
    assert read_deck_file(tmp_path / "d" / "deck-B.txt") == b


def test_a_bad_command_says_which_and_what_was_expected_and_the_run_fails(tmp_path: Path) -> None:
    """Every mistake is reported as 'error: COMMAND: ...'; the console goes on; exit status 1."""
    script = "\n".join(
        [
            "dael",
            "deal Zz",
            "press bogus",
            "fault nope",
            "fault delay shoe",
            "fault drop toaster",
            "cut 5",
            "wait forever",
            "state extra",
            "# a comment is fine",
            "deal",
        ]
    )
    result = run_console(tmp_path, script + "\n")
    assert result.returncode == 1
    errors = [line for line in result.stdout.splitlines() if line.startswith("error:")]
    assert errors == [
        "error: unknown command 'dael'; did you mean 'deal'? Type 'help' for the commands.",
        "error: deal: not a card: 'Zz' ('Z' is not a rank); expected a rank "
        "(A K Q J T 9 8 7 6 5 4 3 2, or 10) followed by a suit (s h d c), e.g. 'As', 'Td', '10d'",
        "error: press: button 'bogus': expected one of: new_hand fold check_call bet_raise "
        "all_in draw_done misdeal undo",
        "error: fault: no fault 'nope'; expected one of: drop garble delay noise silent speak "
        "unplug replug power-cycle clear lid reader jam duplicate reread uptime foreign other-deck "
        "twice",
        "error: fault: expected 'fault delay DEVICE SECONDS [COUNT]'; got 'delay shoe'",
        "error: fault: device 'toaster': expected shoe or panel",
        "error: cut: cut of 5 cards: expected at least 10 off the top "
        "(rules-interpretation.md, Shuffle, cut and decks) and at most 51 of 52",
        "error: wait: seconds 'forever': expected a number",
        "error: state: expected 'state' with no arguments; got 'extra'",
    ]
    assert result.stdout.splitlines()[-1].startswith("dealt ")


def test_help_lists_every_command_and_every_fault(tmp_path: Path) -> None:
    """'help' shows each command with its arguments; 'help fault' each fault."""
    result = run_console(tmp_path, "help\nhelp fault\nhelp cut\n")
    out = result.stdout
    for command in ("deal", "burn", "discard", "shuffle", "cut", "deck", "press", "fault", "state"):
        assert f"\n  {command}" in out
    for fault in ("drop", "garble", "delay", "noise", "silent", "unplug", "replug", "lid",
                  "reader", "duplicate", "reread", "uptime", "foreign", "other-deck",
                  "twice"):  # fmt: skip
        assert f"  fault {fault}" in out
    assert "Example: 'cut 17'." in out


@pytest.mark.timeout(60)
def test_a_host_on_the_pty_receives_what_the_console_deals(tmp_path: Path) -> None:
    """End to end: the console's 'deal' and 'press' reach a host that opened the links."""
    with subprocess.Popen(
        tablectl_sim(tmp_path, "--seed", "2"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    ) as process:
        assert process.stdin is not None
        assert process.stdout is not None
        shoe_line = process.stdout.readline()
        assert shoe_line.strip() == f"shoe: {tmp_path / 'shoe'}"
        with serial.Serial(str(tmp_path / "shoe"), 115200, timeout=0.05) as port:
            host = PortHost(port, "shoe")
            host.connect()
            process.stdin.write("deal\nfault garble shoe 2\ndeal\n")
            process.stdin.flush()
            host.until(lambda: len(host.host.cards) == 2)
            first, second = shuffled(2)[:2]
            deck = make_decks(2)[0]
            assert host.host.cards == [deck.uid(first), deck.uid(second)]
        process.stdin.write("quit\n")
        process.stdin.flush()
        assert process.wait(timeout=30) == 0


class Terminal:
    """The technician's side of a pty: type, and wait for what the console prints."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.pending = b""

    def type(self, keys: bytes) -> None:
        os.write(self.fd, keys)

    def expect(self, wanted: bytes, timeout: float = 30.0) -> bytes:
        """Everything up to and including ``wanted``; the rest is kept for the next call."""
        deadline = time.monotonic() + timeout
        while wanted not in self.pending:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no {wanted!r} in {self.pending!r}"
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if ready:
                self.pending += os.read(self.fd, 4096)
        end = self.pending.index(wanted) + len(wanted)
        seen, self.pending = self.pending[:end], self.pending[end:]
        return seen


def test_at_a_terminal_the_console_prompts_completes_and_keeps_history(tmp_path: Path) -> None:
    """On a real pty: a prompt, Tab completes commands and buttons, Up recalls, history saved."""
    history = tmp_path / "history"
    master, slave = os.openpty()
    env = {**os.environ, "TERM": "xterm", "HOME": str(tmp_path)}
    with subprocess.Popen(
        tablectl_sim(tmp_path / "links", "--history", str(history)),
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=ROOT,
        env=env,
        close_fds=True,
    ) as process:
        os.close(slave)
        terminal = Terminal(master)
        try:
            terminal.expect(b"sim> ")
            terminal.type(b"sta\t\r")
            assert b"lid closed, reader ok" in terminal.expect(b"display:")
            terminal.expect(b"sim> ")
            terminal.type(b"press chec\t\r")
            terminal.expect(b"pressed check_call")
            terminal.expect(b"sim> ")
            terminal.type(b"\x1b[A\r")  # Up: the last command again
            assert b"press check_call" in terminal.expect(b"pressed check_call")
            terminal.expect(b"sim> ")
            terminal.type(b"bogus\r")
            assert b"error: unknown command 'bogus'" in terminal.expect(b"commands.")
            terminal.type(b"quit\r")
            assert process.wait(timeout=30) == 0
        finally:
            os.close(master)
    assert history.read_text().splitlines()[-2:] == ["bogus", "quit"]
    assert "state" in history.read_text().splitlines()


def test_trace_prints_the_wire_both_ways(tmp_path: Path) -> None:
    """'trace shoe all' prints each sentence the shoe writes, heartbeats and noise included."""
    # The first heartbeat is due a second after power-up: written by the end of 'wait 1.1'.
    result = run_console(tmp_path, "trace shoe all\nfault noise shoe 4\nwait 1.1\ntrace shoe off\n")
    traced = [line for line in result.stdout.splitlines() if line.startswith("shoe > ")]
    assert any(line.startswith("shoe > $SHHEL,0,RS-200,SHOE0001,") for line in traced)
    assert any(line.startswith("shoe > $SHHBT,") for line in traced)
    assert result.stdout.splitlines()[-1] == "trace of the shoe off"


def test_a_bad_option_is_refused_before_anything_starts(tmp_path: Path) -> None:
    """A serial the hello cannot carry, or a folder that cannot be made: a clear error, status 2."""
    result = run_console(tmp_path, "", "--shoe-serial", "SHOE 1")
    assert result.returncode == 2
    assert "serial 'SHOE 1': expected 1 to 16 letters, digits" in result.stderr
    blocked = tmp_path / "file"
    blocked.write_text("")
    with pytest.raises(SystemExit) as refused:  # as the command line is read
        run_console(blocked / "sub", "")
    assert refused.value.code == 2


@pytest.mark.timeout(60)
def test_watch_prints_what_the_host_shows_on_the_panel(tmp_path: Path) -> None:
    """--watch: the seat light and text the controller sets appear on the console."""
    with subprocess.Popen(
        tablectl_sim(tmp_path, "--watch"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    ) as process:
        assert process.stdin is not None
        assert process.stdout is not None
        for _ in range(4):
            process.stdout.readline()
        with serial.Serial(str(tmp_path / "panel"), 115200, timeout=0.05) as port:
            host = PortHost(port, "panel")
            host.connect()
            port.write(host.host.codec.encode(Light(5)) + host.host.codec.encode(Text("Seat 5")))
            lines = [process.stdout.readline() for _ in range(4)]
        process.stdin.write("quit\n")
        process.stdin.flush()
        assert process.wait(timeout=30) == 0
    assert "panel: seat 5 lit; ''\n" in lines
    assert "panel: seat 5 lit; 'Seat 5'\n" in lines


def test_every_fault_of_the_help_can_be_injected_and_state_shows_it(tmp_path: Path) -> None:
    """Each fault listed by 'help fault' runs from the console; 'state' and 'paths' reflect them."""
    script = """
        deal
        fault drop shoe 2
        fault garble panel
        fault delay shoe 0.5 2
        fault noise panel 16
        fault silent panel
        fault speak panel
        fault silent shoe 0.2
        fault clear shoe
        fault lid open
        fault reader fault
        deal
        fault reader ok
        fault jam on
        deal
        fault jam off
        fault duplicate 3
        deal
        fault reread 0.5
        fault uptime 4294967000
        deal
        fault uptime 2x
        fault reread 61
        fault foreign
        fault other-deck Kd
        fault twice
        fault power-cycle panel
        fault unplug shoe
        paths
        state
        fault replug shoe
    """
    result = run_console(tmp_path, "\n".join(line.strip() for line in script.splitlines()))
    out = result.stdout
    assert [line for line in out.splitlines() if line.startswith("error:")] == [
        "error: deal: the feed is jammed (a card is stuck): no card can leave the shoe",
        "error: fault: ms '2x': expected a whole number",
        "error: fault: reread after 61.0 s: expected more than 0 and at most 60 s",
    ]
    assert result.returncode == 1
    for expected in (
        "the shoe's next 2 sentences will be dropped",
        "the panel's next 1 sentence will be garbled",
        "the shoe's next 2 sentences will be held 0.5 s",
        "16 bytes of noise on the panel's line",
        "the panel is silent until 'fault speak'",
        "the shoe is silent for 0.2 s",
        "the shoe has no line fault armed",
        "(tag E0",
        "NOT read (reader fault)",
        "read 4 times",
        "the next card dealt will pass the slot again 0.5 s later",
        "the shoe's clock reads 4294967000 ms",
        "read 2 times",
        "passed the slot (enrolled in neither deck)",
        "Kd of the deck not in play passed the slot",
        "dealt already, passed the slot again",
        "the panel was switched off and on",
        f"shoe: {tmp_path / 'shoe'} (unplugged)",
        f"shoe: {tmp_path / 'shoe'} (UNPLUGGED)",
        "lid open, reader ok, feed ok",
        " ms\n",
        f"the shoe is plugged back in at {tmp_path / 'shoe'}",
    ):
        assert expected in out, expected


def test_a_power_cycled_panel_comes_back_dark() -> None:
    """A panel that loses power shows no light and no text until the host repaints it."""
    with Simulator(transport="memory", table="dark") as sim:
        with sim.locked():
            sim.panel.receive(b"$HCLIT,3*45\r\n$HCTXT,*7F\r\n", sim.clock())
            assert sim.panel.light == 3
        sim.power_cycle("panel")
        with sim.locked():
            assert (sim.panel.light, sim.panel.text) == (0, "")
