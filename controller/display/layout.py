"""Where each seat sits on the screen: around the table as the dealer sees it.

The dealer stands at the bottom of the screen facing the players. Seat 1 is on
the dealer's left (cards go out from there, 14.13(c), 14.13A(c)), so the seats
run clockwise: up the left side from the bottom, across the top, and down the
right side to the last seat on the dealer's right. The felt in the middle holds
the pot, the next card and the seat to act.

The table is a grid of ``rows`` x ``columns`` cells; the felt spans the cells
the seats leave free below the top row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from controller.display.view import MAX_SEATS, MIN_SEATS, ViewError

#: Seats on the left side, across the top and on the right side, for each table size.
_SIDES: Final[dict[int, tuple[int, int, int]]] = {
    2: (1, 0, 1),
    3: (1, 1, 1),
    4: (1, 2, 1),
    5: (2, 1, 2),
    6: (2, 2, 2),
    7: (2, 3, 2),
    8: (3, 2, 3),
    9: (3, 3, 3),
    10: (3, 4, 3),
    11: (4, 3, 4),
}


@dataclass(frozen=True, slots=True)
class Cell:
    """A rectangle of grid cells: top-left row and column, and its spans."""

    row: int
    column: int
    row_span: int = 1
    column_span: int = 1


@dataclass(frozen=True, slots=True)
class TableLayout:
    """The grid, the cell of each seat (in seat order, clockwise) and the felt's cells."""

    rows: int
    columns: int
    seats: tuple[Cell, ...]
    felt: Cell


def table_layout(seat_count: int) -> TableLayout:
    """The seats of a table of ``seat_count`` around the felt, seat 1 at the dealer's left."""
    if seat_count not in _SIDES:
        raise ViewError(f"{seat_count} seats: expected {MIN_SEATS} to {MAX_SEATS}")
    left, top, right = _SIDES[seat_count]
    top_row = 1 if top else 0
    # Eleven seats take the top corners too, so the table keeps four rows of seats.
    rows = max(left, right) + (top_row if seat_count < MAX_SEATS else 0)
    columns = max(top, 1) + 2
    # Up the left side from the bottom, across the top, down the right side.
    cells = [Cell(rows - 1 - index, 0) for index in range(left)]
    cells += [Cell(0, 1 + index) for index in range(top)]
    cells += [Cell(rows - right + index, columns - 1) for index in range(right)]
    felt = Cell(top_row, 1, rows - top_row, columns - 2)
    return TableLayout(rows, columns, tuple(cells), felt)
