"""A whole session run through the services the screens use (``manage.py simulate_session``).

Cashiers sell concurrently (one thread each, each with its own database connection), sales
close with the R40 announcement, the system draws electronically, the prizes the system
detects are confirmed in order after each ball (the console's automatic mode), the jackpot
is decided, and a cashier pays every winning card (with ``--double-cards``, after the second
game of the pair, R45). ``--seed`` fixes the card sets and the
sizes of the sales; the balls always come from the draw's CSPRNG, as in a real game.

Everything else an acta records can be asked for (R61): the four variants in turn
(``--variants``), a game suspended before its first ball and annulled with its refunds
(``--annul``, R55), a player's complaint with the decision taken on it (``--complaint``,
R61 j)), and a ball replaced during the session (``--replace-ball``, R26: the hall's ball sets
are then registered, checked at the session's start and end, R23, and named for each draw).
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

from actas import services as acta_services
from actas.models import ActaNote
from bingo.ballsets import services as ballset_services
from bingo.common.roles import Role
from bingo.draw import detection
from bingo.draw import services as draw_services
from bingo.engine import ALGORITHM_CARDS, SERIES_SIZES
from bingo.engine.gamestate import SUSPENSION_LIMIT
from bingo.engine.variants import Variant
from bingo.games import services
from bingo.jackpot import services as jackpot_services
from bingo.models import DrawMode, Game, GameState, PrizeWinner, Session
from bingo.sales import services as sales_services
from cards import selectors as card_selectors
from cards import services as card_services
from cards.models import CardSet, Series
from halls.models import BallSet, CashDesk, Hall, Room, StaffMembership

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
    #: The variants played in turn, game by game; empty: ``variant`` in every game.
    variants: tuple[Variant, ...] = ()
    #: R55, R57: this game is suspended before its first ball and annulled, its cards refunded.
    annul: int | None = None
    #: R61 j): a player's complaint about this game, and the decision taken on it, in the acta.
    complaint: int | None = None
    #: R22-R26: draw with the hall's checked ball sets, and replace one ball during the session.
    replace_ball: bool = False

    def variant_of(self, number: int) -> Variant:
        """The variant of game ``number`` (the second game of double cards plays the first's)."""
        if not self.variants:
            return self.variant
        if self.double_cards and number % 2 == 0:
            number -= 1
        return self.variants[(number - 1) % len(self.variants)]


def _staff(hall: Hall, name: str, role: Role) -> User:
    user, _created = User.objects.get_or_create(username=name)
    StaffMembership.objects.get_or_create(hall=hall, user=user, role=role.value)
    return user


def session_simulate(*, plan: SimulationPlan) -> Session:
    """Run ``plan`` from the sale of the first card to the payment of the last prize; the session."""
    if plan.games < 1 or plan.cashiers < 1 or plan.cards < 1:
        raise ValidationError("games, cashiers and cards must each be at least 1")
    for name, number in (("annul", plan.annul), ("complaint", plan.complaint)):
        if number is not None and not 1 <= number <= plan.games:
            raise ValidationError(f"{name}: the session's games are numbered 1 to {plan.games}")
    if plan.annul is not None and plan.double_cards:
        raise ValidationError("annul: not with double cards (their second game would play refunded cards)")
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
    in_play = list(dict.fromkeys(plan.variant_of(n) for n in range(1, plan.games + 1)))
    card_sets = {variant: card_set_ready(variant, plan.cards, rng.getrandbits(256)) for variant in in_play}
    now = timezone.now()
    session = services.session_open(
        room=room,
        starts_at=now,
        scheduled_end=now + timedelta(hours=4),
        user=None,
        jackpot_balls=plan.jackpot_balls,
    )
    ball_sets = _ball_sets_checked(hall, session, in_play, caller) if plan.replace_ball else {}
    for number in range(1, plan.games + 1):
        variant = plan.variant_of(number)
        ball_set = ball_sets.get(variant)
        game = services.game_create(session=session, variant=variant.value)
        if plan.double_cards and number % 2 == 0:
            # R15: the second game of the previous game's double cards; nothing is sold.
            game = services.game_play_doubles(game=game, user=manager)
            draw_to_the_end(game, caller, ball_set)
            pay_every_winner([game.doubles_of_id, game.pk], desks[0], cashiers[0])  # R45
            _after_the_game(plan, number, session, game, caller, manager, ball_set, rng)
            continue
        series = card_services.series_create(
            hall=hall,
            order_number=number,
            card_set=card_sets[variant],
            price=PRICE,
            back_colour="#1F4E79",
            face_colour="#FFFFFF",
            authorization="" if _standard(plan.cards) else "simulation",
            double=plan.double_cards and number < plan.games,  # an odd last game sells single cards
            user=None,
        )
        game = services.game_open_sales(game=game, series=[series], user=manager)
        sell_concurrently(game, desks, cashiers, plan.cards, rng)
        services.game_close_sales(game=game, user=manager)
        if number == plan.annul:
            _suspend_and_annul(game, caller, manager, ball_set)
        else:
            draw_to_the_end(game, caller, ball_set)
            if not series.double:
                pay_every_winner([game.pk], desks[0], cashiers[0])
        _after_the_game(plan, number, session, game, caller, manager, ball_set, rng)
    for ball_set in ball_sets.values():
        ballset_services.ball_set_check_record(ball_set=ball_set, session=session, phase="end", user=caller)
    services.session_close(session=session, user=manager)
    return session


def card_set_ready(variant: Variant, size: int, seed: int) -> CardSet:
    """The card set of ``variant`` made from ``seed``, generated here (not by a worker)."""
    # The same seed gives the same cards (R3): a second run reuses the set the first one made.
    card_set = CardSet.objects.filter(
        variant=variant.value, size=size, seed=str(seed), algorithm=ALGORITHM_CARDS
    ).first() or card_services.card_set_request(
        variant=variant.value, size=size, seed=seed, algorithm=ALGORITHM_CARDS, user=None
    )
    # A large set is queued for a worker; generating it here first leaves the task nothing to do.
    return card_services.card_set_generate(card_set_id=card_set.pk)


def _ball_sets_checked(
    hall: Hall, session: Session, variants: list[Variant], caller: User
) -> dict[Variant, BallSet]:
    """A ball set of the hall for each variant (R22), every ball checked at the session's start
    (R23): the electronic draws name it as their fallback, and it counts their games (R25)."""
    ball_sets = {}
    for variant in variants:
        ball_set = ballset_services.ball_set_create(
            hall=hall, serial_number=f"SIM-{variant.value}", size=int(variant.value)
        )
        ballset_services.ball_set_check_record(ball_set=ball_set, session=session, phase="start", user=caller)
        ball_sets[variant] = ball_set
    return ball_sets


def _suspend_and_annul(game: Game, caller: User, manager: User, ball_set: BallSet | None) -> Game:
    """R55: the mechanism fails before the first ball; the game is suspended and, unsolved,
    annulled with every card refunded."""
    game = draw_services.game_start_draw(game=game, user=caller, mode=DrawMode.ELECTRONIC, ball_set=ball_set)
    draw_services.game_suspend(game=game, user=caller, reason="the blower does not start")
    # A simulation does not wait out R55's 15 minutes: the suspension is dated back instead.
    Game.objects.filter(pk=game.pk).update(suspended_at=timezone.now() - SUSPENSION_LIMIT)
    return draw_services.game_annul(
        game=game, user=manager, reason="the blower could not be repaired within 15 minutes"
    )


def _after_the_game(
    plan: SimulationPlan,
    number: int,
    session: Session,
    game: Game,
    caller: User,
    manager: User,
    ball_set: BallSet | None,
    rng: random.Random,
) -> None:
    """What happens once game ``number`` has ended, as ``plan`` asks: a player's complaint with
    the decision taken on it (R61 j)), and one ball of the set that drew it replaced (R26)."""
    if number == plan.complaint:
        acta_services.acta_note_record(
            session=session,
            kind=ActaNote.Kind.COMPLAINT,
            user=caller,
            text="A player says ball 12 was called before it was shown on the display.",
            decision="The display's record shows it was shown first; the prizes stand.",
            game=game,
        )
    if ball_set is not None and number == max(1, plan.games // 2):
        ballset_services.ball_replace(
            ball_set=ball_set,
            ball_number=rng.randint(1, ball_set.size),
            reason="cracked",
            session=session,
            user=manager,
        )


def _standard(size: int) -> bool:
    return size in SERIES_SIZES.values()


def sell_concurrently(
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


def draw_to_the_end(game: Game, caller: User, ball_set: BallSet | None = None) -> None:
    """Draw until the bingo, confirming after each ball every prize the system detects, in
    order (R44: the other prizes before the bingo)."""
    game = draw_services.game_start_draw(game=game, user=caller, mode=DrawMode.ELECTRONIC, ball_set=ball_set)
    rules = detection.game_rules(game)
    # This loop is the game's only awarder: what it awarded is what the game has.
    awarded: set[str] = set()
    position = 0
    while True:
        position += 1
        draw_services.game_draw_ball(game=game, user=caller, position=position)
        held = detection.detector_use(game, lambda d: [p for p in rules.prizes if d.holders(p).size])
        due = [p for p in rules.prizes if p in held and p.value not in awarded]
        for prize in due:
            draw_services.prize_award(game=game, user=caller, kind=prize.value)
            awarded.add(prize.value)
        if due:  # only an award ends the game (R44: the bingo)
            game.refresh_from_db(fields=["state"])
            if game.state != GameState.DRAWING.value:
                return


def pay_every_winner(game_ids: list[int | None], desk: CashDesk, cashier: User) -> None:
    """A cashier pays at ``desk`` every winning card of ``game_ids`` not paid yet (R50)."""
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
