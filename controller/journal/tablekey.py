"""The table's Ed25519 key at the controller's start and at every checkpoint
(docs/journal.md, Signed checkpoints; docs/deploy.md, The table's key).

At every start of a table that has a key (``[keys] private_key``) the controller journals a
``table_key`` record; a key put in place by ``tablectl keys rotate`` (which keeps the replaced
key as ``table.key.old``) is journaled with the old key's signature over the hand-over, and
the old key is deleted once that record is on disk. From then on every checkpoint record
carries the key's signature over its own seq and prev (``CheckpointSigner``, the journal
writer's ``seal``): the core never holds the key, and a replay ignores the signature.

The start refuses a key the journal does not lead to: a journal signed by key A continues only
under A, or under a key A handed over to. A table whose journal is signed and whose key file
is gone does not start unsigned.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from controller.config.settings import KeySettings
from controller.journal import Record, schema, signing
from controller.journal import tablerecords as rec

TABLE_KEY: Final = "table_key"


class TableKeyError(Exception):
    """The table's key cannot be used: the message names the file and what to do."""


@dataclass(frozen=True, slots=True)
class TableKey:
    """A private key read from its file, with its public half and id."""

    private: Ed25519PrivateKey
    public_key: str
    key_id: str
    path: Path

    @classmethod
    def of(cls, private: Ed25519PrivateKey, path: Path) -> TableKey:
        public = signing.public_hex(private)
        return cls(private, public, signing.key_id(public), path)


def read_key(path: Path) -> TableKey | None:
    """The key in ``path``; None when there is no such file; TableKeyError when it cannot be
    read or is not an Ed25519 private key in PEM PKCS8."""
    try:
        pem = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise TableKeyError(
            f"{path}: the table's private key cannot be read ({error.strerror or error}); "
            "it must be readable by the user tablectl (docs/deploy.md, The table's key)"
        ) from None
    try:
        return TableKey.of(signing.private_key_from_pem(pem, source=str(path)), path)
    except signing.SigningError as error:
        raise TableKeyError(str(error)) from None


@dataclass
class JournaledKey:
    """Which key the journal's end is signed by, as a start reads the records from the last
    checkpoint on: the last checkpoint's signer, or a ``table_key`` journaled after it."""

    key_id: str | None = None

    def __call__(self, record: Record) -> None:
        if record.kind not in (TABLE_KEY, rec.CHECKPOINT):
            return
        data = schema.decode(record)  # a SchemaError names the record and the field
        if isinstance(data, schema.TableKeyData):
            self.key_id = data.key_id
        elif isinstance(data, schema.CheckpointData):
            # The tail's first record: its signer is the key in force there.
            self.key_id = None if data.signature is None else data.signature.key_id


@dataclass(frozen=True, slots=True)
class KeyStart:
    """What a start journals for the key, and the old key file it may then delete."""

    record: schema.TableKeyData
    #: ``table.key.old``, deleted once ``record`` is on disk (None: nothing to delete).
    retire: Path | None = None


def key_start(journaled: str | None, key: TableKey, old: TableKey | None) -> KeyStart:
    """The ``table_key`` record a start journals for ``key``, the journal's end being signed by
    ``journaled`` (None: not signed), ``old`` the key ``keys rotate`` replaced, if kept.

    TableKeyError when the journal does not lead to ``key``: signed by another key, with no
    kept old key of that id to hand over.
    """
    plain = schema.TableKeyData(key.public_key, key.key_id)
    retire = None if old is None else old.path
    if journaled is None or journaled == key.key_id:
        # An unsigned journal takes any key; a rotation already journaled (the start stopped
        # before deleting the old key) is not journaled twice.
        return KeyStart(plain, retire)
    if old is not None and journaled == old.key_id:
        message = signing.rotation_message(old.key_id, key.public_key)
        return KeyStart(
            schema.TableKeyData(
                key.public_key,
                key.key_id,
                previous=old.key_id,
                rotation_signature=signing.sign(old.private, message),
            ),
            old.path,
        )
    kept = "" if old is None else f" and {old.path} holds key {old.key_id}"
    raise TableKeyError(
        f"the journal is signed by key {journaled}, but {key.path} holds key {key.key_id}{kept}: "
        "a journal continues only under its key or one it handed over to; put a new key in "
        "force with `tablectl keys rotate`, which keeps the old one to sign the hand-over "
        "(docs/deploy.md, The table's key)"
    )


def unsigned_start(journaled: str | None, path: Path) -> None:
    """A start without a key: refused (TableKeyError) when the journal is signed."""
    if journaled is not None:
        raise TableKeyError(
            f"the journal is signed by key {journaled}, but there is no private key at {path}: "
            "its checkpoints would go unsigned; put the key back (or restore it from the "
            "install's backup), see docs/deploy.md, The table's key"
        )


def retire_old_key(path: Path) -> None:
    """Delete the replaced key once its hand-over is journaled: it must sign nothing more."""
    path.unlink(missing_ok=True)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


@dataclass(frozen=True, slots=True)
class KeyFiles:
    """The table's key files as a start finds them (``[keys] private_key``)."""

    path: Path
    key: TableKey | None
    #: ``table.key.old``: the key ``tablectl keys rotate`` replaced, until the hand-over is
    #: journaled.
    old: TableKey | None = None

    @classmethod
    def read(cls, settings: KeySettings) -> KeyFiles:
        """Both files; TableKeyError for one that is there but cannot be used."""
        return cls(
            settings.private_key,
            read_key(settings.private_key),
            read_key(settings.old_private_key),
        )


def plan(files: KeyFiles, journaled: str | None) -> KeyStart | None:
    """What the start journals for the key (None: no key, the table runs unsigned), or a
    TableKeyError when the journal ``journaled`` signs its end with does not lead to it."""
    if files.key is None:
        unsigned_start(journaled, files.path)
        return None
    return key_start(journaled, files.key, files.old)


@dataclass(frozen=True, slots=True)
class CheckpointSigner:
    """The journal writer's ``seal`` for a checkpoint: the key's signature over the record's own
    seq and prev (``signing.checkpoint_message``)."""

    key: TableKey

    def __call__(self, seq: int, prev: str) -> Mapping[str, object]:
        signature = signing.sign_checkpoint(self.key.private, seq, prev)
        return {"signature": {"key_id": self.key.key_id, "signature": signature}}
