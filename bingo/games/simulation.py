"""A whole session run through the services the screens use (``manage.py simulate_session``).

Cashiers sell concurrently (one thread each, each with its own database connection), sales
close with the R40 announcement, the system draws electronically, the prizes the system
detects are confirmed in order after each ball (the console's automatic mode), the jackpot
is decided, and a cashier pays every winning card (with ``--double-cards``, after the second
game of the pair, R45). ``--seed`` fixes the card sets and the
sizes of the sales; the balls always come from the draw's CSPRNG, as in a real game.
"""

from __future__ import annotations

import random
import secrets
import threading
import uuid
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import close_old_connections, connection, connections, transaction
from django.utils import timezone

from bingo.common.roles import Role
from bingo.draw import detection
from bingo.draw import services as draw_services
from bingo.engine import ALGORITHM_CARDS, SERIES_SIZES
from bingo.engine.variants import Variant
from bingo.games import services
from bingo.jackpot import services as jackpot_services
from bingo.models import DrawMode, Game, Prize, PrizeWinner, Session
from bingo.sales import services as sales_services
from cards import selectors as card_selectors
from cards import services as card_services
from cards.models import CardSet, Series
from halls.models import CashDesk, Hall, Room, StaffMembership

PRICE = Decimal("100.00")
JACKPOT_BASE = Decimal("10000.00")


@dataclass(frozen=True)
class SimulationPlan:
    """What to simulate."""

    variant: Variant
    games: int
    cashiers: int
    cards: int
    seed: int | None = None
    jackpot_balls: int | None = None
    #: R15: games sell double cards in pairs: each odd game sells them, the next plays them again.
    double_cards: bool = False


def _staff(hall: Hall, name: str, role: Role) -> User:
    user, _created = User.objects.get_or_create(username=name)
    StaffMembership.objects.get_or_create(hall=hall, user=user, role=role.value)
    return user


def session_simulate(*, plan: SimulationPlan) -> Session:
    """Run ``plan`` from the sale of the first card to the payment of the last prize; the session."""
    if plan.games < 1 or plan.cashiers < 1 or plan.cards < 1:
        raise ValidationError("games, cashiers and cards must each be at least 1")
    # Only the card seeds and the sales sizes; the balls come from the draw service's CSPRNG.
    rng = random.Random(plan.seed if plan.seed is not None else secrets.randbits(64))  # noqa: S311
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S-%f")
    with transaction.atomic():
        hall = Hall.objects.create(name=f"Simulação {stamp}", jackpot_active=plan.jackpot_balls is not None)
        room = Room.objects.create(hall=hall, name="Sala 1")
        desks = [CashDesk.objects.create(hall=hall, name=f"Caixa {i + 1}") for i in range(plan.cashiers)]
        cashiers = [_staff(hall, f"sim-{stamp}-caixa-{i + 1}", Role.CASHIER) for i in range(plan.cashiers)]
        caller = _staff(hall, f"sim-{stamp}-locutor", Role.CALLER)
        manager = _staff(hall, f"sim-{stamp}-gerente", Role.MANAGER)
    if plan.jackpot_balls is not None:
        jackpot_services.jackpot_configure(hall=hall, base_value=JACKPOT_BASE, conditions="simulation")
        jackpot_services.jackpot_seed(hall=hall, amount=JACKPOT_BASE, note="simulation")
    seed = rng.getrandbits(256)
    # The same seed gives the same cards (R3): a second run reuses the set the first one made.
    card_set = CardSet.objects.filter(
        variant=plan.variant.value, size=plan.cards, seed=str(seed), algorithm=ALGORITHM_CARDS
    ).first() or card_services.card_set_request(
        variant=plan.variant.value, size=plan.cards, seed=seed, algorithm=ALGORITHM_CARDS, user=None
    )
    # A large set is queued for a worker; generating it here first leaves the task nothing to do.
    card_set = card_services.card_set_generate(card_set_id=card_set.pk)
    now = timezone.now()
    session = services.session_open(
        room=room,
        starts_at=now,
        scheduled_end=now + timedelta(hours=4),
        user=None,
        jackpot_balls=plan.jackpot_balls,
    )
    for number in range(1, plan.games + 1):
        game = services.game_create(session=session, variant=plan.variant.value)
        if plan.double_cards and number % 2 == 0:
            # R15: the second game of the previous game's double cards; nothing is sold.
            game = services.game_play_doubles(game=game, user=manager)
            _draw_to_the_end(game, caller)
            _pay_every_winner([game.doubles_of_id, game.pk], desks[0], cashiers[0])  # R45
            continue
        series = card_services.series_create(
            hall=hall,
            order_number=number,
            card_set=card_set,
            price=PRICE,
            back_colour="#1F4E79",
            face_colour="#FFFFFF",
            authorization="" if _standard(plan.cards) else "simulation",
            double=plan.double_cards and number < plan.games,  # an odd last game sells single cards
            user=None,
        )
        game = services.game_open_sales(game=game, series=[series], user=manager)
        _sell_concurrently(game, desks, cashiers, plan.cards, rng)
        services.game_close_sales(game=game, user=manager)
        _draw_to_the_end(game, caller)
        if not series.double:
            _pay_every_winner([game.pk], desks[0], cashiers[0])
    services.session_close(session=session, user=manager)
    return session


def _standard(size: int) -> bool:
    return size in SERIES_SIZES.values()


def _sell_concurrently(
    game: Game, desks: list[CashDesk], cashiers: list[User], cards: int, rng: random.Random
) -> None:
    """Cashiers sell blocks of 1-6 cards at once, each in a thread of its own, until ``cards``."""
    plan: list[list[int]] = [[] for _ in cashiers]
    left, turn = cards, 0
    while left:
        quantity = min(left, rng.randint(1, 6))
        plan[turn % len(cashiers)].append(quantity)
        left -= quantity
        turn += 1
    errors: list[BaseException] = []

    def sell_one(index: int, quantity: int) -> None:
        sales_services.sale_make(
            game=game,
            quantity=quantity,
            cash_desk=desks[index],
            cashier=cashiers[index],
            cash_received=PRICE * quantity,
            request_key=uuid.uuid4().hex,
        )

    def sell(index: int) -> None:
        try:
            for quantity in plan[index]:
                sell_one(index, quantity)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    if connection.vendor == "sqlite":
        # SQLite takes one writer at a time anyway, and its shared in-memory test database
        # refuses concurrent writers outright: the cashiers take turns in this thread.
        for turn in range(max(len(p) for p in plan)):
            for index, quantities in enumerate(plan):
                if turn < len(quantities):
                    sell_one(index, quantities[turn])
        return
    threads = [threading.Thread(target=sell, args=(i,)) for i in range(len(cashiers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    close_old_connections()
    if errors:
        raise errors[0]


def _draw_to_the_end(game: Game, caller: User) -> None:
    """Draw until the bingo, confirming after each ball every prize the system detects, in
    order (R44: the other prizes before the bingo)."""
    game = draw_services.game_start_draw(game=game, user=caller, mode=DrawMode.ELECTRONIC)
    rules = detection.game_rules(game)
    position = 0
    while True:
        position += 1
        draw_services.game_draw_ball(game=game, user=caller, position=position)
        held = detection.detector_use(game, lambda d: [p for p in rules.prizes if d.holders(p).size])
        awarded = set(Prize.objects.filter(game=game).values_list("kind", flat=True))
        for prize in rules.prizes:
            if prize in held and prize.value not in awarded:
                draw_services.prize_award(game=game, user=caller, kind=prize.value)
        game.refresh_from_db()
        if game.state != "drawing":
            return


def _pay_every_winner(game_ids: list[int | None], desk: CashDesk, cashier: User) -> None:
    cards = (
        PrizeWinner.objects.filter(prize__game__in=game_ids, payment__isnull=True)
        .order_by("series_id", "card_number")
        .values_list("series_id", "card_number")
        .distinct()
    )
    for series_id, number in list(cards):
        series = Series.objects.get(pk=series_id)
        code = card_selectors.card_check_code(series=series, number=number)
        draw_services.prize_pay(
            series=series, card_number=number, check_code=code, cash_desk=desk, cashier=cashier
        )
