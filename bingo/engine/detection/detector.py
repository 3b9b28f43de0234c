"""Every card sold in a game, followed ball by ball: who holds each prize, who is close (R44, R46-R49).

The ``Detector`` is built once when sales close (or mid-game, from the balls already drawn) over
the blocks sold (``SoldCards``), refusing a card sold twice in the game (R36, R38). For each
target of each card it keeps a counter of the numbers still missing; an index from ball number
to the cards holding it lets a ball touch only those counters, so a ball costs time in
proportion to the cards that hold it, not to all cards sold. After each ball it knows, exactly,
every card that holds each prize, whenever it completed (R49) — the «Mais alguma linha?» /
«Mais algum bingo?» check (R46) — and how many cards are 1, 2, ... numbers away ("one to go").
A prize confirmed is closed: no longer followed, so late claims of it are refused (R47); prizes
are listed small ones first, the bingo that ends the game last (R44).

It is the one mutable object of the engine: copying its counters per ball would cost more than
the ball itself. Rebuilding it from the cards and the balls drawn so far gives the same state as
following the draw ball by ball; the tests hold it to that.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

from bingo.engine.cardset import Cells
from bingo.engine.detection.card import CardCheck, card_check
from bingo.engine.detection.inputs import DetectionError, Where, check_ball, check_balls, check_cells
from bingo.engine.detection.layout import Counts, Indices, from_scratch, layout_of
from bingo.engine.detection.rules import PrizeRules, Target
from bingo.engine.prizes import PrizeKind
from bingo.engine.variants import geometry

#: Need values whose card counts the detector keeps up to date after every ball: cards holding
#: a prize (0), one to go (1), two and three to go. Larger ones are counted when asked.
NEAR = 3


@dataclass(frozen=True, eq=False)
class SoldCards:
    """Consecutive cards of one series sold in a game: numbers ``first_number`` onwards.

    ``cells[i]`` is card ``first_number + i``; take them from the series' card set
    (``card_set.cells[first - 1 : last]``).
    """

    series_id: int
    first_number: int
    cells: Cells

    @property
    def count(self) -> int:
        """How many cards the block holds."""
        return int(self.cells.shape[0])

    def where(self, i: int) -> Where:
        """How messages name the block's card ``i`` (from 0)."""
        number = self.first_number + i
        return Where(f"card {number} of series {self.series_id}", {"series": self.series_id, "card": number})


@dataclass(frozen=True, order=True)
class CardRef:
    """A sold card: its series and its number in the series."""

    series_id: int
    number: int


@dataclass(frozen=True)
class Hit:
    """A target a card completed, and the ball count at which it did."""

    target: Target
    at: int


@dataclass(frozen=True)
class Winner:
    """A card holding a prize, with every target of that prize it completed, earliest first."""

    card: CardRef
    #: The card's position in the detector (0-based), for ``Detector.card_check`` and friends.
    index: int
    prize: PrizeKind
    hits: tuple[Hit, ...]

    @property
    def completed_at(self) -> int:
        """The ball count at which the card first held the prize."""
        return self.hits[0].at


@dataclass(frozen=True, eq=False)
class Completions:
    """Targets completed, as three parallel read-only arrays ordered by (at, target, card).

    ``cards`` are positions in the detector, ``targets`` indexes into ``rules.targets`` and
    ``at`` the ball count at which each completed. They are decoded, when first read, from
    ``keys``: sorted ``(at * targets + target) * cards + card`` with ``base = (targets, cards)``.
    """

    prize: PrizeKind
    keys: Indices
    base: tuple[int, int]

    def __len__(self) -> int:
        """How many targets completed."""
        return int(self.keys.size)

    @cached_property
    def _split(self) -> tuple[Indices, npt.NDArray[np.int16], Counts]:
        """The keys decoded into cards, targets and ball counts (once)."""
        targets, n = self.base
        rest, cards = np.divmod(self.keys, n)
        at, target = np.divmod(rest, targets)
        found = (cards, target.astype(np.int16), at.astype(np.uint8))
        for array in found:
            array.setflags(write=False)
        return found

    @property
    def cards(self) -> Indices:
        """The cards (positions in the detector)."""
        return self._split[0]

    @property
    def targets(self) -> npt.NDArray[np.int16]:
        """The targets completed (indexes into ``rules.targets``)."""
        return self._split[1]

    @property
    def at(self) -> Counts:
        """The ball count at which each completed."""
        return self._split[2]


@dataclass(frozen=True, eq=False)
class BallOutcome:
    """What one ball changed: the targets it completed, per prize."""

    ball: int
    #: Balls drawn so far, this one included.
    count: int
    new: Mapping[PrizeKind, Completions] = field(default_factory=dict)

    @property
    def won(self) -> tuple[PrizeKind, ...]:
        """The prizes this ball completed on at least one card."""
        return tuple(prize for prize, found in self.new.items() if len(found))


def _readonly(array: npt.NDArray[np.generic]) -> npt.NDArray[np.generic]:
    """A read-only view of ``array``: callers may read the detector's state, never change it."""
    view = array.view()
    view.flags.writeable = False
    return view


class Detector:
    """Every card sold in a game, followed ball by ball: who holds each prize, who is close.

    Build it when the game's sales close from the blocks sold (any number of series and blocks,
    up to a million cards), or mid-game with the balls drawn so far in ``drawn``; then call
    ``draw`` for each ball. It holds, for each card and target, the numbers still missing
    (uint8), and for each ball number, per cell position, the cards that print it there.
    """

    def __init__(
        self,
        rules: PrizeRules,
        blocks: Iterable[SoldCards | tuple[int, int, Cells]],
        drawn: Iterable[int] = (),
    ) -> None:
        """Index the sold cards and apply the balls already drawn (in draw order).

        DetectionError for cards that are not the variant's, a card sold twice, or a wrong ball.
        """
        self.rules = rules
        self._layout = layout = layout_of(rules)
        variant = rules.variant
        geo = geometry(variant)
        parts = [b if isinstance(b, SoldCards) else SoldCards(*b) for b in blocks]
        for part in parts:
            check_cells(variant, part.cells, part.where)
        self._index_blocks(parts)
        if parts:
            cells = np.concatenate([p.cells for p in parts]) if len(parts) > 1 else np.array(parts[0].cells)
        else:
            cells = np.zeros((0, geo.rows, geo.cols), dtype=np.uint8)
        cells.setflags(write=False)
        self._cells = cells
        n = self.size = int(cells.shape[0])
        self._drawn: list[int] = list(check_balls(variant, drawn))
        flat = cells.reshape(n, geo.cells)

        scratch = from_scratch(layout, flat, self._drawn)
        self._counters = list(scratch.missing)
        # need[k]: numbers each card still needs for prize k, the least over its targets; a
        # one-target prize reads its target's counter.
        self._need: list[Counts | None] = []
        self._near: list[list[int]] = []
        # Completed targets of each prize as sorted int64 keys (at * T + target) * N + card, one
        # array per ball: appended in ball order, their concatenation stays sorted.
        self._key_base = (len(layout.positions), max(n, 1))
        self._events: list[list[Indices]] = []
        for targets in layout.by_prize:
            if len(targets) == 1:
                self._need.append(None)
                need = self._counters[targets[0]]
            else:
                need = np.minimum.reduce([self._counters[t] for t in targets])
                self._need.append(need)
            self._near.append(np.bincount(need, minlength=NEAR + 1)[: NEAR + 1].tolist())
            keys = [self._keys(np.flatnonzero(scratch.at[t]), t, scratch.at[t]) for t in targets]
            found = np.sort(np.concatenate(keys)) if keys else _NO_KEYS
            self._events.append([found] if found.size else [])
        self._cache: dict[int, Completions] = {}
        self._counts: dict[int, tuple[int, ...]] = {}
        self._closed: set[PrizeKind] = set()
        self._skip: frozenset[int] = frozenset()

        # The inverted index: for each position p, cards sorted by the number printed there;
        # ball b's cards at p are one slice of it. Blanks (0) are dropped. Every position's
        # cards sit in one int32 array, and the slices are views of it: one allocation of 4
        # bytes a number printed (57 MiB for a million 90-ball cards) rather than a thousand
        # small ones, between which the build's freed temporaries stayed resident (issue 23).
        self._by_ball: list[list[tuple[npt.NDArray[np.int32], tuple[int, ...]]]] = [
            [] for _ in range(geo.balls + 1)
        ]
        drawn_set = set(self._drawn)
        indexed = [p for p, targets in enumerate(layout.targets_at) if targets and n]
        per_ball = {p: np.bincount(flat[:, p], minlength=geo.balls + 1) for p in indexed}
        index = np.empty(sum(n - int(per_ball[p][0]) for p in indexed), dtype=np.int32)
        used = 0
        for p in indexed:
            blanks = int(per_ball[p][0])
            segment = index[used : used + n - blanks]
            used += segment.size
            segment[:] = np.argsort(flat[:, p], kind="stable")[blanks:]
            ends = np.cumsum(per_ball[p]) - blanks
            low, high = geo.column_ranges[p % geo.cols]
            for ball in range(low, high + 1):
                start, end = int(ends[ball - 1]), int(ends[ball])
                if end > start and ball not in drawn_set:
                    self._by_ball[ball].append((segment[start:end], layout.targets_at[p]))

    # -- identity of the cards ---------------------------------------------------------------

    def _index_blocks(self, parts: list[SoldCards]) -> None:
        """Record where each block starts; DetectionError for a card sold twice in the game."""
        starts = [0]
        spans: dict[int, list[tuple[int, int, int]]] = {}
        for part in parts:
            if (
                isinstance(part.first_number, bool)
                or not isinstance(part.first_number, int)
                or part.first_number < 1
            ):
                raise DetectionError(
                    f"series {part.series_id}: card numbers start at 1, not {part.first_number!r}",
                    code="card_number_invalid",
                    params={"series": part.series_id, "number": repr(part.first_number)},
                )
            if part.count:
                spans.setdefault(part.series_id, []).append((part.first_number, part.count, starts[-1]))
            starts.append(starts[-1] + part.count)
        for series, found in spans.items():
            found.sort()
            for (first, count, _), (following, _, _) in pairwise(found):
                if following < first + count:
                    raise DetectionError(
                        f"series {series}: card {following} is sold twice in this game (R36, R38)",
                        code="card_sold_twice",
                        params={"series": series, "number": following},
                    )
        self._starts = np.array(starts, dtype=np.int64)
        self._block_series = np.array([p.series_id for p in parts], dtype=np.int64)
        self._block_first = np.array([p.first_number for p in parts], dtype=np.int64)
        self._spans = spans

    def card_index(self, series_id: int, number: int) -> int:
        """The position of a sold card in the detector; DetectionError if it was not sold."""
        found = self._spans.get(series_id, [])
        at = bisect.bisect_right(found, (number, float("inf"), 0)) - 1
        if at >= 0:
            first, count, start = found[at]
            if first <= number < first + count:
                return start + number - first
        raise DetectionError(
            f"card {number} of series {series_id} was not sold in this game",
            code="card_not_sold",
            params={"series": series_id, "number": number},
        )

    def card_ref(self, index: int) -> CardRef:
        """The series and number of the card at ``index``."""
        if not 0 <= index < self.size:
            raise IndexError(f"no card at {index}: the detector holds {self.size}")
        block = int(np.searchsorted(self._starts, index, side="right")) - 1
        number = int(self._block_first[block]) + index - int(self._starts[block])
        return CardRef(int(self._block_series[block]), number)

    def card_refs(self, indices: npt.ArrayLike) -> tuple[Indices, Indices]:
        """Series ids and card numbers of many cards at once, as two arrays."""
        where = np.asarray(indices, dtype=np.int64)
        block = np.searchsorted(self._starts, where, side="right") - 1
        return self._block_series[block], self._block_first[block] + where - self._starts[block]

    def card_cells(self, index: int) -> Cells:
        """The cells of the card at ``index`` (read-only)."""
        if not 0 <= index < self.size:
            raise IndexError(f"no card at {index}: the detector holds {self.size}")
        card: Cells = self._cells[index]
        return card

    def card_check(self, series_id: int, number: int) -> CardCheck:
        """``card_check`` of a sold card against this game's balls (the claim screen, R43)."""
        return card_check(self.rules, self._cells[self.card_index(series_id, number)], self._drawn)

    # -- the draw ----------------------------------------------------------------------------

    @property
    def drawn(self) -> tuple[int, ...]:
        """The balls drawn so far, in order."""
        return tuple(self._drawn)

    @property
    def count(self) -> int:
        """How many balls have been drawn."""
        return len(self._drawn)

    def draw(self, ball: int) -> BallOutcome:
        """Mark ``ball`` on every card; the targets it completed, per prize still open.

        DetectionError for a number that is not a ball of the game or was drawn already.
        """
        number = check_ball(self.rules.variant, ball)
        if number in self._drawn:
            raise DetectionError(
                f"ball {number} is drawn twice",
                code="ball_repeated",
                params={"ball": number, "balls": geometry(self.rules.variant).balls},
            )
        self._drawn.append(number)
        count = len(self._drawn)
        self._cache.clear()
        self._counts.clear()
        prize_of = self._layout.prize_of
        fresh: list[list[Indices]] = [[] for _ in self.rules.prizes]
        for cards32, targets in self._by_ball[number]:
            cards = cards32.astype(np.intp)
            for t in targets:
                if t in self._skip:
                    continue
                done = self._mark(cards, t)
                if done.size:
                    fresh[prize_of[t]].append(self._keys(done, t, count))
        self._by_ball[number] = []  # never needed again: a ball is drawn once
        new: dict[PrizeKind, Completions] = {}
        for k, prize in enumerate(self.rules.prizes):
            if prize in self._closed:
                continue
            keys = _merge(fresh[k])
            if keys.size:
                self._events[k].append(keys)
            new[prize] = self._decode(prize, keys)
        return BallOutcome(ball=number, count=count, new=MappingProxyType(new))

    def close(self, prize: PrizeKind) -> None:
        """Stop following ``prize``: it was confirmed and the draw resumed, so later claims of it
        are refused (R47). Its holders and counts stay as they are now; the other prizes' balls
        get cheaper (after the 90-ball line, about half).
        """
        k = self._prize_index(prize)
        self._closed.add(prize)
        self._skip = frozenset(self._skip | set(self._layout.by_prize[k]))

    @property
    def closed(self) -> frozenset[PrizeKind]:
        """The prizes no longer followed (``close``)."""
        return frozenset(self._closed)

    def _keys(self, cards: npt.NDArray[np.intp], t: int, at: int | Counts) -> Indices:
        """Sort keys of completions: (at * T + target) * N + card."""
        targets, n = self._key_base
        at64 = at if isinstance(at, int) else at[cards].astype(np.int64)
        return ((at64 * targets + t) * n + cards).astype(np.int64, copy=False)

    def _decode(self, prize: PrizeKind, keys: Indices) -> Completions:
        """Completions from sorted keys."""
        keys.setflags(write=False)
        return Completions(prize, keys, self._key_base)

    def _mark(self, cards: npt.NDArray[np.intp], t: int) -> npt.NDArray[np.intp]:
        """Take one from target ``t``'s counter on ``cards``; the cards it completed.

        Fancy-indexed assignment is right here because a ball is on a card at most once.
        """
        counter = self._counters[t]
        left = np.take(counter, cards)
        left -= 1
        counter[cards] = left
        k = self._layout.prize_of[t]
        need = self._need[k]
        near = self._near[k]
        if need is None:
            # A one-target prize: every card moved from v + 1 to v.
            for value in range(NEAR + 1):
                step = int(np.count_nonzero(left == value))
                near[value] += step
                if value < NEAR:
                    near[value + 1] -= step
        else:
            # The prize needs the least of its targets. Writing the minimum back to every card
            # is cheaper than picking the cards whose need fell (a mask of random density).
            before = np.take(need, cards)
            after = np.minimum(before, left)
            need[cards] = after
            for value in range(NEAR + 1):
                near[value] += int(np.count_nonzero(after == value)) - int(np.count_nonzero(before == value))
        done: npt.NDArray[np.intp] = cards[left == 0]
        return done

    # -- what the detector knows -------------------------------------------------------------

    def _prize_index(self, prize: PrizeKind) -> int:
        """Where ``prize`` stands in ``rules.prizes``; KeyError if the game does not pay it."""
        try:
            return self.rules.prizes.index(prize)
        except ValueError:
            raise KeyError(prize) from None

    def completions(self, prize: PrizeKind) -> Completions:
        """Every target of ``prize`` completed so far, on any card, by (at, target, card)."""
        k = self._prize_index(prize)
        if k not in self._cache:
            events = self._events[k]
            keys = events[0] if len(events) == 1 else np.concatenate(events or [_NO_KEYS])
            self._cache[k] = self._decode(prize, keys)
        return self._cache[k]

    def holders(self, prize: PrizeKind) -> Indices:
        """Positions of every card that holds ``prize`` now, ascending (R46, R49)."""
        return np.unique(self.completions(prize).cards)

    def winners(self, prize: PrizeKind) -> tuple[Winner, ...]:
        """Every card that holds ``prize`` now, earliest first, with the targets it completed."""
        found = self.completions(prize)
        targets = self.rules.targets
        hits: dict[int, list[Hit]] = {}
        for card, t, at in zip(found.cards.tolist(), found.targets.tolist(), found.at.tolist(), strict=True):
            hits.setdefault(card, []).append(Hit(targets[t], at))
        series, numbers = self.card_refs(list(hits))
        return tuple(
            Winner(CardRef(int(s), int(n)), card, prize, tuple(h))
            for (card, h), s, n in zip(hits.items(), series.tolist(), numbers.tolist(), strict=True)
        )

    def missing(self, prize: PrizeKind) -> Counts:
        """For each card, the numbers it still needs for ``prize`` (read-only; 0 = holds it)."""
        k = self._prize_index(prize)
        need = self._need[k]
        if need is None:
            need = self._counters[self._layout.by_prize[k][0]]
        return _readonly(need)  # type: ignore[return-value]

    def target_missing(self, target: int) -> Counts:
        """For each card, the numbers still missing from target ``rules.targets[target]`` (read-only)."""
        return _readonly(self._counters[target])  # type: ignore[return-value]

    def need_counts(self, prize: PrizeKind, most: int | None = None) -> tuple[int, ...]:
        """How many cards need 0, 1, 2, ... ``most`` more numbers for ``prize`` (default: up to all).

        ``[0]`` holds the prize, ``[1]`` is "one to go". Up to ``NEAR`` the counts are kept after
        every ball; asking beyond counts every card (once per ball).
        """
        k = self._prize_index(prize)
        top = max(self._layout.capacity[t] for t in self._layout.by_prize[k])
        most = top if most is None else most
        if most < 0:
            raise ValueError(f"most must be 0 or more, not {most}")
        if most <= NEAR:
            return tuple(self._near[k][: most + 1])
        if k not in self._counts:
            counts = np.bincount(self.missing(prize), minlength=top + 1)
            self._counts[k] = tuple(int(v) for v in counts)
        counts_all = self._counts[k]
        return counts_all[: most + 1] + (0,) * (most + 1 - len(counts_all))

    def one_to_go(self, prize: PrizeKind) -> int:
        """How many cards need one more number for ``prize``."""
        return self._near[self._prize_index(prize)][1]


_NO_KEYS = np.zeros(0, dtype=np.int64)


def _merge(pieces: list[Indices]) -> Indices:
    """Sorted pieces of keys as one sorted array.

    Pieces of different targets come in target order and need no sort (a 90-ball line); only
    pieces of one target from different cells (the full card) interleave.
    """
    if not pieces:
        return _NO_KEYS
    if len(pieces) == 1:
        return pieces[0]
    keys = np.concatenate(pieces)
    if all(int(a[-1]) < int(b[0]) for a, b in pairwise(pieces)):
        return keys
    keys.sort()
    return keys
