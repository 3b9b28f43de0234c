"""The world the API contract run starts from (issue 26, docs/api-contract.md): the demo
(``demo_setup``) plus, for each role, a hall of its own where the happy paths are reachable.

Each role's run logs in with an account of that role in its hall only (``contrato-<role>``), so
the hall rules of the API keep the runs apart: the manager's run closing sales or annulling
games in its hall cannot close the game the cashier's run sells in, nor the player's. Each hall
holds:

* a session whose first game has ended with its prizes awarded and one winning card left
  unpaid (the cashier can pay it), and whose second game is drawing (the caller can draw, check
  claims, award);
* a second room's session whose game is on sale at the desk (the cashier can sell), and a game
  planned, with a series in stock (the manager can open sales);
* a ball set checked at the first session's start (the checks and replacements have a set);
* an online room whose game is on sale for an hour (the player, registered there with credit,
  can buy).

Run as ``python -m tests.contract.world`` with the project's settings; prints, as JSON, each
role's login and the ids its run binds its parameters to. Everything goes through the services
the screens use.
"""

from __future__ import annotations

import json
import os
import secrets
import uuid
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

PRICE = Decimal("10.00")
ROLES = ("manager", "cashier", "caller", "inspector", "player")


def world_build(role: str) -> dict[str, Any]:
    """The hall of ``role``'s run, its account and the ids of what is in it."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from bingo.autodraw.services import online_room_advance
    from bingo.ballsets import services as ballset_services
    from bingo.common.roles import Role, user_roles_set
    from bingo.draw import detection
    from bingo.draw import services as draw_services
    from bingo.engine import ALGORITHM_CARDS
    from bingo.games import services as game_services
    from bingo.models import DrawMode, GameState, Player, PrizeWinner, RoomMode
    from bingo.online import services as online_services
    from bingo.players.services import wallet_post
    from bingo.sales import services as sales_services
    from cards import selectors as card_selectors
    from cards import services as card_services
    from halls import services as hall_services

    user_model = get_user_model()
    hall = hall_services.hall_create(name=f"Contrato {role}")
    room = hall_services.room_create(hall=hall, name="Salão 1")
    second_room = hall_services.room_create(hall=hall, name="Salão 2")
    desk = hall_services.cash_desk_create(hall=hall, name="Caixa 1")

    def staff(name: str, staff_role: Role, password: str | None = None) -> Any:
        user = user_model.objects.create_user(username=name, password=password or secrets.token_urlsafe(16))
        user_roles_set(user=user, roles=[staff_role])
        hall_services.staff_assign(hall=hall, user=user, role=staff_role)
        return user

    # Who builds the world; the run logs in as the role's own account below.
    manager = staff(f"contrato-{role}-gerente", Role.MANAGER)
    cashier = staff(f"contrato-{role}-caixa", Role.CASHIER)
    caller = staff(f"contrato-{role}-locutor", Role.CALLER)
    password = secrets.token_urlsafe(16)
    username = f"contrato-{role}"
    if role == "player":
        account = user_model.objects.create_user(username=username, password=password)
        user_roles_set(user=account, roles=[Role.PLAYER])
        player = Player.objects.create(
            user=account,
            hall=hall,
            birth_date=date(1990, 1, 1),
            adult_confirmed_at=timezone.now(),
            email_verified_at=timezone.now(),
        )
        wallet_post(
            player=player, kind="deposit", amount=Decimal("1000.00"), key="contract", recorded_by=cashier
        )
    else:
        staff(username, Role(role), password)

    card_set = card_services.card_set_request(variant="90", size=90, algorithm=ALGORITHM_CARDS, user=None)
    card_set = card_services.card_set_generate(card_set_id=card_set.pk)
    series = [
        card_services.series_create(
            hall=hall,
            order_number=100 + n,
            card_set=card_set,
            price=PRICE,
            back_colour="#1F4E79",
            face_colour="#FFFFFF",
            user=manager,
        )
        for n in range(4)
    ]

    def sell(game: Any, quantity: int) -> None:
        sales_services.sale_make(
            game=game,
            quantity=quantity,
            cash_desk=desk,
            cashier=cashier,
            cash_received=PRICE * quantity,
            request_key=uuid.uuid4().hex,
        )

    now = timezone.now()
    session = game_services.session_open(
        room=room, starts_at=now, scheduled_end=now + timedelta(hours=6), user=manager
    )
    ball_set = ballset_services.ball_set_create(hall=hall, serial_number="CONTRATO-90", size=90)
    ballset_services.ball_set_check_record(ball_set=ball_set, session=session, phase="start", user=caller)

    # Game 1: every card sold, drawn to the bingo, each prize awarded as the console does.
    ended = game_services.game_create(session=session, variant="90")
    ended = game_services.game_open_sales(game=ended, series=[series[0]], user=manager)
    sell(ended, 90)
    game_services.game_close_sales(game=ended, user=manager)
    ended = draw_services.game_start_draw(game=ended, user=caller, mode=DrawMode.ELECTRONIC)
    rules = detection.game_rules(ended)
    awarded: set[str] = set()
    position = 0
    while ended.state == GameState.DRAWING.value:
        position += 1
        draw_services.game_draw_ball(game=ended, user=caller, position=position)
        held = detection.detector_use(ended, lambda d: [p for p in rules.prizes if d.holders(p).size])
        for prize in [p for p in rules.prizes if p in held and p.value not in awarded]:
            draw_services.prize_award(game=ended, user=caller, kind=prize.value)
            awarded.add(prize.value)
        ended.refresh_from_db(fields=["state"])
    # Every winning card but one is paid: the last is the cashier's to pay.
    winners = list(
        PrizeWinner.objects.filter(prize__game=ended)
        .order_by("series_id", "card_number")
        .values_list("series_id", "card_number")
        .distinct()
    )
    for _series_id, number in winners[:-1]:
        code = card_selectors.card_check_code(series=series[0], number=number)
        draw_services.prize_pay(
            series=series[0], card_number=number, check_code=code, cash_desk=desk, cashier=cashier
        )
    unpaid_number = winners[-1][1]

    # Game 2: sold, closed, a few balls drawn: the caller's game.
    drawing = game_services.game_create(session=session, variant="90")
    drawing = game_services.game_open_sales(game=drawing, series=[series[1]], user=manager)
    sell(drawing, 30)
    game_services.game_close_sales(game=drawing, user=manager)
    drawing = draw_services.game_start_draw(game=drawing, user=caller, mode=DrawMode.ELECTRONIC)
    for position in range(1, 4):
        draw_services.game_draw_ball(game=drawing, user=caller, position=position)

    # A second room's session with a game on sale at the desk, and a game planned.
    other = game_services.session_open(
        room=second_room, starts_at=now, scheduled_end=now + timedelta(hours=6), user=manager
    )
    selling = game_services.game_create(session=other, variant="90")
    selling = game_services.game_open_sales(game=selling, series=[series[2]], user=manager)
    sell(selling, 3)
    planned = game_services.game_create(session=other, variant="90")

    # The online room sells for an hour (its loop is not running during the run).
    online_set = card_services.card_set_request(variant="90", size=90, algorithm=ALGORITHM_CARDS, user=None)
    for order in (200, 201):
        card_services.series_create(
            hall=hall, order_number=order, card_set=online_set, price=PRICE,
            back_colour="#2E7D32", face_colour="#FDD835", online=True, user=None,
        )  # fmt: skip
    online = online_services.online_room_create(
        hall=hall, name="Sala online", mode=RoomMode.CONTINUOUS, ball_interval=Decimal("4")
    )
    online_services.online_room_update(online_room=online, sales_seconds=3600)
    online_room_advance(room_id=online.room_id)
    online_game = (
        online.room.sessions.filter(games__state=GameState.SELLING.value)
        .values_list("games__pk", flat=True)
        .first()
    )
    assert online_game is not None, "the online room opened no game"

    return {
        "username": username,
        "password": password,
        "hall": hall.pk,
        "rooms": [room.pk, second_room.pk, online.room_id],
        "cash_desk": desk.pk,
        "sessions": [session.pk, other.pk],
        "games": [ended.pk, drawing.pk, selling.pk, planned.pk, online_game],
        "series": [s.pk for s in series],
        "series_in_stock": series[3].pk,
        "card_set": card_set.pk,
        "ball_set": ball_set.pk,
        "unpaid": {
            "series": series[0].pk,
            "card_number": unpaid_number,
            "check_code": card_selectors.card_check_code(series=series[0], number=unpaid_number),
        },
    }


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")
    import django

    django.setup()
    print(json.dumps({role: world_build(role) for role in ROLES}))


if __name__ == "__main__":
    main()
