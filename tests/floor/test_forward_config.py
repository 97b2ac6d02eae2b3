"""``[floor]`` of table.toml (controller/config/floorlink.py): each key read, each mistake reported
at its key as the other sections' are, the password file's mode and content checked. What each
key does against a real server is in test_forward.py and test_forward_tls.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from confighelp import load, problem_at, section, to_toml, valid

from controller.cli.commands.config import summary
from controller.config.floorlink import PasswordFileError, read_password
from controller.config.settings import FloorLinkSettings
from controller.config.tabletoml import SettingsError, load_config

pytestmark = pytest.mark.fast


def _with_floor(**keys: object) -> dict[str, object]:
    data = valid()
    floor = section(data, "floor")
    floor.update({"servers": ["nats://127.0.0.1:4222"], "user": "table-T1"})
    floor["password_file"] = "/etc/tablectl/floor.password"
    floor.update(keys)  # type: ignore[arg-type]
    return data  # type: ignore[return-value]


def test_an_absent_floor_section_forwards_nothing() -> None:
    assert load(valid()).floor is None


def test_the_section_read_whole() -> None:
    settings = load(
        _with_floor(
            servers=["tls://a.lan:4222", "tls://b.lan"],
            tls_ca="ca.pem",
            tls_cert="/etc/t.pem",
            tls_key="/etc/t.key",
            ack_timeout=12.5,
        )
    )
    assert settings.floor == FloorLinkSettings(
        ("tls://a.lan:4222", "tls://b.lan"),
        "table-T1",
        Path("/etc/tablectl/floor.password"),
        Path("ca.pem"),
        Path("/etc/t.pem"),
        Path("/etc/t.key"),
        12.5,
    )
    assert settings.floor.tls
    default = load(_with_floor()).floor
    assert default is not None
    assert default.ack_timeout == 5.0  # docs/deploy.md, [floor]


@pytest.mark.parametrize(
    ("keys", "key", "expected"),
    [
        ({"servers": None}, "floor.servers", "this key is required"),
        ({"servers": []}, "floor.servers", "a list of the floor's NATS servers"),
        ({"servers": "nats://a:4222"}, "floor.servers", "a list of the floor's NATS servers"),
        ({"servers": ["http://a:4222"]}, "floor.servers", "nats:// or tls:// URLs"),
        ({"servers": ["nats://u:p@a:4222"]}, "floor.servers", "no user or password in them"),
        ({"servers": ["nats://a:99999"]}, "floor.servers", "out of range"),
        ({"servers": ["nats://a", "tls://b"]}, "floor.servers", "all tls:// or all nats://"),
        ({"user": None}, "floor.user", "this key is required"),
        ({"user": "table T1"}, "floor.user", "without spaces"),
        ({"password_file": None}, "floor.password_file", "this key is required"),
        ({"tls_ca": "/ca.pem"}, "floor.tls_ca", "tls:// servers when a TLS file is given"),
        (
            {"servers": ["tls://a"], "tls_cert": "/t.pem"},
            "floor.tls_key",
            "tls_cert and tls_key together",
        ),
        ({"passwd_file": "/p"}, "floor.passwd_file", "did you mean 'password_file'?"),
        ({"ack_timeout": 0}, "floor.ack_timeout", "more than 0 and at most 300"),
        ({"ack_timeout": 301}, "floor.ack_timeout", "more than 0 and at most 300"),
        ({"ack_timeout": "5s"}, "floor.ack_timeout", "a number of seconds, more than 0"),
        ({"ack_timeout": True}, "floor.ack_timeout", "a number of seconds, more than 0"),
    ],
)
def test_each_mistake_is_reported_at_its_key(
    keys: dict[str, object], key: str, expected: str
) -> None:
    data = _with_floor(**keys)
    floor = data["floor"]
    assert isinstance(floor, dict)
    for name in [name for name, value in keys.items() if value is None]:
        del floor[name]
    problem = problem_at(data, key)  # type: ignore[arg-type]
    assert expected in problem.expected


def _password(tmp_path: Path, text: str, mode: int) -> Path:
    file = tmp_path / "floor.password"
    file.write_text(text, encoding="utf-8")
    os.chmod(file, mode)
    return file


@pytest.mark.parametrize("mode", [0o600, 0o640])
def test_the_password_is_the_files_one_line(tmp_path: Path, mode: int) -> None:
    assert read_password(_password(tmp_path, "s3cret\n", mode)) == "s3cret"


@pytest.mark.parametrize(
    ("text", "mode", "expected"),
    [
        ("s3cret\n", 0o644, "mode 0600 or 0640 (it is 0644"),
        ("s3cret\n", 0o660, "mode 0600 or 0640 (it is 0660"),
        ("\n", 0o600, "one line"),
        ("a\nb\n", 0o600, "one line"),
        (" s3cret\n", 0o600, "without spaces around it"),
    ],
)
def test_a_password_file_others_may_read_or_not_one_line_is_refused(
    tmp_path: Path, text: str, mode: int, expected: str
) -> None:
    with pytest.raises(PasswordFileError) as raised:
        read_password(_password(tmp_path, text, mode))
    assert expected in str(raised.value)
    assert str(tmp_path / "floor.password") in str(raised.value)


def test_config_check_with_files_reports_the_floors_files(tmp_path: Path) -> None:
    """``load_config(files=True)`` (tablectl config check --files) names each file's problem;
    without files, only the text is checked."""
    _password(tmp_path, "s3cret\n", 0o644)
    key = tmp_path / "t.key"
    key.write_text("key", encoding="utf-8")
    os.chmod(key, 0o644)
    data = _with_floor(
        servers=["tls://a.lan"],
        password_file="floor.password",
        tls_ca="missing-ca.pem",
        tls_cert="t.key",
        tls_key="t.key",
    )
    config = tmp_path / "table.toml"
    config.write_text(to_toml(data), encoding="utf-8")  # type: ignore[arg-type]
    assert load_config(config).floor is not None
    with pytest.raises(SettingsError) as raised:
        load_config(config, files=True)
    found = {problem.key: problem.expected for problem in raised.value.problems}
    assert "mode 0600 or 0640 (it is 0644" in found["floor.password_file"]
    assert found["floor.tls_ca"] == "expected a readable file: it does not exist"
    assert "mode 0600 or 0640" in found["floor.tls_key"]
    assert "floor.tls_cert" not in found


def test_config_check_shows_the_floor_line(tmp_path: Path) -> None:
    """``tablectl config check`` summarises [floor] beside the other sections."""
    config = tmp_path / "table.toml"
    data = _with_floor(servers=["tls://a.lan:4222", "tls://b.lan:4222"], tls_ca="/etc/ca.pem")
    config.write_text(to_toml(data), encoding="utf-8")  # type: ignore[arg-type]
    assert summary(load_config(config)).splitlines()[-1] == (
        "floor: tls://a.lan:4222, tls://b.lan:4222 as table-T1, TLS trusting /etc/ca.pem"
    )
    config.write_text(to_toml(valid()), encoding="utf-8")
    assert not summary(load_config(config)).splitlines()[-1].startswith("floor:")
