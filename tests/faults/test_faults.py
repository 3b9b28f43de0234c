"""Faults of the system (R98, PT-803/33, PT-806/72): a game the system cannot decide is null and
every card refunded to the wallets, once, with the reason in the acta and the players' history;
declared by a manager or caller of the hall (page and API) or by the reconciler (the system user)
when a ball is ``ONLINE_FAULT_AFTER`` seconds overdue or its task keeps failing. A short gap (a
worker killed and started again) is not a fault. Real services, injected clock, ball tasks run
by hand (tests/autodraw/helpers.py). The code: bingo/faults/."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import OperationalError
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from actas.models import ActaEntry, ActaNote
from bingo.autodraw import services
from bingo.autodraw.tasks import draw_ball_task
from bingo.common.roles import Role, user_roles_set
from bingo.draw import services as draw_services
from bingo.faults import services as fault_services
from bingo.models import (
    Ball,
    BallFailure,
    FaultSource,
    Game,
    GameFault,
    Player,
    Refund,
    Sale,
    WalletEntry,
)
from bingo.online import services as online_services
from bingo.players.selectors import player_history, wallet_balance, wallet_entry_list, wallet_statement
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
from tests.clients import logged_in
from tests.factories import UserFactory
from tests.online.helpers import OnlineSetup

pytestmark = pytest.mark.django_db

OVERDUE = (
    "Ball %(position)d was due %(late)d seconds ago: "
    "the system was down too long to finish the game in real time."
)
FAILING = "Ball %(position)d could not be drawn: its task failed %(count)d times with an error of the system."


def _hall_language(message: str, **values: int) -> str:
    """The reconciler's reason as the acta records it: in the hall's language (R54)."""
    with translation.override(django_settings.LANGUAGE_CODE):
        return gettext(message) % values


def _why(reason: str) -> str:
    """Why a game is null, as its page, the players' history and the acta show it (R54, R98)."""
    with translation.override(django_settings.LANGUAGE_CODE):
        return gettext("System fault (R98): %(reason)s") % {"reason": reason}


class Played:
    """An online game with two players' cards: Ana 3, Rui 2 (100.00 each, 1000.00 deposited)."""

    def __init__(self, lobby: OnlineHall, clock: Clock) -> None:
        self.lobby = lobby
        self.clock = clock
        lobby.series(1)
        self.ana, self.rui = lobby.player("ana"), lobby.player("rui")
        self.game = committed(lambda: services.online_room_advance(room_id=lobby.room.pk))
        assert self.game is not None
        online_buy(self.game, self.ana, 3)
        online_buy(self.game, self.rui, 2)

    def start(self) -> Game:
        close_sales(self.clock, self.game)
        assert self.game.state == Game.State.DRAWING
        return self.game

    def balances(self) -> tuple[Decimal, Decimal]:
        return wallet_balance(player=self.ana), wallet_balance(player=self.rui)


@pytest.fixture
def played(lobby: OnlineHall, clock: Clock, tasks: Tasks) -> Played:
    return Played(lobby, clock)


def _refunds(game: Game) -> list[WalletEntry]:
    return list(WalletEntry.objects.filter(kind="refund", refund__game=game).order_by("seq"))


def _assert_null_and_refunded_once(played: Played, reason: str) -> None:
    game = played.game
    game.refresh_from_db()
    assert game.state == Game.State.ANNULLED
    assert "R98" in game.state_reason
    assert reason in game.state_reason
    assert played.balances() == (Decimal("1000.00"), Decimal("1000.00"))  # every card back
    sales = Sale.objects.filter(game=game)
    assert Refund.objects.filter(game=game).count() == sales.count()
    assert sorted(e.key for e in _refunds(game)) == sorted(
        f"refund-{r.pk}" for r in Refund.objects.filter(game=game)
    )
    assert sum(e.amount for e in _refunds(game)) == Decimal("500.00")
    # R61 i), l): the acta has the annulment with its reason and the failure.
    entry = ActaEntry.objects.get(game_id=game.pk)
    assert entry.kind == ActaEntry.Kind.ANNULLED
    notes = ActaNote.objects.filter(
        game_id=game.pk, kind=ActaNote.Kind.EQUIPMENT_FAILURE, text__contains="R98"
    )
    assert len(notes) == 1
    assert reason in notes[0].text


# --- the operator declares it ------------------------------------------------------------------


def test_r98_a_manager_s_fault_on_a_drawing_game_refunds_every_card_once(
    played: Played, tasks: Tasks
) -> None:
    game = played.start()
    tasks.run_next()
    tasks.run_next()
    assert Ball.objects.filter(game=game).count() == 2

    committed(
        lambda: fault_services.online_game_fault(
            game=game, user=played.lobby.manager, reason="Servidor de jogo avariado"
        )
    )
    _assert_null_and_refunded_once(played, "Servidor de jogo avariado")
    fault = GameFault.objects.get(game=game)
    game.refresh_from_db()
    assert (fault.source, fault.declared_by, game.state_reason) == (
        FaultSource.OPERATOR,
        played.lobby.manager,
        _why("Servidor de jogo avariado"),
    )

    # A second declaration, a retry, and the ball task still queued: nothing more.
    committed(
        lambda: fault_services.online_game_fault(game=game, user=played.lobby.manager, reason="outra vez")
    )
    assert tasks.run_next() is None
    reconcile()
    _assert_null_and_refunded_once(played, "Servidor de jogo avariado")
    assert WalletEntry.objects.filter(kind="refund").count() == 2  # one per sale
    assert GameFault.objects.count() == 1
    assert Ball.objects.filter(game=game).count() == 2


def test_r98_a_fault_while_selling_closes_the_sales_first_and_refunds_every_card(
    played: Played,
) -> None:
    assert played.game.state == Game.State.SELLING
    committed(
        lambda: fault_services.online_game_fault(
            game=played.game, user=played.lobby.manager, reason="Base de dados"
        )
    )
    _assert_null_and_refunded_once(played, "Base de dados")
    played.game.refresh_from_db()
    assert played.game.sales_closed_at is not None
    with pytest.raises(ValidationError):
        online_buy(played.game, played.ana, 1)  # no sale after the fault
    assert played.balances() == (Decimal("1000.00"), Decimal("1000.00"))


def test_r98_a_fault_on_a_suspended_online_game_is_null_at_once(played: Played) -> None:
    game = played.start()
    draw_services.game_suspend(game=game, user=played.lobby.manager, reason="Gerador")
    with pytest.raises(ValidationError):  # R55: the hall's own failure waits 15 minutes
        draw_services.game_annul(game=game, user=played.lobby.manager, reason="Gerador")
    committed(
        lambda: fault_services.online_game_fault(game=game, user=played.lobby.manager, reason="Gerador")
    )
    _assert_null_and_refunded_once(played, "Gerador")


def test_r98_who_may_declare_a_fault_and_on_what(played: Played, tasks: Tasks) -> None:
    lobby = played.lobby
    cashier_refused = lobby.cashier
    other = OnlineHall("Outra Sala").manager
    player_user = played.ana.user
    for user in (cashier_refused, other, player_user):
        with pytest.raises(ValidationError, match="managers and callers"):
            fault_services.online_game_fault(game=played.game, user=user, reason="x")
    with pytest.raises(ValidationError, match="R98"):
        fault_services.online_game_fault(game=played.game, user=lobby.manager, reason="   ")
    assert Refund.objects.count() == 0

    # The hall's callers may (they annul games, R55, R57).
    caller = UserFactory(username="locutor")
    StaffMembership.objects.create(hall=lobby.hall, user=caller, role=Role.CALLER.value)
    committed(
        lambda: fault_services.online_game_fault(game=played.game, user=caller, reason="Rede do operador")
    )
    _assert_null_and_refunded_once(played, "Rede do operador")


def test_r98_r99_a_finished_game_was_decided_and_a_hall_game_is_not_online(
    played: Played, tasks: Tasks
) -> None:
    game = played.start()
    list(play_to_the_end(tasks, game))
    game.refresh_from_db()
    assert game.state == Game.State.FINISHED
    with pytest.raises(ValidationError, match="not yet decided"):
        fault_services.online_game_fault(game=game, user=played.lobby.manager, reason="tarde demais")
    assert Refund.objects.count() == 0

    hall = OnlineSetup(name="Sala Física")
    hall.room.online.delete()  # a room of the hall, not online
    floor_game = hall.game(hall.series(1, online=False))
    with pytest.raises(ValidationError, match="online game"):
        fault_services.online_game_fault(game=floor_game, user=hall.manager, reason="x")


# --- the reconciler finds it -------------------------------------------------------------------


def test_r98_the_reconciler_declares_a_fault_when_a_ball_is_overdue_past_the_limit(
    played: Played, tasks: Tasks, clock: Clock, settings: object
) -> None:
    settings.ONLINE_FAULT_AFTER = 300  # type: ignore[attr-defined]
    game = played.start()
    tasks.run_next()
    tasks.run_next()
    tasks.queued.clear()  # the whole system down: the next ball's task is lost
    game.refresh_from_db()
    assert game.next_ball_at is not None

    clock.to(game.next_ball_at)
    clock.advance(299)
    reconcile()  # late, not yet a fault: the ball is queued again
    game.refresh_from_db()
    assert game.state == Game.State.DRAWING
    assert [q.position for q in tasks.queued] == [3]
    tasks.queued.clear()

    clock.advance(2)
    reconcile()
    game.refresh_from_db()
    assert game.state == Game.State.ANNULLED
    assert tasks.queued == []
    reason = _hall_language(OVERDUE, position=3, late=301)
    assert game.state_reason == _why(reason)
    _assert_null_and_refunded_once(played, reason)
    fault = GameFault.objects.get(game=game)
    assert fault.source == FaultSource.SYSTEM
    assert fault.declared_by.username == services.SYSTEM_USERNAME

    reconcile()  # again: nothing more
    _assert_null_and_refunded_once(played, reason)


def test_r98_no_fault_for_a_short_gap_the_game_goes_on_and_pays(
    played: Played, tasks: Tasks, clock: Clock
) -> None:
    """A worker killed and started again within seconds: the ball is queued again (R99-like:
    nothing the players did or lost), the game finishes and pays."""
    game = played.start()
    tasks.run_next()
    tasks.queued.clear()
    game.refresh_from_db()
    assert game.next_ball_at is not None
    clock.to(game.next_ball_at)
    clock.advance(10)
    reconcile()
    assert [q.position for q in tasks.queued] == [2]
    list(play_to_the_end(tasks, game))
    game.refresh_from_db()
    assert game.state == Game.State.FINISHED
    assert not GameFault.objects.exists()
    assert not Refund.objects.exists()
    assert WalletEntry.objects.filter(kind="prize", prize_payment__winner__prize__game=game).exists()


def test_r98_a_ball_whose_task_keeps_failing_makes_the_game_null(
    played: Played, tasks: Tasks, clock: Clock, monkeypatch: pytest.MonkeyPatch, settings: object
) -> None:
    settings.ONLINE_FAULT_FAILURES = 3  # type: ignore[attr-defined]
    game = played.start()
    tasks.run_next()
    tasks.queued.clear()

    def broken(**kwargs: object) -> Ball:
        raise RuntimeError("detector crashed")

    monkeypatch.setattr(draw_services, "game_draw_ball", broken)
    game.refresh_from_db()
    assert game.next_ball_at is not None
    clock.to(game.next_ball_at)
    for attempt in range(3):
        with pytest.raises(RuntimeError):
            draw_ball_task(game.pk, 2)  # as a worker runs it: its own transaction, undone
        assert BallFailure.objects.filter(game=game, position=2).count() == attempt + 1
        if attempt < 2:
            reconcile()  # fewer than 3: queued again, not a fault
            game.refresh_from_db()
            assert game.state == Game.State.DRAWING
    reconcile()
    game.refresh_from_db()
    assert game.state == Game.State.ANNULLED
    reason = _hall_language(FAILING, position=2, count=3)
    assert game.state_reason == _why(reason)
    _assert_null_and_refunded_once(played, reason)


def test_r98_a_busy_database_is_not_a_failing_ball(
    played: Played, tasks: Tasks, clock: Clock, monkeypatch: pytest.MonkeyPatch, settings: object
) -> None:
    """A lock wait or deadlock (OperationalError) is the database being busy, not the ball
    failing: never counted, so three of them do not make the game null; a database away for
    good is caught by ONLINE_FAULT_AFTER instead."""
    settings.ONLINE_FAULT_FAILURES = 3  # type: ignore[attr-defined]
    game = played.start()
    tasks.run_next()
    tasks.queued.clear()

    def busy(**kwargs: object) -> Ball:
        raise OperationalError("deadlock detected")

    real = draw_services.game_draw_ball
    monkeypatch.setattr(draw_services, "game_draw_ball", busy)
    game.refresh_from_db()
    assert game.next_ball_at is not None
    clock.to(game.next_ball_at)
    for _attempt in range(4):
        with pytest.raises(OperationalError):
            draw_ball_task(game.pk, 2)
        reconcile()
    assert not BallFailure.objects.filter(game=game).exists()
    game.refresh_from_db()
    assert game.state == Game.State.DRAWING
    assert not GameFault.objects.exists()
    monkeypatch.setattr(draw_services, "game_draw_ball", real)  # the database is back
    tasks.queued.clear()
    assert committed(lambda: draw_ball_task(game.pk, 2)) is not None  # the retry draws it
    list(play_to_the_end(tasks, game))
    game.refresh_from_db()
    assert game.state == Game.State.FINISHED


# --- the page and the API ----------------------------------------------------------------------


def _staff_client(user: User, role: Role) -> Client:
    user_roles_set(user=user, roles=[role])
    return logged_in(user)


def test_r98_the_manager_declares_the_fault_from_the_game_s_page(played: Played) -> None:
    game = played.start()
    client = _staff_client(played.lobby.manager, Role.MANAGER)
    page = client.get(reverse("games:game_detail", args=[game.pk]))
    assert page.status_code == 200
    assert b"data-fault-form" in page.content

    empty = client.post(reverse("draw:game_fault", args=[game.pk]), {"reason": ""})
    assert empty.status_code == 302
    game.refresh_from_db()
    assert game.state == Game.State.DRAWING

    done = client.post(reverse("draw:game_fault", args=[game.pk]), {"reason": "Servidor parado"}, follow=True)
    assert done.status_code == 200
    _assert_null_and_refunded_once(played, "Servidor parado")
    assert b"data-fault-form" not in done.content
    assert "Servidor parado" in done.content.decode()

    cashier = _staff_client(played.lobby.cashier, Role.CASHIER)
    assert cashier.post(reverse("draw:game_fault", args=[game.pk]), {"reason": "x"}).status_code in (302, 403)
    _assert_null_and_refunded_once(played, "Servidor parado")


def test_r98_the_api_declares_the_fault_once(played: Played) -> None:
    game = played.start()
    url = reverse("api:game-fault", args=[game.pk])
    cashier = _staff_client(played.lobby.cashier, Role.CASHIER)
    assert cashier.post(url, {"reason": "x"}, content_type="application/json").status_code == 403
    manager = _staff_client(played.lobby.manager, Role.MANAGER)
    blank = manager.post(url, {"reason": ""}, content_type="application/json")
    assert blank.status_code == 400
    first = manager.post(url, {"reason": "Falha do servidor"}, content_type="application/json")
    assert first.status_code == 200, first.content
    again = manager.post(url, {"reason": "Falha do servidor"}, content_type="application/json")
    assert again.status_code == 200
    _assert_null_and_refunded_once(played, "Falha do servidor")


# --- what the players see ------------------------------------------------------------------------


def test_r98_the_history_and_the_wallet_statement_show_the_refund_and_its_reason(played: Played) -> None:
    committed(
        lambda: fault_services.online_game_fault(
            game=played.game, user=played.lobby.manager, reason="Disco cheio"
        )
    )
    for player, cards in ((played.ana, 3), (played.rui, 2)):
        line = player_history(player=player).games[0]
        assert (line.result, line.outcome, line.cards) == ("refunded", "annulled", cards)
        assert line.refunded == line.staked == Decimal(100 * cards)
        assert "R98" in line.reason
        assert "Disco cheio" in line.reason
        statement = [
            s
            for s in wallet_statement(entries=list(wallet_entry_list(player=player)))
            if s.entry.kind == "refund"
        ]
        assert statement
        assert all("Disco cheio" in s.what for s in statement)

    user_roles_set(user=played.ana.user, roles=[Role.PLAYER])
    client = Client()
    client.force_login(played.ana.user)
    page = client.get(reverse("players:history")).content.decode()
    assert "Disco cheio" in page
    lobby = client.get(reverse("online:lobby")).content.decode()
    assert f'data-away-game="{played.game.pk}"' in lobby
    assert 'data-result="refunded"' in lobby
    assert "Disco cheio" in lobby


def _player_client(player: Player) -> Client:
    user_roles_set(user=player.user, roles=[Role.PLAYER])
    return logged_in(player.user)


def test_r99_a_player_away_sees_on_return_what_happened(played: Played, tasks: Tasks, clock: Clock) -> None:
    """R99: the player opened the lobby, left (no page open at all); the game played on, the
    prizes were paid by the system; on return the lobby lists the game with the prize credited
    and the game's page shows its end. A second visit lists it no more."""
    client = _player_client(played.ana)
    first = client.get(reverse("online:lobby")).content.decode()
    assert 'id="away"' not in first  # nothing ended yet

    game = played.start()
    list(play_to_the_end(tasks, game))
    game.refresh_from_db()
    assert game.state == Game.State.FINISHED
    won = sum(
        (
            e.amount
            for e in WalletEntry.objects.filter(
                player=played.ana, kind="prize", prize_payment__winner__prize__game=game
            )
        ),
        Decimal("0.00"),
    )
    clock.advance(60)
    back = client.get(reverse("online:lobby")).content.decode()
    assert f'data-away-game="{game.pk}"' in back
    assert ('data-result="won"' if won else 'data-result="lost"') in back

    page = client.get(reverse("online:game", args=[game.pk])).content.decode()
    assert 'id="outcome"' in page
    assert ('data-outcome="won"' if won else 'data-outcome="lost"') in page
    state = client.get(reverse("api:online-game-state", args=[game.pk])).json()
    assert state["outcome"]["over"] is True
    assert Decimal(state["outcome"]["credited"]) == won
    assert wallet_balance(player=played.ana) == Decimal("700.00") + won

    again = client.get(reverse("online:lobby")).content.decode()
    assert 'id="away"' not in again


def test_r99_the_lobby_visit_is_recorded_once_per_visit(played: Played, clock: Clock) -> None:
    assert online_services.player_lobby_visit(player=played.ana) is None
    seen = clock.now
    clock.advance(30)
    assert online_services.player_lobby_visit(player=played.ana) == seen
