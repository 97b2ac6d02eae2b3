"""Making a bundle: the hand's records found in a journal (``Finder``, ``bounds``), what they
tell (``derived``), the files and their manifest (``make``), written to a new folder
(``write``)."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from controller.display.view import posted_rules
from controller.history import attest
from controller.history.dispute._format import (
    BUNDLE_VERSION,
    MANIFEST,
    PHH,
    PUBLIC_KEY,
    RECALL,
    RECALL_JSON,
    RECORDS,
    SOFTWARE_FILE,
    TERMS,
    Begins,
    BundleFile,
    DisputeError,
    Ends,
    MadeBy,
    Manifest,
    keys_in,
    manifest_text,
    sha256,
)
from controller.history.phh.export import ExportError, export_hand
from controller.history.recall import (
    SOFTWARE,
    HandRecord,
    RecalledHand,
    describe_stakes,
    format_hand,
    hands,
)
from controller.journal import Record, schema
from controller.journal import tablerecords as rec
from controller.journal.record import parse_line
from controller.journal.tablekey import TABLE_KEY
from controller.logs.jsonreport import report_json
from controller.poker.engine.events import HandStarted
from controller.poker.games import GAMES

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


def software_seq(records: Sequence[Record], before: int) -> int | None:
    """The seq of the last software record before seq ``before``."""
    seqs = [r.seq for r in records if r.kind == SOFTWARE and r.seq < before]
    return seqs[-1] if seqs else None


def derived(
    records: Sequence[Record], number: int, table_id: str, hand_started_seq: int
) -> dict[str, bytes]:
    """The files the records tell of hand ``number``, in this tablectl's words: recall (text and
    JSON), terms, software and, for a settled hand, its PHH. DisputeError (or SchemaError) when
    they cannot tell it."""
    hand = _told_hand(records, number)
    if not hand.finished:
        # A face-down card's value is not to leave the table during the hand (poker/announce.py
        # hidden_cards): the recall and the records would show it.
        raise DisputeError(
            f"hand {number} is in play: its face-down cards stay hidden until it is over; make "
            "the bundle once it has ended"
        )
    if hand.terms is None:
        raise DisputeError(
            f"hand {number}: its start journals no terms (written before hands recorded them)"
        )
    software = software_seq(records, hand_started_seq)
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


@functools.cache
def this_software() -> MadeBy:
    """This tablectl as a manifest names the bundle's maker: its version and the digest of its
    installed files without a configuration (controller/history/attest.py), read once a process: the
    code that runs is the code loaded (a floor web upgraded under it still runs the old until
    restarted). DisputeError when they cannot be read."""
    try:
        found = attest.installed(None)
    except attest.AttestError as error:
        raise DisputeError(f"which software this tablectl is cannot be read: {error}") from None
    return MadeBy(found.version, found.digest)


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
    software = software_seq(records, started)
    assert software is not None  # derived refused it otherwise
    manifest = Manifest(
        version=BUNDLE_VERSION,
        table_id=table_id,
        journal=where.journal,
        hand=hand,
        made_from=made_from,
        first_seq=where.first_seq,
        last_seq=where.last_seq,
        begins=where.begins,
        ends=where.ends,
        hand_started_seq=started,
        software_seq=software,
        keys=tuple(keys),
        made_by=this_software(),
        files=tuple(BundleFile(name, sha256(files[name])) for name in sorted(files)),
    )
    files[MANIFEST] = manifest_text(manifest)
    return files


def write(out: Path, files: dict[str, bytes]) -> None:
    """Write the bundle into ``out`` (made if absent; DisputeError if it holds anything)."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise DisputeError(
            f"--out {out}: expected a new or empty folder (a bundle is never written over another)"
        )
    out.mkdir(parents=True, exist_ok=True)
    for name in sorted(files):
        (out / name).write_bytes(files[name])
