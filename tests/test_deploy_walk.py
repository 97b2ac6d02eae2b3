"""docs/deploy.md walked: its commands, in order, against a temporary root.

Every ``sh`` block of the page is marked in its Markdown source: ``<!-- walk: variables -->``
(the folders, set once), ``<!-- walk -->`` (run here, in order, each in ``bash -euo pipefail``),
or ``<!-- walk: skip (why) -->`` (needs what this machine has not: systemd as PID 1, the
devices, a user added to the machine). The walk builds the wheelhouse with ``make wheelhouse``
(the only block that reaches the package index; the machine's pip configuration and cache
serve it), installs offline into a fresh venv with ``--no-index`` and no pip configuration at
all, as on a fresh Debian PC, runs ``tablectl --help``, ``tablectl config check`` on the
documented table.toml, ``systemd-analyze verify`` on the installed unit and
``logrotate --debug`` on the installed rotation, and upgrades. A skipped block must still name
commands that exist, files the walk installed, and ``tablectl`` command lines its parser takes.

What this machine cannot be, the walk stands in for, and says so here:

- the folders are temporary ones (the variables block's values are replaced);
- the user ``tablectl`` is not added (step 2 is skipped): ``runuser -u tablectl --`` runs the
  command as the test's own user, and ``-g tablectl`` gives the test's own group;
- the two decks are not enrolled (no shoe): the simulator's deck files are written where
  ``tablectl enroll`` writes them.
"""

from __future__ import annotations

import contextlib
import grp
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.cli.main import build_parser
from controller.config.settings import DEFAULT_CONFIG
from simulator.decks import make_decks, write_deck_file

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "docs" / "deploy.md"
BLOCK = re.compile(r"^```sh\n(.*?)^```\n", re.MULTILINE | re.DOTALL)
MARK = re.compile(r"<!-- walk(?:: (variables|skip \(([^)]+)\)))? -->\n\Z")
#: The folders the page names once, and what they are on a table PC.
FOLDERS = {
    "PREFIX": "/opt/tablectl",
    "ETC": str(DEFAULT_CONFIG.parent),
    "WHEELHOUSE": "/root/tablectl-wheelhouse",
    "SRC": "$HOME/tablectl",
    "UNITS": "/etc/systemd/system",
    "RULES": "/etc/udev/rules.d",
    "LOGROTATE": "/etc/logrotate.d",
}
#: The words of pip's failure to reach the package index (then the walk is skipped).
OFFLINE = re.compile(
    r"NewConnectionError|Temporary failure in name resolution|Network is unreachable|"
    r"Failed to establish a new connection|ConnectTimeoutError|ProxyError"
)


@dataclass(frozen=True)
class Block:
    """One ``sh`` block of the page: how it is marked, where it is, what it says."""

    kind: str  # "variables", "walk" or "skip"
    why: str
    line: int
    text: str

    def commands(self) -> list[list[str]]:
        """Each simple command of the block as words, variables not yet expanded (a line
        continued with a backslash is one line; pipes and && separate commands)."""
        joined = self.text.replace("\\\n", " ")
        commands: list[list[str]] = []
        for line in joined.splitlines():
            lexer = shlex.shlex(line, posix=True, punctuation_chars="|&;")
            lexer.whitespace_split = True
            lexer.commenters = "#"
            words: list[str] = []
            for word in lexer:
                if word in {"|", "||", "&&", ";", "&"}:
                    commands.append(words)
                    words = []
                else:
                    words.append(word)
            if words:
                commands.append(words)
        return [c for c in commands if c]


def blocks(text: str) -> list[Block]:
    """Every ``sh`` block of the page, in order; each must carry a walk mark."""
    found = []
    for match in BLOCK.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        mark = MARK.search(text, 0, match.start())
        assert mark is not None, f"docs/deploy.md:{line}: an sh block without <!-- walk ... -->"
        what = mark.group(1) or "walk"
        kind = "skip" if what.startswith("skip") else what
        found.append(Block(kind, mark.group(2) or "", line, match.group(1)))
    return found


@pytest.mark.fast
def test_every_sh_block_is_marked_and_the_variables_come_first() -> None:
    """The walk cannot miss a block: each is walked or skipped with a reason; the folders are
    named once, first, with the values the unit file and the configuration's default use."""
    found = blocks(DEPLOY.read_text(encoding="utf-8"))
    assert found[0].kind == "variables"
    assert [b for b in found if b.kind == "variables"] == [found[0]]
    assert dict(variables(found[0])) == FOLDERS
    assert all(b.why for b in found if b.kind == "skip")
    unit = (ROOT / "docs" / "examples" / "tablectl.service").read_text(encoding="utf-8")
    assert f"ExecStart={FOLDERS['PREFIX']}/.venv/bin/tablectl run --config {DEFAULT_CONFIG}" in unit


@pytest.mark.fast
def test_a_block_without_a_mark_is_refused() -> None:
    text = "<!-- walk -->\n```sh\nls\n```\n\nplain words\n\n```sh\nrm -rf /\n```\n"
    with pytest.raises(AssertionError, match=r"docs/deploy\.md:8: an sh block without"):
        blocks(text)


def variables(block: Block) -> list[tuple[str, str]]:
    """The block's NAME=value lines (comments dropped)."""
    pairs = []
    for words in block.commands():
        assert len(words) == 1, f"not NAME=value: {words}"
        assert "=" in words[0], f"not NAME=value: {words}"
        name, value = words[0].split("=", 1)
        pairs.append((name, value))
    return pairs


def expand(word: str, env: dict[str, str]) -> str:
    """``$NAME`` and ``${NAME}`` from ``env``, as the shell would."""
    return re.sub(r"\$\{?([A-Z_]+)\}?", lambda m: env[m.group(1)], word)


def stand_ins(text: str) -> str:
    """The walk's two stand-ins for the user tablectl, which is not added here."""
    group = grp.getgrgid(os.getgid()).gr_name
    return text.replace("runuser -u tablectl -- ", "").replace("-g tablectl ", f"-g {group} ")


def source_copy(destination: Path) -> None:
    """The working tree as a clone has it, less the venv, caches and builds."""
    shutil.copytree(
        ROOT,
        destination,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            "__pycache__",
            ".*_cache",
            ".hypothesis",
            "build",
            "wheelhouse",
            "*.egg-info",
            "tests",
        ),
    )


def fresh_pc(env: dict[str, str]) -> dict[str, str]:
    """The environment of a fresh Debian PC's root shell, for pip: no configuration, no
    extra index, no find-links: what is installed comes from the wheelhouse alone."""
    clean = {k: v for k, v in env.items() if not k.startswith("PIP_")}
    clean["PIP_CONFIG_FILE"] = os.devnull
    return clean


def run_block(block: Block, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", stand_ins(block.text)],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


#: argparse's refusal of a path argument naming a file that does not exist on this host.
ELSEWHERE = re.compile(r"error: argument [-\w]+: (?P<path>\S+): expected .*: it does not exist")


def check_skipped(block: Block, env: dict[str, str]) -> None:
    """A skipped block's commands exist here, its files under PREFIX were installed, and its
    ``tablectl`` command lines are ones the parser takes."""
    parser = build_parser()
    for raw in block.commands():
        words = [expand(w, env) for w in raw]
        where = f"docs/deploy.md:{block.line} ({block.why}): {shlex.join(raw)}"
        program = words[0]
        if "/" in program:
            assert os.access(program, os.X_OK), f"{where}: {program} is not installed"
        else:
            assert shutil.which(program), f"{where}: no command {program}"
        if program.endswith("/tablectl"):
            told = io.StringIO()
            try:
                with contextlib.redirect_stderr(told):
                    parser.parse_args(words[1:])
            except SystemExit as exit:
                # A path argument is checked as the command line is read
                # (controller/cli/commands/_paths.py): a file of the other host that is not here
                # (not under PREFIX, which this walk installed) is the one refusal allowed.
                elsewhere = ELSEWHERE.search(told.getvalue())
                if elsewhere is None or elsewhere["path"].startswith(env["PREFIX"] + "/"):
                    raise AssertionError(
                        f"{where}: tablectl refuses it (exit {exit.code}): {told.getvalue()}"
                    ) from None
        for word in words[1:]:
            if word.startswith(env["PREFIX"] + "/"):
                assert Path(word).exists(), f"{where}: {word} is not installed"
        if words[:2] == ["apt-get", "install"] and apt_knows_packages():
            for package in (w for w in words[2:] if not w.startswith("-")):
                assert apt_knows(package), f"{where}: Debian has no package {package}"


def apt_knows_packages() -> bool:
    """apt's package lists are there (after apt-get update) to look names up in."""
    lists = Path("/var/lib/apt/lists")
    return shutil.which("apt-cache") is not None and any(lists.glob("*_Packages*"))


def apt_knows(package: str) -> bool:
    result = subprocess.run(
        ["apt-cache", "show", "--no-all-versions", package],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.returncode == 0


def write_decks(etc: Path) -> None:
    """The stand-in for step 5's enrollment: the simulator's two deck files, where the
    example table.toml names them (decks/deck-a.txt and decks/deck-b.txt)."""
    a, b = make_decks(7)
    write_deck_file(etc / "decks" / "deck-a.txt", a)
    write_deck_file(etc / "decks" / "deck-b.txt", b)


# 37 to 76 s here (the venv and its offline install take 20 s of it): docs/testing.md.
@pytest.mark.slow
def test_the_deploy_page_walks_to_a_working_install(tmp_path: Path) -> None:
    """docs/deploy.md, Step by step: every walkable block runs, in order."""
    if os.geteuid() != 0:
        pytest.skip("the walk installs files owned by root (install -o root): run as root")
    for tool in ("make", "systemd-analyze", "logrotate"):
        if shutil.which(tool) is None:
            if os.environ.get("CI"):
                pytest.fail(f"{tool} is missing: .ci/run installs it")
            pytest.skip(f"{tool} is not installed (.ci/run installs it)")
    found = blocks(DEPLOY.read_text(encoding="utf-8"))
    machine = tmp_path / "root"
    folders = {
        "PREFIX": machine / "opt" / "tablectl",
        "ETC": machine / "etc" / "tablectl",
        "WHEELHOUSE": machine / "root" / "tablectl-wheelhouse",
        "SRC": tmp_path / "build" / "tablectl",
        "UNITS": machine / "etc" / "systemd" / "system",
        "RULES": machine / "etc" / "udev" / "rules.d",
        "LOGROTATE": machine / "etc" / "logrotate.d",
    }
    # /root, and the folders of Debian's packages (step 1), are there on a Debian PC.
    folders["WHEELHOUSE"].parent.mkdir(parents=True)
    for name in ("UNITS", "RULES", "LOGROTATE"):
        folders[name].mkdir(parents=True)
    source_copy(folders["SRC"])
    # make wheelhouse uses the venv it is given (a clone's make makes one: network again).
    env = {**os.environ, **{k: str(v) for k, v in folders.items()}, "VENV": sys.prefix}
    pc = fresh_pc(env)
    walked = []
    for block in found[1:]:
        if block.kind == "skip":
            continue
        if "enroll" in blocks_before(found, block):
            write_decks(folders["ETC"])
        builds = "make " in block.text and "wheelhouse" in block.text
        result = run_block(block, env if builds else pc, tmp_path)
        said = result.stdout + result.stderr
        if builds and result.returncode != 0 and OFFLINE.search(said):
            pytest.skip(f"make wheelhouse cannot reach the package index: {said[-500:]}")
        assert result.returncode == 0, f"docs/deploy.md:{block.line}:\n{block.text}\n{said}"
        walked.append((block, said))
    assert len(walked) >= 8
    check_install(folders, walked)
    for block in found[1:]:
        if block.kind == "skip":
            check_skipped(block, env)


def blocks_before(found: list[Block], block: Block) -> str:
    """The text of the skipped blocks just before ``block`` (what it stands in for)."""
    index = found.index(block)
    text = []
    for earlier in reversed(found[:index]):
        if earlier.kind != "skip":
            break
        text.append(earlier.text)
    return "\n".join(text)


def check_install(folders: dict[str, Path], walked: list[tuple[Block, str]]) -> None:
    """What the walk left: the wheelhouse, a runtime-only venv, the installed files."""
    wheels = {p.name.split("-")[0].lower() for p in folders["WHEELHOUSE"].glob("*.whl")}
    assert {"tablectl", "pyserial", "transitions", "pyudev", "structlog", "textual"} <= wheels
    assert not {"pytest", "mypy", "ruff", "hypothesis", "pokerkit"} & wheels
    installs = [b for b, _ in walked if 'pip" install' in b.text]
    assert installs, "the page installs with pip"
    assert all("--no-index" in b.text for b in installs)
    tablectl = folders["PREFIX"] / ".venv" / "bin" / "tablectl"
    help_text = next(said for b, said in walked if 'tablectl" --help' in b.text)
    assert "usage: tablectl" in help_text
    checked = [said for b, said in walked if " config check " in b.text]
    assert len(checked) == 2  # the install's check, and the upgrade's
    assert all("caution" not in s.split("\n", 1)[0] for s in checked)
    assert os.access(tablectl, os.X_OK)
    rules = folders["RULES"] / "99-tablectl.rules"
    # tests/drivers/test_umockdev.py runs udevadm test on this very file.
    assert rules.read_bytes() == (ROOT / "udev" / "99-tablectl.rules").read_bytes()
    if udevadm_verifies():
        result = subprocess.run(
            ["udevadm", "verify", str(rules)], capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, result.stdout + result.stderr
    unit = (folders["UNITS"] / "tablectl.service").read_text(encoding="utf-8")
    assert f"ExecStart={tablectl} run --config {folders['ETC']}/table.toml" in unit
    verified = [said for b, said in walked if "systemd-analyze verify" in b.text]
    assert len(verified) == 3  # the controller's unit, the display's and the forwarder's
    assert verified == ["", "", ""], verified


def udevadm_verifies() -> bool:
    """``udevadm verify`` came with systemd 254; Debian 12 has 252."""
    result = subprocess.run(
        ["udevadm", "verify", "--help"], capture_output=True, text=True, check=False
    )
    return result.returncode == 0


@pytest.mark.fast
def test_the_readme_names_the_packages_ci_installs() -> None:
    """README, Quick start: make test's Debian packages are exactly those .ci/run installs (CI
    on a bare Debian 12 is the proof), and make demo's and make floor-demo's are a few of them
    (the floor demo's servers: nats-server and postgresql-15, docs/floor.md, The demo)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lists = [
        [w for w in words[2:] if not w.startswith("-")]
        for block in BLOCK.findall(readme)
        for words in Block("walk", "", 0, block).commands()
        if words[:2] == ["apt-get", "install"]
    ]
    assert len(lists) == 3, lists  # make demo's, make test's, then make floor-demo's
    demo, test, floor = lists
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    installed = [
        word
        for group in re.findall(r"^packages\+?=\(([^)]*)\)", ci, re.MULTILINE)
        for word in group.split()
    ]
    assert sorted(test) == sorted(installed)
    assert set(demo) == {"make", "python3", "python3-venv"}
    assert set(floor) == {*demo, "nats-server", "postgresql-15"}
    assert set(floor) <= set(installed)
