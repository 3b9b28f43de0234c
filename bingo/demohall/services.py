"""The demo hall in play (``make run``, issue 24): what a newcomer finds when they log in.

``demo_setup`` creates the accounts, the hall and its online room; ``demo_hall_play_ensure``
then plays the hall up to a moment worth opening, through the services the screens use:

* hall series of every variant in stock (R16), so «Abrir as vendas» offers each;
* the desk's drawer opened with a float before the first sale, so the cashier's close-out
  counts everything the demo sold and paid there;
* a finished session in the first room: two games sold at the desk, drawn, their prizes
  awarded, the first game's paid and the second's left for the cashier to pay by scanning the
  card (``DemoPlay.prize_due``: the card's QR payload), the session closed, its acta complete
  (R59-R61);
* in the first room a session under way whose first game has sold its cards and is ready to
  draw (the caller's first move), and in the second room a game on sale (the cashier's);
* a few simulated players in the online room (``demo_bots_buy``, run by Celery beat under
  ``make run``) who buy cards in every game on sale, so the lobby shows real prize values.

Run again, it adds nothing: the sessions are played once; the bots buy once per game.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_CEILING, Decimal

from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from bingo.autodraw.services import system_user
from bingo.drawers.services import drawer_open
from bingo.engine import SERIES_SIZES
from bingo.engine.variants import Variant
from bingo.games import services as game_services
from bingo.games.simulation import (
    PRICE,
    card_set_ready,
    draw_to_the_end,
    pay_every_winner,
)
from bingo.models import DrawerShift, Game, GameState, OnlineRoom, Player, PrizeWinner, Sale, Session
from bingo.online.selectors.rooms import game_on_sale, room_game_list
from bingo.online.services import online_buy
from bingo.players import selectors as player_selectors
from bingo.players.services import player_email_mark_verified, wallet_post
from bingo.sales import services as sales_services
from cards import selectors as card_selectors
from cards import services as card_services
from cards.models import Series
from cards.payload import card_check_url
from halls import services as hall_services
from halls.models import CashDesk, Hall, Room

#: The demo's card sets: a standard series (R16) of each variant, from fixed seeds so that a
#: second run finds the sets the first made.
SERIES_CARDS = SERIES_SIZES["A"]
SEEDS = {Variant.B90: 9001, Variant.B80: 8001, Variant.B75: 7501, Variant.B30: 3001}
SECOND_ROOM = "Salão 2"
#: Cards sold at the desk in each game the demo plays or leaves selling.
CARDS_SOLD = 30
NOTE = Decimal("500")
#: The demo desk's beginning bank: change for the notes players pay with.
OPENING_FLOAT = Decimal("5000.00")
#: The simulated online players (no password: no one logs in as them).
BOTS = (("demo-ana", "Ana"), ("demo-rui", "Rui"), ("demo-eva", "Eva"))
BOT_CREDIT = Decimal("500.00")
BOT_TOP_UP_BELOW = Decimal("200.00")
BOT_CARDS_MAX = 3


@dataclass(frozen=True)
class DemoStaff:
    manager: User
    cashier: User
    caller: User


@dataclass(frozen=True)
class DemoPlay:
    """What the demo hall holds for each role to try first."""

    finished: Session
    ready_to_draw: Game
    selling: Game
    #: A winning card of the finished session not paid yet: its QR code's payload, as a scanner
    #: types it at the desk (R50); None once every prize is paid.
    prize_due: str | None


def _series(hall: Hall, variant: Variant, colour: str) -> Series:
    """A new hall series (not online) of ``variant``, numbered after the hall's last."""
    order = (Series.objects.filter(hall=hall).aggregate(n=Max("order_number"))["n"] or 0) + 1
    return card_services.series_create(
        hall=hall,
        order_number=order,
        card_set=card_set_ready(variant, SERIES_CARDS, SEEDS[variant]),
        price=PRICE,
        back_colour=colour,
        face_colour="#FFFFFF",
        user=None,
    )


def _sold_game(session: Session, variant: Variant, desk: CashDesk, staff: DemoStaff, seed: int) -> Game:
    """A new game of ``session`` with a series of ``variant`` on sale and cards sold at ``desk``."""
    game = game_services.game_create(session=session, variant=variant.value)
    series = _series(session.room.hall, variant, "#1F4E79")
    game = game_services.game_open_sales(game=game, series=[series], user=staff.manager)
    rng = random.Random(seed)  # noqa: S311 (the sizes of the demo's sales decide no game)
    left = CARDS_SOLD
    while left:
        quantity = min(left, rng.randint(1, 6))
        # Players pay with notes of 500: the cashier gives change (R39).
        cash = (PRICE * quantity / NOTE).to_integral_value(rounding=ROUND_CEILING) * NOTE
        sales_services.sale_make(
            game=game, quantity=quantity, cash_desk=desk, cashier=staff.cashier, cash_received=cash,
            request_key=uuid.uuid4().hex,
        )  # fmt: skip
        left -= quantity
    return game


def _session_from_now(room: Room, staff: DemoStaff) -> Session:
    """A session of ``room`` opened now by the demo manager, for the next four hours."""
    now = timezone.now()
    return game_services.session_open(
        room=room, starts_at=now, scheduled_end=now + timedelta(hours=4), user=staff.manager
    )


def _hall_room(hall: Hall) -> Room:
    return Room.objects.filter(hall=hall, online__isnull=True).order_by("pk").first() or (
        hall_services.room_create(hall=hall, name="Salão 1")
    )


@transaction.atomic
def demo_hall_play_ensure(*, hall: Hall, staff: DemoStaff) -> DemoPlay:
    """Play the demo hall up to the moment the module's docstring describes, once: all of it or,
    if anything fails, none of it."""
    first_room = _hall_room(hall)
    second_room = Room.objects.filter(hall=hall, name=SECOND_ROOM).first() or hall_services.room_create(
        hall=hall, name=SECOND_ROOM
    )
    desk = CashDesk.objects.filter(hall=hall).order_by("pk").first() or hall_services.cash_desk_create(
        hall=hall, name="Caixa 1"
    )
    played = Session.objects.filter(room=first_room, ended_at__isnull=False).order_by("pk").first()
    if played is None:
        # The desk's drawer is open from the first sale, so the cashier's close-out counts them.
        if not DrawerShift.objects.filter(cash_desk=desk).exists():
            drawer_open(cash_desk=desk, cashier=staff.cashier, opening_float=OPENING_FLOAT)
        now = timezone.now()
        played = game_services.session_open(
            room=first_room, starts_at=now - timedelta(hours=3), scheduled_end=now - timedelta(hours=1),
            user=staff.manager,
        )  # fmt: skip
        for number, variant in enumerate((Variant.B90, Variant.B75), start=1):
            game = _sold_game(played, variant, desk, staff, seed=number)
            game_services.game_close_sales(game=game, user=staff.manager)
            draw_to_the_end(game, staff.caller)
            if number == 1:  # the second game's prizes are the cashier's to pay
                pay_every_winner([game.pk], desk, staff.cashier)
        game_services.session_close(session=played, user=staff.manager)
    ready = Game.objects.filter(session__room=first_room, session__ended_at__isnull=True).first()
    if ready is None:
        ready = _sold_game(_session_from_now(first_room, staff), Variant.B90, desk, staff, seed=3)
        ready = game_services.game_close_sales(game=ready, user=staff.manager)
    selling = Game.objects.filter(session__room=second_room, session__ended_at__isnull=True).first()
    if selling is None:
        selling = _sold_game(_session_from_now(second_room, staff), Variant.B90, desk, staff, seed=4)
    # R16: a series of every variant in stock, for the games the manager adds.
    for variant in Variant:
        in_stock = Series.objects.filter(
            hall=hall, online=False, card_set__variant=variant.value, games__isnull=True
        )
        if not in_stock.exists():
            _series(hall, variant, "#7B1FA2")
    return DemoPlay(finished=played, ready_to_draw=ready, selling=selling, prize_due=_prize_due(played))


def _prize_due(session: Session) -> str | None:
    """The QR payload of the first winning card of ``session`` not paid yet, if any."""
    winner = (
        PrizeWinner.objects.filter(prize__game__session=session, payment__isnull=True)
        .select_related("series")
        .order_by("series_id", "card_number")
        .first()
    )
    if winner is None:
        return None
    code = card_selectors.card_check_code(series=winner.series, number=winner.card_number)
    return card_check_url(series_id=winner.series_id, number=winner.card_number, code=code)


@transaction.atomic
def demo_bots_ensure(*, hall: Hall) -> list[Player]:
    """The demo's simulated online players of ``hall``, each with credit in the wallet."""
    bots = []
    system = system_user(hall=hall)
    for username, name in BOTS:
        user, created = User.objects.get_or_create(username=username, defaults={"first_name": name})
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        elif user.has_usable_password():
            continue  # a person who took the name: never theirs to play with, nor to credit
        player = Player.objects.filter(user=user).first() or Player.objects.create(
            user=user, hall=hall, birth_date=date(1985, 5, 5), adult_confirmed_at=timezone.now()
        )
        player_email_mark_verified(player=player)  # no mailbox: credited all the same (issue 25)
        wallet_post(
            player=player, kind="deposit", amount=BOT_CREDIT, key="demo-credit", recorded_by=system,
            reference="demo",
        )  # fmt: skip
        bots.append(player)
    return bots


def demo_bots_buy(*, rng: random.Random | None = None) -> int:
    """Each simulated player buys 1 to 3 cards once in every online game on sale in their hall
    (R85, through ``online_buy`` as a player's purchase goes); a wallet running low is topped up
    first. A purchase refused (sales just closed, a limit) is skipped. The cards bought."""
    rng = rng or random.Random()  # noqa: S311 (how many cards a bot buys decides no game)
    # The bots: their names, and no usable password (Django's mark, "!"): a person who
    # registered one of the names is no bot.
    bots = list(
        Player.objects.filter(
            user__username__in=[u for u, _n in BOTS], user__password__startswith=UNUSABLE_PASSWORD_PREFIX
        ).select_related("hall")
    )
    bought = 0
    for hall_id in sorted({bot.hall_id for bot in bots}):
        players = [bot for bot in bots if bot.hall_id == hall_id]
        for online_room in OnlineRoom.objects.filter(room__hall_id=hall_id, active=True).order_by("pk"):
            for game in room_game_list(online_room=online_room):
                if game.state == GameState.SELLING and game_on_sale(game=game):
                    bought += _bots_buy_in(game, players, rng)
    return bought


def _bots_buy_in(game: Game, bots: list[Player], rng: random.Random) -> int:
    """The bots of ``bots`` that have no cards of ``game`` buy some; the cards bought."""
    bought = 0
    buyers = set(Sale.objects.filter(game=game, buyer__in=bots).values_list("buyer_id", flat=True))
    for bot in bots:
        if bot.pk in buyers:
            continue
        if player_selectors.wallet_balance(player=bot) < BOT_TOP_UP_BELOW:
            wallet_post(
                player=bot, kind="deposit", amount=BOT_CREDIT, key=f"demo-top-up-{game.pk}",
                recorded_by=system_user(hall=bot.hall), reference="demo",
            )  # fmt: skip
        quantity = rng.randint(1, BOT_CARDS_MAX)
        try:
            online_buy(player=bot, game=game, quantity=quantity, key=f"demo-bot-{game.pk}")
        except ValidationError:
            continue
        bought += quantity
    return bought
