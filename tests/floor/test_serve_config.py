"""controller/floor/floortoml.py: floor.toml read and checked, every problem named by its key."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from psycopg.conninfo import conninfo_to_dict

from controller.floor.floortoml import FloorConfigError, load, parse
from controller.poker.engine.tablesetup import ConfigError

pytestmark = pytest.mark.fast

EXAMPLE = Path(__file__).parent.parent.parent / "docs" / "examples" / "floor.toml"


def minimal() -> dict[str, object]:
    return {
        "nats": {"servers": ["nats://127.0.0.1:4222"], "user": "floor", "password_file": "n"},
        "postgres": {"dbname": "tablectl", "password_file": "p"},
    }


def problems(data: dict[str, object]) -> list[str]:
    with pytest.raises(FloorConfigError) as raised:
        parse(data, Path("/etc/tablectl/floor"), "floor.toml")
    return [problem.key for problem in raised.value.problems]


def test_the_example_floor_toml_reads_as_the_docs_say() -> None:
    config = load(EXAMPLE)
    assert config.nats.user == "floor"
    assert config.nats.tls_ca == EXAMPLE.parent / "ca.pem"
    assert len(config.nats.servers) == 3
    writer = conninfo_to_dict(config.writer.conninfo)
    reader = conninfo_to_dict(config.reader.conninfo)
    assert (writer["user"], reader["user"]) == ("tablectl_floor", "tablectl_reader")
    assert writer["dbname"] == reader["dbname"] == "tablectl"
    assert (config.batch, config.consumer) == (500, "tablectl-floor")
    assert config.nats.replicas == 3  # the production layout's cluster (docs/floor.md)


def test_defaults_the_writer_and_reader_roles_and_the_serving_settings() -> None:
    config = parse(minimal(), Path("/etc/tablectl/floor"), "floor.toml")
    assert conninfo_to_dict(config.writer.conninfo)["user"] == "tablectl_floor"
    assert conninfo_to_dict(config.reader.conninfo)["user"] == "tablectl_reader"
    assert config.writer.password_file == Path("/etc/tablectl/floor/p")
    assert config.reader.password_file is None
    assert config.batch == 500
    assert config.nats.replicas == 1


@pytest.mark.parametrize("replicas", [0, 6, 2.5, "3", True])
def test_the_streams_replicas_are_a_whole_number_1_to_5(replicas: object) -> None:
    data = minimal()
    data["nats"] = {**data["nats"], "replicas": replicas}  # type: ignore[dict-item]
    with pytest.raises(FloorConfigError) as raised:
        parse(data, Path("/etc/tablectl/floor"), "floor.toml")
    [problem] = raised.value.problems
    assert problem.key == "nats.replicas"
    assert str(problem).endswith(
        "expected the stream's copies, one per NATS node: a whole number, 1 to 5"
    )


def test_the_streams_replicas_are_read() -> None:
    data = minimal()
    data["nats"] = {**data["nats"], "replicas": 3}  # type: ignore[dict-item]
    assert parse(data, Path("/etc/tablectl/floor"), "floor.toml").nats.replicas == 3


def test_every_problem_is_named_by_its_key_at_once() -> None:
    data = minimal()
    data["nats"] = {"servers": ["http://x:1"], "password_file": "n"}
    data["serve"] = {"batch": 0, "consumer": "has.dot"}
    data["postgres"] = {"dbname": "tablectl", "prot": 5432}
    assert problems(data) == [
        "nats.servers",
        "nats.user",
        "postgres.prot",
        "serve.batch",
        "serve.consumer",
    ]


def test_tls_servers_without_a_ca_are_refused_at_tls_ca() -> None:
    data = minimal()
    data["nats"] = {"servers": ["tls://10.0.0.5:4222"], "user": "floor", "password_file": "n"}
    assert problems(data) == ["nats.tls_ca"]


def test_a_dsn_and_its_parts_together_are_refused() -> None:
    data = minimal()
    data["postgres"] = {"dsn": "host=db dbname=tablectl", "dbname": "other"}
    assert problems(data) == ["postgres.dbname"]


def test_a_file_that_is_not_toml_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "floor.toml"
    path.write_text("[nats\n")
    with pytest.raises(ConfigError, match="not TOML"):
        load(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load(tmp_path / "missing.toml")


def test_the_example_names_only_keys_the_reader_knows() -> None:
    data = tomllib.loads(EXAMPLE.read_text())
    assert set(data) == {"nats", "postgres", "reader", "serve", "web"}


@pytest.mark.parametrize("walk_every", [0, 9, 604_801, "3600", True])
def test_the_chain_walks_interval_is_10_s_to_a_week_by_its_key(walk_every: object) -> None:
    data = minimal() | {"serve": {"walk_every": walk_every}}
    with pytest.raises(FloorConfigError) as raised:
        parse(data, Path("/etc/tablectl/floor"), "floor.toml")
    assert [p.key for p in raised.value.problems] == ["serve.walk_every"]
    assert "expected a number of seconds, 10 to 604800" in str(raised.value)


def test_the_chain_walks_interval_is_an_hour_unless_set() -> None:
    assert parse(minimal(), Path("/etc/tablectl/floor"), "floor.toml").walk_every == 3600
    data = minimal() | {"serve": {"walk_every": 60}}
    assert parse(data, Path("/etc/tablectl/floor"), "floor.toml").walk_every == 60
    assert load(EXAMPLE).walk_every == 3600
