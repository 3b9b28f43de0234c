"""Winner detection: which cards hold which prize, and how close the others are (R43-R49, R66-R84).

A game's ``PrizeRules`` say which prizes it pays and what wins each one; ``rules.targets`` spells
them out as *targets*, the sets of cells a card must have marked (every row of the card, the
four corners, the full card, a pattern...). A card holds a prize when every number in one of
that prize's targets has been drawn in this game, whenever that happened (R49). Blank cells
(90-ball) carry no number and free cells (the 75-ball centre, R72) count as marked, so neither
is ever waited for.

Two tools:

* ``card_check`` checks one claimed card against the balls drawn: its marks, which prizes it
  holds and at which ball each target completed. It is what the caller's screen shows (R43).
* ``Detector`` follows every card sold in a game, built once when sales close and updated per
  ball. For each target of each card it keeps a counter of the numbers still missing; an index
  from ball number to the cards holding it lets a ball touch only those counters (for 90-ball
  cards one ball touches about one card in six), so a ball costs time in proportion to the
  cards that hold it, not to all cards sold. After each ball it knows, exactly, every card that
  holds each prize (the R46 "Mais alguma linha?" check) and how many cards are 1, 2, ... numbers
  away from it ("one to go" displays).

One module per concern, each importing only those above it; import the public names from here:

* ``rules`` — ``PrizeRules`` and their targets, patterns (R5, R66-R67, R72-R75, R83-R84);
* ``inputs`` — the cards and balls detection works with, ``DetectionError`` (R14, R65, R71-R72, R82);
* ``layout`` — the rules flattened for numpy, worked out over a block of cards (R49);
* ``card`` — ``card_check``, one claimed card (R43, R49, R72);
* ``detector`` — ``Detector``, every card sold followed ball by ball (R44, R46-R49).
"""

from bingo.engine.detection.card import CardCheck, PrizeCheck, TargetCheck, card_check
from bingo.engine.detection.detector import (
    NEAR,
    BallOutcome,
    CardRef,
    Completions,
    Detector,
    Hit,
    SoldCards,
    Winner,
)
from bingo.engine.detection.inputs import DetectionError
from bingo.engine.detection.layout import Counts, Indices
from bingo.engine.detection.rules import (
    PRIZE_ORDER,
    VARIANT_PRIZES,
    Cell,
    PrizeRules,
    PrizeRulesError,
    Target,
    parse_pattern,
    pattern_text,
    prize_rules,
)

__all__ = [
    "NEAR",
    "PRIZE_ORDER",
    "VARIANT_PRIZES",
    "BallOutcome",
    "CardCheck",
    "CardRef",
    "Cell",
    "Completions",
    "Counts",
    "DetectionError",
    "Detector",
    "Hit",
    "Indices",
    "PrizeCheck",
    "PrizeRules",
    "PrizeRulesError",
    "SoldCards",
    "Target",
    "TargetCheck",
    "Winner",
    "card_check",
    "parse_pattern",
    "pattern_text",
    "prize_rules",
]
