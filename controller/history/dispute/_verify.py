"""Checking a bundle offline (``check``; docs/journal.md, The dispute bundle): the files, the
chain, the signatures and the hand, the evidence; then the told files, this tablectl's telling
of the records compared with the bundled one where the same software made the bundle."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from controller.history.dispute._bundle import derived, software_seq, this_software
from controller.history.dispute._format import (
    MANIFEST,
    PHH,
    PUBLIC_KEY,
    RECALL,
    RECALL_JSON,
    RECORDS,
    SOFTWARE_FILE,
    TERMS,
    DisputeError,
    MadeBy,
    Manifest,
    keys_in,
    read_manifest,
    sha256,
)
from controller.journal import GENESIS, Record, schema, signing, verdict
from controller.journal import tablerecords as rec
from controller.journal.record import RecordError, parse_line
from controller.journal.verify_signatures import SignatureCheck
from controller.poker.engine.events import HandStarted


@dataclass(frozen=True, slots=True)
class Check:
    """One check of ``dispute verify``: what it covered and whether it held."""

    name: str
    ok: bool
    detail: str
    #: What the check could not vouch for, said rather than failed (``ok`` stays True): told
    #: files another software made, worded otherwise than this tablectl tells the records.
    note: bool = False


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

    def note(self, name: str, detail: str) -> None:
        self.checks.append(Check(name, True, detail, note=True))

    def judged(self, given_key: str | None) -> verdict.Verdict:
        """The bundle's links and signatures in the one vocabulary (docs/journal.md, Verdicts):
        checked with the bundle's own table.pub alone, the signatures are NOT CHECKED (its maker
        could have made that key too), however well they agree with it."""
        failed = {c.name for c in self.checks if not c.ok}
        links = verdict.Links.INTACT
        if failed & _LINKS or not any(c.name == "chain" for c in self.checks):
            links = verdict.Links.BROKEN
        other = sorted(failed - _LINKS - {"signatures"})
        said_other = ", ".join(other) if other else None
        if links is verdict.Links.BROKEN:
            signatures = verdict.Signatures.NOT_JUDGED
            return verdict.Verdict(links, signatures, other=said_other)
        if "signatures" in failed:
            return verdict.Verdict(links, verdict.Signatures.BAD, other=said_other)
        if given_key is None:
            why = f"{verdict.NO_KEY_GIVEN}; they agree with the bundle's own {PUBLIC_KEY} only"
            return verdict.Verdict(links, verdict.Signatures.NOT_CHECKED, why, other=said_other)
        by = verdict.by_given(signing.key_id(given_key))
        return verdict.Verdict(links, verdict.Signatures.GOOD, by, other=said_other)


#: The checks whose failure means the records' links are not intact: the bundle's files as the
#: manifest lists them, and the chain of its records.
_LINKS: Final = frozenset({"manifest", "files", "chain"})


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
    hand's terms and software in the records, and the told files made again from the records
    (equal, or noted when another software made them: ``_told``)."""
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
    verdict.add(
        "manifest",
        True,
        f"bundle version {manifest.version}, hand {manifest.hand}, "
        + (
            f"made by {_named(manifest.made_by)}"
            if manifest.made_by is not None
            else "the tablectl that made it not named (a version 1 bundle)"
        ),
    )
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
    (controller/journal/verify_signatures.py), and the trusted key signing a checkpoint that covers
    the hand (every record before a checkpoint is under its signature)."""
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
    software = software_seq(records, manifest.hand_started_seq)
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
    _compared(verdict, manifest, again, files)


def _compared(
    verdict: Verdict, manifest: Manifest, again: dict[str, bytes], files: dict[str, bytes]
) -> None:
    """The told files against ``again``, this tablectl's telling of the records: equal; or
    failed when the same software made the bundle; or, made by another, noted."""
    names = sorted(set(again) | ({PHH} & {f.name for f in manifest.files}))
    differ = [name for name in names if again.get(name) != files.get(name)]
    if not differ:
        verdict.add("told", True, f"{', '.join(names)} made again from the records and equal")
        return
    try:
        ours: MadeBy | None = this_software()
    except DisputeError:
        ours = None
    if manifest.made_by is not None and manifest.made_by == ours:
        verdict.add(
            "told",
            False,
            f"{', '.join(differ)} not what the records tell (made again from them, they differ)",
        )
        return
    # The told files are a reading of the records, worded by the software that made them: a
    # later tablectl words them its own way (docs/display.md, The table's words), so another
    # software's are said to differ, not failed; the records and their signatures are the
    # evidence, checked above (docs/journal.md, The dispute bundle).
    equal = [name for name in names if name not in differ]
    this = "its own files unreadable" if ours is None else _named(ours)
    maker = (
        "not named: a version 1 bundle" if manifest.made_by is None else _named(manifest.made_by)
    )
    verdict.note(
        "told",
        f"{', '.join(differ)} {'differs' if len(differ) == 1 else 'differ'} "
        "from this tablectl's telling of the records "
        f"({this}), and the bundle was made by other software ({maker}), which words them its "
        "own way"
        + (f"; {', '.join(equal)} equal" if equal else "")
        + ". They are that software's reading of the records, not vouched for here: the "
        "evidence is the records and their signatures, checked above",
    )


def _named(made: MadeBy) -> str:
    return f"tablectl {made.version}, files digest {made.digest[:12]}"
