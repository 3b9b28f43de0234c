"""Winner detection for the games app: each game's rules and a detector over its sold cards.

The engine's ``Detector`` (bingo/engine/detection/detector.py) indexes every card sold in a game and
follows the balls. Building it reads the card sets, so each process keeps the detectors of the
games it serves and brings them up to date from the balls on record before each use: balls
are insert-only and ordered, so a detector is either a prefix of the truth (draw the rest) or
stale (rebuild). After a restart the first use rebuilds it from the database: the game resumes
exactly where it was.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import TypeVar

from bingo.engine import Variant
from bingo.engine.detection import Cell, Detector, PrizeRules, SoldCards, pattern_text, prize_rules
from bingo.engine.patterns import pattern_choose, pattern_key_of
from bingo.engine.prizes import PrizeKind
from bingo.engine.variants import LineKind
from bingo.models import Game, GameSeries
from cards.selectors import card_set_cells

#: Detectors kept per process (a million-card game takes some tens of MB).
KEEP = 4

_detectors: OrderedDict[int, Detector] = OrderedDict()
_lock = threading.Lock()
T = TypeVar("T")


def rules_from(
    variant: str,
    prizes: list[str],
    line_kinds: list[str] | None,
    pattern: str | Iterable[Cell] | None,
    pattern_key: str | None = None,
) -> PrizeRules:
    """A game's rules from their parts (PrizeRulesError when the regulation does not allow them).

    ``pattern_key`` names a pattern of the library (bingo/engine/patterns.py) or ``custom`` for
    the cells ``pattern`` (or their text); neither: the full card (R73 a))."""
    chosen = Variant(variant)
    cells = pattern_choose(pattern_key, pattern)
    kinds = None if line_kinds is None else [LineKind(k) for k in line_kinds]
    return prize_rules(chosen, [PrizeKind(p) for p in prizes], line_kinds=kinds, pattern=cells)


def rules_json(rules: PrizeRules) -> dict[str, object]:
    """What ``Game.win_rules`` stores: the line kinds, and the 75-ball pattern's cells (what the
    detection reads) with its library key or ``custom`` (what the acta and the screens name)."""
    if rules.pattern is None:
        return {"line_kinds": [k.value for k in rules.line_kinds], "pattern": None}
    return {
        "line_kinds": [k.value for k in rules.line_kinds],
        "pattern": pattern_text(rules.pattern, rules.variant),
        "pattern_key": pattern_key_of(rules.pattern),
    }


def game_rules(game: Game) -> PrizeRules:
    """What wins in ``game``: the prizes of its plan, the line kinds and pattern it was set up with."""
    stored = game.win_rules or {}
    return rules_from(game.variant, list(game.prize_plan), stored.get("line_kinds"), stored.get("pattern"))


def _blocks(game: Game) -> list[SoldCards]:
    entries = GameSeries.objects.filter(game=game, last_number__isnull=False).select_related(
        "series__card_set"
    )
    blocks = []
    for entry in entries.order_by("position"):
        cells = card_set_cells(entry.series.card_set)
        blocks.append(
            SoldCards(entry.series_id, entry.start_number, cells[entry.start_number - 1 : entry.last_number])
        )
    return blocks


def detector_use(game: Game, read: Callable[[Detector], T]) -> T:
    """``read(detector)`` on the detector of ``game`` with every ball on record drawn.

    ``read`` runs under the process's detector lock, so no other thread moves the detector
    while it reads; read what you need and return it (not the detector).
    """
    kinds = {p.value for p in PrizeKind}
    with _lock:
        # Read under the lock: a reader holding older balls must not wind a shared detector
        # back (a rebuild of a million cards) after a newer reader moved it forward.
        drawn = list(game.balls.order_by("position").values_list("number", flat=True))
        # R47: an awarded prize is no longer followed (its later balls cost nothing).
        awarded = {PrizeKind(k) for k in game.prizes.values_list("kind", flat=True) if k in kinds}
        detector = _detectors.get(game.pk)
        if detector is None or list(detector.drawn) != drawn[: detector.count]:
            detector = Detector(game_rules(game), _blocks(game), drawn)
        else:
            for ball in drawn[detector.count :]:
                detector.draw(ball)
        for prize in (awarded & set(detector.rules.prizes)) - detector.closed:
            detector.close(prize)
        _detectors[game.pk] = detector
        _detectors.move_to_end(game.pk)
        while len(_detectors) > KEEP:
            _detectors.popitem(last=False)
        return read(detector)


def forget(game_id: int | None = None) -> None:
    """Drop the detectors kept (tests, whose databases reuse ids)."""
    with _lock:
        if game_id is None:
            _detectors.clear()
        else:
            _detectors.pop(game_id, None)
