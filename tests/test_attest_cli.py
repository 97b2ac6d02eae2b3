"""``tablectl attest`` (13:69E-1.28B(d)) run as an inspector runs it, a subprocess of
the real CLI, on a copy of the installed product in a temporary tree (so a file can be changed
without touching the checkout); and the ``software`` record a controller journals first at
every start, the same digest."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import subprocess
import sys
from pathlib import Path

from test_attest import copy_product

from controller.config.tabletoml import load_config
from controller.history import attest
from controller.journal import JournalReader, schema
from controller.poker.engine import Stakes, TableSetup
from controller.table.service import build_controller
from simulator.table import Simulator
from simulator.tablefile import write_table_toml

#: A subprocess waits at most this long (it reads about 200 files).
PATIENCE = 60
SEED = "00112233445566778899aabbccddeeff"
THREE_SEATS = TableSetup(
    seats=(1, 2, 3), stakes=Stakes(small_bet=5, big_bet=10, ante=1, bring_in=2)
)


def _attest(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", "attest", *args],
        cwd=root.parent,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=PATIENCE,
        check=False,
    )


def _tablectl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args],
        capture_output=True,
        text=True,
        timeout=PATIENCE,
        check=False,
    )


def _config(tmp_path: Path) -> Path:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "T1"\n\n[rules]\nshort_all_in = "half-bet"\n')
    return config


def _expected(root: Path, config: Path) -> attest.Manifest:
    files: dict[str, Path] = {}
    for name in attest.PACKAGES:
        files.update(attest.tree_files(root / name, root))
    return attest.manifest(files, [config.resolve()], attest.installed_version())


def test_attest_prints_the_digest_of_the_copy_it_runs_and_it_follows_every_change(
    tmp_path: Path,
) -> None:
    """13:69E-1.28B(d): the digest is of the product that runs (the copy, found from its
    packages' own location), with the configuration; a changed product file or configuration
    changes it; --json and --list say the same."""
    root, config = copy_product(tmp_path), _config(tmp_path)
    shown = _attest(root, "--config", str(config), "--json", "--list")
    assert shown.returncode == 0, shown.stderr
    report = json.loads(shown.stdout)
    expected = _expected(root, config)
    assert report["digest"] == expected.digest
    assert report["manifest"] == expected.lines
    assert report["product_files"] == len(expected.files) > 100
    assert report["config_files"] == [str(config.resolve())]
    assert report["version"] == attest.installed_version()
    text = _attest(root, "--config", str(config))
    assert f"digest        {expected.digest}\n" in text.stdout
    with (root / "drivers" / "shoe.py").open("a", encoding="utf-8") as changed:
        changed.write("# one comment more\n")
    after_product = json.loads(_attest(root, "--config", str(config), "--json").stdout)
    assert after_product["digest"] != expected.digest
    config.write_text(config.read_text().replace("half-bet", "full-bet"))
    after_rules = json.loads(_attest(root, "--config", str(config), "--json").stdout)
    assert after_rules["digest"] not in (expected.digest, after_product["digest"])


def test_attest_with_a_seed_answers_the_challenge_with_the_seeds_hmac(tmp_path: Path) -> None:
    """A GAT's challenge (13:69E-1.28B(d)): the keyed digest, the seed echoed, equal to the
    HMAC-SHA256 computed here from the files themselves; another seed, another answer."""
    root, config = copy_product(tmp_path), _config(tmp_path)
    shown = _attest(root, "--config", str(config), "--seed", SEED)
    assert shown.returncode == 0, shown.stderr
    seed = bytes.fromhex(SEED)
    files = _expected(root, config).files

    def keyed(path: Path) -> str:
        return hmac.new(seed, path.read_bytes(), hashlib.sha256).hexdigest()

    lines = [f"{keyed(root / name)}  {name}" for name in sorted(files)]
    lines.append(f"{keyed(config)}  {config.resolve()}")
    answer = hmac.new(seed, "".join(f"{x}\n" for x in lines).encode(), hashlib.sha256)
    assert f"seed          {SEED}\n" in shown.stdout
    assert f"keyed digest  {answer.hexdigest()}\n" in shown.stdout
    other = _attest(root, "--config", str(config), "--seed", "ff" * 16)
    assert answer.hexdigest() not in other.stdout


def test_attest_refuses_a_bad_seed_or_config_with_the_usage_exit_code(tmp_path: Path) -> None:
    root, config = copy_product(tmp_path), _config(tmp_path)
    for seed, said in (("xyz", "expected hex digits"), ("00" * 8, "8 bytes, expected at least")):
        refused = _attest(root, "--config", str(config), "--seed", seed)
        assert refused.returncode == 2
        assert "argument --seed: seed" in refused.stderr
        assert said in refused.stderr
        assert "Traceback" not in refused.stderr
        assert refused.stdout == ""
    missing = _attest(root, "--config", str(tmp_path / "nope.toml"))
    assert missing.returncode == 2
    assert "nope.toml: expected a readable file" in missing.stderr


def test_every_start_journals_the_software_record_first_with_attests_digest(
    tmp_path: Path,
) -> None:
    """At every start, before the devices' records, the software record (docs/journal.md): the
    version, every product file's SHA-256, the configuration's, and the digest attest gives;
    a restart journals it again (its replay reads the first through the schema), and
    journal verify names the last one, the software in force."""
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as sim:
        path = write_table_toml(
            tmp_path,
            table_id="ATTEST-1",
            game="mambo",
            config=THREE_SEATS,
            shoe={"path": sim.address("shoe"), "serial": "SHOE0001"},
            panel={"path": sim.address("panel")},
            decks=sim.write_deck_files(tmp_path / "decks"),
        )
        settings = load_config(path, files=True)
        for _start in range(2):
            build_controller(settings).close()  # opened (the journal replayed), not run
    records = list(JournalReader(settings.journal.dir))
    starts = [i for i, record in enumerate(records) if record.kind == "software"]
    assert len(starts) == 2
    expected = attest.installed(path)
    for index in starts:
        software = schema.decode(records[index])
        assert isinstance(software, schema.SoftwareData)
        assert software.digest == expected.digest
        assert software.version == expected.version
        assert software.files == dict(expected.files)
        assert software.config == {
            str(path.resolve()): hashlib.sha256(path.read_bytes()).hexdigest()
        }
        assert records[index + 1].kind == "device"  # the devices' records follow it
    assert starts[0] == 0
    # journal verify names the software in force at the journal's end: the last start's.
    verified = _tablectl("journal", "verify", "--journal", str(settings.journal.dir), "--json")
    assert verified.returncode == 0, verified.stderr
    software = json.loads(verified.stdout)["software"]
    assert software == {
        "seq": records[starts[1]].seq,
        "digest": expected.digest,
        "version": expected.version,
    }
    text = _tablectl("journal", "verify", "--journal", str(settings.journal.dir)).stdout
    assert f"  software: {expected.digest} (tablectl {expected.version}), journaled at " in text
