"""``tablectl keys init | rotate | show`` as an operator runs them, and table.toml's ``[keys]``
(docs/deploy.md, The table's key): the files and their modes, the refusals and their
exit codes. ``journal verify --public-key``: tests/app/test_signed_checkpoints.py."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from confighelp import to_toml, valid

from controller.cli.commands.config import cautions
from controller.cli.main import main
from controller.config.settings import DEFAULT_PRIVATE_KEY
from controller.config.tabletoml import SettingsError, parse_config
from controller.journal import signing
from controller.journal.tablekey import read_key


def _key(tmp_path: Path) -> Path:
    return tmp_path / "keys" / "table.key"


@pytest.mark.fast
def test_keys_init_writes_a_0600_key_in_a_0700_folder_and_its_public_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = _key(tmp_path)
    assert main(["keys", "init", "--private-key", str(key)]) == 0
    out = capsys.readouterr().out
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    public = (key.parent / "table.pub").read_text()
    assert public.endswith("\n")
    assert len(public) == 65
    made = read_key(key)
    assert made is not None
    assert public.strip() == made.public_key
    assert f"key id: {made.key_id}" in out
    assert f"public key: {made.public_key}" in out
    assert made.key_id == signing.key_id(made.public_key)


@pytest.mark.fast
def test_keys_init_refuses_to_overwrite_a_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = _key(tmp_path)
    assert main(["keys", "init", "--private-key", str(key)]) == 0
    before = key.read_bytes()
    capsys.readouterr()
    assert main(["keys", "init", "--private-key", str(key)]) == 1
    err = capsys.readouterr().err
    assert f"{key} exists already" in err
    assert "tablectl keys rotate" in err
    assert key.read_bytes() == before


@pytest.mark.fast
def test_keys_rotate_keeps_the_old_key_until_the_hand_over_and_refuses_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = _key(tmp_path)
    assert main(["keys", "rotate", "--private-key", str(key)]) == 1
    assert "no key to rotate" in capsys.readouterr().err
    assert main(["keys", "init", "--private-key", str(key)]) == 0
    old = read_key(key)
    assert main(["keys", "rotate", "--private-key", str(key)]) == 0
    new = read_key(key)
    kept = read_key(key.with_name("table.key.old"))
    assert old is not None
    assert new is not None
    assert kept is not None
    assert kept.key_id == old.key_id != new.key_id
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert (key.parent / "table.pub").read_text().strip() == new.public_key
    capsys.readouterr()
    assert main(["keys", "show", "--private-key", str(key)]) == 0
    shown = capsys.readouterr().out
    assert f"key id: {new.key_id}" in shown
    assert f"rotation pending: {old.key_id}" in shown
    assert main(["keys", "rotate", "--private-key", str(key)]) == 1
    assert "not journaled yet" in capsys.readouterr().err


@pytest.mark.fast
def test_keys_show_refuses_a_missing_or_malformed_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = _key(tmp_path)
    assert main(["keys", "show", "--private-key", str(key)]) == 1
    assert "the table runs unsigned" in capsys.readouterr().err
    key.parent.mkdir()
    key.write_text("not a key\n")
    assert main(["keys", "show", "--private-key", str(key)]) == 1
    err = capsys.readouterr().err
    assert f"{key}: not an unencrypted PEM PKCS8 private key" in err
    assert "Traceback" not in err
    with pytest.raises(SystemExit) as missing:  # refused as the command line is read
        main(["keys", "show", "--config", str(tmp_path / "missing.toml")])
    assert missing.value.code == 2


@pytest.mark.fast
def test_the_keys_section_of_table_toml() -> None:
    """[keys] private_key: the default, a relative path from the file's folder, a typo."""
    data = valid()
    assert parse_config(to_toml(data), base=Path("/etc/x")).keys.private_key == DEFAULT_PRIVATE_KEY
    data["keys"] = {"private_key": "keys/t.key"}
    settings = parse_config(to_toml(data), base=Path("/etc/x"))
    assert settings.keys.private_key == Path("/etc/x/keys/t.key")
    assert settings.keys.public_key == Path("/etc/x/keys/t.pub")
    data["keys"] = {"private_kee": "k"}
    with pytest.raises(SettingsError, match="did you mean 'private_key'"):
        parse_config(to_toml(data))


@pytest.mark.fast
def test_config_check_cautions_a_key_outside_the_units_state_directory() -> None:
    """The service deletes table.key.old after a rotation: only inside ReadWritePaths."""
    data = valid()
    assert not [c for c in cautions(parse_config(to_toml(data))) if "keys." in c]
    data["keys"] = {"private_key": "/etc/tablectl/table.key"}
    (caution,) = [c for c in cautions(parse_config(to_toml(data))) if "keys." in c]
    assert caution.startswith("keys.private_key = /etc/tablectl/table.key is outside")


@pytest.mark.fast
def test_keys_init_leaves_a_folder_that_is_there_as_it_is(tmp_path: Path) -> None:
    """A key configured in a shared folder (/etc/tablectl, say): the folder keeps its mode;
    the key itself is 0600."""
    shared = tmp_path / "etc"
    shared.mkdir(mode=0o750)
    shared.chmod(0o750)
    assert main(["keys", "init", "--private-key", str(shared / "table.key")]) == 0
    assert stat.S_IMODE(shared.stat().st_mode) == 0o750
    assert stat.S_IMODE((shared / "table.key").stat().st_mode) == 0o600
