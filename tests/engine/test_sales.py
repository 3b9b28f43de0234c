"""Numbered-order sales (R36-R38) and the sale announcements (R33, R40)."""

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bingo.engine import (
    Block,
    GameSeries,
    SaleError,
    SeriesRange,
    SeriesStock,
    allocate,
    available,
    format_money,
    sales_closed_announcement,
    sales_open_announcement,
    second_series_validate,
)

PRICE = Decimal("100.00")


def stock(series_id=12, label="K-12", size=1680, last_sold=0, price=PRICE):
    return SeriesStock(series_id=series_id, label=label, size=size, last_sold=last_sold, price=price)


def k13(last_sold=0, price=PRICE, size=1680):
    return stock(series_id=13, label="K-13", size=size, last_sold=last_sold, price=price)


# R36-R37: the first series


def test_fresh_series_sells_from_card_one():
    assert allocate(10, stock(), 1, None) == [Block(12, 1, 10)]


def test_sale_continues_from_yesterdays_cursor():
    # R37: the game's sale begins at the card after the last one sold, even the day before.
    yesterday = stock(last_sold=1500)
    game = GameSeries.opening(yesterday)
    assert game.first_start == 1501
    assert game.allocate(5) == [Block(12, 1501, 1505)]
    assert allocate(5, yesterday, 1501, None) == [Block(12, 1501, 1505)]


def test_later_sales_in_the_game_continue_in_number_order():
    game = GameSeries.opening(stock(last_sold=100))
    game = game.after(game.allocate(3))
    assert game.allocate(4) == [Block(12, 104, 107)]
    game = game.after(game.allocate(4))
    assert game.first.last_sold == 107
    assert game.first_start == 101


def test_whole_first_series_may_be_sold_without_a_second():
    assert allocate(180, stock(size=180), 1, None) == [Block(12, 1, 180)]


def test_request_past_the_first_series_without_a_second_is_refused_with_the_count_left():
    with pytest.raises(SaleError, match="cannot sell 181 cards: only 180 cards remain available") as info:
        allocate(181, stock(size=180, last_sold=0), 1, None)
    assert "series K-12 has no second series to continue in (R38)" in str(info.value)


def test_refusal_uses_the_singular_for_one_card():
    with pytest.raises(SaleError, match="only 1 card remains available"):
        allocate(2, stock(size=180, last_sold=179), 1, None)


@pytest.mark.parametrize("quantity", [0, -1, -100])
def test_quantity_below_one_is_refused(quantity):
    with pytest.raises(SaleError, match="a sale is of at least 1 card"):
        allocate(quantity, stock(), 1, None)


@pytest.mark.parametrize("quantity", [True, 2.0, "3"])
def test_quantity_must_be_an_integer(quantity):
    with pytest.raises(SaleError, match="a sale is of at least 1 card"):
        allocate(quantity, stock(), 1, None)


def test_refused_request_allocates_nothing():
    game = GameSeries.opening(stock(size=180, last_sold=170), k13())
    with pytest.raises(SaleError):
        game.allocate(game.available() + 1)
    assert game.allocate(1) == [Block(12, 171, 171)]


@pytest.mark.parametrize("first_start", [0, -1, 1681])
def test_first_start_must_be_a_card_of_the_series(first_start):
    with pytest.raises(SaleError, match="R37"):
        allocate(1, stock(last_sold=1680), first_start, None)


def test_first_start_cannot_be_past_the_cursor():
    with pytest.raises(SaleError, match="R37: series K-12 began this game at card 50"):
        allocate(1, stock(last_sold=10), 50, None)


def test_opening_on_a_sold_out_series_is_refused():
    with pytest.raises(SaleError, match="R37"):
        GameSeries.opening(stock(size=180, last_sold=180))


# R38: the second series


def test_rollover_continues_in_the_second_series_from_card_one():
    # R38 b): K-12 began this game at 1501; its last 180 cards go, then K-13 from card 1.
    first = stock(last_sold=1500)
    assert allocate(200, first, 1501, k13()) == [Block(12, 1501, 1680), Block(13, 1, 20)]


def test_second_series_continues_after_its_last_sold_card_in_this_game():
    first = stock(last_sold=1680)
    assert allocate(5, first, 1501, k13(last_sold=20)) == [Block(13, 21, 25)]


def test_second_series_stops_below_first_start():
    # R38 c): K-12 began at 1501, so K-13 may sell 1..1500 only.
    first = stock(last_sold=1680)
    assert available(first, 1501, k13(last_sold=1490)) == 10
    assert allocate(10, first, 1501, k13(last_sold=1490)) == [Block(13, 1491, 1500)]
    assert available(first, 1501, k13(last_sold=1500)) == 0


def test_request_past_the_second_series_limit_is_refused_with_the_count_left():
    first = stock(last_sold=1600)
    # 80 left in K-12, 1500 in K-13 below n.º 1501.
    assert available(first, 1501, k13()) == 1580
    with pytest.raises(
        SaleError,
        match=r"cannot sell 1581 cards: only 1580 cards remain available in this game; "
        r"R38 c\): series K-13 may sell only up to n.º 1500",
    ):
        allocate(1581, first, 1501, k13())
    with pytest.raises(SaleError, match=r"cannot sell 1 card: only 0 cards remain.*R38 c\)"):
        allocate(1, stock(last_sold=1680), 1501, k13(last_sold=1500))
    assert allocate(1580, first, 1501, k13()) == [Block(12, 1601, 1680), Block(13, 1, 1500)]


def test_second_series_smaller_than_the_limit_stops_at_its_size():
    first = stock(last_sold=1680)
    small = k13(size=180)
    assert available(first, 1501, small) == 180
    assert allocate(180, first, 1501, small) == [Block(13, 1, 180)]


def test_fresh_first_series_leaves_no_room_in_a_second():
    # R38 c): a game whose first series began at card 1 can sell nothing of a second series.
    first = stock(size=180, last_sold=170)
    assert available(first, 1, k13()) == 10
    with pytest.raises(SaleError, match="only 10 cards remain"):
        allocate(11, first, 1, k13())


def test_second_series_of_another_price_is_refused():
    with pytest.raises(SaleError, match=r"R38 a\): the second series K-13 costs 50.00"):
        allocate(1, stock(last_sold=1500), 1501, k13(price=Decimal("50.00")))
    with pytest.raises(SaleError, match=r"R38 a\)"):
        second_series_validate(stock(), k13(price=Decimal("50.00")))
    with pytest.raises(SaleError, match=r"R38 a\)"):
        GameSeries.opening(stock(last_sold=1500), k13(price=Decimal("50.00")))


def test_same_price_written_differently_is_the_same_price():
    second_series_validate(stock(price=Decimal("100")), k13(price=Decimal("100.00")))


def test_second_series_used_before_the_game_is_refused():
    # R38 b): K-13 has cards sold while K-12 still has stock, so they predate this game.
    with pytest.raises(SaleError, match=r"R38 b\): the second series K-13 has cards sold before this game"):
        allocate(1, stock(last_sold=1500), 1501, k13(last_sold=40))
    with pytest.raises(SaleError, match=r"R38 b\): the second series K-13 already has cards 1..40 sold"):
        GameSeries.opening(stock(last_sold=1500), k13(last_sold=40))


def test_second_series_sold_at_or_past_first_start_is_refused():
    with pytest.raises(SaleError, match=r"R38 c\)"):
        allocate(1, stock(last_sold=1680), 1501, k13(last_sold=1501))


def test_second_series_must_be_another_series():
    with pytest.raises(SaleError, match="R38: the second series must differ"):
        allocate(1, stock(last_sold=1500), 1501, stock(last_sold=0))


@pytest.mark.parametrize(
    "kwargs",
    [{"size": 0}, {"last_sold": -1}, {"last_sold": 1681}, {"price": Decimal(0)}, {"price": 100.0}],
)
def test_impossible_stock_is_refused(kwargs):
    with pytest.raises(SaleError):
        stock(**kwargs)


def test_after_refuses_a_block_that_does_not_continue_the_sale():
    game = GameSeries.opening(stock(last_sold=10))
    with pytest.raises(SaleError, match="R36"):
        game.after([Block(12, 20, 25)])


@given(size=st.integers(min_value=1, max_value=60), second_size=st.integers(1, 60), data=st.data())
def test_many_sales_never_skip_or_repeat_a_number(size, second_size, data):
    """Any sequence of sales sells every number it may, once each, in order (R36-R38)."""
    last_sold = data.draw(st.integers(min_value=0, max_value=size - 1))
    game = GameSeries.opening(stock(size=size, last_sold=last_sold), k13(size=second_size))
    sold: list[tuple[int, int]] = []
    while game.available():
        quantity = data.draw(st.integers(min_value=1, max_value=game.available() + 3))
        if quantity > game.available():
            with pytest.raises(SaleError, match=f"only {game.available()} card"):
                game.allocate(quantity)
            continue
        blocks = game.allocate(quantity)
        assert sum(block.count for block in blocks) == quantity
        sold.extend((b.series_id, n) for b in blocks for n in range(b.first_number, b.last_number + 1))
        game = game.after(blocks)
    first_numbers = [n for series_id, n in sold if series_id == 12]
    second_numbers = [n for series_id, n in sold if series_id == 13]
    # R36-R37: the first series from its cursor to its end, in order, then R38 b)-c): the second
    # from card 1 to just below where the first began (or its own end).
    assert first_numbers == list(range(last_sold + 1, size + 1))
    assert second_numbers == list(range(1, min(second_size, last_sold) + 1))
    assert not set(first_numbers) & set(second_numbers)


# R40: the sales-closed announcement


def test_closed_announcement_for_one_series():
    text = sales_closed_announcement([SeriesRange("K-12", 1501, 1680)])
    assert text == "Venderam-se 180 cartões da série K-12, do n.º 1501 ao n.º 1680"


def test_closed_announcement_for_two_series():
    text = sales_closed_announcement([SeriesRange("K-12", 1501, 1680), SeriesRange("K-13", 1, 20)])
    assert text == (
        "Venderam-se 200 cartões da série K-12, do n.º 1501 ao n.º 1680, e da série K-13, do n.º 1 ao n.º 20"
    )


def test_closed_announcement_accepts_plain_tuples():
    text = sales_closed_announcement([("A-7", 51, 90), ("A-8", 1, 5)])
    assert (
        text == "Venderam-se 45 cartões da série A-7, do n.º 51 ao n.º 90, e da série A-8, do n.º 1 ao n.º 5"
    )


def test_closed_announcement_for_one_card_is_singular():
    text = sales_closed_announcement([SeriesRange("A-3", 7, 7)])
    assert text == "Vendeu-se 1 cartão da série A-3, do n.º 7 ao n.º 7"


def test_closed_announcement_groups_the_total_but_not_card_numbers():
    text = sales_closed_announcement([SeriesRange("K-12", 1, 1680)])
    assert text == "Venderam-se 1 680 cartões da série K-12, do n.º 1 ao n.º 1680"


def test_closed_announcement_uses_the_masculine_ordinal():
    text = sales_closed_announcement([SeriesRange("K-12", 1, 2)])
    assert "n.\u00ba" in text
    assert "\u00b0" not in text


def test_closed_announcement_from_the_game_state():
    game = GameSeries.opening(stock(last_sold=1500), k13())
    game = game.after(game.allocate(200))
    assert game.sold() == [SeriesRange("K-12", 1501, 1680), SeriesRange("K-13", 1, 20)]
    assert sales_closed_announcement(game.sold()) == (
        "Venderam-se 200 cartões da série K-12, do n.º 1501 ao n.º 1680, e da série K-13, do n.º 1 ao n.º 20"
    )


def test_nothing_sold_leaves_nothing_to_announce():
    game = GameSeries.opening(stock())
    assert game.sold() == []
    with pytest.raises(SaleError, match="R40: no cards were sold"):
        sales_closed_announcement(game.sold())


def test_closed_announcement_refuses_three_series_or_a_bad_range():
    with pytest.raises(SaleError, match="at most two series"):
        sales_closed_announcement([SeriesRange("A", 1, 2), SeriesRange("B", 1, 2), SeriesRange("C", 1, 2)])
    with pytest.raises(SaleError, match="is no range"):
        sales_closed_announcement([SeriesRange("A", 5, 4)])


# R33: the sales-open announcement


def test_open_announcement_for_one_series():
    assert sales_open_announcement([stock()]) == "Em venda: série K-12, 1 680 cartões, a 100,00 CVE cada."


def test_open_announcement_counts_the_cards_left_and_takes_the_currency():
    text = sales_open_announcement([stock(last_sold=1500), k13()], currency="EUR")
    assert text == (
        "Em venda: série K-12, 180 cartões, a 100,00 EUR cada; série K-13, 1 680 cartões, a 100,00 EUR cada."
    )


def test_open_announcement_singular():
    assert sales_open_announcement([stock(last_sold=1679, price=Decimal("1500"))]) == (
        "Em venda: série K-12, 1 cartão, a 1 500,00 CVE cada."
    )


def test_open_announcement_refuses_no_series_or_a_sold_out_one():
    with pytest.raises(SaleError, match="R33"):
        sales_open_announcement([])
    with pytest.raises(SaleError, match="R33: series K-12 is sold out"):
        sales_open_announcement([stock(last_sold=1680)])


@pytest.mark.parametrize(
    ("amount", "text"),
    [
        (Decimal("0"), "0,00 CVE"),
        (Decimal("100"), "100,00 CVE"),
        (Decimal("999.5"), "999,50 CVE"),
        (Decimal("1000"), "1 000,00 CVE"),
        (Decimal("1234567.891"), "1 234 567,89 CVE"),
        (Decimal("0.005"), "0,01 CVE"),
        (Decimal("-1500.25"), "-1 500,25 CVE"),
    ],
)
def test_money_is_formatted_the_portuguese_way(amount, text):
    assert format_money(amount) == text


def test_money_without_decimals():
    assert format_money(Decimal("12345"), "CVE", places=0) == "12 345 CVE"


def test_money_must_be_a_decimal():
    with pytest.raises(ValueError, match="finite Decimal"):
        format_money(100.0)  # type: ignore[arg-type]
