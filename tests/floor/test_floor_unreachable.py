"""Every floor command that connects to PostgreSQL, against a store it cannot reach (docs/floor.md,
Connecting to the store): one line naming the role, what was tried (never the password), what
failed and what to do; exit 1, no traceback. The command line, against a socket folder
where no server listens: libpq fails at once, the same way on every machine."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from controller.cli.main import main
from controller.journal import signing

SECRET = "hunter2-never-printed"


def _floor_toml(tmp_path: Path, nowhere: Path) -> Path:
    for name in ("nats.password", "postgres.password", "reader.password", "web.password"):
        (tmp_path / name).write_text(SECRET + "\n")
    (tmp_path / "web.secret").write_text("s" * 64 + "\n")
    path = tmp_path / "floor.toml"
    path.write_text(
        '[nats]\nservers = ["nats://127.0.0.1:4222"]\nuser = "floor"\n'
        'password_file = "nats.password"\nreplicas = 1\n'
        f'[postgres]\nhost = "{nowhere}"\nport = 5432\ndbname = "tablectl"\n'
        'password_file = "postgres.password"\n'
        '[reader]\npassword_file = "reader.password"\n'
        '[web]\nsecret_file = "web.secret"\npassword_file = "web.password"\n'
    )
    return path


@dataclass(frozen=True)
class Done:
    returncode: int
    stdout: str
    stderr: str


def _floor(
    nowhere: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *args: str | Path,
) -> Done:
    """The command line's own entry point, in this process (a process each cost a second of
    CPU for the import alone); libpq really tries the socket."""
    # PGHOST: the owner's default connection (no --owner-dsn) goes to the empty folder too,
    # where libpq's compiled-in socket folder might hold a real server on a developer's PC.
    monkeypatch.setenv("PGHOST", str(nowhere))
    status = main(["floor", *map(str, args)])
    out, err = capsys.readouterr()
    return Done(status, out, err)


OWNER = ("--owner-dsn", "docs/floor.md, Connecting to the store")
READER = ("[reader] (user, password_file)", "docs/floor.md, Connecting to the store")
WEB = ("[web] (user, password_file)", "docs/floor.md, Connecting to the store")


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (["key", "--config", "{config}", "list"], ("the database owner", OWNER)),
        (
            ["key", "--config", "{config}", "register", "--table", "T1", "--public-key", "{pub}"],
            ("the database owner", OWNER),
        ),
        (["software", "--config", "{config}", "list"], ("the database owner", OWNER)),
        (["user", "--config", "{config}", "list"], ("the database owner", OWNER)),
        (["setup", "--config", "{config}"], ("the database owner", OWNER)),
        (["recall", "--config", "{config}", "--table", "T1"], ("the read-only role", READER)),
        (["verify", "--config", "{config}"], ("the read-only role", READER)),
        (
            ["dispute", "--config", "{config}", "--table", "T1", "--hand", "1", "--out", "{out}"],
            ("the read-only role", READER),
        ),
        (["web", "--config", "{config}"], ("the web view's role", WEB)),
    ],
    ids=lambda value: "-".join(value[:2]) if isinstance(value, list) else None,
)
def test_a_store_it_cannot_reach_is_said_in_one_line_with_what_was_tried_and_what_to_do(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    expected: tuple[str, tuple[str, ...]],
) -> None:
    role, remedy = expected
    nowhere = tmp_path / "no-server"
    nowhere.mkdir()
    config = _floor_toml(tmp_path, nowhere)
    pub = tmp_path / "table.pub"
    pub.write_text(signing.public_hex(Ed25519PrivateKey.generate()) + "\n")
    filled = [part.format(config=config, pub=pub, out=tmp_path / "bundle") for part in command]
    done = _floor(nowhere, monkeypatch, capsys, *filled)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    said = lines[0]
    assert said.startswith(f"tablectl floor {command[0]}"), said
    assert f"cannot connect to the floor's PostgreSQL as {role} (" in said, said
    assert "dbname=tablectl" in said, said
    # Where libpq went, and why it failed there: the socket in the empty folder.
    assert f'on socket "{nowhere}/.s.PGSQL.5432" failed: No such file or directory' in said
    for words in remedy:
        assert words in said, said
    assert SECRET not in done.stdout + done.stderr


def test_an_owner_dsn_s_password_is_never_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    nowhere = tmp_path / "no-server"
    nowhere.mkdir()
    config = _floor_toml(tmp_path, nowhere)
    dsn = f"host={nowhere} dbname=floor user=postgres password={SECRET}"
    done = _floor(
        nowhere, monkeypatch, capsys, "key", "--config", config, "--owner-dsn", dsn, "list"
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(
        "tablectl floor key list: cannot connect to the floor's PostgreSQL as the database "
        f"owner (user=postgres dbname=floor host={nowhere}): connection to server on socket"
    ), done.stderr
    assert SECRET not in done.stderr
