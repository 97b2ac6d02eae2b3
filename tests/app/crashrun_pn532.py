"""The crash test's parts for a table whose shoe is PN532 readers (docs/hardware.md): ``tablectl
run`` reads the slot and the discard reader, each a simulated PN532 on a pty
(simulator/pn532/shoe.py), the panel the simulator's protocol panel, and is killed with SIGKILL
at random moments as in tests/app/crashrun.py.

A PN532 read is not acknowledged: a read is durable once it is journaled, and a read the host
never polled is gone (docs/hardware.md, What a PN532 shoe loses). So the dealer's "wait until
acknowledged" for a card is "wait until the journal holds its read" (docs/testing.md, The
crash test through PN532 readers): the dealer counts the card and tag records in the journal's
file. When a kill took the controller while the card was in the field, either the restarted
controller still finds it there (its reader lists it again: the repeat window, stamped on the
host's clock across the restart, makes a read the dead process journaled no second read), or
the card has left the field unlisted since the kill: the dealer pitches it again, as a dealer
passes a card the screen does not show back over the reader. Either way the journal holds each
card once, in the dealer's order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from crashrun import NEW_HAND, AckedDealer, CrashResult, Killer, replayed_as_dealt

from controller.poker.games import GAMES
from drivers.seam.tags import TagFamily
from simulator.acts import Act, Press, table_input
from simulator.pn532.serve import Pn532Readers
from simulator.pn532.shoe import REPEAT_WINDOW, UNSHOWN_AFTER, Pn532Pitch, fit_pn532, pn532_readers
from simulator.simtable import demo_config
from simulator.table import Simulator
from simulator.tablefile import write_table_toml

#: The journal's records of a read (docs/journal.md): a card of a deck, or a foreign tag; a
#: record's keys are sorted, so its own kind is the one just before its "prev" (a decision's
#: or a checkpoint's data may hold kinds of their own).
READ_KINDS = ('"kind":"card","prev"', '"kind":"tag","prev"')


def journal_reads(journal: Path) -> int:
    """The reads in the journal's files so far (whole lines only: one being written is not
    there yet)."""
    count = 0
    for path in journal.glob("journal-*.jsonl"):
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:  # rotated away meanwhile
            continue
        whole = text[: text.rfind("\n") + 1]
        count += sum(whole.count(kind) for kind in READ_KINDS)
    return count


@dataclass
class Pn532Killer(Killer):
    """The killer of tests/app/crashrun.py; a process is up once it has welcomed the panel
    anew and each PN532 has answered its polls (a reader polls only once it is up, and its
    DeviceUp is on the controller's queue before its first read)."""

    readers: Pn532Readers | None = None

    def _welcomes(self) -> dict[str, int]:
        counts = super()._welcomes()
        del counts["shoe"]  # the protocol shoe is not the table's
        assert self.readers is not None
        with self.readers.locked():
            for point, chip in self.readers.chips.items():
                counts[point] = chip.counters.polls
        return counts

    def _up(self) -> bool:
        counts = self._welcomes()
        before = self._welcomed_before
        # Two polls a reader of the dead process may have left on the line (one cancelled
        # and sent again: drivers/pn532/reader.py) are not the new process's.
        return all(
            count > before.get(name, 0) + (0 if name == "panel" else 2)
            for name, count in counts.items()
        )


@dataclass
class Pn532Dealer(AckedDealer):
    """The crash test's dealer at PN532 readers: a card's act waits until the journal holds
    its read, pitching the card again if a kill lost it."""

    pitch: Pn532Pitch | None = None
    killer: Killer | None = None
    journal: Path = Path()
    reads: int = 0

    def _acked(self, act: Act) -> None:
        if isinstance(act, Press):
            self.wait_acked("panel")
            self.press_again_if_paused(act)
        elif table_input(act) is not None:
            self.reads += 1
            self.wait_journaled()
        if act == NEW_HAND:
            self.new_hand.release()

    def wait_journaled(self) -> None:
        """Until the journal holds the dealer's reads so far. The last card is pitched again
        when it has left the field unlisted since it was pitched or since the last kill (a
        kill took the read with the process, or the reader was down meanwhile)."""
        pitch, killer = self.pitch, self.killer
        assert pitch is not None
        assert killer is not None
        last = pitch.last
        assert last is not None
        kills, mark = killer.kills, last.listed_before
        deadline = time.monotonic() + self.timeout
        again = time.monotonic() + UNSHOWN_AFTER
        while journal_reads(self.journal) < self.reads:
            gone, listed = not pitch.in_field(last.point), pitch.listed(last.point)
            if killer.kills != kills:  # what the dead process listed never reached the journal
                kills, mark = killer.kills, listed
            elif gone and self.up() and (listed == mark or time.monotonic() >= again):
                # Unlisted, or listed but never journaled (a late answer the host dropped).
                pitch.again()
                mark, again = listed, time.monotonic() + UNSHOWN_AFTER
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"the journal holds {journal_reads(self.journal)} reads, the dealer made "
                    f"{self.reads}, for {self.timeout} s"
                )
            time.sleep(0.005)
        while pitch.in_field(last.point):  # a card pitched again leaves before the next one
            time.sleep(0.005)


def crash_run_pn532(
    tmp_path: Path, game: str, *, hands: int, seed: int, mean_acts: int, seats: int = 4
) -> tuple[CrashResult, int]:
    """``crash_run`` of tests/app/crashrun.py with the shoe PN532 readers; the result and how
    many cards were pitched again."""
    started = time.monotonic()
    spec = GAMES[game]
    config = demo_config(spec, seats)
    with (
        Simulator(
            transport="pty", directory=tmp_path / "sim", seed=seed, tags=TagFamily.ISO14443A
        ) as sim,
        pn532_readers(tmp_path / "pn532") as (readers, settings),
    ):
        pitch = fit_pn532(sim, readers)
        config_path = write_table_toml(
            tmp_path,
            table_id="CRASH-PN532",
            game=game,
            config=config,
            shoe={
                "kind": "pn532",
                "port": settings.port,
                "discard_port": str(settings.discard_port),
            },
            panel={"path": sim.address("panel")},
            decks=sim.write_deck_files(tmp_path / "decks"),
            log={"format": "json", "level": "warning", "file": tmp_path / "tablectl.log"},
        )
        dealer = Pn532Dealer(sim, spec, config, seed, pitch=pitch, journal=tmp_path / "journal")
        killer = Pn532Killer(
            config_path,
            seed,
            mean_acts,
            sim,
            lambda: dealer.runner.performed,
            dealer.new_hand,
            repeat_window=REPEAT_WINDOW,
            readers=readers,
        )
        dealer.killer = killer
        dealer.up = killer._up
        killer.start()
        try:
            dealer.play(hands)
        finally:
            status = killer.stop()
    assert status == 0
    result = replayed_as_dealt(tmp_path, dealer, killer, hands=hands, started=started)
    assert journal_reads(tmp_path / "journal") == dealer.reads  # each card journaled once
    return result, pitch.repitched
