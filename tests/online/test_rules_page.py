"""«Regras e reclamações» (R103, PT-806/66, PT-803/38): the rules of online bingo as this system
plays them, each open online room's card price, prize plan and ball interval, and how to complain;
public, one click away from every player page."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bingo.common.money import money_display
from bingo.models import RoomMode
from bingo.online import services
from tests.online.helpers import OnlineSetup, online_room_of

pytestmark = pytest.mark.django_db


def _continuous() -> OnlineSetup:
    setup = OnlineSetup("Salão Praia")
    setup.series(1, price="50.00")
    services.online_room_update(online_room=online_room_of(setup), prize_plan={"line": "25", "bingo": "55"})
    return setup


def test_r103_the_rules_page_is_public_with_rules_rooms_and_how_to_complain() -> None:
    setup = _continuous()
    page = Client().get(reverse("online:rules"))
    assert page.status_code == 200
    html = page.content.decode()
    for words in (
        "Regras e reclamações",
        "(R46)",  # sharing
        "pelo menos um segundo",  # R88
        "(R96, R97)",  # automatic prizes
        "(R98)",
        "(R99)",
        "(R101)",
        "Como reclamar",
        "Livro de Reclamações",
        "Autoridade Reguladora",
        "Contacto: a caixa do salão.",
    ):
        assert words in html, words
    assert f'data-room="{setup.online.pk}"' in html
    assert money_display(Decimal("50.00"), setup.hall.currency) in html
    assert "Linha 25 %, Bingo 55 %" in html
    assert 'data-interval="2.00"' in html
    assert setup.hall.name in html
    # In English too.
    english = Client()
    english.cookies["django_language"] = "en"
    assert (
        "How to complain" in english.get(reverse("online:rules"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    )


def test_r92_a_session_rooms_coming_games_show_their_prices_and_plans() -> None:
    setup = OnlineSetup("Salão Sessões", mode=RoomMode.SESSION)
    setup.series(1, price="20.00")
    setup.series(2, price="40.00")
    start = timezone.now() + timedelta(hours=1)
    services.online_session_schedule(
        online_room=online_room_of(setup),
        starts_at=start,
        sales_close_at=start + timedelta(minutes=5),
        scheduled_end=start + timedelta(hours=2),
        games=[
            services.SessionGame("90", "20.00"),
            services.SessionGame("90", "40.00", {"line": "15", "bingo": "65"}),
        ],
        user=setup.manager,
    )
    html = Client().get(reverse("online:rules")).content.decode()
    assert money_display(Decimal("20.00"), setup.hall.currency) in html
    assert money_display(Decimal("40.00"), setup.hall.currency) in html
    assert "Linha 20 %, Bingo 60 %" in html  # the variant's default plan (R7)
    assert "Linha 15 %, Bingo 65 %" in html


def test_a_player_sees_only_their_operators_rooms() -> None:
    mine, other = _continuous(), OnlineSetup("Outro Operador")
    player = mine.player()
    client = Client()
    client.force_login(player.user)
    html = client.get(reverse("online:rules")).content.decode()
    assert f'data-room="{mine.online.pk}"' in html
    assert f'data-room="{other.online.pk}"' not in html
    assert reverse("players:history") in html  # how to complain: from the history
    # Anyone not logged in sees every operator's open rooms.
    public = Client().get(reverse("online:rules")).content.decode()
    assert f'data-room="{other.online.pk}"' in public


def test_pt806_66_every_player_page_links_the_rules_in_the_header(settings: object) -> None:
    setup = _continuous()
    player = setup.player()
    client = Client()
    client.force_login(player.user)
    link = f'id="rules-link" href="{reverse("online:rules")}"'
    for url in (
        reverse("dashboard-player"),
        reverse("online:lobby"),
        reverse("players:wallet"),
        reverse("players:history"),
        reverse("online:rules"),
    ):
        assert link in client.get(url).content.decode(), url
    game = setup.game(setup.series(2, price="50.00"))
    assert link in client.get(reverse("online:game", args=[game.pk])).content.decode()
    assert link in Client().get(reverse("login")).content.decode()
    # Staff pages do not carry it.
    staff = Client()
    staff.force_login(setup.cashier)
    assert link not in staff.get(reverse("dashboard-cashier")).content.decode()


def test_the_operator_contact_comes_from_the_settings(settings: object) -> None:
    _continuous()
    settings.OPERATOR_CONTACT = "reclamacoes@operador.cv · +238 260 00 00"  # type: ignore[attr-defined]
    html = Client().get(reverse("online:rules")).content.decode()
    assert "reclamacoes@operador.cv · +238 260 00 00" in html
