"""The ball-set and jackpot screens under /salas/: a manager of the hall (or a superuser holding
the manager role) reaches them all, a caller of the hall the ball sets and their checks (R23),
and each form records what the rules allow."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import resolve, reverse

from bingo.ballsets import services as ballset_services
from bingo.common.roles import Role
from bingo.jackpot import services as jackpot_services
from halls import services
from halls.models import BallReplacement, BallSet, BallSetCheck, Hall, Jackpot, JackpotMovement
from tests.clients import logged_in
from tests.factories import HallWithSessions, UserFactory

pytestmark = pytest.mark.django_db


def staff(hall: Hall, role: Role, username: str) -> User:
    user = UserFactory(username=username, password=None)
    services.staff_assign(hall=hall, user=user, role=role)
    return user


@pytest.fixture
def ball_set(venue: HallWithSessions) -> BallSet:
    return venue.ball_set("JB-1")


@pytest.fixture
def manager(venue: HallWithSessions) -> Client:
    return logged_in(staff(venue.hall, Role.MANAGER, "gerente"), "en")


def pages(hall: Hall, ball_set: BallSet) -> list[tuple[str, str]]:
    """Every screen as (method, url)."""
    one = [hall.pk, ball_set.pk]
    return [
        ("get", reverse("halls:ball_set_list", args=[hall.pk])),
        ("post", reverse("halls:ball_set_create", args=[hall.pk])),
        ("get", reverse("halls:ball_set_detail", args=one)),
        ("post", reverse("halls:ball_set_check_record", args=one)),
        ("post", reverse("halls:ball_replace", args=one)),
        ("post", reverse("halls:ball_set_replace", args=one)),
        ("post", reverse("halls:ball_set_retire", args=one)),
        ("get", reverse("halls:jackpot_detail", args=[hall.pk])),
        ("post", reverse("halls:jackpot_configure", args=[hall.pk])),
        ("post", reverse("halls:jackpot_movement_create", args=[hall.pk])),
    ]


# --- who may open them -----------------------------------------------------------------------------


@pytest.mark.parametrize("role", [Role.CASHIER, Role.INSPECTOR])
def test_other_staff_of_the_hall_are_refused(venue, ball_set, role):
    client = logged_in(staff(venue.hall, role, role.value), "en")
    for method, url in pages(venue.hall, ball_set):
        assert getattr(client, method)(url).status_code == 403, url


#: What a caller of the hall may do: see the sets and record their checks (R23).
CALLER_PAGES = {"ball_set_list", "ball_set_detail", "ball_set_check_record"}


def test_a_caller_of_the_hall_reaches_only_the_sets_and_their_checks(venue, ball_set):
    client = logged_in(staff(venue.hall, Role.CALLER, "locutor"), "en")
    for method, url in pages(venue.hall, ball_set):
        status = getattr(client, method)(url).status_code
        if resolve(url).url_name in CALLER_PAGES:
            assert status in (200, 302), url
        else:
            assert status == 403, url
    assert not BallReplacement.objects.exists()
    ball_set.refresh_from_db()
    assert ball_set.state == BallSet.State.ACTIVE
    assert BallSet.objects.count() == 1
    assert not Jackpot.objects.exists()


def test_a_caller_of_another_hall_finds_nothing(venue, other_venue, ball_set):
    client = logged_in(staff(other_venue.hall, Role.CALLER, "outro-locutor"), "en")
    session = venue.session()
    for method, url in pages(venue.hall, ball_set):
        if resolve(url).url_name in CALLER_PAGES:
            data = {"check-session": session.pk, "check-phase": "start"} if method == "post" else None
            assert getattr(client, method)(url, data).status_code == 404, url
    assert not BallSetCheck.objects.exists()


def test_a_manager_of_another_hall_finds_nothing(venue, other_venue, ball_set):
    client = logged_in(staff(other_venue.hall, Role.MANAGER, "outro-gerente"), "en")
    for method, url in pages(venue.hall, ball_set):
        assert getattr(client, method)(url).status_code == 404, url
    assert not BallSet.objects.filter(hall=other_venue.hall).exists()


def test_a_ball_set_is_reached_only_through_its_own_hall(venue, other_venue, ball_set, manager):
    staff(other_venue.hall, Role.MANAGER, "gerente")  # the same manager, in both halls
    url = reverse("halls:ball_set_detail", args=[other_venue.hall.pk, ball_set.pk])
    assert manager.get(url).status_code == 404


def test_anonymous_visitors_are_sent_to_log_in(venue, ball_set):
    for method, url in pages(venue.hall, ball_set):
        response = getattr(logged_in(None, "en"), method)(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login")), url


def test_a_superuser_with_the_manager_role_manages_every_hall(venue, ball_set):
    root = UserFactory(username="root", roles=[Role.MANAGER], is_superuser=True, password=None)
    client = logged_in(root, "en")
    for method, url in pages(venue.hall, ball_set):
        if method == "get":
            assert client.get(url).status_code == 200, url


def test_the_managers_pages_show_what_they_hold(venue, ball_set, manager):
    session = venue.session()
    ballset_services.ball_set_check_record(
        ball_set=ball_set, session=session, phase="start", faulty_balls=[7]
    )
    ballset_services.ball_replace(ball_set=ball_set, ball_number=7, reason="cracked in the blower")
    jackpot_services.jackpot_seed(hall=venue.hall, amount=Decimal("1234.50"))

    listing = manager.get(reverse("halls:ball_set_list", args=[venue.hall.pk])).content.decode()
    assert "JB-1" in listing
    detail = manager.get(reverse("halls:ball_set_detail", args=[venue.hall.pk, ball_set.pk])).content.decode()
    assert "cracked in the blower" in detail
    assert "Faulty balls: 7" in detail
    one = [venue.hall.pk, ball_set.pk]
    for form in ("ball_set_check_record", "ball_replace", "ball_set_replace", "ball_set_retire"):
        assert f'action="{reverse(f"halls:{form}", args=one)}"' in detail, form
    assert 'id="new-ball-set"' in listing
    jackpot = manager.get(reverse("halls:jackpot_detail", args=[venue.hall.pk])).content.decode()
    assert "1234.50" in jackpot


# --- ball sets -------------------------------------------------------------------------------------


def test_a_caller_records_the_checks_of_a_session(venue, ball_set):
    caller_user = staff(venue.hall, Role.CALLER, "locutor")
    caller = logged_in(caller_user, "en")
    session = venue.session()
    one = [venue.hall.pk, ball_set.pk]

    listing = caller.get(reverse("halls:ball_set_list", args=[venue.hall.pk])).content.decode()
    assert reverse("halls:ball_set_detail", args=one) in listing
    assert 'id="new-ball-set"' not in listing  # registering is the manager's
    assert f'href="{reverse("halls:jackpot_detail", args=[venue.hall.pk])}"' not in listing
    detail = caller.get(reverse("halls:ball_set_detail", args=one)).content.decode()
    assert f'action="{reverse("halls:ball_set_check_record", args=one)}"' in detail
    for managers_only in ("ball_replace", "ball_set_replace", "ball_set_retire", "hall_detail"):
        args = [venue.hall.pk] if managers_only == "hall_detail" else one
        assert f'"{reverse(f"halls:{managers_only}", args=args)}"' not in detail, managers_only

    url = reverse("halls:ball_set_check_record", args=one)
    start = caller.post(url, {"check-session": session.pk, "check-phase": "start", "check-faulty_balls": "8"})
    end = caller.post(url, {"check-session": session.pk, "check-phase": "end", "check-faulty_balls": ""})
    refused = caller.post(url, {"check-session": session.pk, "check-phase": "end"})

    assert (start.status_code, end.status_code) == (302, 302)
    assert start["Location"] == reverse("halls:ball_set_detail", args=one)
    assert "already recorded" in refused.content.decode()  # the service's rules hold for callers too
    checks = BallSetCheck.objects.order_by("id")
    assert list(checks.values_list("phase", "result", "faulty_balls")) == [
        ("start", "faulty", [8]),
        ("end", "ok", []),
    ]
    assert {check.checked_by for check in checks} == {caller_user}


def test_a_caller_finds_the_ball_sets_of_the_halls_they_call_in(venue, other_venue):
    third = HallWithSessions("Sala Tarrafal")
    user = staff(venue.hall, Role.CALLER, "locutor")
    client = logged_in(user, "en")
    url = reverse("halls:ball_set_halls")

    one_hall = client.get(url)
    staff(other_venue.hall, Role.CALLER, "locutor")
    two_halls = client.get(url).content.decode()

    assert one_hall.status_code == 302
    assert one_hall["Location"] == reverse("halls:ball_set_list", args=[venue.hall.pk])
    assert reverse("halls:ball_set_list", args=[venue.hall.pk]) in two_halls
    assert reverse("halls:ball_set_list", args=[other_venue.hall.pk]) in two_halls
    assert reverse("halls:ball_set_list", args=[third.hall.pk]) not in two_halls
    assert logged_in(staff(venue.hall, Role.CASHIER, "caixa"), "en").get(url).status_code == 403


def test_a_manager_registers_a_ball_set(venue, manager):
    response = manager.post(
        reverse("halls:ball_set_create", args=[venue.hall.pk]),
        {"serial_number": "JB-9", "size": "75", "games_played": "120", "notes": ""},
    )
    ball_set = BallSet.objects.get(serial_number="JB-9")
    assert response.status_code == 302
    assert response["Location"] == reverse("halls:ball_set_detail", args=[venue.hall.pk, ball_set.pk])
    assert (ball_set.hall, ball_set.size, ball_set.games_played) == (venue.hall, 75, 120)


def test_a_refused_ball_set_shows_the_reason_on_the_form(venue, ball_set, manager):
    response = manager.post(
        reverse("halls:ball_set_create", args=[venue.hall.pk]),
        {"serial_number": "JB-1", "size": "90", "games_played": "0"},
    )
    assert response.status_code == 200
    assert "There is already a ball set JB-1 in this hall." in response.content.decode()
    response = manager.post(
        reverse("halls:ball_set_create", args=[venue.hall.pk]),
        {"serial_number": "JB-2", "size": "90", "games_played": "2000"},
    )
    assert "R25" in response.content.decode()
    assert BallSet.objects.count() == 1


def test_a_manager_records_the_checks_of_a_session(venue, ball_set, manager):
    session = venue.session()
    url = reverse("halls:ball_set_check_record", args=[venue.hall.pk, ball_set.pk])
    response = manager.post(
        url, {"check-session": session.pk, "check-phase": "start", "check-faulty_balls": ""}
    )
    assert response.status_code == 302
    response = manager.post(
        url, {"check-session": session.pk, "check-phase": "end", "check-faulty_balls": "44, 17; 17"}
    )
    assert response.status_code == 302
    checks = list(BallSetCheck.objects.order_by("id").values_list("phase", "result", "faulty_balls"))
    assert checks == [("start", "ok", []), ("end", "faulty", [17, 44])]


def test_a_check_the_rules_refuse_shows_why(venue, other_venue, ball_set, manager):
    url = reverse("halls:ball_set_check_record", args=[venue.hall.pk, ball_set.pk])
    session = venue.session()
    cases = [
        ({"check-session": session.pk, "check-phase": "end"}, "R23"),  # no start check yet
        ({"check-session": session.pk, "check-phase": "start", "check-faulty_balls": "91"}, "1 to 90"),
        (
            {"check-session": session.pk, "check-phase": "start", "check-faulty_balls": "a, b"},
            "separated by commas",
        ),
        # A session of another hall is not even among the choices.
        ({"check-session": other_venue.session().pk, "check-phase": "start"}, "Select a valid choice"),
    ]
    for data, reason in cases:
        response = manager.post(url, data)
        assert response.status_code == 200
        assert reason in response.content.decode(), data
    assert not BallSetCheck.objects.exists()


def test_a_manager_replaces_a_ball_then_the_set_then_it_is_retired(venue, ball_set, manager):
    spare = venue.ball_set("JB-2")
    one = [venue.hall.pk, ball_set.pk]
    response = manager.post(
        reverse("halls:ball_replace", args=one), {"ball-ball_number": "90", "ball-reason": "chip"}
    )
    assert response.status_code == 302
    response = manager.post(
        reverse("halls:ball_replace", args=one), {"ball-ball_number": "91", "ball-reason": "x"}
    )
    assert "1 to 90" in response.content.decode()

    response = manager.post(
        reverse("halls:ball_set_replace", args=one), {"set-replacement": spare.pk, "set-reason": "worn out"}
    )
    assert response.status_code == 302
    ball_set.refresh_from_db()
    assert ball_set.state == BallSet.State.RETIRED
    assert list(BallReplacement.objects.order_by("id").values_list("ball_number", "replacement_set")) == [
        (90, None),
        (None, spare.pk),
    ]
    response = manager.post(reverse("halls:ball_set_retire", args=one), {"retire-reason": "again"})
    assert "already retired" in response.content.decode()


def test_a_ball_replaced_again_in_a_session_asks_why_and_is_flagged_on_the_page(venue, ball_set, manager):
    """Issue [A0] 7 (R26)."""
    session = venue.session()
    url = reverse("halls:ball_replace", args=[venue.hall.pk, ball_set.pk])
    body = {"ball-ball_number": "17", "ball-reason": "cracked", "ball-session": session.pk}
    assert manager.post(url, body).status_code == 302

    asked = manager.post(url, body)
    assert asked.status_code == 200
    assert "already replaced in this session" in asked.content.decode()
    assert BallReplacement.objects.count() == 1

    assert manager.post(url, {**body, "ball-repeat_reason": "chipped too"}).status_code == 302
    page = manager.get(reverse("halls:ball_set_detail", args=[venue.hall.pk, ball_set.pk])).content.decode()
    assert page.count("data-repeated") == 1
    assert "chipped too" in page


def test_a_set_is_replaced_only_by_an_active_set_of_its_hall_and_size(venue, other_venue, ball_set, manager):
    candidates = [
        venue.ball_set("JB-80", size=80),
        other_venue.ball_set("JB-X"),
        ballset_services.ball_set_retire(ball_set=venue.ball_set("JB-OLD"), reason="worn"),
    ]
    url = reverse("halls:ball_set_replace", args=[venue.hall.pk, ball_set.pk])
    for candidate in candidates:
        response = manager.post(url, {"set-replacement": candidate.pk, "set-reason": "worn"})
        assert response.status_code == 200
    assert not BallReplacement.objects.exists()


def test_a_manager_retires_a_set_with_a_reason(venue, ball_set, manager):
    url = reverse("halls:ball_set_retire", args=[venue.hall.pk, ball_set.pk])
    assert manager.post(url, {"retire-reason": ""}).status_code == 200
    assert manager.post(url, {"retire-reason": "numbers fading"}).status_code == 302
    ball_set.refresh_from_db()
    assert (ball_set.state, ball_set.retired_reason) == (BallSet.State.RETIRED, "numbers fading")


# --- the jackpot -----------------------------------------------------------------------------------


def test_a_manager_configures_seeds_and_adjusts_the_jackpot(venue, manager):
    response = manager.post(
        reverse("halls:jackpot_configure", args=[venue.hall.pk]),
        {
            "config-base_value": "25000",
            "config-authorization_reference": "Despacho 3/2026",
            "config-conditions": "Bingo até à bola 40.",
            "config-valid_until": "2027-12-31",
        },
    )
    assert response.status_code == 302
    jackpot = Jackpot.objects.get(hall=venue.hall)
    assert (jackpot.base_value, jackpot.authorization_reference, str(jackpot.valid_until)) == (
        Decimal("25000"),
        "Despacho 3/2026",
        "2027-12-31",
    )

    movements = reverse("halls:jackpot_movement_create", args=[venue.hall.pk])
    assert manager.post(movements, {"movement-kind": "seed", "movement-amount": "25000"}).status_code == 302
    refused = manager.post(movements, {"movement-kind": "adjustment", "movement-amount": "-10"})
    assert refused.status_code == 200  # an adjustment needs its reason
    assert "Say why." in refused.content.decode()
    response = manager.post(
        movements, {"movement-kind": "adjustment", "movement-amount": "-10", "movement-note": "counted twice"}
    )
    assert response.status_code == 302
    assert list(JackpotMovement.objects.order_by("id").values_list("kind", "amount", "balance_after")) == [
        ("seed", Decimal("25000.00"), Decimal("25000.00")),
        ("adjustment", Decimal("-10.00"), Decimal("24990.00")),
    ]


def test_the_screen_offers_no_contribution_or_win(venue, manager):
    movements = reverse("halls:jackpot_movement_create", args=[venue.hall.pk])
    for kind in ("contribution", "win", "reset"):
        response = manager.post(movements, {"movement-kind": kind, "movement-amount": "10"})
        assert response.status_code == 200
    assert not JackpotMovement.objects.exists()


def test_the_admin_shows_ball_sets_and_the_jackpot_read_only(venue, ball_set):
    jackpot_services.jackpot_seed(hall=venue.hall, amount=Decimal("10"))
    client = logged_in(UserFactory(username="admin", is_staff=True, is_superuser=True, password=None), "en")
    for model in ("ballset", "ballsetcheck", "ballreplacement", "jackpot", "jackpotmovement"):
        assert client.get(reverse(f"admin:halls_{model}_changelist")).status_code == 200, model
        assert client.get(reverse(f"admin:halls_{model}_add")).status_code == 403, model
    change = reverse("admin:halls_ballset_change", args=[ball_set.pk])
    assert client.post(change, {"serial_number": "FORGED"}).status_code == 403
    ball_set.refresh_from_db()
    assert ball_set.serial_number == "JB-1"
