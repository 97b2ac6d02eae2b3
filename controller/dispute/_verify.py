"""The dispute bundle (13:69E-1.31(b): when a patron disputes a hand, the device's game
history captured and kept; docs/journal.md, The dispute bundle): everything about one hand in
one folder that a machine which never saw the table can check.

A bundle holds the journal's records as their exact lines, from the table's signed checkpoint
before the hand's software record in force (so the start that dealt it, its ``software`` and
``table_key`` records, are among them) to the signed checkpoint after the hand (or to the
journal's end, said so, while none follows yet); what the records tell of the hand, made from
them by the table's own code (its recall as text and JSON, its PHH export, its terms, the
software record in force); the public key in force at the first record; and a manifest listing
every file with its SHA-256.

``derived`` makes the told files from the records, both when a bundle is made (from the table's
journal, controller/commands/dispute.py, or the floor's store, _floor_dispute.py) and when it is
checked (``check``): the bundled files must be those bytes. The recall JSON is ``tablectl recall
--json``'s own shape (``RecalledHand``, controller/app/recall.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from controller.app import codec, schema
from controller.app import records as rec
from controller.app.phh import ExportError, export_hand
from controller.app.recall import (
    SOFTWARE,
    HandRecord,
    RecalledHand,
    describe_stakes,
    format_hand,
    hands,
)
from controller.app.signatures import SignatureCheck
from controller.app.tablekey import TABLE_KEY
from controller.display.view import posted_rules
from controller.engine.events import HandStarted
from controller.games import GAMES
from controller.journal import GENESIS, Record, signing
from controller.journal.record import RecordError, parse_line
from controller.jsonreport import report_json

#: The bundle format's version (the manifest's ``version``); a newer one is refused by name.
BUNDLE_VERSION: Final = 1
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


# --- finding the records of a hand ----------------------------------------------------------


@dataclass
class Finder:
    """Fed each record of a journal in order (``verify``'s progress), finds the bounds of hand
    ``hand``'s bundle: the signed checkpoint before the software record in force when the hand
    began (genesis if none), and the first signed checkpoint after the hand's start."""

    hand: int
    root: str | None = None
    last_seq: int = 0
    hands_seen: list[int] = field(default_factory=list)
    hand_starts: list[int] = field(default_factory=list)
    #: The key in force (the last table_key's, hex).
    _key: str | None = None
    #: The last signed checkpoint: its seq and the key that signed it.
    _signed: tuple[int, str] | None = None
    #: At the last software record: its seq, and the signed checkpoint before it.
    _software: tuple[int, tuple[int, str] | None] | None = None
    begin: tuple[int, str] | None = None
    software_seq: int | None = None
    end: int | None = None

    def __call__(self, record: Record) -> None:
        self.last_seq = record.seq
        if record.seq == 1:
            self.root = record.hash
        if record.kind == TABLE_KEY:
            data = schema.decode(record)
            assert isinstance(data, schema.TableKeyData)
            self._key = data.public_key
        elif record.kind == SOFTWARE:
            self._software = (record.seq, self._signed)
        elif record.kind == rec.CHECKPOINT:
            self._checkpoint(record)
        elif record.kind == rec.HAND_STARTED:
            self._hand_started(record)

    def _checkpoint(self, record: Record) -> None:
        data = schema.decode(record)
        assert isinstance(data, schema.CheckpointData)
        if data.signature is None or self._key is None:
            return
        self._signed = (record.seq, self._key)
        if self.hand_starts and self.end is None:
            self.end = record.seq

    def _hand_started(self, record: Record) -> None:
        for event in schema.decode_events(record):
            if not isinstance(event, HandStarted):
                continue
            self.hands_seen.append(event.hand)
            if event.hand != self.hand:
                continue
            self.hand_starts.append(record.seq)
            if self._software is not None:
                self.software_seq, self.begin = self._software
            else:
                self.software_seq = None


@dataclass(frozen=True, slots=True)
class Bounds:
    """The records a bundle holds, as ``Finder`` found them."""

    first_seq: int
    last_seq: int
    begins: Begins
    ends: Ends
    #: The key in force at the first record (its public key hex); None from the genesis.
    key: str | None
    journal: str


def bounds(found: Finder, where: str) -> Bounds:
    """The bundle's records, or DisputeError naming what the journal at ``where`` lacks."""
    if not found.hand_starts:
        seen = found.hands_seen
        held = f"hands {seen[0]} to {seen[-1]}" if seen else "no hands"
        raise DisputeError(f"hand {found.hand} is not in {where} (it holds {held})")
    if len(found.hand_starts) > 1:
        starts = ", ".join(map(str, found.hand_starts))
        raise DisputeError(
            f"hand {found.hand} begins more than once in {where} (records {starts}): a "
            "dispute names one hand"
        )
    if found.software_seq is None:
        raise DisputeError(
            f"hand {found.hand} in {where}: no software record before it (a journal written "
            "before the software record): a dispute bundle must name the software that dealt it"
        )
    assert found.root is not None
    end = found.end if found.end is not None else found.last_seq
    ends: Ends = "checkpoint" if found.end is not None else "journal_end"
    if found.begin is None:
        return Bounds(1, end, "genesis", ends, None, found.root)
    return Bounds(found.begin[0], end, "checkpoint", ends, found.begin[1], found.root)


# --- what the records tell ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SoftwareFile:
    """``software.json``: the software record in force when the hand began, and its seq."""

    seq: int
    record: schema.SoftwareData


@dataclass(frozen=True, slots=True)
class TermsFile:
    """``terms.json``: the stakes and house rules the hand was dealt under, as journaled and as
    the table posts them (13:69F-8.3; rules-interpretation.md, House rules)."""

    hand: int
    game: str
    stakes: dict[str, object]
    rules: dict[str, object]
    posted_stakes: str
    posted_rules: str


def _told_hand(records: Sequence[Record], number: int) -> HandRecord:
    told = [hand for hand in hands(records) if hand.number == number]
    if len(told) != 1:
        raise DisputeError(f"the records tell hand {number} {len(told)} times; expected once")
    return told[0]


def _software_seq(records: Sequence[Record], before: int) -> int | None:
    seqs = [r.seq for r in records if r.kind == SOFTWARE and r.seq < before]
    return seqs[-1] if seqs else None


def derived(
    records: Sequence[Record], number: int, table_id: str, hand_started_seq: int
) -> dict[str, bytes]:
    """The files the records tell of hand ``number``: recall (text and JSON), terms, software
    and, for a settled hand, its PHH. DisputeError (or SchemaError) when they cannot tell it."""
    hand = _told_hand(records, number)
    if not hand.finished:
        # A face-down card's value is not to leave the table during the hand (announce.py
        # hidden_cards): the recall and the records would show it.
        raise DisputeError(
            f"hand {number} is in play: its face-down cards stay hidden until it is over; make "
            "the bundle once it has ended"
        )
    if hand.terms is None:
        raise DisputeError(
            f"hand {number}: its start journals no terms (written before hands recorded them)"
        )
    software = _software_seq(records, hand_started_seq)
    if software is None or hand.software is None:
        raise DisputeError(f"hand {number}: no software record before it in the records")
    spec = GAMES.get(hand.game)
    terms = TermsFile(
        number,
        hand.game,
        dict(hand.terms.fields()["stakes"]),  # type: ignore[arg-type]
        dict(hand.terms.fields()["rules"]),  # type: ignore[arg-type]
        describe_stakes(hand.terms.stakes),
        "" if spec is None else posted_rules(hand.terms.rules, spec),
    )
    files = {
        RECALL: (format_hand(hand) + "\n").encode(),
        RECALL_JSON: (report_json(RecalledHand.of(hand)) + "\n").encode(),
        TERMS: (report_json(terms) + "\n").encode(),
        SOFTWARE_FILE: (report_json(SoftwareFile(software, hand.software)) + "\n").encode(),
    }
    # Void or in play: PHH records settled hands only (docs/app.md, Hand histories).
    with contextlib.suppress(ExportError):
        files[PHH] = export_hand(hand, hand.terms.stakes, table_id).encode()
    return files


# --- making ---------------------------------------------------------------------------------


def make(
    lines: Sequence[bytes], *, hand: int, table_id: str, where: Bounds, made_from: str
) -> dict[str, bytes]:
    """Every file of the bundle of hand ``hand`` whose records are ``lines`` (exact, without
    their newlines), the manifest included."""
    records = [parse_line(line) for line in lines]
    started = next(
        r.seq
        for r in records
        if r.kind == rec.HAND_STARTED
        and any(isinstance(e, HandStarted) and e.hand == hand for e in schema.decode_events(r))
    )
    files = derived(records, hand, table_id, started)
    keys = keys_in(records, where.key)
    if not keys:
        raise DisputeError(f"hand {hand}: no key in force in the records: the journal is unsigned")
    files[RECORDS] = b"".join(line + b"\n" for line in lines)
    files[PUBLIC_KEY] = (keys[0].public_key + "\n").encode()
    software = _software_seq(records, started)
    assert software is not None  # derived refused it otherwise
    manifest = Manifest(
        BUNDLE_VERSION,
        table_id,
        where.journal,
        hand,
        made_from,
        where.first_seq,
        where.last_seq,
        where.begins,
        where.ends,
        started,
        software,
        tuple(keys),
        tuple(BundleFile(name, sha256(files[name])) for name in sorted(files)),
    )
    files[MANIFEST] = manifest_text(manifest)
    return files


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


def write(out: Path, files: dict[str, bytes]) -> None:
    """Write the bundle into ``out`` (made if absent; DisputeError if it holds anything)."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise DisputeError(
            f"--out {out}: expected a new or empty folder (a bundle is never written over another)"
        )
    out.mkdir(parents=True, exist_ok=True)
    for name in sorted(files):
        (out / name).write_bytes(files[name])


# --- checking -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Check:
    """One check of ``dispute verify``: what it covered and whether it held."""

    name: str
    ok: bool
    detail: str


@dataclass(frozen=True, slots=True)
class TrustedKey:
    """The key the signatures are checked against, and where it came from."""

    public_key: str
    #: ``bundle``: the bundle's own table.pub; ``file``: --public-key FILE.
    source: str


@dataclass
class Verdict:
    """What ``check`` found; ``verified`` only when every check held."""

    bundle: Path
    manifest: Manifest | None = None
    checks: list[Check] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    def add(self, name: str, ok: bool, detail: str) -> bool:
        self.checks.append(Check(name, ok, detail))
        return ok


KEY_STRENGTH: Final = {
    "bundle": "the bundle's own table.pub: it shows the bundle is whole and self-consistent, "
    "but proves nothing against whoever made it, who could have made that key too; check "
    "with --public-key FILE, the table's key as the floor registered it",
    "file": "the key given (--public-key): the records are the table's if that key is the "
    "table's, as the floor's registry holds it",
}


def check(bundle: Path, given_key: str | None = None) -> Verdict:
    """Check the bundle in ``bundle`` offline (docs/journal.md, The dispute bundle): the files'
    hashes, the chain, the signatures by ``given_key`` (hex; None: the bundle's table.pub), the
    told files made again from the records, the hand's terms and software in the records."""
    verdict = Verdict(bundle)
    try:
        manifest = read_manifest((bundle / MANIFEST).read_bytes())
    except OSError as error:
        verdict.add("manifest", False, f"{MANIFEST} cannot be read ({error.strerror})")
        return verdict
    except DisputeError as error:
        verdict.add("manifest", False, str(error))
        return verdict
    verdict.manifest = manifest
    verdict.add("manifest", True, f"bundle version {manifest.version}, hand {manifest.hand}")
    files = _files(verdict, bundle, manifest)
    if files is None:
        return verdict
    records = _chain(verdict, manifest, files[RECORDS])
    if records is None:
        return verdict
    _signatures(verdict, manifest, records, files, given_key)
    _told(verdict, manifest, records, files)
    return verdict


def _files(verdict: Verdict, bundle: Path, manifest: Manifest) -> dict[str, bytes] | None:
    listed = {f.name: f.sha256 for f in manifest.files}
    present = {p.name for p in bundle.iterdir()} - {MANIFEST}
    wrong = [f"{name} is missing" for name in sorted(set(listed) - present)]
    wrong += [f"{name} is not in the manifest" for name in sorted(present - set(listed))]
    read: dict[str, bytes] = {}
    for name in sorted(set(listed) & present):
        try:
            read[name] = (bundle / name).read_bytes()
        except OSError as error:
            wrong.append(f"{name} cannot be read ({error.strerror})")
            continue
        if sha256(read[name]) != listed[name]:
            wrong.append(
                f"{name}'s SHA-256 is {sha256(read[name])}, the manifest says {listed[name]}"
            )
    for needed in (RECORDS, PUBLIC_KEY, RECALL, RECALL_JSON, TERMS, SOFTWARE_FILE):
        if needed not in listed:
            wrong.append(f"the manifest lists no {needed}")
    if wrong:
        verdict.add("files", False, "; ".join(wrong))
        return None
    verdict.add("files", True, f"{len(listed)} files, each as the manifest's SHA-256")
    return read


def _chain(verdict: Verdict, manifest: Manifest, text: bytes) -> list[Record] | None:
    """The records of records.jsonl, or None once the check's failure is added."""
    try:
        records = _linked(manifest, text)
        _bounded(manifest, records)
    except DisputeError as error:
        verdict.add("chain", False, str(error))
        return None
    verdict.add(
        "chain",
        True,
        f"records {records[0].seq} to {records[-1].seq}, each linked to the one before",
    )
    return records


def _linked(manifest: Manifest, text: bytes) -> list[Record]:
    """Each line a good record (its own hash, canonical), its seq the next from ``first_seq``,
    its prev the hash of the record before it."""
    records: list[Record] = []
    lines = text.split(b"\n")
    if lines[-1] != b"":
        raise DisputeError(f"{RECORDS} does not end with a newline")
    for number, line in enumerate(lines[:-1], 1):
        where = f"{RECORDS}:{number}"
        try:
            record = parse_line(line)
        except RecordError as error:
            raise DisputeError(f"{where}: {error}") from None
        expected = manifest.first_seq + number - 1
        if record.seq != expected:
            raise DisputeError(f"{where}: seq {record.seq}, expected {expected}")
        if records and record.prev != records[-1].hash:
            raise DisputeError(
                f"{where} (seq {record.seq}): prev {record.prev} is not the hash of the record "
                f"before it, {records[-1].hash} (a record was edited, added or removed)"
            )
        records.append(record)
    if not records or records[-1].seq != manifest.last_seq:
        last = records[-1].seq if records else "nothing"
        raise DisputeError(f"the records end at {last}, the manifest says {manifest.last_seq}")
    return records


def _bounded(manifest: Manifest, records: Sequence[Record]) -> None:
    """The first and last records are what the manifest says the bundle begins and ends at."""
    first, last = records[0], records[-1]
    if manifest.begins == "genesis" and (first.seq != 1 or first.prev != GENESIS):
        raise DisputeError("the bundle says it begins at the genesis, but its first record is not")
    if manifest.begins == "checkpoint" and first.kind != rec.CHECKPOINT:
        raise DisputeError(
            f"the first record ({first.seq}) is a {first.kind}, not the checkpoint the bundle "
            "says it begins at"
        )
    if manifest.ends == "checkpoint" and last.kind != rec.CHECKPOINT:
        raise DisputeError(
            f"the last record ({last.seq}) is a {last.kind}, not the checkpoint the bundle says "
            "it ends at"
        )
    if manifest.begins not in ("genesis", "checkpoint") or manifest.ends not in (
        "checkpoint",
        "journal_end",
    ):
        raise DisputeError(f"the manifest's begins {manifest.begins!r} or ends {manifest.ends!r}")


def _signatures(
    verdict: Verdict,
    manifest: Manifest,
    records: Sequence[Record],
    files: dict[str, bytes],
    given_key: str | None,
) -> None:
    """Every checkpoint signed by the key in force, every new key handed over by the one before
    (controller/app/signatures.py), and the trusted key signing a checkpoint that covers the
    hand (every record before a checkpoint is under its signature)."""
    try:
        bundled = signing.parse_public_text(files[PUBLIC_KEY].decode(), source=PUBLIC_KEY)
    except (signing.SigningError, UnicodeDecodeError) as error:
        verdict.add("signatures", False, str(error))
        return
    trusted = TrustedKey(given_key or bundled, "file" if given_key else "bundle")
    keys = keys_in(records, bundled if manifest.begins == "checkpoint" else None)
    if not keys or tuple(keys) != manifest.keys or keys[0].public_key != bundled:
        verdict.add(
            "signatures",
            False,
            f"the keys the records and {PUBLIC_KEY} name are not the manifest's",
        )
        return
    signatures = SignatureCheck(trusted.public_key)
    if manifest.begins == "checkpoint":  # the key in force before the records: table.pub's
        signatures.in_force, signatures.in_force_id = bundled, keys[0].key_id
        signatures.keys.append(keys[0].key_id)
    covered = None  # the last checkpoint signed once the trusted key had come in force
    trusted_active = False
    for record in records:
        wrong = signatures(record)
        if wrong is not None:
            verdict.add("signatures", False, f"record {record.seq}: {wrong}")
            return
        trusted_active = trusted_active or signatures.in_force_id == signatures.key_id
        if record.kind == rec.CHECKPOINT and trusted_active:
            covered = record.seq
    wrong = signatures.end()
    if wrong is not None:
        verdict.add("signatures", False, wrong)
        return
    strength = KEY_STRENGTH[trusted.source]
    key_id = signing.key_id(trusted.public_key)
    if covered is None:
        verdict.add(
            "signatures",
            False,
            f"no checkpoint in the records is signed by key {key_id} or a key it handed over "
            "to: nothing in the bundle is under its signature",
        )
        return
    after = (
        ""
        if covered == records[-1].seq
        else f"; records {covered + 1} to {records[-1].seq} are covered by the chain only "
        "(no signed checkpoint follows them yet)"
    )
    verdict.add(
        "signatures",
        True,
        f"{signatures.summary().removeprefix('signatures: ')}; the records up to {covered} "
        f"are under key {key_id}'s signature{after}. Key: {strength}",
    )


def _told(
    verdict: Verdict, manifest: Manifest, records: Sequence[Record], files: dict[str, bytes]
) -> None:
    started = next((r for r in records if r.seq == manifest.hand_started_seq), None)
    starts = (
        started is not None
        and started.kind == rec.HAND_STARTED
        and any(
            isinstance(e, HandStarted) and e.hand == manifest.hand
            for e in schema.decode_events(started)
        )
    )
    if not verdict.add(
        "hand",
        starts,
        f"record {manifest.hand_started_seq} "
        + ("begins" if starts else "does not begin")
        + f" hand {manifest.hand}",
    ):
        return
    try:
        again = derived(records, manifest.hand, manifest.table_id, manifest.hand_started_seq)
    except (DisputeError, schema.SchemaError) as error:
        verdict.add("terms and software", False, str(error))
        return
    software = _software_seq(records, manifest.hand_started_seq)
    if software != manifest.software_seq:
        verdict.add(
            "terms and software",
            False,
            f"the software record in force is record {software}, the manifest says "
            f"{manifest.software_seq}",
        )
        return
    verdict.add(
        "terms and software",
        True,
        f"the hand's terms are in its start (record {manifest.hand_started_seq}), the software "
        f"in force in record {manifest.software_seq}",
    )
    names = sorted(set(again) | ({PHH} & {f.name for f in manifest.files}))
    differ = [name for name in names if again.get(name) != files.get(name)]
    told = ", ".join(names)
    verdict.add(
        "told",
        not differ,
        f"{told} made again from the records and equal"
        if not differ
        else f"{', '.join(differ)} not what the records tell (made again from them, they differ)",
    )
