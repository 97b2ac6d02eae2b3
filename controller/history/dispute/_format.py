"""The bundle's format (docs/journal.md, The dispute bundle): its files' names, its manifest, the
software that made it and the keys in force within its records."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

from controller.journal import Record, codec, schema, signing
from controller.journal.tablekey import TABLE_KEY

#: The bundle format's version (the manifest's ``version``); a newer one is refused by name.
#: Version 2 names the software that made the bundle (``made_by``); version 1 did not.
BUNDLE_VERSION: Final = 2
MANIFEST: Final = "manifest.json"
RECORDS: Final = "records.jsonl"
RECALL: Final = "recall.txt"
RECALL_JSON: Final = "recall.json"
PHH: Final = "hand.phh"
TERMS: Final = "terms.json"
SOFTWARE_FILE: Final = "software.json"
PUBLIC_KEY: Final = "table.pub"

Begins = Literal["checkpoint", "genesis"]
Ends = Literal["checkpoint", "journal_end"]


class DisputeError(Exception):
    """A bundle that cannot be made as asked: the message says what is missing and where."""


@dataclass(frozen=True, slots=True)
class BundleFile:
    name: str
    sha256: str


@dataclass(frozen=True, slots=True)
class BundleKey:
    """A key in force within the records: the first (``seq`` None: in force before them, or
    the first ``table_key`` of a journal bundled from its genesis) and each handed over to."""

    key_id: str
    public_key: str
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class MadeBy:
    """The tablectl that made a bundle, whose telling of the records its told files are: its
    version and the SHA-256 digest of its installed files (controller/history/attest.py, as
    ``tablectl attest`` reads them, without a configuration)."""

    version: str
    digest: str


@dataclass(frozen=True, slots=True)
class Manifest:
    """``manifest.json``: what the bundle is and every file of it with its SHA-256."""

    version: int
    table_id: str
    #: The journal's id: its first record's hash (the floor's ``journal_id``).
    journal: str
    hand: int
    #: Where it was made: ``table journal DIR`` or ``floor store``.
    made_from: str
    first_seq: int
    last_seq: int
    #: ``checkpoint``: the first record is a signed checkpoint; ``genesis``: record 1.
    begins: str
    #: ``checkpoint``: the last record is the signed checkpoint after the hand;
    #: ``journal_end``: no signed checkpoint follows the hand yet (it is in play, or the
    #: table stopped before its end): the records after the last signature are the chain's.
    ends: str
    hand_started_seq: int
    software_seq: int
    #: The keys in force within the records, in order (the first is table.pub's).
    keys: tuple[BundleKey, ...]
    #: The software that made the bundle (its told files); None in a version 1 bundle.
    made_by: MadeBy | None = None
    files: tuple[BundleFile, ...] = ()


_DECODE_MANIFEST: Final = codec.decoder(Manifest)
_ENCODE_MANIFEST: Final = codec.encoder(Manifest)


def manifest_text(manifest: Manifest) -> bytes:
    encoded = _ENCODE_MANIFEST(manifest)
    return (json.dumps(encoded, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def read_manifest(text: bytes) -> Manifest:
    """The manifest of ``text``; DisputeError saying what is wrong in it."""
    try:
        value = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DisputeError(f"{MANIFEST}: not JSON ({error})") from None
    version = value.get("version") if isinstance(value, dict) else None
    if isinstance(version, int) and version > BUNDLE_VERSION:
        raise DisputeError(
            f"{MANIFEST}: bundle version {version} is newer than this tablectl reads "
            f"(version {BUNDLE_VERSION}): check it with the tablectl that made it, or a newer one"
        )
    try:
        manifest: Manifest = _DECODE_MANIFEST(value)
    except codec.Misfit as error:
        raise DisputeError(f"{MANIFEST}{error.where()}: {error.reason}") from None
    return manifest


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def keys_in(records: Iterable[Record], first: str | None) -> list[BundleKey]:
    """The keys in force within the records: ``first`` (in force before them) and each new key a
    ``table_key`` record journals, in order."""
    keys = [] if first is None else [BundleKey(signing.key_id(first), first)]
    for record in records:
        if record.kind != TABLE_KEY:
            continue
        data = schema.decode(record)
        assert isinstance(data, schema.TableKeyData)
        if not keys or keys[-1].public_key != data.public_key:
            keys.append(BundleKey(data.key_id, data.public_key, record.seq))
    return keys
