"""``tablectl --help`` and every command's: a description on every command and
sub-command, a help text on every option and argument, no docstring markup."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest

from controller.cli.main import build_parser, command_modules
from controller.poker.games import GAMES

#: reStructuredText that belongs in docstrings, not in a terminal: ``literal``, :class:`X`...
MARKUP = re.compile(r"``|:(class|func|meth|mod|attr|data|exc):`")


def _parsers(
    parser: argparse.ArgumentParser, name: str = "tablectl"
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """The parser and every sub-command's, depth first, with the words that call each."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for word, sub in action.choices.items():
                yield from _parsers(sub, f"{name} {word}")


PARSERS = list(_parsers(build_parser()))


def test_the_walk_finds_every_command_and_sub_command() -> None:
    """The walk reaches the nested ones (a test of the test: it must not check only the top)."""
    names = {name for name, _parser in PARSERS}
    assert {"tablectl seat sit", "tablectl journal verify", "tablectl config check"} <= names
    assert {"tablectl export", "tablectl recall", "tablectl demo", "tablectl enroll"} <= names


@pytest.mark.parametrize(("name", "parser"), PARSERS, ids=[name for name, _p in PARSERS])
def test_every_command_has_a_description_and_every_option_a_help_text(
    name: str, parser: argparse.ArgumentParser
) -> None:
    """The parser's description, every option's and argument's help, every sub-command's line
    in the list; and ``--help`` prints no markup and no "tablectl X:" prefix."""
    assert parser.description, f"{name}: no description"
    assert not parser.description.startswith("tablectl"), f"{name}: {parser.description!r}"
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._VersionAction):
            continue
        if isinstance(action, argparse._SubParsersAction):
            for listed in action._choices_actions:
                assert listed.help, f"{name} {listed.dest}: no help line in the list"
            continue
        what = "/".join(action.option_strings) or action.dest
        assert action.help, f"{name} {what}: no help"
        assert action.help != argparse.SUPPRESS, f"{name} {what}: hidden"
    text = parser.format_help()
    assert not MARKUP.search(text), f"{name} --help: markup {MARKUP.search(text)}"
    command = name.rsplit(" ", 1)[-1]
    assert f"tablectl {command}:" not in text, f"{name} --help names itself as a prefix"


def test_each_command_module_is_one_command_named_after_it() -> None:
    """A command is in one place: the top level lists exactly one command per module of
    ``controller.cli.commands`` (controller/cli/main.py), so the journal's hold, release and holds
    (controller/cli/commands/_journal_hold.py) are under ``tablectl journal`` only."""
    top = {name.split()[1] for name, _parser in PARSERS if name.count(" ") == 1}
    modules = {module.rsplit(".", 1)[-1].replace("_", "-") for module in command_modules()}
    assert top == modules
    names = {name for name, _parser in PARSERS}
    hold = {"tablectl journal hold", "tablectl journal release", "tablectl journal holds"}
    assert hold <= names
    assert not {"tablectl hold", "tablectl release", "tablectl holds"} & names


def _options(option: str) -> list[tuple[str, argparse.Action]]:
    """Every command's ``option``, with the words that call the command."""
    return [
        (name, action)
        for name, parser in PARSERS
        for action in parser._actions
        if option in action.option_strings
    ]


def test_every_config_option_is_shown_as_file() -> None:
    """``--config FILE`` in every command's usage and help, not ``--config CONFIG`` in some."""
    configs = _options("--config")
    assert {"tablectl seat", "tablectl sim", "tablectl run"} <= {name for name, _a in configs}
    assert {name: action.metavar for name, action in configs if action.metavar != "FILE"} == {}


def test_every_game_option_lists_the_games() -> None:
    """``--game`` takes one of the games and lists them, in every command that has it."""
    games = _options("--game")
    assert {"tablectl sim", "tablectl demo", "tablectl replay"} <= {name for name, _a in games}
    for name, action in games:
        assert list(action.choices or ()) == sorted(GAMES), name


def test_every_command_states_its_exit_status() -> None:
    """Each command that runs says in its help what its exit statuses mean, in its own
    description or in the one of the command it belongs to (``tablectl floor``'s for its
    actions)."""
    unstated = []
    for name, parser in PARSERS:
        if any(isinstance(action, argparse._SubParsersAction) for action in parser._actions):
            continue  # a command of actions runs none of them itself: each action is checked
        words = name.split()
        said = [
            command.description or ""
            for other, command in PARSERS
            if other.split() == words[: len(other.split())] and len(other.split()) > 1
        ]
        if not any("Exit status" in text for text in said):
            unstated.append(name)
    assert unstated == []
