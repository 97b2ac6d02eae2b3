"""The command line loads the command it runs and no other (controller/cli/registry.py,
controller/cli/lazy.py; docs/app.md, The command line: one command loaded): every loader
returns what it names, and what a run prints is what the full parser prints, for every
command's ``--help``, the list of commands and the errors of the top level."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import subprocess
import sys
from collections.abc import Iterator, Sequence

import pytest

from controller.cli.lazy import Lazy
from controller.cli.main import build_parser, command_modules, main
from controller.cli.registry import COMMANDS

# ``tablectl floor demo``'s loader imports the simulator's servers, whose import makes the
# lifeline pipe its servers outlive the process by (simulator/servers.py): made here, before any
# test, it is no test's leaked descriptor (as in tests/test_cli_paths.py).
importlib.import_module("simulator.servers")

FULL = build_parser()


def _module(name: str) -> str:
    return f"controller.cli.commands.{name.replace('-', '_')}"


def _parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _parsers(sub)


def _printed(argv: Sequence[str]) -> tuple[object, str, str]:
    """``main(argv)``'s exit status, standard output and standard error."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status: object = main(argv)
        except SystemExit as exit_:
            status = exit_.code
    return status, out.getvalue(), err.getvalue()


@pytest.mark.fast
def test_the_registry_names_every_command_module_in_name_order() -> None:
    assert [_module(name) for name in COMMANDS] == command_modules()
    assert list(COMMANDS) == sorted(COMMANDS)


@pytest.mark.fast
@pytest.mark.parametrize("name", COMMANDS)
def test_each_loader_returns_the_register_of_its_module_which_adds_that_command(
    name: str,
) -> None:
    """What mypy checks in the loader's import, run: the function, and the command it adds
    (its line in the list the registry's, as ``tablectl --help`` shows it unloaded)."""
    register = COMMANDS[name].load()
    assert register is importlib.import_module(_module(name)).register
    actions = argparse.ArgumentParser(prog="tablectl").add_subparsers()
    register(actions)
    assert list(actions.choices) == [name]
    assert [listed.help for listed in actions._choices_actions] == [COMMANDS[name].summary]


def test_every_floor_action_loads_a_runner() -> None:
    """The floor's actions' loaders (the same mechanism, controller/cli/lazy.py), each called
    (not in the fast tier: they import the floor's server, web and simulator modules)."""
    loaded = [
        parser.prog for parser in _parsers(FULL) if isinstance(parser.get_default("run"), Lazy)
    ]
    assert {"tablectl floor setup", "tablectl floor web", "tablectl floor software"} <= set(loaded)
    for parser in _parsers(FULL):
        run = parser.get_default("run")
        if isinstance(run, Lazy):
            assert callable(run.load()), parser.prog


@pytest.mark.fast
@pytest.mark.parametrize(
    "argv",
    [
        *([*parser.prog.split()[1:], "--help"] for parser in _parsers(FULL)),
        [],
        ["nope"],
        ["--nope", "status"],
        ["--version", "nope"],
        ["floor"],
        ["journal", "nope"],
    ],
    ids=lambda argv: " ".join(argv) or "(none)",
)
def test_a_run_prints_what_the_full_parser_prints(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every command's and sub-command's ``--help``, the list of commands, an unknown command
    and option, a command of actions given none: as when every command was loaded."""
    printed = _printed(argv)
    monkeypatch.setattr("controller.cli.main._parser_for", lambda _argv: FULL)
    assert printed == _printed(argv)


LOADED = """
import json, sys
import controller
from controller.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
tables = sys.modules.get("controller.poker.hand_tables")
print(json.dumps({
    "commands": sorted(m for m in sys.modules if m.count(".") == 3
                       and m.startswith("controller.cli.commands.") and "._" not in m),
    "tables built": bool(tables and tables.tables.cache_info().currsize),
    "version looked up": bool(controller.version.cache_info().currsize),
}))
"""


@pytest.mark.parametrize(
    ("argv", "commands"),
    [
        (["--help"], []),
        (["status", "--help"], ["status"]),
        (["run", "--help"], ["run"]),
        (["floor", "web", "--help"], ["floor"]),
    ],
    ids=["--help", "status --help", "run --help", "floor web --help"],
)
def test_a_process_loads_the_command_it_runs_and_builds_no_hand_table(
    argv: list[str], commands: list[str]
) -> None:
    """A process of its own, as every ``tablectl`` is: the command's module and no other's,
    no hand table built (no hand is evaluated), and the version not looked up."""
    done = subprocess.run(
        [sys.executable, "-c", LOADED, *argv], capture_output=True, text=True, check=True
    )
    found = json.loads(done.stdout.splitlines()[-1])
    assert found == {
        "commands": [_module(name) for name in commands],
        "tables built": False,
        "version looked up": False,
    }
