"""The online game loop (bingo/autodraw): the system opens, sells, closes, draws one ball per task,
awards and pays into wallets (R88, R90, R93, R97), with an injected clock and the ball tasks run
by hand."""

from __future__ import annotations

import itertools
import logging
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from actas.models import ActaEntry
from bingo.autodraw import services
from bingo.autodraw.tasks import draw_ball_task
from bingo.common.roles import Role
from bingo.draw import selectors as draw_selectors
from bingo.draw import services as draw_services
from bingo.models import (
    Ball,
    Game,
    OnlineRoom,
    Prize,
    PrizePayment,
    PrizeWinner,
    RoomMode,
    Sale,
    Session,
    WalletEntry,
)
from bingo.players import services as player_services
from bingo.players.selectors import wallet_balance
from cards import services as card_services
from cards.selectors import card_set_cells
from halls.models import StaffMembership
from tests.autodraw.helpers import (
    Clock,
    OnlineHall,
    Tasks,
    close_sales,
    committed,
    online_buy,
    play_to_the_end,
    reconcile,
)
from tests.factories import UserFactory


def _open_continuous(lobby: OnlineHall) -> Game:
    game = committed(lambda: services.online_room_advance(room_id=lobby.room.pk))
    assert game is not None
    return game


# --- the system user ---------------------------------------------------------------------------


def test_the_system_user_is_an_inactive_caller_of_each_hall_that_cannot_log_in(db: None) -> None:
    praia, sal = OnlineHall("Sala Praia"), OnlineHall("Sala Sal")

    first = services.system_user(hall=praia.hall)
    again = services.system_user(hall=sal.hall)

    assert first == again
    assert first.username == services.SYSTEM_USERNAME
    assert not first.is_active
    assert not first.has_usable_password()
    assert set(StaffMembership.objects.filter(user=first).values_list("hall", "role")) == {
        (praia.hall.pk, Role.CALLER.value),
        (sal.hall.pk, Role.CALLER.value),
    }
    backend = ModelBackend()
    assert not backend.user_can_authenticate(first)  # inactive: no session is ever opened
    assert backend.authenticate(None, username=services.SYSTEM_USERNAME, password="") is None


# --- continuous mode (R90) ---------------------------------------------------------------------


def test_a_continuous_room_opens_a_session_and_a_game_selling_the_online_series(
    lobby: OnlineHall, clock: Clock
) -> None:
    series = lobby.series(1)

    game = _open_continuous(lobby)

    assert game.state == Game.State.SELLING
    assert game.on_sale.get().series == series
    assert game.ball_interval == Decimal("1.00")
    assert game.sales_close_at == clock.now + timedelta(seconds=60)
    assert game.session.room == lobby.room
    assert game.session.scheduled_end > clock.now
    # Run again (the reconciler ticks every second): nothing more is opened.
    assert committed(lambda: services.online_room_advance(room_id=lobby.room.pk)) is None
    assert Game.objects.filter(session__room=lobby.room).count() == 1


def _shared_line_order(lobby: OnlineHall, sold: dict[int, int]) -> tuple[list[int], set[int]]:
    """Balls in an order where two cards of different buyers complete a row at the same ball,
    before any other sold card completes one (R46): that order, and the two cards."""
    cells = card_set_cells(lobby.card_set)
    rows = {n: [{int(v) for v in cells[n - 1][r] if v} for r in range(cells.shape[1])] for n in sold}
    cards = sorted(sold)
    for a in cards:
        for b in cards:
            if a >= b or sold[a] == sold[b]:
                continue
            for ra in rows[a]:
                for rb in rows[b]:
                    common = ra & rb
                    if not common:
                        continue
                    x = min(common)
                    first = sorted((ra | rb) - {x})
                    drawn = set(first)
                    # Nobody holds a row before x; exactly a and b hold one with x.
                    if any(row <= drawn for n in cards for row in rows[n]):
                        continue
                    with_x = drawn | {x}
                    holders = {n for n in cards if any(row <= with_x for row in rows[n])}
                    if holders != {a, b}:
                        continue
                    rest = [n for n in range(1, 91) if n not in with_x]
                    return [*first, x, *rest], {a, b}
    raise AssertionError("no two sold cards share a row's number")


def test_a_continuous_game_runs_from_creation_to_bingo_and_pays_the_wallets_once(
    lobby: OnlineHall, clock: Clock, tasks: Tasks, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R90, R97, R44, R46: players buy, the system closes, draws one ball per task, awards the
    line (shared by the two cards that hold it at once) then the bingo, and credits each winner's
    wallet with the net share, once."""
    hall = lobby.hall
    hall.tax_rate, hall.tax_threshold = Decimal("10"), Decimal("0")
    hall.save(update_fields=["tax_rate", "tax_threshold"])
    lobby.series(1)
    ana, rui, eva = lobby.player("ana"), lobby.player("rui"), lobby.player("eva")
    game = _open_continuous(lobby)
    sold: dict[int, int] = {}
    for player, quantity in ((ana, 3), (rui, 4), (eva, 3)):
        sale = online_buy(game, player, quantity)
        sold.update(dict.fromkeys(range(sale.first_number, sale.last_number + 1), player.pk))
    order, sharing = _shared_line_order(lobby, sold)
    monkeypatch.setattr(draw_services, "next_ball", lambda variant, drawn, rng: order[len(list(drawn))])

    game = close_sales(clock, game)

    assert game.state == Game.State.DRAWING
    assert game.next_ball_at == game.drawing_started_at + timedelta(seconds=1)
    assert [(q.game_id, q.position) for q in tasks.queued] == [(game.pk, 1)]
    numbers = list(play_to_the_end(tasks, game))
    game.refresh_from_db()

    assert game.state == Game.State.FINISHED
    balls = list(Ball.objects.filter(game=game).order_by("position"))
    assert [b.position for b in balls] == list(range(1, len(balls) + 1))
    assert [b.number for b in balls] == order[: len(balls)] == numbers
    system = User.objects.get(username=services.SYSTEM_USERNAME)
    assert {b.drawn_by for b in balls} == {system}
    line, bingo = Prize.objects.get(game=game, kind="line"), Prize.objects.get(game=game, kind="bingo")
    assert line.awarded_by == bingo.awarded_by == system
    assert line.balls_drawn < bingo.balls_drawn or line.awarded_at <= bingo.awarded_at  # R44
    assert {w.card_number for w in line.cards.all()} == sharing  # R46: both, shared
    assert line.winners == 2
    assert line.amount_each * 2 + line.remainder == line.total
    assert bingo.balls_drawn == len(balls)
    assert ActaEntry.objects.filter(game=game).exists()  # R59

    winners = list(PrizeWinner.objects.filter(prize__game=game).select_related("payment"))
    owed: dict[int, Decimal] = {}
    for winner in winners:
        payment = winner.payment
        assert payment.cash_desk is None
        assert payment.cashier is None
        assert payment.tax_withheld == (winner.amount * Decimal("0.10")).quantize(
            Decimal("1"), rounding="ROUND_FLOOR"
        )
        assert payment.net == winner.amount - payment.tax_withheld
        owed[sold[winner.card_number]] = owed.get(sold[winner.card_number], Decimal(0)) + payment.net
    for player in (ana, rui, eva):
        credited = WalletEntry.objects.filter(player=player, kind="prize")
        assert sum((e.amount for e in credited), Decimal(0)) == owed.get(player.pk, Decimal(0))
        spent = sum((s.amount for s in Sale.objects.filter(buyer=player)), Decimal(0))
        assert wallet_balance(player=player) == Decimal("1000.00") - spent + owed.get(player.pk, Decimal(0))

    # Paid once: paying again pays nothing, a late ball task draws nothing.
    assert committed(lambda: draw_services.prize_pay_to_wallets(game=game)) == []
    assert committed(lambda: draw_ball_task(game.pk, len(balls) + 1)) is None
    assert PrizePayment.objects.filter(winner__prize__game=game).count() == len(winners)
    assert WalletEntry.objects.filter(kind="prize").count() == len([w for w in winners if w.payment.net > 0])

    # R4 of the brief: the displays hear of the prizes, their winners and the end.
    state = draw_selectors.display_state(room_id=lobby.room.pk)
    assert state["game"]["state"] == "finished"
    won = {p["kind"]: p for p in state["game"]["prizes"]}
    assert won["line"]["won"]
    assert len(won["line"]["winners"]) == 2
    assert won["bingo"]["won"]
    assert won["bingo"]["winners"]


def test_the_next_game_opens_after_the_pause(lobby: OnlineHall, clock: Clock, tasks: Tasks) -> None:
    lobby.series(1)
    game = _open_continuous(lobby)
    online_buy(game, lobby.player("ana"), 2)
    game = close_sales(clock, game)
    list(play_to_the_end(tasks, game))
    game.refresh_from_db()
    assert game.finished_at is not None

    clock.to(game.finished_at + timedelta(seconds=9))
    reconcile()
    assert Game.objects.filter(session__room=lobby.room).count() == 1
    clock.advance(1)
    reconcile()
    following = Game.objects.get(session__room=lobby.room, number=2)
    assert following.state == Game.State.SELLING
    # R37: it sells the same series from the card after the last sold.
    assert following.on_sale.get().start_number == 3


def test_a_game_nobody_bought_keeps_selling_until_someone_buys(
    lobby: OnlineHall, clock: Clock, tasks: Tasks
) -> None:
    """R90: the room is always open; while nobody buys, its game sells for another window
    rather than filling the acta with empty games; the first buyer's game then closes and draws."""
    lobby.series(1)
    game = _open_continuous(lobby)
    first_close = game.sales_close_at

    game = close_sales(clock, game)

    assert game.state == Game.State.SELLING
    assert game.sales_close_at == first_close + timedelta(seconds=lobby.online.sales_seconds)
    assert not ActaEntry.objects.filter(game=game).exists()
    online_buy(game, lobby.player("ana"), 2)
    game = close_sales(clock, game)
    assert game.state == Game.State.DRAWING


def test_a_game_with_no_card_sold_at_the_day_s_end_is_annulled_and_the_room_goes_on(
    lobby: OnlineHall, clock: Clock, tasks: Tasks
) -> None:
    """A game nobody bought has nothing to draw: when another window would pass the day's
    session, sales close with their announcement and it is annulled with its reason in the acta."""
    lobby.series(1)
    game = _open_continuous(lobby)
    clock.to(game.session.scheduled_end - timedelta(seconds=lobby.online.sales_seconds // 2))

    game = close_sales(clock, game)

    assert game.state == Game.State.ANNULLED
    assert "No card was sold" in game.state_reason
    assert game.closing_announcement  # R40
    assert ActaEntry.objects.filter(game=game).exists()  # R59
    assert tasks.queued == []
    clock.advance(10)
    reconcile()
    assert Game.objects.get(session__room=lobby.room, number=2).state == Game.State.SELLING


def test_the_day_s_session_closes_and_a_new_one_opens(lobby: OnlineHall, clock: Clock, tasks: Tasks) -> None:
    lobby.series(1)
    game = _open_continuous(lobby)
    first = game.session
    clock.to(first.scheduled_end - timedelta(seconds=lobby.online.sales_seconds // 2))
    game = close_sales(clock, game)  # annulled, nothing sold by the day's end
    assert game.state == Game.State.ANNULLED

    clock.to(first.scheduled_end)
    reconcile()

    first.refresh_from_db()
    assert first.ended_at is not None
    current = Session.objects.get(room=lobby.room, ended_at__isnull=True)
    assert current.starts_at == clock.now
    assert Game.objects.get(session=current).state == Game.State.SELLING


# --- one task per ball, idempotent on its position (R88) ---------------------------------------


def _drawing(lobby: OnlineHall, clock: Clock) -> Game:
    lobby.series(1)
    game = _open_continuous(lobby)
    online_buy(game, lobby.player("ana"), 5)
    return close_sales(clock, game)


def test_a_repeated_or_out_of_order_ball_task_changes_nothing(
    lobby: OnlineHall, clock: Clock, tasks: Tasks
) -> None:
    game = _drawing(lobby, clock)
    first = tasks.run_next()
    second = tasks.run_next()
    before = list(Ball.objects.filter(game=game).order_by("position").values_list("position", "number"))
    assert before == [(1, first), (2, second)]

    clock.advance(30)
    assert committed(lambda: draw_ball_task(game.pk, 1)) is None  # repeated
    assert committed(lambda: draw_ball_task(game.pk, 2)) is None  # repeated
    assert committed(lambda: draw_ball_task(game.pk, 5)) is None  # out of order
    assert committed(lambda: draw_ball_task(game.pk, 0)) is None

    assert (
        list(Ball.objects.filter(game=game).order_by("position").values_list("position", "number")) == before
    )
    assert [(q.game_id, q.position) for q in tasks.queued] == [(game.pk, 3)]


def test_r88_a_ball_task_never_draws_two_balls_less_than_the_interval_apart(
    lobby: OnlineHall, clock: Clock, tasks: Tasks
) -> None:
    game = _drawing(lobby, clock)
    assert committed(lambda: draw_ball_task(game.pk, 1)) is None  # not yet due
    tasks.run_next()
    last = Ball.objects.get(game=game, position=1)
    # Even told the next ball is due at once, the task waits the game's interval (R88).
    Game.objects.filter(pk=game.pk).update(next_ball_at=last.drawn_at)
    clock.to(last.drawn_at + timedelta(seconds=0.99))
    assert committed(lambda: draw_ball_task(game.pk, 2)) is None
    clock.to(last.drawn_at + timedelta(seconds=1))
    assert committed(lambda: draw_ball_task(game.pk, 2)) is not None

    list(play_to_the_end(tasks, game))
    times = list(Ball.objects.filter(game=game).order_by("position").values_list("drawn_at", flat=True))
    assert all(b - a >= timedelta(seconds=1) for a, b in itertools.pairwise(times))


def test_r88_an_interval_under_one_second_is_refused(lobby: OnlineHall) -> None:
    with pytest.raises(ValidationError, match="R88"):
        services.ball_interval_check(Decimal("0.99"))
    assert services.ball_interval_check(Decimal("1")) == Decimal("1")
    with pytest.raises(IntegrityError), transaction.atomic():
        OnlineRoom.objects.filter(pk=lobby.online.pk).update(ball_interval=Decimal("0.5"))
    game = _open_continuous(lobby) if lobby.series(1) else None
    assert game is not None
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.filter(pk=game.pk).update(ball_interval=Decimal("0.5"))


def test_the_reconciler_picks_up_an_overdue_game(lobby: OnlineHall, clock: Clock, tasks: Tasks) -> None:
    game = _drawing(lobby, clock)
    tasks.run_next()
    tasks.run_next()
    tasks.queued.clear()  # the worker holding ball 3's task was killed
    game.refresh_from_db()

    clock.to(game.next_ball_at + services.OVERDUE_GRACE - timedelta(seconds=0.5))
    reconcile()
    assert tasks.queued == []  # late, but not yet overdue
    clock.advance(1)
    reconcile()
    assert [(q.game_id, q.position) for q in tasks.queued] == [(game.pk, 3)]
    reconcile()  # twice queued: harmless, the position decides
    assert tasks.run_next() is not None
    assert tasks.run_next() is None
    assert list(Ball.objects.filter(game=game).values_list("position", flat=True)) == [1, 2, 3]


# --- session mode (R91-R93, R60) ---------------------------------------------------------------


@pytest.fixture
def scheduled(db: None, clock: Clock) -> OnlineHall:
    return OnlineHall("Sala Sessões", mode=RoomMode.SESSION, pause_seconds=5)


def test_session_mode_opens_and_closes_every_game_together_and_draws_them_in_order(
    scheduled: OnlineHall, clock: Clock, tasks: Tasks
) -> None:
    """R93: the sales of all the session's games open at its start and close together, none
    after; R92: several prices at once; R60: each draw starts once the one before is in the acta."""
    from bingo.games import services as game_services

    scheduled.series(1, "100.00")
    scheduled.series(2, "100.00")
    scheduled.series(3, "200.00")
    start = clock.now + timedelta(minutes=10)
    session = game_services.session_open(
        room=scheduled.room,
        starts_at=start,
        scheduled_end=start + timedelta(hours=2),
        user=scheduled.manager,
        online=True,
    )
    games = [game_services.game_create(session=session, variant="90", online=True) for _ in range(3)]
    for game, price in zip(games, ("100.00", "100.00", "200.00"), strict=True):
        Game.objects.filter(pk=game.pk).update(
            price=Decimal(price), sales_close_at=start + timedelta(minutes=5)
        )

    reconcile()
    assert set(Game.objects.filter(session=session).values_list("state", flat=True)) == {"planned"}

    clock.to(start)
    reconcile()
    games = list(Game.objects.filter(session=session).order_by("number"))
    assert [g.state for g in games] == ["selling"] * 3
    assert len({g.sales_opened_at for g in games}) == 1
    assert len({g.sales_close_at for g in games}) == 1
    assert [g.on_sale.get().series.price for g in games] == [
        Decimal("100.00"),
        Decimal("100.00"),
        Decimal("200.00"),
    ]
    players = [scheduled.player(name) for name in ("ana", "rui")]
    for game in games:
        for player in players:
            online_buy(game, player, 2)

    clock.to(games[0].sales_close_at)
    reconcile()
    games = list(Game.objects.filter(session=session).order_by("number"))
    assert [g.state for g in games] == ["drawing", "sales_closed", "sales_closed"]
    assert len({g.sales_closed_at for g in games}) == 1  # together (R93)
    with pytest.raises(ValidationError, match="not selling"):
        online_buy(games[1], players[0], 1)  # no later sale

    for index, game in enumerate(games):
        list(play_to_the_end(tasks, game))
        game.refresh_from_db()
        assert game.state == "finished"
        if index + 1 < len(games):
            following = games[index + 1]
            clock.advance(4)
            reconcile()
            following.refresh_from_db()
            assert following.state == "sales_closed"  # the pause between games
            clock.advance(1)
            reconcile()
            following.refresh_from_db()
            assert following.state == "drawing"
            assert following.drawing_started_at >= game.finished_at
    session.refresh_from_db()
    reconcile()
    session.refresh_from_db()
    assert session.ended_at is not None


# --- refunds (R98) -----------------------------------------------------------------------------


def test_an_annulled_online_game_refunds_each_wallet_once(
    lobby: OnlineHall, clock: Clock, tasks: Tasks
) -> None:
    lobby.series(1)
    game = _open_continuous(lobby)
    ana, rui = lobby.player("ana"), lobby.player("rui")
    online_buy(game, ana, 3)
    online_buy(game, ana, 1)
    online_buy(game, rui, 2)
    game = close_sales(clock, game)
    tasks.run_next()

    committed(lambda: draw_services.game_annul(game=game, user=lobby.manager, reason="Erro no anúncio (R57)"))

    for player, sales in ((ana, 2), (rui, 1)):
        refunds = WalletEntry.objects.filter(player=player, kind="refund")
        assert refunds.count() == sales
        assert wallet_balance(player=player) == Decimal("1000.00")
    with pytest.raises(ValidationError):
        committed(lambda: draw_services.game_annul(game=game, user=lobby.manager, reason="outra vez"))
    assert WalletEntry.objects.filter(kind="refund").count() == 3
    # The loop does not draw an annulled game.
    clock.advance(5)
    assert committed(lambda: draw_ball_task(game.pk, 2)) is None


def test_a_line_is_paid_only_when_the_game_ends_so_an_annulled_game_refunds_and_pays_nothing(
    lobby: OnlineHall, clock: Clock, tasks: Tasks, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R44, R57, R98: the line is awarded at its ball but paid into the wallet when the bingo
    ends the game, as at the desk; a game annulled after its line refunds every card in full and
    pays no prize, so no wallet gets both its stake back and a prize."""
    lobby.series(1)
    ana, rui = lobby.player("ana"), lobby.player("rui")
    game = _open_continuous(lobby)
    sold: dict[int, int] = {}
    for player, quantity in ((ana, 3), (rui, 3)):
        sale = online_buy(game, player, quantity)
        sold.update(dict.fromkeys(range(sale.first_number, sale.last_number + 1), player.pk))
    order, _sharing = _shared_line_order(lobby, sold)
    monkeypatch.setattr(draw_services, "next_ball", lambda variant, drawn, rng: order[len(list(drawn))])
    game = close_sales(clock, game)
    while not Prize.objects.filter(game=game, kind="line").exists():
        tasks.run_next()
    game.refresh_from_db()
    assert game.state == Game.State.DRAWING
    assert not PrizePayment.objects.filter(winner__prize__game=game).exists()  # not yet (R44)
    assert not WalletEntry.objects.filter(kind="prize").exists()

    committed(
        lambda: draw_services.game_annul(game=game, user=lobby.manager, reason="Falha do sistema (R98)")
    )

    for player in (ana, rui):
        assert wallet_balance(player=player) == Decimal("1000.00")  # the stake back, no prize
    assert not WalletEntry.objects.filter(kind="prize").exists()
    assert committed(lambda: draw_services.prize_pay_to_wallets(game=game)) == []  # ... ever: never paid
    assert not PrizePayment.objects.filter(winner__prize__game=game).exists()


def test_after_a_switch_to_manual_extraction_the_winners_are_still_paid_by_the_system(
    lobby: OnlineHall, clock: Clock, tasks: Tasks
) -> None:
    """R55, R97: after the electronic draw fails, a person keys the balls in and awards the
    prizes; the online winners are paid into their wallets all the same, without asking."""
    lobby.series(1)
    ana = lobby.player("ana")
    game = _open_continuous(lobby)
    sale = online_buy(game, ana, 1)
    game = close_sales(clock, game)
    tasks.run_next()
    caller = lobby.manager
    StaffMembership.objects.create(hall=lobby.hall, user=caller, role=Role.CALLER.value)
    committed(lambda: draw_services.game_switch_to_manual(game=game, user=caller, reason="O gerador falhou"))
    card = card_set_cells(lobby.card_set)[sale.first_number - 1]
    numbers = sorted(
        {int(v) for row in card for v in row if v} - set(game.balls.values_list("number", flat=True))
    )
    for number in numbers:
        position = game.balls.count() + 1
        committed(
            lambda n=number, p=position: draw_services.game_draw_ball(
                game=game, user=caller, position=p, number=n
            )
        )
        game.refresh_from_db()
        for kind in ("line", "bingo"):
            if not Prize.objects.filter(game=game, kind=kind).exists():
                try:
                    committed(lambda k=kind: draw_services.prize_award(game=game, user=caller, kind=k))
                except ValidationError:
                    break  # nobody holds it yet, or the line comes first (R44)
    game.refresh_from_db()
    assert game.state == Game.State.FINISHED
    payments = PrizePayment.objects.filter(winner__prize__game=game)
    assert payments.count() == PrizeWinner.objects.filter(prize__game=game).count() >= 2
    assert sum((e.amount for e in WalletEntry.objects.filter(player=ana, kind="prize")), Decimal(0)) == sum(
        (p.net for p in payments), Decimal(0)
    )


def test_a_user_who_took_the_system_s_name_and_can_log_in_is_never_made_the_caller(db: None) -> None:
    """The system user is created by a migration, so no one can register its name first; a user
    of that name who can log in (or plays) is refused, not made a caller of every online room."""
    praia = OnlineHall("Sala Praia")
    assert User.objects.filter(username=services.SYSTEM_USERNAME, is_active=False).exists()  # bingo/0012
    with pytest.raises(ValidationError):
        player_services.player_register(
            username=services.SYSTEM_USERNAME, email="x@example.cv", first_name="X", last_name="Y",
            password="uma-senha-comprida-9", birth_date=date(1990, 1, 1), adult_confirmed=True,
            hall=praia.hall,
        )  # fmt: skip
    User.objects.filter(username=services.SYSTEM_USERNAME).delete()
    impostor = User.objects.create_user(username=services.SYSTEM_USERNAME, password="segredo-123")

    with pytest.raises(ImproperlyConfigured):
        services.system_user(hall=praia.hall)
    assert not StaffMembership.objects.filter(user=impostor).exists()


# --- a room with nothing to sell: logged once, its manager told why (R90, R92) -----------------


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "bingo.autodraw.services" and r.levelno == logging.WARNING
    ]


def _ticks(clock: Clock, n: int) -> None:
    """``n`` of beat's ticks, a second apart."""
    for _ in range(n):
        reconcile()
        clock.advance(1)


def _manager_reads(lobby: OnlineHall) -> tuple[str, dict[str, Any] | None]:
    """The room's page (in Portuguese) and the API's ``idle``, as the hall's manager reads them."""
    manager = UserFactory(username=f"gerente-idle-{lobby.hall.pk}", roles=[Role.MANAGER])
    StaffMembership.objects.get_or_create(hall=lobby.hall, user=manager, role=Role.MANAGER.value)
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "pt"
    client.force_login(manager)
    page = client.get(reverse("online:room_detail", args=[lobby.online.pk]))
    assert page.status_code == 200
    return page.content.decode(), client.get(f"/api/online/rooms/{lobby.online.pk}/").json()["idle"]


def test_a_continuous_room_with_no_series_logs_once_and_its_manager_reads_why(
    lobby: OnlineHall, clock: Clock, tasks: Tasks, caplog: pytest.LogCaptureFixture
) -> None:
    """The room is open but the hall has no online series of its variant (sold out, retired, or
    the room opened before the check): beat ticks every second, the warning is logged once, no
    session (nor acta) is opened for nothing, and the manager reads why on the room's page and
    in the API. A series comes: the room sells again, said once."""
    caplog.set_level(logging.INFO, logger="bingo.autodraw.services")

    _ticks(clock, 5)

    assert len(_warnings(caplog)) == 1
    assert "no online series of variant 90" in _warnings(caplog)[0]
    assert not Session.objects.filter(room=lobby.room).exists()
    online = OnlineRoom.objects.get(pk=lobby.online.pk)
    assert online.idle == {"reason": "no_series", "variant": "90"}
    page, idle = _manager_reads(lobby)
    assert "Sem séries online da variante 90 com cartões por vender" in page
    assert idle is not None
    assert idle["reason"] == "no_series"
    assert idle["message"].startswith("Sem séries online da variante 90 com cartões por vender")

    lobby.series(1)
    _ticks(clock, 3)

    assert Game.objects.get(session__room=lobby.room).state == Game.State.SELLING
    assert OnlineRoom.objects.get(pk=lobby.online.pk).idle == {}
    assert len(_warnings(caplog)) == 1
    assert [r.getMessage() for r in caplog.records if "sells again" in r.getMessage()] == [
        f"online room {lobby.online.pk} sells again "
        "(was: no online series of variant 90 with cards left to sell)"
    ]
    page, idle = _manager_reads(lobby)
    assert idle is None
    assert "Sem séries online" not in page


def test_a_continuous_room_whose_series_runs_out_waits_logging_once(
    lobby: OnlineHall, clock: Clock, tasks: Tasks, caplog: pytest.LogCaptureFixture
) -> None:
    lobby.series(1, price="1.00")
    game = _open_continuous(lobby)
    online_buy(game, lobby.player("ana"), 90)  # every card of the series
    game = close_sales(clock, game)
    list(play_to_the_end(tasks, game))
    game.refresh_from_db()
    assert game.finished_at is not None
    caplog.set_level(logging.INFO, logger="bingo.autodraw.services")

    clock.to(game.finished_at + timedelta(seconds=lobby.online.pause_seconds))
    _ticks(clock, 5)

    assert Game.objects.filter(session__room=lobby.room).count() == 1
    assert len(_warnings(caplog)) == 1
    assert OnlineRoom.objects.get(pk=lobby.online.pk).idle["reason"] == "no_series"


def test_a_game_nobody_bought_whose_series_is_retired_stops_selling_and_the_room_waits(
    lobby: OnlineHall, clock: Clock, tasks: Tasks, caplog: pytest.LogCaptureFixture
) -> None:
    """R90's extra sales window is for a game that can still sell: with its series retired it
    would «sell» for ever, refusing every buyer. It is annulled as any game nobody bought, and
    the room waits for a series, logged once."""
    series = lobby.series(1)
    game = _open_continuous(lobby)
    card_services.series_retire(series=series)
    caplog.set_level(logging.INFO, logger="bingo.autodraw.services")

    game = close_sales(clock, game)

    assert game.state == Game.State.ANNULLED
    clock.advance(lobby.online.pause_seconds)
    _ticks(clock, 5)
    assert Game.objects.filter(session__room=lobby.room).count() == 1
    assert len(_warnings(caplog)) == 1
    assert OnlineRoom.objects.get(pk=lobby.online.pk).idle["reason"] == "no_series"


def test_a_session_that_cannot_open_logs_once_tells_the_manager_and_never_sells_after_its_end(
    db: None, clock: Clock, tasks: Tasks, caplog: pytest.LogCaptureFixture
) -> None:
    """R92-R93: a started session one of whose games has no series keeps every game closed;
    the reconciler tries each tick but says so once, and the manager reads which game lacks
    what. Once the session's end has passed, its sales never open."""
    from bingo.online import services as online_services

    scheduled = OnlineHall("Sala Sessões", mode=RoomMode.SESSION)
    series = scheduled.series(1, "10.00")
    start = clock.now + timedelta(minutes=10)
    session = online_services.online_session_schedule(
        online_room=scheduled.online,
        starts_at=start,
        sales_close_at=start + timedelta(minutes=5),
        scheduled_end=start + timedelta(hours=1),
        games=[online_services.SessionGame("90", "10.00")],
        user=scheduled.manager,
    )
    card_services.series_retire(series=series)
    caplog.set_level(logging.INFO, logger="bingo.autodraw.services")

    clock.to(start)
    _ticks(clock, 5)

    assert len(_warnings(caplog)) == 1
    assert f"session {session.pk}: game 1 has no online series of variant 90 at 10.00" in _warnings(caplog)[0]
    assert session.games.get().state == Game.State.PLANNED
    page, idle = _manager_reads(scheduled)
    assert idle is not None
    assert idle["reason"] == "session_no_series"
    assert "o jogo 1 não tem séries online da variante 90 a 10.00" in idle["message"]
    assert "o jogo 1 não tem séries online da variante 90 a 10.00" in page

    clock.to(session.scheduled_end)
    scheduled.series(2, "10.00")
    _ticks(clock, 3)

    assert session.games.get().state == Game.State.PLANNED  # never sold after the session's end
    assert OnlineRoom.objects.get(pk=scheduled.online.pk).idle == {}
