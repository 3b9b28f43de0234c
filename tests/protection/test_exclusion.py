"""R101: self-exclusion (for a period or for good) and the operator's exclusion list. While
excluded a player can neither buy nor deposit, the lobby and the game say why, and it survives
logging out and in again (it is in the database, checked by the service); they can still see their
history and withdraw their balance. Self-exclusions are never lifted early; managers alone keep
the operator's list."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, connection, transaction
from django.test import Client

from bingo.common.roles import Role
from bingo.models import PlayerExclusion, PlayerExclusionLift, Sale
from bingo.players import services as player_services
from bingo.players.selectors import wallet_balance
from bingo.protection import selectors, services
from halls.models import StaffMembership
from tests.autodraw.helpers import Clock
from tests.db_roles import as_table_owner
from tests.factories import DEFAULT_PASSWORD, UserFactory
from tests.protection.conftest import Site

pytestmark = pytest.mark.django_db


def login(player) -> Client:
    """A new session through the login page, as the player logs in."""
    client = Client()
    answer = client.post("/entrar/", {"username": player.user.username, "password": DEFAULT_PASSWORD})
    assert answer.status_code == 302, answer.content
    return client


# --- self-exclusion ----------------------------------------------------------------------------


def test_r101_self_exclusion_blocks_buying_and_deposits_at_once(site: Site, clock: Clock) -> None:
    player = site.player("100.00")
    site.buy(player, 1)
    row = services.player_self_exclude(player=player, length="3m", confirmed=True)
    # Three calendar months on the hall's clock: 11 March 12:00 to 11 June 12:00 (UTC-1).
    assert (row.starts_at, row.ends_at) == (clock.now, datetime(2026, 6, 11, 13, 0, tzinfo=UTC))
    assert row.source == "self"
    assert row.created_by == player.user
    with pytest.raises(ValidationError) as refused:
        site.buy(player, 1)
    assert refused.value.messages == [
        "You excluded yourself from play until 11/06/2026 12:00 (R101): you cannot buy cards."
    ]
    with pytest.raises(ValidationError) as no_deposit:
        site.deposit(player, "50")
    assert "excluded from play until 11/06/2026 12:00" in no_deposit.value.message_dict["amount"][0]
    assert wallet_balance(player=player) == Decimal("90.00")
    assert Sale.objects.filter(buyer=player).count() == 1
    desk = Client()
    desk.force_login(site.cashier)
    page = desk.get(f"/carteiras/{player.pk}/").content.decode()
    assert 'id="exclusion-notice"' in page
    assert "Excluído do jogo até 11/06/2026 12:00 (R101): não se aceitam depósitos" in page
    # The balance can still be withdrawn at the desk.
    player_services.wallet_withdraw(
        player=player, amount=Decimal("90"), staff=site.cashier, reference="CNI", key="w"
    )
    assert wallet_balance(player=player) == Decimal("0.00")


def test_r101_self_exclusion_ends_at_its_end_and_never_before(site: Site, clock: Clock) -> None:
    player = site.player("100.00")
    row = services.player_self_exclude(player=player, length="1m", confirmed=True)
    clock.now = row.ends_at - timedelta(seconds=1)
    with pytest.raises(ValidationError, match="excluded yourself"):
        site.buy(player, 1)
    clock.now = row.ends_at
    site.buy(player, 1)


def test_r101_self_exclusion_for_good_needs_confirmation_and_is_never_lifted(
    site: Site, clock: Clock
) -> None:
    player = site.player("100.00")
    with pytest.raises(ValidationError) as unconfirmed:
        services.player_self_exclude(player=player, length="forever", confirmed=False)
    assert "confirmed" in unconfirmed.value.message_dict
    assert not PlayerExclusion.objects.exists()
    row = services.player_self_exclude(player=player, length="forever", confirmed=True)
    assert row.ends_at is None
    with pytest.raises(ValidationError, match="cannot be lifted"):
        services.player_exclusion_lift(exclusion=row, staff=site.manager, reason="Pediu")
    clock.advance(10 * 365 * 86400)
    with pytest.raises(ValidationError, match="for good"):
        site.buy(player, 1)
    with pytest.raises(ValidationError, match="already excluded"):
        services.player_self_exclude(player=player, length="1y", confirmed=True)
    assert not PlayerExclusionLift.objects.exists()


def test_r101_a_bad_length_is_refused(site: Site) -> None:
    player = site.player("0")
    with pytest.raises(ValidationError):
        services.player_self_exclude(player=player, length="2d", confirmed=True)
    assert not PlayerExclusion.objects.exists()


def test_r101_self_exclusion_survives_logging_out_and_in(site: Site) -> None:
    """The page's form excludes; a new session (the test client logs in again) is still refused,
    and the lobby and the game page say why; the history and wallet pages still open."""
    player = site.player("100.00")
    client = login(player)
    page = client.get("/jogador/protecao/")
    assert page.status_code == 200
    assert b"exclusion-form" in page.content
    answer = client.post(
        "/jogador/protecao/",
        {"action": "exclude", "exclusion-length": "6m", "exclusion-confirmed": "on"},
    )
    assert answer.status_code == 302
    client.logout()

    again = login(player)
    buy = again.post(f"/online/jogo/{site.selling.pk}/comprar/", {"quantity": "1", "key": "abc"}, follow=True)
    assert "Excluiu-se do jogo até" in buy.content.decode()
    assert not Sale.objects.filter(buyer=player).exists()
    for url in ("/online/", f"/online/jogo/{site.selling.pk}/"):
        page = again.get(url)
        assert page.status_code == 200
        assert 'id="protection-notice"' in page.content.decode()
        assert "Excluiu-se do jogo até" in page.content.decode()
    for url in ("/jogador/historico/", "/jogador/carteira/"):
        assert again.get(url).status_code == 200
    mine = again.get("/jogador/protecao/").content.decode()
    assert 'id="exclusion-status"' in mine
    assert "exclusion-form" not in mine


def test_r101_the_page_refuses_an_unconfirmed_exclusion(site: Site) -> None:
    player = site.player("0")
    answer = login(player).post("/jogador/protecao/", {"action": "exclude", "exclusion-length": "1m"})
    assert answer.status_code == 400
    assert "Confirme que se quer excluir." in answer.content.decode()
    assert not PlayerExclusion.objects.exists()


def test_r101_the_lobby_shows_no_notice_to_a_free_player(site: Site) -> None:
    player = site.player("0")
    assert 'id="protection-notice"' not in login(player).get("/online/").content.decode()


# --- the operator's exclusions ---------------------------------------------------------------


def test_r101_a_manager_excludes_a_player_with_a_reason_and_lifts_it(site: Site, clock: Clock) -> None:
    player = site.player("100.00")
    with pytest.raises(ValidationError) as no_reason:
        services.player_exclude(player=player, staff=site.manager, length="1y", reason=" ")
    assert "reason" in no_reason.value.message_dict
    row = services.player_exclude(player=player, staff=site.manager, length="1y", reason="Parecer clínico")
    with pytest.raises(
        ValidationError, match="The operator has excluded you from play until 11/03/2027 12:00"
    ):
        site.buy(player, 1)
    with pytest.raises(ValidationError) as no_lift_reason:
        services.player_exclusion_lift(exclusion=row, staff=site.manager, reason="")
    assert "reason" in no_lift_reason.value.message_dict
    clock.advance(3600)
    lift = services.player_exclusion_lift(exclusion=row, staff=site.manager, reason="Alta médica")
    assert (lift.lifted_at, lift.lifted_by, lift.reason) == (clock.now, site.manager, "Alta médica")
    site.buy(player, 1)
    with pytest.raises(ValidationError, match="lifted already"):
        services.player_exclusion_lift(exclusion=row, staff=site.manager, reason="De novo")
    assert PlayerExclusion.objects.filter(pk=row.pk).exists()  # kept, with its lifting


def test_r101_only_a_manager_of_the_players_hall_excludes_or_lifts(site: Site) -> None:
    player = site.player("0")
    other = Site.__new__(Site)
    other_hall_manager = UserFactory(username="gerente-outro", roles=[Role.MANAGER])
    from tests.cards.factories import HallFactory

    StaffMembership.objects.create(hall=HallFactory(name="Outra"), user=other_hall_manager, role="manager")
    del other
    for user in (site.cashier, site.caller, other_hall_manager, player.user):
        with pytest.raises(PermissionDenied):
            services.player_exclude(player=player, staff=user, length="1m", reason="x")
    row = services.player_exclude(player=player, staff=site.manager, length="1m", reason="x")
    with pytest.raises(PermissionDenied):
        services.player_exclusion_lift(exclusion=row, staff=other_hall_manager, reason="y")


def test_r101_the_exclusion_list_page_is_for_managers_only(site: Site) -> None:
    player = site.player("0")
    services.player_self_exclude(player=player, length="1m", confirmed=True)
    for user in (site.cashier, site.caller, player.user):
        client = Client()
        client.force_login(user)
        assert client.get("/jogadores/exclusoes/").status_code == 403
        assert client.post("/jogadores/exclusoes/", {"username": player.user.username}).status_code == 403
    manager = Client()
    manager.force_login(site.manager)
    page = manager.get("/jogadores/exclusoes/").content.decode()
    assert player.user.username in page
    assert "Autoexclusão" in page
    assert "Levantar" not in page.split('id="exclusions"')[1]  # a self-exclusion has no lift button
    answer = manager.post(
        "/jogadores/exclusoes/", {"username": player.user.username, "length": "forever", "reason": "Tribunal"}
    )
    assert answer.status_code == 302
    operator = PlayerExclusion.objects.get(source="operator")
    assert (operator.ends_at, operator.reason, operator.created_by) == (None, "Tribunal", site.manager)
    refused = manager.post(f"/jogadores/exclusoes/{operator.pk}/levantar/", {"reason": ""}, follow=True)
    assert not PlayerExclusionLift.objects.exists()
    assert refused.status_code == 200
    manager.post(f"/jogadores/exclusoes/{operator.pk}/levantar/", {"reason": "Erro de identidade"})
    assert PlayerExclusionLift.objects.get().reason == "Erro de identidade"
    self_row = PlayerExclusion.objects.get(source="self")
    answer = manager.post(f"/jogadores/exclusoes/{self_row.pk}/levantar/", {"reason": "Pediu"}, follow=True)
    assert "não pode ser levantada antes do seu fim" in answer.content.decode()
    assert PlayerExclusionLift.objects.count() == 1


def test_a_lift_reason_too_long_is_refused_for_its_length(site: Site) -> None:
    """Issue 20 (3): a reason over 1 000 characters is refused as too long, not as missing."""
    player = site.player("0")
    row = services.player_exclude(player=player, staff=site.manager, length="1m", reason="x")
    manager = Client()
    manager.cookies["django_language"] = "en"
    manager.force_login(site.manager)
    answer = manager.post(f"/jogadores/exclusoes/{row.pk}/levantar/", {"reason": "r" * 1001}, follow=True)
    html = answer.content.decode()
    assert "at most 1000 characters (it has 1001)" in html
    assert "Give the reason for lifting the exclusion." not in html
    assert not PlayerExclusionLift.objects.exists()


def test_r101_a_manager_sees_only_their_halls_exclusions(site: Site) -> None:
    player = site.player("0")
    services.player_self_exclude(player=player, length="1m", confirmed=True)
    stranger = UserFactory(username="gerente-longe", roles=[Role.MANAGER])
    from tests.cards.factories import HallFactory

    StaffMembership.objects.create(hall=HallFactory(name="Longe"), user=stranger, role="manager")
    assert list(selectors.exclusion_list_for_staff(user=stranger)) == []
    assert selectors.exclusion_list_for_staff(user=site.manager).count() == 1


def test_r101_exclusions_are_insert_only_on_postgresql(site: Site) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the insert-only triggers exist on PostgreSQL only")
    player = site.player("0")
    row = services.player_exclude(player=player, staff=site.manager, length="1m", reason="x")
    services.player_limit_set(player=player, kind="loss", period="day", amount="10")
    from bingo.models import PlayerLimit

    with as_table_owner():
        # As the tables' owner: the app's role is refused by its privileges before any trigger is
        # asked (tests/common/test_db_roles.py).
        for model, pk in ((PlayerExclusion, row.pk),):
            with pytest.raises(IntegrityError), transaction.atomic():
                model.objects.filter(pk=pk).update(reason="changed")
            with pytest.raises(IntegrityError), transaction.atomic():
                model.objects.filter(pk=pk).delete()
        with pytest.raises(IntegrityError), transaction.atomic():
            PlayerLimit.objects.update(amount=Decimal("999"))
    assert PlayerLimit.objects.get().amount == Decimal("10.00")
