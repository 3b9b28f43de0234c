"""Online rooms and sessions (R88-R93): set up from the service, the manager's screens and the
API; a ball interval under one second refused everywhere (R88); a session with several
variants and prices (R92) whose sales close together (R93)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, time, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError
from django.test import TestCase
from django.urls import reverse
from django.utils import timezone, translation

from actas.models import Acta, ActaNote
from bingo.autodraw.services import online_reconcile
from bingo.models import Game, OnlineRoom, RoomMode, Session
from bingo.online import services
from cards import services as card_services
from cards.models import Series
from halls.models import Room
from tests.cards.factories import series_make
from tests.clients import logged_in
from tests.online.helpers import OnlineSetup


@pytest.fixture
def site(db):
    return OnlineSetup(mode=RoomMode.SESSION)


def reconcile_online() -> None:
    with TestCase.captureOnCommitCallbacks(execute=True):
        online_reconcile()


def test_r88_the_service_refuses_a_ball_interval_under_one_second(site):
    with translation.override("en"), pytest.raises(ValidationError, match="R88") as refused:
        services.online_room_create(hall=site.hall, name="Rápida", mode="continuous", ball_interval="0.5")
    assert "ball_interval" in refused.value.message_dict
    with pytest.raises(ValidationError, match="R88"):
        services.online_room_update(online_room=site.online, ball_interval=Decimal("0.99"))
    services.online_room_update(online_room=site.online, ball_interval=Decimal("1"))
    assert OnlineRoom.objects.get(pk=site.online.pk).ball_interval == Decimal("1.00")


def test_a_room_is_created_with_its_plan_checked_against_r7(site):
    series_make(hall=site.hall, variant="75", size=75, online=True)  # R90: something to sell
    room = services.online_room_create(
        hall=site.hall, name="Contínua", mode="continuous", ball_interval="3", sales_seconds=30,
        pause_seconds=5, variant="75", prize_plan={"line": "10", "four_corners": "10", "bingo": "60"},
    )  # fmt: skip
    assert room.variant == "75"
    assert room.prize_plan == {"line": "10", "four_corners": "10", "bingo": "60"}
    with pytest.raises(ValidationError) as refused:
        services.online_room_create(
            hall=site.hall, name="Má", mode="continuous", ball_interval="3", prize_plan={"bingo": "99"}
        )
    assert "prize_plan" in refused.value.message_dict


def test_the_manager_screens_create_edit_and_refuse_r88(site):
    site.series(1)  # R90: a continuous room opens with something to sell
    client = logged_in(site.manager, "en")
    page = client.get(reverse("online:room_create"))
    assert page.status_code == 200
    data = {
        "hall": site.hall.pk, "name": "Noite", "mode": "continuous", "ball_interval": "0.5",
        "sales_seconds": "60", "pause_seconds": "10", "variant": "90", "prize_plan": "line=20, bingo=60",
        "active": "on",
    }  # fmt: skip
    refused = client.post(reverse("online:room_create"), data)
    assert refused.status_code == 200
    assert "R88" in refused.content.decode()
    assert not OnlineRoom.objects.filter(room__name="Noite").exists()
    created = client.post(reverse("online:room_create"), {**data, "ball_interval": "2.5"})
    room = OnlineRoom.objects.get(room__name="Noite")
    assert created.status_code == 302
    assert room.ball_interval == Decimal("2.50")
    assert room.prize_plan == {"line": "20", "bingo": "60"}
    edit = {k: v for k, v in data.items() if k != "hall"}
    client.post(reverse("online:room_detail", args=[room.pk]), {**edit, "ball_interval": "5", "active": ""})
    room.refresh_from_db()
    assert room.ball_interval == Decimal("5.00")
    assert not room.active
    # In Portuguese, the default.
    page = logged_in(site.manager, "pt").get(reverse("online:room_detail", args=[room.pk]))
    assert "Segundos entre bolas" in page.content.decode()


def test_another_halls_manager_cannot_see_the_room(site):
    other = OnlineSetup(name="Outra")
    client = logged_in(other.manager, "en")
    assert client.get(reverse("online:room_detail", args=[site.online.pk])).status_code == 404
    assert client.get(f"/api/online/rooms/{site.online.pk}/").status_code == 404


def test_r92_r93_a_session_with_several_variants_and_prices_closing_together(site):
    site.series(1, price="10.00")
    site.series(2, price="20.00")
    series_make(hall=site.hall, variant="75", size=75, order_number=3, price="5.00", online=True)
    start = timezone.now() + timedelta(minutes=10)
    close = start + timedelta(minutes=5)
    session = services.online_session_schedule(
        online_room=site.online,
        starts_at=start,
        sales_close_at=close,
        scheduled_end=start + timedelta(hours=1),
        games=[
            services.SessionGame("90", "10.00", {"line": "20", "bingo": "60"}),
            services.SessionGame("90", "20.00", {"line": "15", "bingo": "65"}),
            services.SessionGame("75", "5.00"),
        ],
        ball_interval="1.5",
        user=site.manager,
    )
    games = list(session.games.order_by("number"))
    assert [(g.variant, g.price) for g in games] == [
        ("90", Decimal("10.00")), ("90", Decimal("20.00")), ("75", Decimal("5.00"))
    ]  # fmt: skip
    assert games[1].prize_plan == {"line": "15", "bingo": "65"}
    assert {g.sales_close_at for g in games} == {close}  # R93: one close for all
    assert {g.ball_interval for g in games} == {Decimal("1.50")}
    assert {g.state for g in games} == {"planned"}
    assert session.starts_at == start


def test_a_session_is_refused_without_series_at_that_price_r88_or_in_a_continuous_room(site):
    site.series(1, price="10.00")
    start = timezone.now()
    kwargs = {
        "online_room": site.online, "starts_at": start, "sales_close_at": start + timedelta(minutes=5),
        "scheduled_end": start + timedelta(hours=1), "user": site.manager,
    }  # fmt: skip
    with translation.override("en"):
        with pytest.raises(ValidationError, match="no online series"):
            services.online_session_schedule(games=[services.SessionGame("90", "30.00")], **kwargs)
        with pytest.raises(ValidationError, match="R88"):
            services.online_session_schedule(
                games=[services.SessionGame("90", "10.00")], ball_interval="0.2", **kwargs
            )
        with pytest.raises(ValidationError, match="R93"):
            services.online_session_schedule(
                games=[services.SessionGame("90", "10.00")], **{**kwargs, "sales_close_at": start}
            )
        continuous = OnlineSetup(name="Contínua")
        with pytest.raises(ValidationError, match="R91"):
            services.online_session_schedule(
                games=[services.SessionGame("90", "10.00")], **{**kwargs, "online_room": continuous.online}
            )
    assert not Game.objects.exists()


def test_the_schedule_screen_takes_one_game_a_line(site):
    site.series(1, price="10.00")
    site.series(2, price="20.00")
    client = logged_in(site.manager, "en")
    start = timezone.localtime() + timedelta(minutes=30)
    fmt = "%Y-%m-%dT%H:%M"
    response = client.post(
        reverse("online:session_schedule", args=[site.online.pk]),
        {
            "starts_at": start.strftime(fmt),
            "sales_close_at": (start + timedelta(minutes=5)).strftime(fmt),
            "scheduled_end": (start + timedelta(hours=1)).strftime(fmt),
            "ball_interval": "2",
            "games": "90; 10.00; line=20, bingo=60\n90; 20,00",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert sorted(Game.objects.values_list("price", flat=True)) == [Decimal("10.00"), Decimal("20.00")]
    refused = client.post(
        reverse("online:session_schedule", args=[site.online.pk]),
        {
            "starts_at": start.strftime(fmt), "sales_close_at": start.strftime(fmt),
            "scheduled_end": start.strftime(fmt), "ball_interval": "0.5", "games": "90; 10.00",
        },
    )  # fmt: skip
    assert refused.status_code == 400
    assert "R88" in refused.content.decode()


def test_the_api_creates_edits_and_schedules_and_refuses_r88(site):
    client = logged_in(site.manager, "en")
    body = {"hall": site.hall.pk, "name": "API", "mode": "session", "ball_interval": "0.5"}
    refused = client.post("/api/online/rooms/", json.dumps(body), content_type="application/json")
    assert refused.status_code == 400
    assert "R88" in refused.json()["ball_interval"][0]
    created = client.post(
        "/api/online/rooms/", json.dumps({**body, "ball_interval": "2.00"}), content_type="application/json"
    )
    assert created.status_code == 201, created.json()
    room_id = created.json()["id"]
    assert created.json()["ball_interval"] == "2.00"
    changed = client.patch(
        f"/api/online/rooms/{room_id}/", json.dumps({"ball_interval": "0.9"}), content_type="application/json"
    )
    assert changed.status_code == 400
    changed = client.patch(
        f"/api/online/rooms/{room_id}/", json.dumps({"active": False}), content_type="application/json"
    )
    assert changed.json()["active"] is False
    site.series(1, price="10.00")
    start = timezone.now() + timedelta(minutes=1)
    scheduled = client.post(
        f"/api/online/rooms/{room_id}/sessions/",
        json.dumps({
            "starts_at": start.isoformat(), "sales_close_at": (start + timedelta(minutes=3)).isoformat(),
            "scheduled_end": (start + timedelta(hours=1)).isoformat(),
            "games": [{"variant": "90", "price": "10.00"}, {"variant": "90", "price": "10.00",
                       "prize_plan": {"line": "25", "bingo": "55"}}],
        }),
        content_type="application/json",
    )  # fmt: skip
    assert scheduled.status_code == 201, scheduled.json()
    assert [g["price"] for g in scheduled.json()["games"]] == ["10.00", "10.00"]
    assert client.get("/api/online/rooms/").json()[0]["id"] in {room_id, site.online.pk}


# --- the hall's clock (R93: sales open and close at the hall's hour) ---------------------------


def _hall_hour(zone: ZoneInfo, hour: int) -> datetime:
    """Tomorrow at ``hour`` o'clock on the hall's clock (naive: what the manager types)."""
    tomorrow = timezone.localtime(timezone=zone).date() + timedelta(days=1)
    return datetime.combine(tomorrow, time(hour))


@pytest.mark.parametrize("zone_name", ["America/New_York", "Europe/Lisbon"])
def test_r93_the_schedule_screen_reads_times_on_the_halls_clock(db, zone_name):
    site = OnlineSetup(mode=RoomMode.SESSION, time_zone=zone_name)
    site.series(1, price="10.00")
    zone = ZoneInfo(zone_name)
    start = _hall_hour(zone, 20)
    fmt = "%Y-%m-%dT%H:%M"
    response = logged_in(site.manager, "en").post(
        reverse("online:session_schedule", args=[site.online.pk]),
        {
            "starts_at": start.strftime(fmt),
            "sales_close_at": (start + timedelta(minutes=5)).strftime(fmt),
            "scheduled_end": (start + timedelta(hours=1)).strftime(fmt),
            "games": "90; 10.00",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    game = Game.objects.get(session__room=site.room)
    assert game.session.starts_at == start.replace(tzinfo=zone)  # 20:00 in the hall, not the server
    assert game.sales_close_at == (start + timedelta(minutes=5)).replace(tzinfo=zone)
    assert game.session.scheduled_end == (start + timedelta(hours=1)).replace(tzinfo=zone)


def test_r93_the_api_reads_times_without_an_offset_on_the_halls_clock(db):
    site = OnlineSetup(mode=RoomMode.SESSION, time_zone="America/New_York")
    site.series(1, price="10.00")
    zone = ZoneInfo("America/New_York")
    start = _hall_hour(zone, 20)
    close_utc = (start + timedelta(minutes=5)).replace(tzinfo=zone).astimezone(UTC)
    scheduled = logged_in(site.manager, "en").post(
        f"/api/online/rooms/{site.online.pk}/sessions/",
        json.dumps({
            "starts_at": start.isoformat(),  # no offset: the hall's clock
            "sales_close_at": close_utc.isoformat(),  # an offset says which instant it is
            "scheduled_end": (start + timedelta(hours=1)).isoformat(),
            "games": [{"variant": "90", "price": "10.00"}],
        }),
        content_type="application/json",
    )  # fmt: skip
    assert scheduled.status_code == 201, scheduled.json()
    game = Game.objects.get(session__room=site.room)
    assert game.session.starts_at == start.replace(tzinfo=zone)
    assert game.sales_close_at == close_utc
    assert game.session.scheduled_end == (start + timedelta(hours=1)).replace(tzinfo=zone)


# --- a session is scheduled before it starts (R91) --------------------------------------------


def _nothing_written(site) -> None:
    assert not Session.objects.filter(room=site.room).exists()
    assert not Game.objects.filter(session__room=site.room).exists()
    assert not Acta.objects.exists()
    assert not ActaNote.objects.exists()


def test_r91_a_session_starting_in_the_past_is_refused_and_nothing_is_written(site):
    site.series(1, price="10.00")
    start = datetime(2020, 3, 1, 20, 0, tzinfo=UTC)
    kwargs = {
        "online_room": site.online, "games": [services.SessionGame("90", "10.00")], "user": site.manager,
    }  # fmt: skip
    with translation.override("en"), pytest.raises(ValidationError, match="has passed") as refused:
        services.online_session_schedule(
            starts_at=start,
            sales_close_at=start + timedelta(minutes=5),
            scheduled_end=start + timedelta(hours=1),
            **kwargs,
        )
    assert list(refused.value.message_dict) == ["starts_at"]
    on_the_halls_clock = start.astimezone(ZoneInfo(site.hall.time_zone)).strftime("%d/%m/%Y %H:%M")
    assert on_the_halls_clock in refused.value.message_dict["starts_at"][0]
    # Three minutes ago is past too: only the minute being typed (and a little skew) is allowed.
    ago = timezone.now() - timedelta(minutes=3)
    with pytest.raises(ValidationError) as refused:
        services.online_session_schedule(
            starts_at=ago, sales_close_at=ago + timedelta(minutes=5), scheduled_end=ago + timedelta(hours=1),
            **kwargs,
        )  # fmt: skip
    assert list(refused.value.message_dict) == ["starts_at"]
    reconcile_online()
    _nothing_written(site)


def test_a_session_ending_before_it_starts_is_refused_on_its_end(site):
    site.series(1, price="10.00")
    start = timezone.now() + timedelta(hours=1)
    with translation.override("en"), pytest.raises(ValidationError) as refused:
        services.online_session_schedule(
            online_room=site.online, starts_at=start, sales_close_at=start + timedelta(minutes=5),
            scheduled_end=start - timedelta(minutes=1), games=[services.SessionGame("90", "10.00")],
            user=site.manager,
        )  # fmt: skip
    assert refused.value.message_dict == {"scheduled_end": ["A session must end after it starts."]}
    _nothing_written(site)


def test_a_session_starting_within_the_minute_being_typed_is_accepted(site):
    site.series(1, price="10.00")
    start = timezone.now().replace(second=0, microsecond=0) - timedelta(seconds=50)
    session = services.online_session_schedule(
        online_room=site.online, starts_at=start, sales_close_at=start + timedelta(minutes=5),
        scheduled_end=start + timedelta(hours=1), games=[services.SessionGame("90", "10.00")],
        user=site.manager,
    )  # fmt: skip
    assert session.starts_at == start


def test_r91_the_schedule_screen_refuses_a_start_in_2020_on_its_field(site):
    site.series(1, price="10.00")
    response = logged_in(site.manager, "pt").post(
        reverse("online:session_schedule", args=[site.online.pk]),
        {
            "starts_at": "2020-03-01T20:00",  # the hall's clock
            "sales_close_at": "2020-03-01T20:05",
            "scheduled_end": "2020-03-01T21:00",
            "games": "90; 10.00",
        },
    )
    assert response.status_code == 400
    errors = response.context["schedule_form"].errors
    assert list(errors) == ["starts_at"]
    assert "01/03/2020 20:00" in errors["starts_at"][0]
    assert "já passou" in response.content.decode()  # in Portuguese on the page
    _nothing_written(site)


def test_r91_the_api_refuses_a_start_in_2020_on_its_field(site):
    site.series(1, price="10.00")
    refused = logged_in(site.manager, "en").post(
        f"/api/online/rooms/{site.online.pk}/sessions/",
        json.dumps({
            "starts_at": "2020-03-01T20:00:00", "sales_close_at": "2020-03-01T20:05:00",
            "scheduled_end": "2020-03-01T21:00:00", "games": [{"variant": "90", "price": "10.00"}],
        }),
        content_type="application/json",
    )  # fmt: skip
    assert refused.status_code == 400
    assert list(refused.json()) == ["starts_at"]
    assert "01/03/2020 20:00" in refused.json()["starts_at"][0]
    _nothing_written(site)


# --- a continuous room opens with something to sell (R90) ----------------------------------------


def test_r90_a_continuous_room_is_refused_when_the_hall_has_no_online_series_of_its_variant(site):
    site.series(1, online=False)  # a hall series: sold at the desks only (R85)
    retired = series_make(hall=site.hall, variant="75", size=75, online=True)
    card_services.series_retire(series=retired)
    with translation.override("en"):
        for variant in ("90", "75"):
            with pytest.raises(ValidationError) as refused:
                services.online_room_create(
                    hall=site.hall, name="Vazia", mode="continuous", ball_interval="2", variant=variant
                )
            assert list(refused.value.message_dict) == ["variant"]
            message = refused.value.message_dict["variant"][0]
            assert f"no online series of variant {variant} with cards left to sell" in message
            assert "New series" in message
    assert not Room.objects.filter(name="Vazia").exists()
    # Closed to players, or in session mode (each session's games are checked as scheduled): taken.
    closed = services.online_room_create(
        hall=site.hall, name="Fechada", mode="continuous", ball_interval="2", active=False
    )
    assert not closed.active
    services.online_room_create(hall=site.hall, name="Sessões", mode="session", ball_interval="2")
    site.series(3)
    assert services.online_room_create(hall=site.hall, name="Aberta", mode="continuous", ball_interval="2")


def test_r90_opening_a_room_or_changing_what_it_plays_is_refused_with_nothing_to_sell(site):
    closed = services.online_room_create(
        hall=site.hall, name="Fechada", mode="continuous", ball_interval="2", active=False
    )
    with pytest.raises(ValidationError) as refused:
        services.online_room_update(online_room=closed, active=True)
    assert list(refused.value.message_dict) == ["variant"]
    with pytest.raises(ValidationError):
        services.online_room_update(online_room=site.online, mode="continuous")  # from session mode
    site.series(1)
    opened = services.online_room_update(online_room=closed, active=True)
    with translation.override("en"), pytest.raises(ValidationError, match="variant 75"):
        services.online_room_update(online_room=opened, variant="75")
    assert OnlineRoom.objects.get(pk=closed.pk).variant == "90"
    # A room already waiting for a series (its page says why) still takes other changes.
    for series in Series.objects.filter(hall=site.hall):
        card_services.series_retire(series=series)
    services.online_room_update(online_room=opened, ball_interval="3", mode="continuous", active=True)
    assert OnlineRoom.objects.get(pk=closed.pk).ball_interval == Decimal("3.00")


def test_r90_the_screen_refuses_a_continuous_room_with_nothing_to_sell_on_its_variant(site):
    data = {
        "hall": site.hall.pk, "name": "Noite", "mode": "continuous", "ball_interval": "2",
        "sales_seconds": "60", "pause_seconds": "10", "variant": "75", "prize_plan": "", "active": "on",
    }  # fmt: skip

    refused = logged_in(site.manager, "pt").post(reverse("online:room_create"), data)

    assert refused.status_code == 200
    errors = refused.context["form"].errors
    assert list(errors) == ["variant"]
    assert "não tem séries online da variante 75 com cartões por vender" in errors["variant"][0]
    assert "Nova série" in refused.content.decode()
    assert not Room.objects.filter(name="Noite").exists()


def test_r90_the_api_refuses_a_continuous_room_with_nothing_to_sell(site):
    client = logged_in(site.manager, "en")
    body = {"hall": site.hall.pk, "name": "API", "mode": "continuous", "ball_interval": "2"}
    refused = client.post("/api/online/rooms/", json.dumps(body), content_type="application/json")
    assert refused.status_code == 400
    assert list(refused.json()) == ["variant"]
    assert "no online series of variant 90" in refused.json()["variant"][0]
    assert not Room.objects.filter(name="API").exists()
    closed = client.post(
        "/api/online/rooms/", json.dumps({**body, "active": False}), content_type="application/json"
    )
    assert closed.status_code == 201
    assert closed.json()["idle"] is None
    opened = client.patch(
        f"/api/online/rooms/{closed.json()['id']}/",
        json.dumps({"active": True}),
        content_type="application/json",
    )
    assert opened.status_code == 400
    assert "variant" in opened.json()
    assert OnlineRoom.objects.get(pk=closed.json()["id"]).active is False


def test_a_room_is_not_switched_to_continuous_while_one_of_its_sessions_is_scheduled(site):
    """The continuous loop would take the scheduled session as its day's and sell its games at
    once, with the room's variant, whatever was announced (R91-R93)."""
    site.series(1, price="10.00")
    start = timezone.now() + timedelta(hours=2)
    services.online_session_schedule(
        online_room=site.online, starts_at=start, sales_close_at=start + timedelta(minutes=5),
        scheduled_end=start + timedelta(hours=1), games=[services.SessionGame("90", "10.00")],
        user=site.manager,
    )  # fmt: skip
    with (
        translation.override("en"),
        pytest.raises(ValidationError, match="once that session has ended") as refused,
    ):
        services.online_room_update(online_room=site.online, mode="continuous")
    assert list(refused.value.message_dict) == ["mode"]
    assert OnlineRoom.objects.get(pk=site.online.pk).mode == RoomMode.SESSION
    page = logged_in(site.manager, "pt").post(
        reverse("online:room_detail", args=[site.online.pk]),
        {"name": "Online 1", "mode": "continuous", "ball_interval": "2", "sales_seconds": "60",
         "pause_seconds": "10", "variant": "90", "prize_plan": "", "active": "on"},
    )  # fmt: skip
    assert page.status_code == 200
    assert "depois de essa sessão terminar" in page.context["form"].errors["mode"][0]
    assert OnlineRoom.objects.get(pk=site.online.pk).mode == RoomMode.SESSION


def test_r92_a_session_game_is_refused_when_its_only_series_cannot_be_sold_online(site):
    """The scheduling checks with the loop's own rule: double cards are never sold online (an
    online game plays its cards once), so a session counting on them would never open."""
    series_make(hall=site.hall, card_set=site.card_set, price="10.00", online=True, double=True)
    start = timezone.now() + timedelta(hours=1)
    with translation.override("en"), pytest.raises(ValidationError, match="no online series"):
        services.online_session_schedule(
            online_room=site.online, starts_at=start, sales_close_at=start + timedelta(minutes=5),
            scheduled_end=start + timedelta(hours=1), games=[services.SessionGame("90", "10.00")],
            user=site.manager,
        )  # fmt: skip
    assert not Session.objects.filter(room=site.room).exists()
