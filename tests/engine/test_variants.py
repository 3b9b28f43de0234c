"""The rule tables: geometry and lines of each variant (R14, R64-R66, R70-R74, R81-R84)."""

import pytest

from bingo.engine import SERIES_SIZES, LineKind, Variant, geometry, lines, parse_variant


def test_ninety_ball_columns_follow_r14():
    geo = geometry(Variant.B90)
    assert (geo.rows, geo.cols) == (3, 9)
    assert geo.column_ranges[0] == (1, 9)
    assert geo.column_ranges[1] == (10, 19)
    assert geo.column_ranges[8] == (80, 90)
    assert [geo.column_size(c) for c in range(9)] == [9, 10, 10, 10, 10, 10, 10, 10, 11]
    assert geo.column_of(90) == 8


@pytest.mark.parametrize(
    ("variant", "shape", "ranges", "numbers"),
    [
        (Variant.B80, (4, 4), [(1, 20), (21, 40), (41, 60), (61, 80)], 16),
        (Variant.B75, (5, 5), [(1, 15), (16, 30), (31, 45), (46, 60), (61, 75)], 24),
        (Variant.B30, (3, 3), [(1, 10), (11, 20), (21, 30)], 9),
    ],
)
def test_grid_variants_follow_their_rules(variant, shape, ranges, numbers):
    geo = geometry(variant)
    assert (geo.rows, geo.cols) == shape
    assert list(geo.column_ranges) == ranges
    assert geo.numbers_per_card == numbers


def test_seventy_five_ball_has_bingo_headers_and_a_free_centre():
    geo = geometry(Variant.B75)
    assert geo.headers == ("B", "I", "N", "G", "O")
    assert geo.free_cells == {(2, 2)}


def test_lines_per_variant():
    assert [line.kind for line in lines(Variant.B90)] == [LineKind.ROW] * 3
    eighty = lines(Variant.B80)
    assert len(eighty) == 10  # 4 rows, 4 columns, 2 diagonals (R66)
    assert eighty[-2].cells == ((0, 0), (1, 1), (2, 2), (3, 3))
    assert eighty[-1].cells == ((0, 3), (1, 2), (2, 1), (3, 0))
    seventy_five = lines(Variant.B75)
    # The free centre counts as marked (R72): the middle row, N column and diagonals have 4 cells.
    assert sorted(len(line.cells) for line in seventy_five) == [4] * 4 + [5] * 8
    assert all((2, 2) not in line.cells for line in seventy_five)
    assert len(lines(Variant.B30)) == 8


def test_series_sizes_follow_r16():
    assert SERIES_SIZES == {
        "A": 90, "B": 120, "C": 150, "D": 180, "E": 240, "F": 300,
        "G": 360, "H": 420, "I": 660, "J": 840, "K": 1680,
    }  # fmt: skip


@pytest.mark.parametrize("text", ["90", 90, " 75 "])
def test_parse_variant_accepts_ball_counts(text):
    assert parse_variant(text).value == str(text).strip()


def test_parse_variant_names_the_choices():
    with pytest.raises(ValueError, match="choose one of 90, 80, 75, 30"):
        parse_variant("91")
