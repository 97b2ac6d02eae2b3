"""Every path argument of every ``tablectl`` command, given a path it cannot use: a missing one,
a folder where a file is expected, a file where a folder is, an unreadable one, a binary file.
Each must be refused with a non-zero exit status and one line naming the path and what was
expected, never a traceback, before the command starts anything (controller/cli/commands/_paths.py;
docs/app.md, Paths on the command line).

The commands and their path arguments are read from the parser itself, so a new command or a
new path argument is tried here without a line added; one that needs other arguments to reach
its path says so by failing, naming what it printed (``NEEDS`` below takes the others)."""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import importlib
import itertools
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

from controller.cli.commands._paths import EXPECTED, PathType
from controller.cli.main import build_parser, main
from controller.config.settings import KeySettings
from controller.config.tabletoml import load_config
from controller.journal import JournalWriter, keyfiles, retention
from controller.journal.tablerecords import decision_data
from controller.poker.cards import DECK
from controller.poker.engine import Stakes, Table, TableSetup
from controller.poker.engine.autoplay import play_hand
from controller.poker.games import GAMES

# ``tablectl floor demo`` loads the simulator's servers, whose import makes the lifeline pipe
# its servers outlive the process by (simulator/servers.py): made here, before any test, it is
# no test's leaked descriptor.
importlib.import_module("simulator.servers")

pytestmark = pytest.mark.fast

#: What the command needs besides the path tried, by the words of the (sub-)command that takes
#: it: an option's value, a positional's (by its name), or None for a flag. ``{config}`` is a
#: keyed table.toml with a journal of six hands, ``{floor}`` a floor.toml, ``{folder}`` an
#: empty folder, ``{new}`` a folder not made yet. The option tried is left out of these.
NEEDS: Final[dict[str, dict[str, str | None]]] = {
    "demo": {"--headless": None, "--hands": "1"},
    "dispute": {"--config": "{config}", "--hand": "1", "--out": "{new}"},
    "dispute verify": {"bundle": "{folder}"},
    "enroll": {"--deck": "{folder}/red.deck", "--port": "{folder}/ttyNOPE", "--timeout": "1"},
    "export": {"--config": "{config}", "--out": "{new}"},
    "floor setup": {"--config": "{floor}"},
    "floor serve": {"--config": "{floor}"},
    "floor recall": {"--config": "{floor}", "--table": "T1"},
    "floor verify": {"--config": "{floor}"},
    "floor dispute": {"--config": "{floor}", "--table": "T1", "--hand": "1", "--out": "{new}"},
    "floor demo": {"--tables": "1", "--hands": "1"},
    "floor web": {"--config": "{floor}"},
    "floor user": {"--config": "{floor}"},
    "floor user add": {"name": "alice", "--role": "admin"},
    "floor user passwd": {"name": "alice"},
    "floor software": {"--config": "{floor}"},
    "floor key": {"--config": "{floor}"},
    "floor key register": {"--table": "T1"},
    "journal hold": {"--hand": "1", "--reason": "D-1"},
    "journal release": {"--hand": "1"},
    "run": {"--as-root": None},
    # A bot reads the table.toml before the devices start (simulator/botcli.py).
    "sim": {"--bot": "random", "--hands": "1"},
}
#: The action to run a path option of a command that only groups actions in front of.
THEN: Final[dict[str, str]] = {
    "seat": "show",
    "floor user": "list",
    "floor software": "list",
    "floor key": "list",
}
#: Path arguments left to checks of their own, and why.
OWN_CHECKS: Final[dict[str, str]] = {
    "display --screenshot": "display's scene file, checked by display (test_display_command.py)",
    "display --socket": "a running table's socket, reached by display (test_display_command.py)",
}
#: Cases an argument takes as valid, or that this test cannot reach, and why.
NOT_A_FAULT: Final[dict[tuple[str, str], str]] = {
    ("attest --config", "binary"): "attest digests the file's bytes, whatever they are",
    # Only once the journal (the floor's store) tells the hand, so a refusal leaves no folder:
    # this test's journal is not signed, and it starts no floor.
    ("dispute --out", "unmakeable"): "dispute makes --out only after the journal verifies",
    ("floor dispute --out", "unmakeable"): "floor dispute makes --out after the store is read",
}

#: The cases each kind of path argument is given (controller/cli/commands/_paths.py, Kind).
CASES: Final[dict[str, tuple[str, ...]]] = {
    "file": ("missing", "folder", "unreadable", "binary"),
    "folder": ("missing", "file", "binary", "unreadable"),
    "output-folder": ("file", "binary", "under-a-file", "unmakeable"),
    "output-file": ("folder", "under-a-file"),
    "output-file-in-folder": ("folder", "under-a-file", "missing-folder"),
}


def _commands(
    parser: argparse.ArgumentParser, words: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every (sub-)command's words and parser, each once (not again by an alias)."""
    yield words, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen: set[int] = set()
            for name, sub in action.choices.items():
                if id(sub) not in seen:
                    seen.add(id(sub))
                    yield from _commands(sub, (*words, name))


def _name(action: argparse.Action) -> str:
    return action.option_strings[0] if action.option_strings else action.dest


def _is_path(action: argparse.Action) -> bool:
    return isinstance(action.type, PathType) or action.type is Path


@dataclass(frozen=True)
class Argument:
    """A path argument: the words of the command that takes it, and its action."""

    words: tuple[str, ...]
    action: argparse.Action

    @property
    def label(self) -> str:
        return f"{' '.join(self.words)} {_name(self.action)}"

    @property
    def kind(self) -> str:
        assert isinstance(self.action.type, PathType), f"{self.label}: not a PathType"
        return self.action.type.kind


def _arguments() -> list[Argument]:
    return [
        Argument(words, action)
        for words, parser in _commands(build_parser())
        for action in parser._actions
        if _is_path(action)
    ]


ARGUMENTS: Final = [a for a in _arguments() if a.label not in OWN_CHECKS]
TRIED: Final = [
    (argument, case)
    for argument in ARGUMENTS
    if isinstance(argument.action.type, PathType)
    for case in CASES[argument.kind]
    if (argument.label, case) not in NOT_A_FAULT
]


def test_every_path_argument_says_what_it_expects() -> None:
    """A path argument's type is one of controller/cli/commands/_paths.py's, so it is checked as it
    is parsed and tried here; a bare ``type=Path`` would be neither."""
    bare = [a.label for a in ARGUMENTS if not isinstance(a.action.type, PathType)]
    assert bare == [], f"give these a type from controller/cli/commands/_paths.py: {bare}"
    assert len(TRIED) > 100  # every command's, not none by a mistake in the walk


@dataclass(frozen=True)
class Bench:
    """What the commands need besides the path tried (``NEEDS``' placeholders)."""

    config: Path
    floor: Path
    folder: Path


def _six_hands(directory: Path) -> None:
    """Six hands of Mambo dealt by the engine and journaled as the controller journals them."""
    config = TableSetup(seats=(1, 2, 3), stakes=Stakes(5, 10, ante=1, bring_in=2), dealer=0)
    table = Table(GAMES["mambo"], config)
    rng = random.Random(27)
    with JournalWriter.open(directory, fsync=False) as writer:
        for number in range(6):
            deck = list(DECK)
            rng.shuffle(deck)
            events = play_hand(table, deck, lambda pending: rng.choice(pending.options))
            writer.append(*decision_data(number, events))


def _table_toml(folder: Path) -> Path:
    """A keyed Mambo table.toml beside a journal of six hands (journal/) and its key (keys/)."""
    _six_hands(folder / "journal")
    keyfiles.init(KeySettings(folder / "keys" / "table.key"))
    config = folder / "table.toml"
    config.write_text(
        '[table]\nid = "T1"\ngame = "mambo"\nseats = [1, 2, 3]\n'
        "[stakes]\nsmall_bet = 5\nbig_bet = 10\nante = 1\nbring_in = 2\n"
        '[devices.shoe]\npath = "/dev/tablectl/shoe"\n'
        '[devices.panel]\npath = "/dev/tablectl/panel"\n'
        '[decks]\na = "deck-a.txt"\nb = "deck-b.txt"\n'
        '[journal]\ndir = "journal"\n[keys]\nprivate_key = "keys/table.key"\n',
        encoding="utf-8",
    )
    assert load_config(config).journal.dir == folder / "journal"
    return config


def _floor_toml(folder: Path) -> Path:
    """A floor.toml whose servers are not running: the commands tried here never reach them."""
    for name in ("nats", "postgres", "reader"):
        (folder / f"{name}.password").write_text("x\n", encoding="utf-8")
    floor = folder / "floor.toml"
    floor.write_text(
        '[nats]\nservers = ["nats://127.0.0.1:9"]\nuser = "floor"\n'
        'password_file = "nats.password"\n'
        '[postgres]\nhost = "127.0.0.1"\nport = 9\ndbname = "tablectl"\n'
        'password_file = "postgres.password"\n[reader]\npassword_file = "reader.password"\n',
        encoding="utf-8",
    )
    return floor


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Bench:
    folder = tmp_path_factory.mktemp("bench")
    (folder / "empty").mkdir()
    return Bench(_table_toml(folder), _floor_toml(folder), folder / "empty")


#: Not valid UTF-8 (0x80 cannot start a character), with a NUL: what a binary file holds.
BINARY: Final = bytes(range(256)) * 4


def _bad_path(case: str, tmp_path: Path) -> Path:
    """The path of ``case``, made in ``tmp_path`` (outside the bench, which it must not touch)."""
    a_file = tmp_path / "a-file.txt"
    a_file.write_text("text\n", encoding="utf-8")
    paths = {
        "missing": tmp_path / "nope" / "table.toml",
        "missing-folder": tmp_path / "nope" / "x",
        "folder": tmp_path,
        "file": a_file,
        "under-a-file": a_file / "x",
        "binary": tmp_path / "binary.bin",
        "unreadable": tmp_path / "locked",
        "unmakeable": Path("/proc/tablectl-nope"),  # procfs makes no folder, even for root
    }
    paths["binary"].write_bytes(BINARY)
    return paths[case]


def _argv(argument: Argument, value: Path, bench: Bench, tmp_path: Path) -> list[str]:
    """The command line that gives ``argument`` the value ``value``, and the command the rest."""
    counter = itertools.count()

    def fill(text: str) -> str:
        new = tmp_path / f"new-{next(counter)}"
        return text.format(config=bench.config, floor=bench.floor, folder=bench.folder, new=new)

    argv: list[str] = []
    for depth in range(1, len(argument.words) + 1):
        level = " ".join(argument.words[:depth])
        argv.append(argument.words[depth - 1])
        tried = depth == len(argument.words)
        if tried:
            if argument.action.option_strings:
                argv += [argument.action.option_strings[0], str(value)]
            else:
                argv.append(str(value))
        for name, given in NEEDS.get(level, {}).items():
            if tried and name in (_name(argument.action), argument.action.dest):
                continue
            argv += ([] if name.isidentifier() else [name]) + (
                [] if given is None else [fill(given)]
            )
    then = THEN.get(" ".join(argument.words))
    return argv if then is None else [*argv, then]


# --- an unreadable file, for root too ------------------------------------------------------


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


_CAPABILITY_V3: Final = 0x20080522
#: CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH: what lets root read a file of mode 000.
_DAC: Final = (1 << 1) | (1 << 2)


@contextlib.contextmanager
def _as_a_user_without_rights() -> Iterator[None]:
    """Root reads a file of mode 000: take the two capabilities that let it from this thread's
    effective set for the length of the block (they stay permitted, and come back after).
    Another user needs nothing taken."""
    if os.geteuid() != 0:
        yield
        return
    libc = ctypes.CDLL(None, use_errno=True)
    data = (_CapData * 2)()
    if libc.capget(ctypes.byref(_CapHeader(_CAPABILITY_V3, 0)), data) != 0:
        pytest.skip(f"capget failed (errno {ctypes.get_errno()}): no unreadable file for root")
    effective = data[0].effective
    data[0].effective = effective & ~_DAC
    if libc.capset(ctypes.byref(_CapHeader(_CAPABILITY_V3, 0)), data) != 0:
        pytest.skip(f"capset failed (errno {ctypes.get_errno()}): no unreadable file for root")
    try:
        yield
    finally:
        data[0].effective = effective
        assert libc.capset(ctypes.byref(_CapHeader(_CAPABILITY_V3, 0)), data) == 0


def _locked(path: Path, folder: bool) -> None:
    if folder:
        path.mkdir()
    else:
        path.write_text("text\n", encoding="utf-8")
    path.chmod(0)


# --- the fuzz ------------------------------------------------------------------------------


def _run(argv: list[str], *, unreadable: bool) -> int:
    with _as_a_user_without_rights() if unreadable else contextlib.nullcontext():
        try:
            return main(argv)
        except SystemExit as exit_:  # argparse's refusal of a usage error
            code = exit_.code
    assert isinstance(code, int)
    return code


@pytest.mark.parametrize(
    ("argument", "case"), TRIED, ids=[f"{a.label} {c}".replace(" ", ":") for a, c in TRIED]
)
def test_a_path_it_cannot_use_is_refused_in_one_line(
    argument: Argument,
    case: str,
    bench: Bench,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bad = _bad_path(case, tmp_path)
    if case == "unreadable":
        _locked(bad, folder=argument.kind == "folder")
    argv = _argv(argument, bad, bench, tmp_path)
    status = _run(argv, unreadable=case == "unreadable")
    out, err = capsys.readouterr()
    said = f"tablectl {' '.join(argv)}: exit {status}\n{out}{err}"
    assert "Traceback" not in out + err, said
    assert status in (1, 2), said
    naming = [line for line in (err + out).splitlines() if str(bad) in line]
    assert naming, f"no line names {bad}: {said}"
    assert any("expected" in line for line in naming), f"nothing says what was expected: {said}"
    assert not list(bench.folder.iterdir()), "the bench's empty folder was written to"


# --- the lines a technician met ------------------------------------------------------------


def _refusal(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = _run(argv, unreadable=False)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, err


def test_export_onto_its_own_configuration_names_out(
    bench: Bench, capsys: pytest.CaptureFixture[str]
) -> None:
    """``export --config table.toml --out table.toml`` raised FileExistsError."""
    status, err = _refusal(
        ["export", "--config", str(bench.config), "--out", str(bench.config)], capsys
    )
    assert status == 2
    assert (
        f"argument --out: {bench.config}: expected {EXPECTED['output-folder']}: it is a file" in err
    )


def test_export_to_a_folder_that_cannot_be_made_names_out(
    bench: Bench, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = _refusal(["export", "--config", str(bench.config), "--out", "/proc/nope"], capsys)
    assert (status, err) == (
        2,
        "tablectl export: --out /proc/nope: expected a folder to write to (made if missing): "
        "cannot make it: No such file or directory\n",
    )


@pytest.mark.parametrize("argv", [["replay", "--game", "mambo"], ["import-phh"]])
def test_a_binary_hand_file_is_refused_as_not_text(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``replay --game mambo bin.hand`` and ``import-phh bin.hand`` raised UnicodeDecodeError."""
    binary = tmp_path / "bin.hand"
    binary.write_bytes(BINARY)
    status, err = _refusal([*argv, str(binary)], capsys)
    assert status == 2
    assert f"{binary}: expected the " in err
    assert "as UTF-8 text, found byte 0x80 at offset 128 (a binary file?)" in err


def test_export_with_a_journal_that_is_not_there_names_the_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It named /etc/tablectl/table.toml, the --config default, which was not given."""
    journal = tmp_path / "nope" / "journal"
    status, err = _refusal(["export", "--journal", str(journal), "--out", str(tmp_path)], capsys)
    assert status == 2
    assert f"argument --journal: {journal}: expected a readable folder: it does not exist" in err
    assert "/etc/tablectl" not in err


def test_a_default_configuration_that_is_not_there_is_said_to_be_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A command run without --config, its default missing: the line says --config was not
    given (the user named no such file) and what to give."""
    default = tmp_path / "etc" / "table.toml"
    monkeypatch.setattr("controller.config.tabletoml.DEFAULT_CONFIG", default)
    monkeypatch.setattr("controller.cli.commands.export.DEFAULT_CONFIG", default)
    parser_default = build_parser()  # the option's default is read when the parser is built
    assert parser_default.parse_args(["export", "--out", "x"]).config is default
    status, err = _refusal(["export", "--journal", str(tmp_path), "--out", str(tmp_path)], capsys)
    assert status == 1
    assert f'"{default}": expected a readable file: No such file or directory (--config was' in err
    assert "give --config FILE" in err


def test_journal_verify_of_a_file_says_it_is_a_file(
    bench: Bench, capsys: pytest.CaptureFixture[str]
) -> None:
    """It said the directory does not exist."""
    status, err = _refusal(["journal", "verify", "--journal", str(bench.config)], capsys)
    assert status == 2
    assert f"argument --journal: {bench.config}: expected a readable folder: it is a file" in err


@pytest.mark.parametrize("where", ["file", "unmakeable"])
def test_sim_with_a_dir_it_cannot_make_says_why_without_an_errno(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``sim --dir <a file>`` and ``sim --dir /proc/nope`` printed [Errno 17] and [Errno 2]."""
    folder = _bad_path(where, tmp_path)
    status, err = _refusal(["sim", "--dir", str(folder)], capsys)
    assert status == 2
    assert "Errno" not in err
    if where == "file":
        assert f"argument --dir: {folder}: expected a folder to write to (made if missing)" in err
    else:
        assert err == (
            f"tablectl sim: --dir {folder}: expected a folder to write to (made if missing): "
            "cannot make it: No such file or directory\n"
        )


def test_sim_with_a_binary_hand_script_for_its_bot_says_it_is_not_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--bot script FILE`` is no typed argument (a word of --bot): its file is read by the bot."""
    binary = tmp_path / "bin.hand"
    binary.write_bytes(BINARY)
    status, err = _refusal(
        ["sim", "--dir", str(tmp_path / "sim"), "--bot", "script", str(binary)], capsys
    )
    assert status == 2
    assert f"--bot script {binary}: expected a hand script as UTF-8 text, found byte 0x80" in err


def test_hold_of_a_hand_the_journal_does_not_have_is_refused_naming_its_hands(
    bench: Bench, capsys: pytest.CaptureFixture[str]
) -> None:
    """``hold --hand 999`` on a journal of six hands answered ``hand 999 held``, exit 0."""
    journal = bench.config.parent / "journal"
    status, err = _refusal(
        ["journal", "hold", "--journal", str(journal), "--hand", "999", "--reason", "D-9"], capsys
    )
    assert status == 2
    assert f"no hand 999 in the journal {journal}: it holds hands 1 to 6" in err
    assert retention.holds(journal) == []


def test_hold_of_a_hand_the_journal_has_is_taken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "journal"
    _six_hands(journal)
    assert retention.journal_hands(journal) == [1, 2, 3, 4, 5, 6]
    assert (
        main(["journal", "hold", "--journal", str(journal), "--hand", "6", "--reason", "D-6"]) == 0
    )
    assert "hand 6 held since" in capsys.readouterr().out
    assert [h.hand for h in retention.holds(journal)] == [6]


def test_hold_on_a_journal_of_no_hand_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = _refusal(
        ["journal", "hold", "--journal", str(tmp_path), "--hand", "1", "--reason", "D-1"], capsys
    )
    assert status == 2
    assert f"no hand 1 in the journal {tmp_path}: it holds no hand yet" in err


def test_dispute_on_a_table_without_keys_says_it_signs_nothing_yet(
    bench: Bench, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It said ``expected a readable table.pub``."""
    config = tmp_path / "table.toml"
    text = bench.config.read_text(encoding="utf-8")
    config.write_text(
        text.replace('dir = "journal"', f'dir = "{bench.config.parent / "journal"}"').replace(
            'private_key = "keys/table.key"', 'private_key = "keys/none.key"'
        ),
        encoding="utf-8",
    )
    argv = ["dispute", "--config", str(config), "--hand", "1", "--out", str(tmp_path / "out")]
    status, err = _refusal(argv, capsys)
    assert status == 2
    assert "the table signs nothing yet" in err
    assert "tablectl keys init" in err
    assert "expected a readable table.pub" not in err
    assert not (tmp_path / "out").exists()
