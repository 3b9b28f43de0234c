"""The session and game screens: who may use them, and a game's life through the services."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from bingo.common.roles import Role
from bingo.games import services
from bingo.models import Game, GameState, Session
from bingo.sales import services as sales_services
from halls.models import CashDesk, Hall, Room, StaffMembership
from tests.cards.factories import card_set_make, series_make
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

ClientAs = Callable[..., Client]


@pytest.fixture
def room() -> Room:
    hall = Hall.objects.create(name="Sala Praia")
    return Room.objects.create(hall=hall, name="Salão 1")


def _log_in_as(client: Client, make_user: Callable[..., User], role: Role, room: Room) -> Client:
    """The client, logged in with ``role`` in the room's hall (each sees only their halls)."""
    user = make_user(role)
    StaffMembership.objects.create(hall=room.hall, user=user, role=role.value)
    client.force_login(user)
    return client


@pytest.fixture
def manager(client: Client, make_user: Callable[..., User], room: Room) -> Client:
    return _log_in_as(client, make_user, Role.MANAGER, room)


@pytest.fixture
def caller(client: Client, make_user: Callable[..., User], room: Room) -> Client:
    return _log_in_as(client, make_user, Role.CALLER, room)


@pytest.fixture
def session(room: Room) -> Session:
    start = timezone.now()
    return services.session_open(
        room=room, starts_at=start, scheduled_end=start + timedelta(hours=4), user=None
    )


@pytest.fixture
def game(session: Session) -> Game:
    return services.game_create(session=session, variant="90")


def _session_form(room: Room) -> dict[str, str]:
    return {"room": str(room.pk), "starts_at": "2026-11-23T20:00", "scheduled_end": "2026-11-24T00:00"}


# --- access -----------------------------------------------------------------------------------


@pytest.mark.parametrize("role", [Role.CASHIER, Role.CALLER, Role.PLAYER])
def test_only_managers_change_sessions_and_games(
    client_as: ClientAs, role: Role, room: Room, game: Game
) -> None:
    client = client_as(role)
    writes = [
        (reverse("games:session_create"), _session_form(room)),
        (reverse("games:game_create", args=[game.session.pk]), {"variant": "90", "plan": "default"}),
        (reverse("games:game_open_sales", args=[game.pk]), {"first": "1"}),
        (reverse("games:game_close_sales", args=[game.pk]), {}),
    ]
    for path, data in writes:
        assert client.post(path, data).status_code == 403, path
    assert Session.objects.count() == 1
    assert Game.objects.count() == 1
    game.refresh_from_db()
    assert game.state == GameState.PLANNED


def test_callers_may_look_but_not_see_the_manager_buttons(caller: Client, game: Game) -> None:
    client = caller
    for path in (
        reverse("games:session_list"),
        reverse("games:session_detail", args=[game.session.pk]),
        reverse("games:game_detail", args=[game.pk]),
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        assert reverse("games:session_create") not in response.content.decode()
    assert client.get(reverse("games:game_detail", args=[game.pk])).context["open_form"] is None


@pytest.mark.parametrize("role", [Role.CASHIER, Role.PLAYER])
def test_other_roles_may_not_even_look(client_as: ClientAs, role: Role, game: Game) -> None:
    assert client_as(role).get(reverse("games:session_list")).status_code == 403


def test_anonymous_is_sent_to_login(client: Client, game: Game) -> None:
    response = client.get(reverse("games:session_list"))
    assert response.status_code == 302
    assert response["Location"] == "/entrar/?next=/sessoes/"
    response = client.post(reverse("games:game_close_sales", args=[game.pk]))
    assert response["Location"].startswith("/entrar/")


# --- a game's life --------------------------------------------------------------------------------


def test_session_game_open_and_close_through_the_screens(manager: Client, room: Room) -> None:
    client = manager
    card_set = card_set_make(variant="90", size=90)
    first = series_make(hall=room.hall, card_set=card_set, order_number=1, price="100.00")
    second = series_make(hall=room.hall, card_set=card_set, order_number=2, price="100.00")

    response = client.post(reverse("games:session_create"), _session_form(room))
    session = Session.objects.get()
    assert response["Location"] == reverse("games:session_detail", args=[session.pk])
    assert session.room == room
    assert timezone.localtime(session.starts_at).hour == 20

    response = client.post(
        reverse("games:game_create", args=[session.pk]),
        {"variant": "90", "plan": "custom", "line_share": "25", "bingo_share": "55"},
    )
    game = Game.objects.get()
    assert response["Location"] == reverse("games:game_detail", args=[game.pk])
    assert game.prize_plan == {"line": "25", "bingo": "55"}

    response = client.post(
        reverse("games:game_open_sales", args=[game.pk]),
        {"first": first.pk, "second": second.pk},
        follow=True,
    )
    game.refresh_from_db()
    assert game.state == GameState.SELLING
    assert [e.series for e in game.on_sale.order_by("position")] == [first, second]
    body = response.content.decode()
    assert game.opening_announcement
    assert game.opening_announcement in body

    response = client.post(
        reverse("games:game_close_sales", args=[game.pk]), {"confirmado": "1"}, follow=True
    )
    game.refresh_from_db()
    assert game.state == GameState.SALES_CLOSED
    assert game.closing_announcement
    body = response.content.decode()
    # R40: shown exactly as recorded, one line per line.
    assert game.closing_announcement.replace("\n", "<br>") in body
    listing = client.get(reverse("games:session_list")).content.decode()
    assert reverse("games:game_detail", args=[game.pk]) in listing


def test_a_prize_plan_breaking_r7_is_refused_with_its_reason(manager: Client, session: Session) -> None:
    client = manager

    response = client.post(
        reverse("games:game_create", args=[session.pk]),
        {"variant": "90", "plan": "custom", "line_share": "30", "bingo_share": "40"},
    )

    assert response.status_code == 200
    errors = response.context["form"].non_field_errors()
    assert errors
    assert all("R7" in error for error in errors)
    assert "R7" in response.content.decode()
    assert not Game.objects.exists()


def test_a_session_ending_before_it_starts_is_refused(manager: Client, room: Room) -> None:
    data = _session_form(room) | {"scheduled_end": "2026-11-23T19:00"}

    response = manager.post(reverse("games:session_create"), data)

    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert not Session.objects.exists()


def test_closing_sales_that_never_opened_shows_the_refusal(manager: Client, game: Game) -> None:
    client = manager

    response = client.post(
        reverse("games:game_close_sales", args=[game.pk]), {"confirmado": "1"}, follow=True
    )

    game.refresh_from_db()
    assert game.state == GameState.PLANNED
    assert game.closing_announcement == ""
    messages = [str(m) for m in response.context["messages"]]
    assert len(messages) == 1
    # The refusal names the state the game could not move to, in the page's language.
    with translation.override("pt"):
        assert str(GameState.SALES_CLOSED.label).lower() in messages[0]
    assert messages[0] in response.content.decode()


def test_closing_sales_asks_for_confirmation_first_and_changes_nothing_until_then(
    manager: Client, game: Game
) -> None:  # R40
    series = series_make(hall=game.session.room.hall, order_number=7)
    services.game_open_sales(game=game, series=[series])
    close = reverse("games:game_close_sales", args=[game.pk])
    manager.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    cashier = UserFactory(username="caixa-praia", roles=[Role.CASHIER])
    StaffMembership.objects.create(hall=game.session.room.hall, user=cashier, role=Role.CASHIER.value)
    desk = CashDesk.objects.create(hall=game.session.room.hall, name="Caixa 1")
    sales_services.sale_make(
        game=game, quantity=3, cash_desk=desk, cashier=cashier, cash_received="300", request_key="k1"
    )

    asked = manager.post(close)

    assert asked.status_code == 200
    page = asked.content.decode()
    assert f"Close the sales of game {game.number}?" in page
    assert f"Series {series.label}: cards 1 to 3 sold (3 cards)." in page
    assert 'name="confirmado" value="1"' in page
    assert f'action="{close}"' in page
    assert f'href="{reverse("games:game_detail", args=[game.pk])}" data-confirm-cancel' in page
    game.refresh_from_db()
    assert (game.state, game.sales_closed_at, game.closing_announcement) == (GameState.SELLING, None, "")

    manager.post(close, {"confirmado": "1"})

    game.refresh_from_db()
    assert game.state == GameState.SALES_CLOSED
    assert game.closing_announcement


def test_closing_sales_in_portuguese_asks_for_confirmation(manager: Client, game: Game) -> None:
    services.game_open_sales(game=game, series=[series_make(hall=game.session.room.hall, order_number=8)])
    page = manager.post(reverse("games:game_close_sales", args=[game.pk])).content.decode()
    assert f"Fechar as vendas da jogada {game.number}?" in page
    assert "Sim, fechar as vendas" in page


def test_opening_a_series_of_another_hall_is_refused_and_nothing_changes(manager: Client, game: Game) -> None:
    other = series_make(hall=Hall.objects.create(name="Sala Mindelo"))

    response = manager.post(reverse("games:game_open_sales", args=[game.pk]), {"first": other.pk})

    assert response.status_code == 200
    assert response.context["open_form"].errors["first"]
    game.refresh_from_db()
    assert game.state == GameState.PLANNED
    assert not game.on_sale.exists()


# --- times on the hall's clock --------------------------------------------------------------------

TOKYO = ZoneInfo("Asia/Tokyo")  # nine hours ahead of UTC, ten of the server's Cabo Verde


@pytest.fixture
def tokyo_room(room: Room) -> Room:
    room.hall.time_zone = "Asia/Tokyo"
    room.hall.save()
    return room


def test_the_session_form_reads_times_on_the_halls_clock(manager: Client, tokyo_room: Room) -> None:
    assert settings.TIME_ZONE != "Asia/Tokyo"

    response = manager.post(reverse("games:session_create"), _session_form(tokyo_room))

    session = Session.objects.get()
    assert response.status_code == 302
    assert session.starts_at == datetime(2026, 11, 23, 20, 0, tzinfo=TOKYO)
    assert session.scheduled_end == datetime(2026, 11, 24, 0, 0, tzinfo=TOKYO)
    assert session.starts_at == datetime(2026, 11, 23, 11, 0, tzinfo=UTC)


def test_session_pages_show_times_on_the_halls_clock(manager: Client, tokyo_room: Room) -> None:
    start = datetime(2026, 11, 23, 20, 0, tzinfo=TOKYO)
    session = services.session_open(
        room=tokyo_room, starts_at=start, scheduled_end=start + timedelta(hours=4), user=None
    )

    detail = manager.get(reverse("games:session_detail", args=[session.pk])).content.decode()
    listing = manager.get(reverse("games:session_list")).content.decode()

    # On the server's clock (Cabo Verde, UTC-1) the session would show 10:00 - 14:00.
    times = re.search(r'<span class="session-times">([^<]*)</span>', detail)
    assert times is not None
    assert times[1] == "23/11/2026 20:00 \u2013 24/11/2026 00:00"
    assert "Tokyo" in detail  # the zone by its name (issue 25)
    assert "23/11/2026 20:00" in listing
    assert "24/11/2026 00:00" in listing
    assert "10:00" not in listing


def test_the_session_form_starts_on_the_halls_clock(manager: Client, tokyo_room: Room) -> None:
    form = manager.get(reverse("games:session_create")).context["form"]

    start = form.initial["starts_at"]
    now_in_tokyo = timezone.localtime(timezone=TOKYO).replace(tzinfo=None)
    assert abs(start - now_in_tokyo) < timedelta(minutes=2)
    assert form.initial["scheduled_end"] - start == timedelta(hours=4)


@pytest.mark.parametrize(
    ("starts_at", "why"),
    [("2026-10-25T01:30", "happens twice"), ("2026-03-29T01:30", "never happens")],
)
def test_a_time_the_halls_clock_change_makes_ambiguous_is_refused(
    manager: Client, room: Room, starts_at: str, why: str
) -> None:
    # Lisbon's clocks go back from 02:00 to 01:00 on 25 October 2026 and forward from 01:00 to
    # 02:00 on 29 March 2026; Cabo Verde's, the server's, never change.
    room.hall.time_zone = "Europe/Lisbon"
    room.hall.save()
    data = _session_form(room) | {"starts_at": starts_at, "scheduled_end": "2026-10-25T05:00"}

    response = manager.post(reverse("games:session_create"), data)

    assert response.status_code == 200, why
    assert "hora de Lisboa" in response.context["form"].errors["starts_at"][0]  # by its name (issue 25)
    assert not Session.objects.exists()


# --- winning combinations and the jackpot's balls ------------------------------------------------


def test_a_75_ball_pattern_game_and_its_lines_are_set_on_the_form(manager: Client, session: Session) -> None:
    url = reverse("games:game_create", args=[session.pk])
    manager.post(url, {"variant": "75", "plan": "custom", "bingo_share": "80", "pattern": "x"})
    game = Game.objects.get()
    # R73 b): the bingo is the library's X, stored by its cells and named by its key.
    assert game.win_rules == {
        "line_kinds": [],
        "pattern": "X...X/.X.X./..X../.X.X./X...X",
        "pattern_key": "x",
    }
    manager.post(url, {"variant": "80", "plan": "default", "line_kinds": ["diagonal"]})
    assert Game.objects.get(variant="80").win_rules["line_kinds"] == ["diagonal"]  # R67


def test_a_pattern_on_a_90_ball_game_is_refused_citing_the_rule(manager: Client, session: Session) -> None:
    response = manager.post(
        reverse("games:game_create", args=[session.pk]),
        {"variant": "90", "plan": "custom", "bingo_share": "80", "pattern": "x"},
    )
    assert response.status_code == 200
    assert any("R73" in e for e in response.context["form"].non_field_errors())
    assert not Game.objects.exists()


def test_the_session_form_fixes_the_jackpot_balls(manager: Client, room: Room) -> None:  # R9
    Hall.objects.filter(pk=room.hall_id).update(jackpot_active=True)
    manager.post(reverse("games:session_create"), {**_session_form(room), "jackpot_balls": "48"})
    assert Session.objects.get().jackpot_balls == 48


# --- online rooms: their sessions are the online loop's (R90-R93) -------------------------------


def _online_room_running(hall: Hall, mode: str = "continuous") -> Room:
    """An online room of ``hall``; a continuous one with its day's session and a game selling."""
    from bingo.autodraw.services import online_reconcile
    from bingo.online import services as online_services

    if mode == "continuous":
        series_make(hall=hall, online=True)
    online = online_services.online_room_create(hall=hall, name="Online", mode=mode, ball_interval="2")
    online_reconcile()
    return online.room


def test_the_session_screen_refuses_a_hall_session_in_an_online_room_whose_continuous_session_runs(
    client: Client, make_user: Callable[..., User], room: Room
) -> None:
    online_room = _online_room_running(room.hall)
    running = Session.objects.get(room=online_room, ended_at__isnull=True)
    assert running.games.get().state == GameState.SELLING
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "pt"
    manager = _log_in_as(client, make_user, Role.MANAGER, room)

    response = manager.post(reverse("games:session_create"), _session_form(online_room))

    assert response.status_code == 200
    errors = response.context["form"].errors
    assert list(errors) == ["room"]
    assert "sala online" in errors["room"][0]
    assert "R90" in errors["room"][0]
    assert list(Session.objects.filter(room=online_room)) == [running]
    # A hall room of the same hall still opens its session.
    assert manager.post(reverse("games:session_create"), _session_form(room)).status_code == 302


def test_the_session_screen_refuses_a_hall_session_in_a_session_mode_online_room(
    manager: Client, room: Room
) -> None:
    """Whenever it starts: the online loop would open its games' sales as an online session's."""
    online_room = _online_room_running(room.hall, mode="session")

    response = manager.post(reverse("games:session_create"), _session_form(online_room))

    assert response.status_code == 200
    assert "R91" in response.context["form"].errors["room"][0]
    assert not Session.objects.filter(room=online_room).exists()


def test_the_game_screen_refuses_a_game_added_by_hand_to_an_online_room_s_session(
    manager: Client, room: Room
) -> None:
    """The continuous loop opens the session's planned game first: one of another variant, added
    here, was refused every second and kept the room from selling for good (R90)."""
    online_room = _online_room_running(room.hall)
    running = Session.objects.get(room=online_room, ended_at__isnull=True)

    response = manager.post(
        reverse("games:game_create", args=[running.pk]), {"variant": "75", "plan": "default"}
    )

    assert response.status_code == 200
    assert "R90" in " ".join(response.context["form"].non_field_errors())
    assert running.games.count() == 1
