"""The table's key files on disk: made by ``tablectl keys init``, replaced by ``tablectl keys
rotate`` (docs/deploy.md, The table's key).

``table.key`` holds the Ed25519 private key (PEM PKCS8, mode 0600) in a folder of mode 0700,
both owned by the user ``tablectl`` when made by root and that user exists: only the service
reads it. ``table.pub`` beside it holds the public key as 64 hex digits and a newline, for the
floor's registry. A rotation keeps the replaced key as ``table.key.old`` until the controller
has journaled the hand-over it signs (controller/journal/tablekey.py), then the controller deletes
it. Every file is written whole under a temporary name and fsynced before it takes its name.
"""

from __future__ import annotations

import os
import pwd
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from controller.config.settings import KeySettings
from controller.journal import signing
from controller.journal.tablekey import TableKey, TableKeyError, read_key

#: The service's user (docs/deploy.md, step 2): the only reader of the private key.
SERVICE_USER: Final = "tablectl"


class KeyFileError(TableKeyError):
    """A key file cannot be made: exists already, or the folder cannot be written."""


@dataclass(frozen=True, slots=True)
class Made:
    """A key just written, and the one it replaced (a rotation)."""

    key: TableKey
    public_file: Path
    replaced: TableKey | None = None
    #: Who the files were given to (None: left to the user who ran the command).
    owner: str | None = None


def init(settings: KeySettings) -> Made:
    """Make the table's first key; KeyFileError if a key is there already."""
    path = settings.private_key
    if path.exists():
        raise KeyFileError(
            f"{path} exists already: the table has a key (tablectl keys show); a new one is "
            "made by `tablectl keys rotate`, which journals the hand-over"
        )
    owner = _owner()
    _folder(path.parent, owner)
    key = TableKey.of(Ed25519PrivateKey.generate(), path)
    _write(path.parent, path, signing.private_key_pem(key.private), 0o600, owner, replace=False)
    _write_public(settings, key, owner)
    return Made(key, settings.public_key, owner=_name(owner))


def rotate(settings: KeySettings) -> Made:
    """Put a new key in place, keeping the old one as ``table.key.old`` for the controller to
    sign the hand-over with at its next start; KeyFileError if there is no key to replace or a
    rotation is not journaled yet."""
    path, old_path = settings.private_key, settings.old_private_key
    if old_path.exists():
        raise KeyFileError(
            f"{old_path} exists: the last rotation is not journaled yet; restart the table "
            "(systemctl restart tablectl) so that it journals the hand-over, then rotate again"
        )
    old = read_key(path)
    if old is None:
        raise KeyFileError(
            f"{path}: no key to rotate; make the table's first with tablectl keys init"
        )
    owner = _owner()
    key = TableKey.of(Ed25519PrivateKey.generate(), path)
    staged = path.with_name(path.name + ".new")
    _write(path.parent, staged, signing.private_key_pem(key.private), 0o600, owner, replace=True)
    # The old key takes its second name before the new one takes its place: a crash between
    # leaves the old key under both (the next start journals it unchanged and drops the copy).
    os.link(path, old_path)
    os.replace(staged, path)
    _sync(path.parent)
    _write_public(settings, key, owner)
    return Made(key, settings.public_key, replaced=old, owner=_name(owner))


def _write_public(settings: KeySettings, key: TableKey, owner: tuple[int, int] | None) -> None:
    public = settings.public_key
    _write(public.parent, public, f"{key.public_key}\n".encode(), 0o644, owner, replace=True)


def _folder(folder: Path, owner: tuple[int, int] | None) -> None:
    """The key's folder, made 0700 (and the service user's) if it is not there; a folder that
    is there is left as it is (it may be another's, /etc/tablectl say): the key is 0600."""
    if folder.is_dir():
        return
    try:
        folder.mkdir(mode=0o700, parents=True)
        os.chmod(folder, 0o700)  # the umask may have taken bits off
        if owner is not None:
            os.chown(folder, *owner)
    except OSError as error:
        raise KeyFileError(
            f"{folder}: the key's folder cannot be made ({error.strerror or error}); run "
            "tablectl keys init as root at install (docs/deploy.md, The table's key)"
        ) from None


def _write(
    folder: Path,
    path: Path,
    content: bytes,
    mode: int,
    owner: tuple[int, int] | None,
    *,
    replace: bool,
) -> None:
    """``content`` under a temporary name, fsynced, its mode and owner set, then named
    ``path``: never a half-written key, and (``replace`` False) never over one."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            os.fchmod(descriptor, mode)  # the umask may have taken bits off
            if owner is not None:
                os.fchown(descriptor, *owner)
            view = memoryview(content)
            while view:
                view = view[os.write(descriptor, view) :]
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        if replace:
            os.replace(temporary, path)
        else:
            os.link(temporary, path)  # refuses an existing file, where a rename would not
            os.unlink(temporary)
        _sync(folder)
    except FileExistsError:
        temporary.unlink(missing_ok=True)
        raise KeyFileError(f"{path} exists already: refusing to overwrite a key") from None
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise KeyFileError(f"{path}: cannot be written ({error.strerror or error})") from None


def _sync(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _owner() -> tuple[int, int] | None:
    """The service user's uid and gid when run as root and the user exists; else None (the
    files stay the runner's: a bench, a test)."""
    if os.geteuid() != 0:
        return None
    try:
        user = pwd.getpwnam(SERVICE_USER)
    except KeyError:
        return None
    return user.pw_uid, user.pw_gid


def _name(owner: tuple[int, int] | None) -> str | None:
    return None if owner is None else SERVICE_USER
