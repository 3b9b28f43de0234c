"""A player's e-mail verified before the first deposit (issue 25 point 3): the link mailed at
registration and again from the player's page; the desk's deposit refused with a clear message
(page, API, service, and PostgreSQL's trigger) until the link is opened, then taken."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.urls import reverse

from bingo.models import Player
from bingo.players import selectors, services
from bingo.players.views import EmailVerificationSendThrottle
from tests.players.conftest import Halls, registration_form

LINK = re.compile(r"https?://[^/\s]+(/jogador/email/verificar/[^\s]+/)")
NOT_VERIFIED = "ainda não verificou o seu endereço de e-mail"


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Callable[[], Any]:
    """``with committed():`` runs the block's after-commit callbacks (the mails) at its end, as
    the commit of a request does outside the test's transaction."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def _link(message: mail.EmailMessage) -> str:
    found = LINK.search(message.body)
    assert found is not None, message.body
    return found.group(1)


def _deposit(halls: Halls, player: Player, key: str = "d1") -> object:
    return halls.deposit(player, "500", key=key)


def test_registration_mails_the_link_and_the_desk_deposits_only_once_it_is_opened(
    halls: Halls, client: Client, committed: Callable[[], Any]
) -> None:
    with committed():
        response = client.post(reverse("players:register"), registration_form("joana", hall=halls.praia.pk))
    assert response.status_code == 302
    player = Player.objects.get(user__username="joana")
    assert player.email_verified_at is None
    assert [m.to for m in mail.outbox] == [["joana@example.cv"]]
    assert mail.outbox[0].subject == "Verifique o seu endereço de e-mail (Sala Praia)"
    assert "Para confirmar que este endereço de e-mail é seu" in mail.outbox[0].body
    # The player's page says why no deposit is taken yet.
    dashboard = client.get(reverse("dashboard-player")).content.decode()
    assert 'id="email-unverified"' in dashboard
    assert "joana@example.cv" in dashboard

    with pytest.raises(ValidationError) as refused:
        _deposit(halls, player)
    assert NOT_VERIFIED in str(refused.value.message_dict["amount"])
    assert selectors.wallet_balance(player=player) == Decimal("0")

    opened = Client().get(_link(mail.outbox[0]))  # on another device, not logged in
    assert opened.status_code == 200
    assert "está verificado" in opened.content.decode()
    player.refresh_from_db()
    assert player.email_verified_at is not None
    assert 'id="email-unverified"' not in client.get(reverse("dashboard-player")).content.decode()

    assert _deposit(halls, player, key="d2").balance_after == Decimal("500.00")  # type: ignore[attr-defined]


def test_the_desk_page_and_the_api_say_why_a_deposit_is_refused(halls: Halls, client: Client) -> None:
    player = halls.player("rui", verified=False)
    client.force_login(halls.cashier)
    url = reverse("players:staff_player", args=[player.pk])
    assert 'id="email-unverified-notice"' in client.get(url).content.decode()

    page = client.post(url, {"kind": "deposit", "amount": "100", "reference": "CNI 1", "key": "p1"})
    api = client.post(
        reverse("api:player-deposits", args=[player.pk]),
        json.dumps({"amount": "100.00", "reference": "CNI 1", "key": "a1"}),
        content_type="application/json",
    )

    assert page.status_code == 400
    assert NOT_VERIFIED in str(page.context["form"].errors["amount"])
    assert api.status_code == 400
    assert NOT_VERIFIED in api.json()["amount"][0]
    assert selectors.wallet_balance(player=player) == Decimal("0")
    services.player_email_mark_verified(player=player)
    assert client.get(reverse("api:player-lookup"), {"q": "rui"}).json()[0]["email_verified_at"]


def test_a_link_altered_or_of_another_player_changes_nothing(
    halls: Halls, client: Client, committed: Callable[[], Any]
) -> None:
    with committed():
        ana = halls.player("ana", verified=False)
        rui = halls.player("rui", verified=False)
    ana_link = _link(next(m for m in mail.outbox if m.to == ["ana@example.cv"]))
    uid_ana, token_ana = ana_link.rstrip("/").split("/")[-2:]
    rui_link = _link(next(m for m in mail.outbox if m.to == ["rui@example.cv"]))
    uid_rui = rui_link.rstrip("/").split("/")[-2]

    altered = client.get(reverse("players:email_verify", args=[uid_ana, token_ana[:-2] + "xx"]))
    crossed = client.get(reverse("players:email_verify", args=[uid_rui, token_ana]))
    garbage = client.get(reverse("players:email_verify", args=["!!", "nada"]))

    for response in (altered, crossed, garbage):
        assert response.status_code == 400
        assert "Esta ligação de verificação não funciona" in response.content.decode()
    assert Player.objects.filter(pk__in=[ana.pk, rui.pk], email_verified_at__isnull=False).count() == 0
    # The right link works, and opening it again changes nothing.
    assert client.get(ana_link).status_code == 200
    first = Player.objects.get(pk=ana.pk).email_verified_at
    assert client.get(ana_link).status_code == 200
    assert Player.objects.get(pk=ana.pk).email_verified_at == first


def test_the_player_has_the_link_sent_again_a_few_times_an_hour(
    halls: Halls, client: Client, monkeypatch: pytest.MonkeyPatch, committed: Callable[[], Any]
) -> None:
    monkeypatch.setattr(EmailVerificationSendThrottle, "rate", "2/hour")
    player = halls.player("eva", verified=False)
    client.force_login(player.user)
    mail.outbox.clear()
    send = reverse("players:email_verification_send")

    with committed():
        answers = [client.post(send, follow=True).content.decode() for _ in range(3)]

    assert len(mail.outbox) == 2
    assert "Enviámos de novo a ligação para eva@example.cv." in answers[0]
    assert "Demasiados pedidos a partir deste endereço" in answers[2]
    # The newer link works (the older one too, until the address is verified).
    assert client.get(_link(mail.outbox[-1])).status_code == 200
    monkeypatch.setattr(EmailVerificationSendThrottle, "rate", "10/hour")
    with committed():
        again = client.post(send, follow=True).content.decode()
    assert "O seu endereço de e-mail já está verificado." in again
    assert len(mail.outbox) == 2  # verified: nothing more is sent


def test_a_verified_player_is_told_so_and_sent_nothing(
    halls: Halls, client: Client, committed: Callable[[], Any]
) -> None:
    player = halls.player("eva")
    client.force_login(player.user)
    mail.outbox.clear()

    with committed():
        page = client.post(reverse("players:email_verification_send"), follow=True).content.decode()

    assert "O seu endereço de e-mail já está verificado." in page
    assert mail.outbox == []


@pytest.mark.postgres
def test_postgresql_refuses_a_deposit_to_an_unverified_player_whatever_writes_it(halls: Halls) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the deposit's trigger exists on PostgreSQL only")
    player = halls.player("rui", verified=False)

    with pytest.raises(IntegrityError, match="e-mail address is verified"), transaction.atomic():
        services.wallet_post(
            player=player, kind="deposit", amount=Decimal("10"), recorded_by=halls.cashier, reference="x"
        )

    services.player_email_mark_verified(player=player)
    entry = services.wallet_post(
        player=player, kind="deposit", amount=Decimal("10"), recorded_by=halls.cashier, reference="x"
    )
    assert entry.balance_after == Decimal("10.00")
