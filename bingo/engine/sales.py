"""Numbered-order card sales within one game (R33, R36-R38, R40).

Cards of a series are sold in number order (R36). A game's sale starts at the card after the
last one sold from its series, even if that was the day before, or at card 1 of a fresh series
(R37). If the series runs out, the sale continues in a second series of the same price (R38 a)),
from its card 1 (R38 b)), up to but not including the number at which this game's sale of the
first series began (R38 c)), so no two identical cards are ever sold in one game.

The engine is pure: it says which numbers a request gets. The games service locks the series
rows, calls ``allocate`` and saves the new cursors, so several cashiers never skip or repeat a
number (SPEC §3).

How the second series is modelled. A cursor (``last_sold``) does not say when a card was sold,
so the engine cannot tell cards of the second series sold in this game from cards sold before
it. One function, ``second_series_validate``, holds the R38 checks, and every path calls it; it
always refuses the first series itself (R38) or one of another price (R38 a)), then checks R38 b)
and c) as far as the moment can tell:

* when a game designates its second series (no ``first_start``), it refuses one with any card
  already sold (R38 b)): a series used before cannot be a second series, since its sale would
  not start at card 1;
* afterwards (``available``, ``allocate`` and ``GameSeries`` pass ``first_start``) the second
  series' stock comes as it stands. Within a game the second series is only sold once the first
  has run out, so it refuses a second series that has cards sold while the first still has
  stock (those were sold before this game, R38 b)), and one sold at or past the first series'
  start (R38 c)).

Text for the hall is Portuguese (R54). Counts and money group thousands with a plain space
("1 680", "1 234,50 CVE"), the Portuguese norm; card numbers are identifiers and are never
grouped ("n.º 1680").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal

from bingo.engine.errors import EngineError


class SaleError(EngineError):
    """A sale the rules forbid or the stock cannot meet; the message says why in one line."""

    codes = frozenset(
        {
            "stock_size_invalid",
            "stock_last_sold_invalid",
            "stock_price_invalid",
            "second_series_same",  # R38
            "second_series_price",  # R38 a)
            "second_series_started",  # R38 b)
            "second_series_sold_before",  # R38 b)
            "second_series_past_limit",  # R38 c)
            "first_start_invalid",  # R37
            "first_last_sold_invalid",  # R37
            "quantity_invalid",
            "not_enough_cards",  # R38
            "not_enough_cards_second_limit",  # R38 c)
            "block_not_continuing",  # R36
            "nothing_sold",  # R40
            "too_many_series",  # R38
            "range_invalid",  # R40
            "nothing_announced",  # R33
            "series_sold_out",  # R33
        }
    )


@dataclass(frozen=True)
class SeriesStock:
    """A series of cards as it stands: its size, the last card sold (0 if none) and its price."""

    series_id: int
    label: str
    size: int
    last_sold: int
    price: Decimal

    def __post_init__(self) -> None:
        """Refuse a stock that cannot exist."""
        if self.size < 1:
            raise SaleError(
                f"series {self.label}: size must be at least 1, not {self.size}",
                code="stock_size_invalid",
                params={"series": self.label, "size": self.size},
            )
        if not 0 <= self.last_sold <= self.size:
            raise SaleError(
                f"series {self.label}: last sold card {self.last_sold} is outside 0..{self.size}",
                code="stock_last_sold_invalid",
                params={"series": self.label, "last_sold": self.last_sold, "size": self.size},
            )
        if not isinstance(self.price, Decimal) or not self.price.is_finite() or self.price <= 0:
            raise SaleError(
                f"series {self.label}: the price must be a positive Decimal, not {self.price!r}",
                code="stock_price_invalid",
                params={"series": self.label, "price": str(self.price)},
            )

    @property
    def remaining(self) -> int:
        """Cards of the series not sold yet."""
        return self.size - self.last_sold


@dataclass(frozen=True)
class Block:
    """Consecutive cards of one series sold together: numbers first_number..last_number."""

    series_id: int
    first_number: int
    last_number: int

    @property
    def count(self) -> int:
        """How many cards the block holds."""
        return self.last_number - self.first_number + 1


@dataclass(frozen=True)
class SeriesRange:
    """What a game sold of one series, for the R40 announcement: labelled first and last numbers."""

    label: str
    first_number: int
    last_number: int

    @property
    def count(self) -> int:
        """How many cards the range holds."""
        return self.last_number - self.first_number + 1


def _second_limit(first_start: int, second: SeriesStock) -> int:
    """The highest card of the second series this game may sell (R38 c))."""
    # R38 c): stop below the number at which this game's sale of the first series began.
    return min(second.size, first_start - 1)


def second_series_validate(
    first: SeriesStock, second: SeriesStock, *, first_start: int | None = None
) -> None:
    """Refuse ``second`` as ``first``'s second series unless R38 allows it: the one copy of the
    R38 checks, which every path calls.

    Always: the second series is another series (R38), of the first's price (R38 a)). Without
    ``first_start`` the game is designating its second series, before any of it is sold: no card
    of it may be sold yet, so that its sale starts at card 1 (R38 b)). With ``first_start``, the
    card at which this game's sale of ``first`` began, ``second`` is the stock as it stands now:
    it is sold only once the first has run out (R38 b)), and never at or past ``first_start``
    (R38 c)).
    """
    if second.series_id == first.series_id:
        raise SaleError(
            f"R38: the second series must differ from the first ({first.label})",
            code="second_series_same",
            params={"series": first.label},
        )
    if second.price != first.price:
        raise SaleError(
            f"R38 a): the second series {second.label} costs {second.price}, "
            f"the first {first.label} costs {first.price}; they must have the same price",
            code="second_series_price",
            params={
                "second": second.label,
                "second_price": second.price,
                "first": first.label,
                "first_price": first.price,
            },
        )
    if first_start is None:
        if second.last_sold != 0:
            raise SaleError(
                f"R38 b): the second series {second.label} already has cards 1..{second.last_sold} sold; "
                "its sale must start at card 1",
                code="second_series_started",
                params={"second": second.label, "last_sold": second.last_sold},
            )
        return
    if second.last_sold > 0 and first.remaining > 0:
        # In this game the second series is only sold once the first has run out, so these
        # cards were sold before this game: its sale here could not start at card 1.
        raise SaleError(
            f"R38 b): the second series {second.label} has cards sold before this game "
            f"(up to n.º {second.last_sold}); a second series must start at card 1",
            code="second_series_sold_before",
            params={"second": second.label, "last_sold": second.last_sold},
        )
    if second.last_sold > _second_limit(first_start, second):
        raise SaleError(
            f"R38 c): the second series {second.label} has cards sold up to n.º {second.last_sold}, "
            f"at or past n.º {first_start} where this game's sale of {first.label} began",
            code="second_series_past_limit",
            params={
                "second": second.label,
                "last_sold": second.last_sold,
                "first_start": first_start,
                "first": first.label,
            },
        )


def _game_check(first: SeriesStock, first_start: int, second: SeriesStock | None) -> None:
    """Refuse a game's sale state that R37-R38 could not have produced."""
    if not 1 <= first_start <= first.size:
        raise SaleError(
            f"R37: this game's sale of series {first.label} must begin at a card in 1..{first.size}, "
            f"not {first_start}",
            code="first_start_invalid",
            params={"series": first.label, "size": first.size, "first_start": first_start},
        )
    if first.last_sold < first_start - 1:
        raise SaleError(
            f"R37: series {first.label} began this game at card {first_start}, "
            f"so its last sold card cannot be {first.last_sold}",
            code="first_last_sold_invalid",
            params={"series": first.label, "first_start": first_start, "last_sold": first.last_sold},
        )
    if second is not None:
        second_series_validate(first, second, first_start=first_start)


def available(first: SeriesStock, first_start: int, second: SeriesStock | None) -> int:
    """How many more cards this game can still sell: the rest of the first series, then the
    second series' cards below ``first_start`` (R38 c)). SaleError if the state is impossible."""
    _game_check(first, first_start, second)
    count = first.remaining
    if second is not None:
        count += _second_limit(first_start, second) - second.last_sold
    return count


def allocate(quantity: int, first: SeriesStock, first_start: int, second: SeriesStock | None) -> list[Block]:
    """The cards a sale of ``quantity`` gets, in number order (R36-R38).

    ``first`` is this game's first series as it stands now and ``first_start`` the card at which
    this game's sale of it began (R37: card 1 of a fresh series, else the card after the last
    one sold, even the day before). Cards come from the first series' next number; when it runs
    out, from ``second`` (same price, R38 a)) after its last sold card — card 1 if none (R38 b))
    — never reaching ``first_start`` (R38 c)). All or nothing: SaleError saying how many cards
    remain if the request cannot be met in full, or if ``quantity`` is below 1.
    """
    if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity < 1:
        raise SaleError(
            f"a sale is of at least 1 card, not {quantity!r}",
            code="quantity_invalid",
            params={"quantity": quantity},
        )
    left = available(first, first_start, second)
    if quantity > left:
        asked = "1 card" if quantity == 1 else f"{quantity} cards"
        cards = "card remains" if left == 1 else "cards remain"
        short = f"cannot sell {asked}: only {left} {cards} available in this game"
        if second is None:
            raise SaleError(
                f"{short}; series {first.label} has no second series to continue in (R38)",
                code="not_enough_cards",
                params={"quantity": quantity, "available": left, "series": first.label},
            )
        # R38 c): the second series stops below the number where this game's first began.
        limit = _second_limit(first_start, second)
        raise SaleError(
            f"{short}; R38 c): series {second.label} may sell only up to n.º {limit}",
            code="not_enough_cards_second_limit",
            params={"quantity": quantity, "available": left, "series": second.label, "limit": limit},
        )
    blocks: list[Block] = []
    # R36: in number order, from the card after the last one sold.
    from_first = min(quantity, first.remaining)
    if from_first:
        start = first.last_sold + 1
        blocks.append(Block(first.series_id, start, start + from_first - 1))
    rest = quantity - from_first
    if rest:
        # R38: the first series ran out; continue in the second, from card 1 (R38 b)).
        assert second is not None
        start = second.last_sold + 1
        blocks.append(Block(second.series_id, start, start + rest - 1))
    return blocks


@dataclass(frozen=True)
class GameSeries:
    """This game's sale so far: the first series, where its sale began, and a second series.

    ``first`` and ``second`` are the stocks as they stand (their cursors include this game's
    sales); ``first_start`` is the card at which this game's sale of ``first`` began (R37).
    """

    first: SeriesStock
    first_start: int
    second: SeriesStock | None = None

    def __post_init__(self) -> None:
        """Refuse a state R37-R38 could not have produced."""
        _game_check(self.first, self.first_start, self.second)

    @classmethod
    def opening(cls, first: SeriesStock, second: SeriesStock | None = None) -> GameSeries:
        """A game about to open its sale: the first series' sale begins at its next card (R37).

        A second series is checked with ``second_series_validate`` (R38 a), b)).
        """
        if second is not None:
            second_series_validate(first, second)
        return cls(first, first.last_sold + 1, second)

    def available(self) -> int:
        """How many more cards this game can still sell."""
        return available(self.first, self.first_start, self.second)

    def allocate(self, quantity: int) -> list[Block]:
        """The cards a sale of ``quantity`` gets; see ``allocate``."""
        return allocate(quantity, self.first, self.first_start, self.second)

    def after(self, blocks: Sequence[Block]) -> GameSeries:
        """This game's sale once ``blocks`` (from ``allocate``, in order) are sold."""
        first, second = self.first, self.second
        for block in blocks:
            if block.series_id == first.series_id and block.first_number == first.last_sold + 1:
                first = replace(first, last_sold=block.last_number)
            elif (
                second is not None
                and block.series_id == second.series_id
                and block.first_number == second.last_sold + 1
            ):
                second = replace(second, last_sold=block.last_number)
            else:
                raise SaleError(
                    f"block {block} does not continue this game's sale (R36)",
                    code="block_not_continuing",
                    params={"first_number": block.first_number, "last_number": block.last_number},
                )
        return GameSeries(first, self.first_start, second)

    def sold(self) -> list[SeriesRange]:
        """What this game sold of each series, first series first, for the R40 announcement."""
        ranges: list[SeriesRange] = []
        if self.first.last_sold >= self.first_start:
            ranges.append(SeriesRange(self.first.label, self.first_start, self.first.last_sold))
        if self.second is not None and self.second.last_sold > 0:
            ranges.append(SeriesRange(self.second.label, 1, self.second.last_sold))
        return ranges


#: The smallest amount of money a sale records (the ledger keeps cents).
CENT = Decimal("0.01")


def double_card_halves(amount: Decimal) -> tuple[Decimal, Decimal]:
    """How the price paid for double cards (R15) splits between their two games.

    A double card is bought once and plays two consecutive games, so each game's prize money
    (R7) is worked out on half of what was paid: the first game takes half rounded down to the
    cent, the second the rest. The two halves always add up to ``amount``: no money is lost or
    counted twice.
    """
    if not isinstance(amount, Decimal) or not amount.is_finite() or amount < 0:
        raise ValueError(f"amount must be a finite, non-negative Decimal, not {amount!r}")
    first = (amount / 2).quantize(CENT, rounding=ROUND_DOWN)
    return first, amount - first


def format_count(count: int) -> str:
    """A count of cards, thousands grouped with a space: 1680 -> "1 680"."""
    return f"{count:,}".replace(",", " ")


def format_money(amount: Decimal, currency: str = "CVE", *, places: int = 2) -> str:
    """Money the Portuguese way: thousands grouped with a space, decimal comma, then the currency.

    ``Decimal("1234.5")`` -> "1 234,50 CVE". Rounded half up to ``places`` decimals.
    """
    if not isinstance(amount, Decimal) or not amount.is_finite():
        raise ValueError(f"money must be a finite Decimal, not {amount!r}")
    quantized = amount.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    sign = "-" if quantized < 0 else ""
    whole, _, fraction = f"{abs(quantized):f}".partition(".")
    text = format_count(int(whole))
    if places > 0:
        text += "," + fraction
    return f"{sign}{text} {currency}"


def _cards(count: int) -> str:
    """ "1 cartão", "2 cartões", "1 680 cartões"."""
    return f"{format_count(count)} {'cartão' if count == 1 else 'cartões'}"


def sales_closed_announcement(sold: Sequence[SeriesRange | tuple[str, int, int]]) -> str:
    """The R40 a) announcement of the cards this game sold, exactly as the rule words it.

    One series: «Venderam-se 1 680 cartões da série K-12, do n.º 1 ao n.º 1680»; two: «Venderam-se
    N cartões da série X, do n.º a ao n.º b, e da série Y, do n.º c ao n.º d», N being the total.
    A single card reads «Vendeu-se 1 cartão da série X, do n.º a ao n.º a» (the rule's formula,
    in the singular). SaleError if nothing was sold (there is nothing to announce: the caller
    decides what becomes of the game) or for more than two series (R38 allows one rollover).
    Each item is a ``SeriesRange`` (``GameSeries.sold()``) or a plain (label, first, last) tuple.
    """
    ranges = [part if isinstance(part, SeriesRange) else SeriesRange(*part) for part in sold]
    if not ranges:
        raise SaleError(
            "R40: no cards were sold in this game; there is nothing to announce", code="nothing_sold"
        )
    if len(ranges) > 2:
        raise SaleError(
            f"R38: a game sells from at most two series, not {len(ranges)}",
            code="too_many_series",
            params={"count": len(ranges)},
        )
    for part in ranges:
        if not 1 <= part.first_number <= part.last_number:
            raise SaleError(
                f"R40: series {part.label}: n.º {part.first_number} to {part.last_number} is no range",
                code="range_invalid",
                params={
                    "series": part.label,
                    "first_number": part.first_number,
                    "last_number": part.last_number,
                },
            )
    total = sum(part.count for part in ranges)
    verb = "Vendeu-se" if total == 1 else "Venderam-se"
    pieces = [
        f"da série {part.label}, do n.º {part.first_number} ao n.º {part.last_number}" for part in ranges
    ]
    return f"{verb} {_cards(total)} " + ", e ".join(pieces)


def sales_open_announcement(series: Sequence[SeriesStock], currency: str = "CVE") -> str:
    """The R33 announcement before sales open: each series on sale, its cards and its price.

    «Em venda: série K-12, 1 680 cartões, a 100,00 CVE cada.» Several series are joined with
    "; ". The number of cards is what is left unsold in each series (its size for a fresh one);
    the R38 c) limit on a second series is not in it. SaleError for no series or a sold-out one.
    """
    if not series:
        raise SaleError("R33: announce at least one series on sale", code="nothing_announced")
    parts: list[str] = []
    for stock in series:
        if stock.remaining == 0:
            raise SaleError(
                f"R33: series {stock.label} is sold out and cannot be put on sale",
                code="series_sold_out",
                params={"series": stock.label},
            )
        parts.append(
            f"série {stock.label}, {_cards(stock.remaining)}, a {format_money(stock.price, currency)} cada"
        )
    return "Em venda: " + "; ".join(parts) + "."
