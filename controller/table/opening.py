"""Opening a table: its journal replayed into a fresh core, its drivers made and restored
from it, the controller built where the journal left the table (docs/app.md, Start: replay
and resume). ``Controller.build`` (controller/table/loop.py) is this module's ``build``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import structlog

from controller.config.settings import JournalSettings
from controller.display.view import TableView
from controller.journal import JournalWriter, Record, schema, tablekey
from controller.journal import tablerecords as rec
from controller.journal.keeper import JournalKeeper, KeeperOptions
from controller.journal.writer import utc_now
from controller.poker.announce import announce
from controller.poker.engine import TableSetup
from controller.poker.games.spec import GameSpec
from controller.table.core import SinceCheckpoint, TableCore
from controller.table.dispatch import DriverEvents
from drivers.deck import DeckSet
from drivers.seam.device import Panel, Shoe
from drivers.seam.events import EventSink

if TYPE_CHECKING:
    from controller.table.loop import Controller


def open_journal(
    options: JournalSettings,
    core: TableCore,
    clock: Callable[[], Any] | None = None,
    *,
    observe: Callable[[Record], None] | None = None,
    keeper: KeeperOptions | None = None,
) -> JournalWriter:
    """Open the journal, replaying it into ``core`` (the table resumes where it stopped).

    The writer reads and checks the journal's end only (the last file whole, back to the last
    checkpoint, and the link into them; the whole chain is ``tablectl journal verify``'s), and
    the records from the last checkpoint on are replayed (docs/journal.md, What a start checks,
    and Checkpoints). ``observe``, if given, sees each of those records before the replay
    (which key signs the journal's end: controller/journal/tablekey.py). ``keeper``: the
    finished files' compression and retention, in a thread (controller/journal/keeper.py); None,
    the files stay as written (a simulated table, a test).
    """
    extra: dict[str, Any] = {} if clock is None else {"clock": clock}
    since = SinceCheckpoint()
    writer = JournalWriter.open(
        options.dir,
        fsync=options.fsync,
        hands_per_file=options.hands_per_file,
        max_bytes=options.max_bytes,
        hand_start_kind=rec.HAND_STARTED,
        replay=since,
        resume_kind=rec.CHECKPOINT,
        **extra,
    )
    try:
        if observe is not None:
            for record in since.records:
                observe(record)
        since.feed(core)
        if keeper is not None:
            # After the start's checks: the keeper touches only files they found whole.
            writer.housekeeping = JournalKeeper(
                options.dir, keeper, utc_now if clock is None else clock
            )
    except BaseException:
        writer.close()
        raise
    return writer


def build(
    cls: type[Controller],
    *,
    table_id: str,
    spec: GameSpec,
    config: TableSetup,
    journal: JournalSettings,
    keeper: KeeperOptions | None = None,
    decks: DeckSet,
    make_drivers: Callable[[EventSink[Any]], tuple[Shoe, Panel]],
    display: Callable[[TableView], None] | None = None,
    alternate_decks: bool = False,
    software: schema.SoftwareData | None = None,
    keys: tablekey.KeyFiles | None = None,
) -> Controller:
    """Replay the journal into a fresh core and make the drivers (restored, not started).
    ``software`` (``service.software_record``: a real table's start) is journaled first of
    this start's records; a simulated table (simulator/simtable.py) gives none. ``keys`` (the
    table's key files, ``[keys]``) puts its ``table_key`` right after ``software`` and signs
    every checkpoint; a journal that does not lead to the key is refused (TableKeyError)
    before anything is journaled."""
    core = TableCore(spec, config)
    log = structlog.get_logger("controller.table")
    signed_by = tablekey.JournaledKey()
    writer = open_journal(journal, core, observe=signed_by, keeper=keeper)
    try:
        key_start = None if keys is None else tablekey.plan(keys, signed_by.key_id)
    except BaseException:
        writer.close()
        raise
    if writer.recovered_torn is not None:
        log.warning("journal_torn_tail_set_aside", detail=writer.recovered_torn.describe())
    inbox = DriverEvents()
    try:
        shoe, panel = make_drivers(inbox)
    except BaseException:
        writer.close()
        raise
    restore_drivers(core, shoe, panel)
    controller = cls(
        table_id,
        core,
        writer,
        decks,
        shoe,
        panel,
        inbox,
        display,
        [],
        alternate_decks,
    )
    try:
        _decision_lost_at_the_cut(controller, writer.last)
        if software is not None:
            _software(controller, software)
        if keys is not None:
            _table_key(controller, keys, key_start)
        _devices_unheard(controller)
        controller.restore_deck()
    except BaseException:
        writer.close()
        raise
    _resumed(controller, writer.last)
    return controller


def restore_drivers(core: TableCore, shoe: Shoe, panel: Panel) -> None:
    """Give each driver its device's boot and last journaled sentence, and the shoe's repeat
    filter its journaled reads (every device is unknown until it says hello again:
    ``_devices_unheard`` journals it)."""
    for driver in (shoe, panel):
        status = core.devices[driver.device]
        if status.boot is not None and status.last_seq is not None:
            # docs/protocol.md, 4-5: the resend of a journaled sentence is a duplicate.
            driver.restore(status.boot, status.last_seq)
    boot = core.devices["shoe"].boot
    if boot is not None:
        # docs/protocol.md 7: a repeat of a journaled read is still a repeat after a restart.
        shoe.restore_reads(
            boot, ((r.uid, r.point, r.read_ms) for r in core.shoe_reads if r.boot == boot)
        )


def _software(controller: Controller, software: schema.SoftwareData) -> None:
    """Which software this start runs (13:69E-1.28B(d); docs/journal.md, The software record):
    before any other record of the start, the devices' hellos among them. Only a decision the
    last run's input lost at the cut comes before it: every input is followed by its own."""
    controller.journal.append(*schema.record(software))
    controller.core.take_record(software)
    controller.log.info("software", version=software.version, digest=software.digest)


def _table_key(
    controller: Controller, keys: tablekey.KeyFiles, start: tablekey.KeyStart | None
) -> None:
    """Journal the table's key (a rotation with the old key's signature) and sign every
    checkpoint from now on; without a key, say loudly that the journal goes unsigned
    (docs/journal.md, Signed checkpoints)."""
    if start is None:
        controller.log.warning(
            "journal_unsigned",
            private_key=str(keys.path),
            todo="checkpoints are not signed: make the table's key with `tablectl keys init` "
            "(docs/deploy.md, The table's key)",
        )
        return
    record = start.record
    controller.journal.append(*schema.record(record))
    controller.core.take_record(record)
    if start.retire is not None:
        # Only now that the hand-over is on disk: the old key signs nothing more.
        tablekey.retire_old_key(start.retire)
    assert keys.key is not None  # plan gives a start only for a key
    controller.signer = tablekey.CheckpointSigner(keys.key)
    controller.log.info(
        "table_key", key_id=record.key_id, public_key=record.public_key, previous=record.previous
    )


#: Why a device is not connected when a controller opens the table, until it says hello.
UNHEARD: Final = "not heard since the controller started"


def _devices_unheard(controller: Controller) -> None:
    """Every device is unknown until it says hello to this process, and that is journaled
    (a ``device`` record, ``lost``, for each): the table is paused until then (a new hand
    pressed before the shoe's hello is refused, docs/app.md, Devices lost and found), and a
    replay of the journal knows it, so it refuses that press again. A new driver hears even
    a device the last run refused (and refuses it again if it is still wrong)."""
    for name in (controller.shoe.device, controller.panel.device):
        record = schema.DeviceData(name, "lost", reason=UNHEARD)
        controller.journal.append(*schema.record(record))
        controller.core.take_record(record)


def _decision_lost_at_the_cut(controller: Controller, last: Record | None) -> None:
    """An input journaled without its decision (the power went between the two, or before
    the decision's line reached the disk): the engine has just made that decision again in
    the replay; journal it, so every input in the journal is followed by its decision."""
    if last is not None and last.kind in rec.ENGINE_INPUTS:
        controller.log.warning("journal_decision_rebuilt", input_seq=last.seq)
        controller.journal_decision(last.seq, controller.core.last_events)


def _resumed(controller: Controller, last: Record | None) -> None:
    table = controller.core.table
    if table.hand_number:
        controller.log_hand.number = table.hand_number  # before the first hand, none
    controller.log.info(
        "table_opened",
        deck=controller.decks.active.name,
        records=controller.core.records,
        journal_seq=last.seq if last else 0,
        phase=table.phase,
        next=announce(table.pending),
    )
    controller.announce_events([])
