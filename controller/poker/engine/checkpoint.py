"""A table between hands, as a value: what ``Table.checkpoint()`` gives and
``Table.from_checkpoint`` takes back (docs/journal.md, Checkpoints).

The checkpoint holds the table's between-hands state (the last hand's number,
the phase, the dealer or button, the occupied seats and their stacks) and the
last hand as undo rebuilds it: the stacks and dealer it began with and its
inputs, and whether a seat change or rebuy has closed it since. A table
restored from it is the same table: the same state and the same events for
every input after it, undo into the last hand included. Pure and frozen; the
journal's JSON form is in ``controller.journal.tablerecords``.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.poker.inputs import TableInput

#: A seat and its chips behind (None: unknown).
SeatStack = tuple[int, int | None]


@dataclass(frozen=True, slots=True)
class TableCheckpoint:
    """A table between hands; see the module docstring."""

    #: The number of the last hand dealt (0: none yet).
    hand: int
    #: ``waiting``, ``settled`` or ``void``: never a hand in play.
    phase: str
    dealer: int
    seats: tuple[int, ...]
    stacks: tuple[SeatStack, ...]
    #: The last hand's stacks and dealer at its start, and its inputs (none before the first).
    start_stacks: tuple[SeatStack, ...] = ()
    start_dealer: int = 0
    inputs: tuple[TableInput, ...] = ()
    #: A seat change or a rebuy closed the last hand: undo no longer reaches into it, and
    #: ``seats`` and ``stacks`` are the changed ones.
    closed: bool = False
    #: The inputs taken between hands since it was closed (a muck of its cards).
    after: tuple[TableInput, ...] = ()
