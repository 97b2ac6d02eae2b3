"""Which software a table runs (N.J.A.C. 13:69E-1.28B(d)): the manifest of every file
of the installed product and of the configuration in force, its digest, and the keyed digest a
Game Authentication Terminal's challenge asks for. The ``software`` record a controller journals
at every start and ``tablectl attest`` are both made here, so the two cannot differ.

Pure but for reading the files it is given: no clock, no thread, no log.

What is in the manifest, and why (docs/deploy.md, Which software runs):

- every file of the installed packages ``controller``, ``drivers`` and ``simulator``, found
  from the packages' own locations (an editable install's source tree and a wheel's
  site-packages alike), named by its path from the folder the packages sit in, "/" joined.
  ``simulator`` is in: it is installed with the product, and ``tablectl demo`` runs from it;
- not ``__pycache__`` folders nor ``*.pyc`` files: the interpreter writes them at run time
  (their bytes hold the source's time stamp), so they differ between two installs of the same
  release; they are made from the sources, which are in;
- the configuration file (table.toml), absolute path: the house rules in force are its
  ``[rules]`` and its stakes, and the games' rules are the ``controller`` package's own
  (``controller/games``), so both are covered;
- not the deck enrollment files the configuration names: they are the table's equipment (a
  worn deck is enrolled anew, ``tablectl enroll``), not its software or its rules, and the
  journal names the deck in play at every hand.

The manifest is one line a file, ``<sha256 hex>  <path>`` (as ``sha256sum`` prints), sorted by
path, the product's files (relative paths) before the configuration's (absolute ones); the
digest is SHA-256 of its UTF-8 text, every line ending in a newline.

The keyed digest answers a challenge: HMAC-SHA256, keyed by the inspector's seed, of every
file's bytes (each line ``<hmac hex>  <path>``), then HMAC-SHA256 by the same seed of that keyed
manifest. Each file is read again under the seed, so a table cannot answer from a list of
digests kept aside: it must hold the files themselves.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import string
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Final, Protocol

#: The installed product's packages.
PACKAGES: Final = ("controller", "drivers", "simulator")
#: What the interpreter makes at run time (not the product's files: see the module's doc).
SKIPPED_DIRS: Final = frozenset({"__pycache__"})
SKIPPED_SUFFIXES: Final = (".pyc",)
#: The least seed a challenge may use: 16 bytes (32 hex digits), as HMAC-SHA256 wants a key
#: of some strength, and a short one is guessed ahead.
SEED_BYTES: Final = 16
_CHUNK: Final = 1 << 16


class _Digest(Protocol):
    """A hash being fed (hashlib's, or hmac's)."""

    def update(self, data: bytes, /) -> None: ...
    def hexdigest(self) -> str: ...


class AttestError(Exception):
    """A file that cannot be read, a package not installed, or a seed not usable: the message
    names it and what was expected."""


@dataclass(frozen=True, slots=True)
class Manifest:
    """The files and their SHA-256s: the product's by relative path, the configuration's by
    absolute path."""

    version: str
    files: Mapping[str, str]
    config: Mapping[str, str]

    @property
    def lines(self) -> list[str]:
        """``<sha256>  <path>`` a file, the product's sorted by path, then the configuration's."""
        return manifest_lines(self.files, self.config)

    @property
    def text(self) -> str:
        return "".join(f"{line}\n" for line in self.lines)

    @property
    def digest(self) -> str:
        """SHA-256 hex of the manifest's text: the one number an inspector compares."""
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def count(self) -> int:
        return len(self.files) + len(self.config)


def manifest_lines(files: Mapping[str, str], config: Mapping[str, str]) -> list[str]:
    """The manifest's lines of these digests (by path, product files first)."""
    return [f"{files[path]}  {path}" for path in sorted(files)] + [
        f"{config[path]}  {path}" for path in sorted(config)
    ]


# --- which files ------------------------------------------------------------------------------


def package_files(packages: Iterable[str] = PACKAGES) -> dict[str, Path]:
    """Every file of the installed ``packages``, by its path from the folder they sit in."""
    found: dict[str, Path] = {}
    for name in packages:
        package = package_folder(name)
        found.update(tree_files(package, package.parent))
    return found


def package_folder(name: str) -> Path:
    """The folder of the installed package ``name``: the one with its ``__init__.py``, as the
    import system's finders locate it (a wheel's site-packages, an editable install's tree). A
    folder of the same name without one elsewhere on the path (a tests/drivers beside) is a
    namespace portion, not the product: passed over."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec = None if find is None else find(name, None)
        if spec is not None and spec.origin and spec.origin.endswith("__init__.py"):
            return Path(spec.origin).parent
    raise AttestError(f"package {name!r}: expected it installed (pip install tablectl)")


def tree_files(folder: Path, root: Path) -> dict[str, Path]:
    """Every file under ``folder`` by its "/"-joined path from ``root``, without what the
    interpreter writes at run time."""
    found: dict[str, Path] = {}
    for current, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in names:
            if name.endswith(SKIPPED_SUFFIXES):
                continue
            path = Path(current, name)
            found[path.relative_to(root).as_posix()] = path
    return found


def config_files(source: Path) -> list[Path]:
    """The configuration in force: table.toml itself (its [rules] are the house rules; the
    games are the controller package's), by absolute path."""
    return [source.resolve()]


def installed_version() -> str:
    """tablectl's version, as the installed distribution names it."""
    try:
        return metadata.version("tablectl")
    except metadata.PackageNotFoundError:
        raise AttestError(
            "tablectl is not installed: expected its distribution's metadata"
        ) from None


# --- digests -------------------------------------------------------------------------------


def file_sha256(path: Path) -> str:
    return _read(path, hashlib.sha256)


def _read(path: Path, new: Callable[[], _Digest]) -> str:
    digest = new()
    try:
        with path.open("rb") as stream:
            while chunk := stream.read(_CHUNK):
                digest.update(chunk)
    except OSError as error:
        raise AttestError(f"{path}: expected a readable file: {error.strerror or error}") from None
    return digest.hexdigest()


def manifest(files: Mapping[str, Path], config: Iterable[Path], version: str) -> Manifest:
    """The manifest of the product's ``files`` and the ``config`` files."""
    return Manifest(
        version,
        {name: file_sha256(path) for name, path in files.items()},
        {str(path): file_sha256(path) for path in config},
    )


def installed(config: Path | None) -> Manifest:
    """The manifest of this installed tablectl, with ``config`` (table.toml) if given."""
    return manifest(
        package_files(), [] if config is None else config_files(config), installed_version()
    )


def keyed_digest(seed: bytes, files: Mapping[str, Path], config: Iterable[Path]) -> str:
    """The answer to a challenge with ``seed``: HMAC-SHA256 by the seed of the keyed manifest,
    each line the HMAC-SHA256 by the seed of a file's bytes (see the module's doc)."""

    def keyed() -> _Digest:
        return hmac.new(seed, digestmod=hashlib.sha256)

    lines = manifest_lines(
        {name: _read(path, keyed) for name, path in files.items()},
        {str(path): _read(path, keyed) for path in config},
    )
    text = "".join(f"{line}\n" for line in lines)
    return hmac.new(seed, text.encode(), hashlib.sha256).hexdigest()


def parse_seed(text: str) -> bytes:
    """The challenge's seed: hex digits, at least ``SEED_BYTES`` bytes; AttestError otherwise."""
    value = text.strip()
    if not value or any(c not in string.hexdigits for c in value) or len(value) % 2:
        raise AttestError(
            f"seed {text!r}: expected hex digits (an even number of 0-9 and a-f), "
            f"at least {SEED_BYTES} bytes ({2 * SEED_BYTES} digits)"
        )
    seed = bytes.fromhex(value)
    if len(seed) < SEED_BYTES:
        raise AttestError(
            f"seed {text!r}: {len(seed)} bytes, expected at least {SEED_BYTES} "
            f"({2 * SEED_BYTES} hex digits)"
        )
    return seed
