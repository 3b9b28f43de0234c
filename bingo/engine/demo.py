"""A demo game's draw and outcome (R102, PT-803/43-44): the same rules as a real game, played in
demo credits by one player against simulated cards.

``demo_draw`` empties the drum in a random order (``next_ball`` over ``rng``: production passes
``secrets.SystemRandom()``). ``demo_outcome`` finds, with the detection engine (``card_check``),
who wins each prize of the plan and when: the first card or cards to complete it, shared in
equal parts (R6); a prize not completed by the ball that completes the first bingo is not
awarded, and the game ends on that ball (R44). The prizes are the plan's shares of all the cards'
stakes (R7, no jackpot: demo credits never feed it), in whole credits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from bingo.engine.cardset import Cells
from bingo.engine.detection import PrizeRules, card_check
from bingo.engine.draw import Chooser, next_ball
from bingo.engine.prizes import PrizeKind, PrizePlan, prize_amounts, share
from bingo.engine.variants import Variant, geometry

#: Demo prizes are paid in whole credits.
CREDIT = Decimal(1)


@dataclass(frozen=True)
class DemoPrize:
    """One prize of a demo game: its amount, the ball count it was won at, the winning cards
    (indexes into the game's cards) and each one's part."""

    prize: PrizeKind
    amount: Decimal
    at: int
    winners: tuple[int, ...]
    each: Decimal


@dataclass(frozen=True)
class DemoOutcome:
    """What a demo game plays: the balls to its end (the first bingo) and the prizes won."""

    balls: tuple[int, ...]
    prizes: tuple[DemoPrize, ...]

    def won_by(self, cards: range) -> Decimal:
        """What the cards ``cards`` (indexes) win in all."""
        return sum((p.each for p in self.prizes for w in p.winners if w in cards), Decimal(0))


def demo_draw(variant: Variant, rng: Chooser) -> tuple[int, ...]:
    """Every ball of ``variant`` in the order ``rng`` draws them, one at a time from the drum."""
    drawn: list[int] = []
    for _ in range(geometry(variant).balls):
        drawn.append(next_ball(variant, drawn, rng))
    return tuple(drawn)


def demo_outcome(
    rules: PrizeRules, plan: PrizePlan, cards: Sequence[Cells], balls: Sequence[int], card_price: int
) -> DemoOutcome:
    """The prizes of a demo game of ``cards`` at ``card_price`` credits each over ``balls``
    (the whole drum), and the balls up to the first bingo."""
    if not cards:
        raise ValueError("a demo game plays at least one card")
    if isinstance(card_price, bool) or not isinstance(card_price, int) or card_price < 1:
        raise ValueError(f"a demo card costs a whole number of credits above 0, not {card_price!r}")
    amounts = prize_amounts(plan, Decimal(card_price * len(cards)), jackpot_active=False, quantum=CREDIT)
    checks = [card_check(rules, card, balls) for card in cards]

    def first(kind: PrizeKind) -> tuple[int, tuple[int, ...]] | None:
        times = [c.prize(kind).completed_at for c in checks]
        done = [t for t in times if t is not None]
        if not done:
            return None
        at = min(done)
        return at, tuple(i for i, t in enumerate(times) if t == at)

    bingo = first(PrizeKind.BINGO)
    if bingo is None:
        raise ValueError("the balls given do not complete any card")
    end = bingo[0]
    prizes = []
    for kind, amount in amounts.amounts:
        found = first(kind)
        if found is None or found[0] > end:
            continue
        at, winners = found
        each, _remainder = share(amount, len(winners), CREDIT)
        prizes.append(DemoPrize(prize=kind, amount=amount, at=at, winners=winners, each=each))
    prizes.sort(key=lambda p: (p.at, p.prize is PrizeKind.BINGO))
    return DemoOutcome(balls=tuple(balls[:end]), prizes=tuple(prizes))
