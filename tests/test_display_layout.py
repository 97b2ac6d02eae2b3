"""Seats around the felt: seat 1 on the dealer's left, then clockwise to the dealer's right."""

from __future__ import annotations

import pytest

from controller.display.layout import table_layout
from controller.display.view import ViewError

pytestmark = pytest.mark.fast


@pytest.mark.parametrize("count", range(2, 12))
def test_every_seat_has_its_own_cell_off_the_felt(count: int) -> None:
    """Each of 2 to 11 seats (14.13A(b)) gets one cell inside the grid, none under the felt."""
    layout = table_layout(count)
    cells = [(cell.row, cell.column) for cell in layout.seats]
    assert len(cells) == count == len(set(cells))
    felt = layout.felt
    under_felt = {
        (felt.row + r, felt.column + c)
        for r in range(felt.row_span)
        for c in range(felt.column_span)
    }
    assert not set(cells) & under_felt
    assert all(0 <= row < layout.rows and 0 <= col < layout.columns for row, col in cells)
    assert felt.row_span >= 1
    assert felt.column_span >= 1


@pytest.mark.parametrize("count", range(2, 12))
def test_seat_one_is_on_the_dealers_left_and_the_last_on_the_right(count: int) -> None:
    """14.13(c), 14.13A(c): dealing starts left of the dealer, who stands below the screen."""
    layout = table_layout(count)
    first, last = layout.seats[0], layout.seats[-1]
    assert (first.row, first.column) == (layout.rows - 1, 0)
    assert (last.row, last.column) == (layout.rows - 1, layout.columns - 1)


@pytest.mark.parametrize("count", range(2, 12))
def test_seats_run_clockwise_up_the_left_across_the_top_and_down_the_right(count: int) -> None:
    """Clockwise seen from above: each next seat is above, right of, or below the previous one."""
    seats = table_layout(count).seats
    path = [(cell.row, cell.column) for cell in seats]
    left = [p for p in path if p[1] == 0]
    right = [p for p in path if p[1] == table_layout(count).columns - 1]
    assert [r for r, _ in left] == sorted((r for r, _ in left), reverse=True)
    assert [r for r, _ in right] == sorted(r for r, _ in right)
    middle = [c for r, c in path if 0 < c < table_layout(count).columns - 1]
    assert middle == sorted(middle)


@pytest.mark.parametrize("count", [0, 1, 12])
def test_a_table_size_without_a_layout_is_refused(count: int) -> None:
    """The error names the count and the 2 to 11 expected."""
    with pytest.raises(ViewError, match=f"{count} seats: expected 2 to 11"):
        table_layout(count)
