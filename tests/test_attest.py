"""Which software runs (13:69E-1.28B(d)): controller/history/attest.py's manifest, digest and
keyed digest, on a copy of the product in a temporary tree, each checked against what the test
computes itself with hashlib and hmac."""

from __future__ import annotations

import hashlib
import hmac
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from controller.history import attest
from controller.history.recall import format_hand, hands
from controller.journal import schema
from controller.journal.record import GENESIS, make_record, parse_line

SEED = bytes(range(16))


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    """A small product tree (two packages, a cache beside) and a table.toml."""
    root = tmp_path / "site"
    for name, text in {
        "controller/__init__.py": "",
        "controller/table/loop.py": "LOOP = 1\n",
        "controller/floor/web/static/floor.css": "body {}\n",
        "drivers/shoe.py": "SHOE = 1\n",
    }.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "T1"\n\n[rules]\nshort_all_in = "half-bet"\n')
    return root, config


def _files(root: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in ("controller", "drivers"):
        found.update(attest.tree_files(root / package, root))
    return found


def _digest(root: Path, config: Path) -> str:
    return attest.manifest(_files(root), attest.config_files(config), "0.1.0").digest


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.fast
def test_the_manifest_names_every_product_file_and_the_config_by_their_own_sha256(
    tmp_path: Path,
) -> None:
    """13:69E-1.28B(d): one line a file, sorted by path, the product's relative, the
    configuration's absolute; the digest is SHA-256 of the lines as sha256sum prints them;
    what the interpreter writes at run time (__pycache__, .pyc) is not in it."""
    root, config = _tree(tmp_path)
    (root / "controller/__pycache__").mkdir()
    (root / "controller/__pycache__/loop.cpython-311.pyc").write_bytes(b"\x00")
    (root / "drivers/stray.pyc").write_bytes(b"\x00")
    found = attest.manifest(_files(root), attest.config_files(config), "0.1.0")
    names = sorted(["controller/__init__.py", "controller/table/loop.py", "drivers/shoe.py"])
    names = sorted([*names, "controller/floor/web/static/floor.css"])
    expected = [f"{_sha(root / name)}  {name}" for name in names]
    expected.append(f"{_sha(config)}  {config.resolve()}")
    assert found.lines == expected
    text = "".join(line + "\n" for line in expected)
    assert found.digest == hashlib.sha256(text.encode()).hexdigest()
    assert found.count == 5


@pytest.mark.fast
@pytest.mark.parametrize(
    "change",
    ["a product file", "a file added", "a file removed", "the config", "the house rules"],
)
def test_the_digest_changes_with_any_product_file_the_config_or_its_house_rules(
    tmp_path: Path, change: str
) -> None:
    """13:69E-1.28B(d): a digest names one set of files exactly."""
    root, config = _tree(tmp_path)
    before = _digest(root, config)
    assert _digest(root, config) == before  # the same files: the same digest
    if change == "a product file":
        (root / "controller/table/loop.py").write_text("LOOP = 2\n")
    elif change == "a file added":
        (root / "drivers/extra.py").write_text("")
    elif change == "a file removed":
        (root / "controller/floor/web/static/floor.css").unlink()
    elif change == "the config":
        config.write_text(config.read_text().replace('"T1"', '"T2"'))
    else:  # table.toml's [rules]: the house rules in force (rules-interpretation.md, House rules)
        config.write_text(config.read_text().replace("half-bet", "full-bet"))
    assert _digest(root, config) != before


@pytest.mark.fast
def test_the_keyed_digest_is_the_seeds_hmac_of_every_file_and_differs_per_seed(
    tmp_path: Path,
) -> None:
    """13:69E-1.28B(d), a GAT's challenge: HMAC-SHA256 by the seed of each file's bytes, then of
    those lines; computed here independently; another seed, another answer."""
    root, config = _tree(tmp_path)
    files, configs = _files(root), attest.config_files(config)
    answer = attest.keyed_digest(SEED, files, configs)

    def keyed(path: Path) -> str:
        return hmac.new(SEED, path.read_bytes(), "sha256").hexdigest()

    lines = [f"{keyed(files[name])}  {name}" for name in sorted(files)]
    lines.append(f"{keyed(config)}  {config.resolve()}")
    text = "".join(line + "\n" for line in lines)
    assert answer == hmac.new(SEED, text.encode(), "sha256").hexdigest()
    assert attest.keyed_digest(bytes(reversed(SEED)), files, configs) != answer
    assert answer != attest.manifest(files, configs, "0.1.0").digest
    (root / "drivers/shoe.py").write_text("SHOE = 2\n")
    assert attest.keyed_digest(SEED, files, configs) != answer


@pytest.mark.fast
@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "expected hex digits"),
        ("zz" * 16, "expected hex digits"),
        ("0" * 31, "expected hex digits"),
        ("00" * 15, "15 bytes, expected at least 16"),
    ],
)
def test_a_seed_not_hex_or_shorter_than_16_bytes_is_refused(text: str, said: str) -> None:
    with pytest.raises(attest.AttestError, match=said):
        attest.parse_seed(text)


@pytest.mark.fast
def test_a_seed_of_16_bytes_or_more_is_its_bytes() -> None:
    assert attest.parse_seed(SEED.hex()) == SEED
    assert attest.parse_seed(SEED.hex().upper() * 2) == SEED * 2


@pytest.mark.fast
def test_the_installed_product_is_found_from_its_packages_locations() -> None:
    """Every package's own folder, not this checkout's: the paths are relative to the folder
    the packages sit in, and every module of theirs is there."""
    files = attest.package_files()
    assert "controller/history/attest.py" in files
    assert "drivers/tablectl/shoe.py" in files
    assert "simulator/table.py" in files
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in files)
    assert files["controller/history/attest.py"].samefile(attest.__file__)


@pytest.mark.fast
def test_an_unreadable_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(attest.AttestError, match=r"missing\.toml: expected a readable file"):
        attest.manifest({}, [tmp_path / "missing.toml"], "0.1.0")


def copy_product(tmp_path: Path) -> Path:
    """The installed packages copied into a tree of their own (a subprocess given it first on
    its path runs that copy)."""
    root = tmp_path / "site"
    for name in attest.PACKAGES:
        source = attest.package_files([name])[f"{name}/__init__.py"].parent
        shutil.copytree(source, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.mark.fast
def test_recall_names_the_software_each_hand_was_dealt_under() -> None:
    """A hand recalled names the digest of the last software record
    before it: the software that dealt it; a journal without one names none."""
    fixture = Path(__file__).parent / "fixtures" / "journal-before-schema" / "mambo"
    lines = (fixture / "journal-000001.jsonl").read_bytes().splitlines()
    records = [parse_line(line) for line in lines]
    assert all(hand.software is None for hand in hands(records))
    assert "software:" not in format_hand(hands(records)[0])
    ran = schema.SoftwareData("0.1.0", {"controller/history/attest.py": "c" * 64}, {}, "e" * 64)
    kind, data = schema.record(ran)
    first = make_record(1, datetime(2026, 12, 1, tzinfo=UTC), kind, data, GENESIS)
    recalled = hands([first, *records])
    assert [hand.software for hand in recalled] == [ran] * len(recalled)
    assert f"\n  software: {'e' * 64} (tablectl 0.1.0)\n" in format_hand(recalled[0])
