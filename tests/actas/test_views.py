"""The inspector's portal (actas/views.py): read-only pages, per hall, Portuguese first."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from bingo.common.roles import Role, user_roles_set
from tests.actas.world import AuditedHall
from tests.clients import logged_in
from tests.factories import UserFactory, two_halls

pytestmark = pytest.mark.django_db


praia, mindelo = two_halls(AuditedHall)


def as_user(user: object, language: str = "pt") -> Client:
    """A client logged in as ``user``, in Portuguese unless told."""
    return logged_in(user, language)  # type: ignore[arg-type]


def test_the_inspector_sees_the_halls_they_inspect_only(praia: AuditedHall, mindelo: AuditedHall) -> None:
    body = as_user(praia.inspector).get(reverse("actas:hall_list")).content.decode()

    assert "Sala Praia" in body
    assert "Sala Mindelo" not in body
    assert "Inspeção" in body


def test_a_halls_sessions_and_a_session_with_its_games(praia: AuditedHall) -> None:
    client = as_user(praia.inspector, "en")
    sessions = client.get(reverse("actas:session_list", args=[praia.hall.pk])).content.decode()
    assert f"#{praia.session.pk}" in sessions

    body = client.get(reverse("actas:session_detail", args=[praia.session.pk])).content.decode()
    assert "Annulled" in body
    assert "power cut, unsolved" in body
    assert "1 000 CVE" in body  # collected in the first game (10 cards at 100)
    assert reverse("cards:card_set_detail", args=[praia.card_set.pk]) + "#compare" in body
    assert 'id="acta"' in body  # where the acta's links will go


def test_another_halls_pages_answer_404(praia: AuditedHall, mindelo: AuditedHall) -> None:
    client = as_user(praia.inspector)
    assert client.get(reverse("actas:session_list", args=[mindelo.hall.pk])).status_code == 404
    assert client.get(reverse("actas:session_detail", args=[mindelo.session.pk])).status_code == 404
    assert client.get(reverse("actas:audit_trail"), {"sala": mindelo.hall.pk}).status_code == 404


def test_a_manager_reads_the_portal_of_their_hall(praia: AuditedHall, mindelo: AuditedHall) -> None:
    user_roles_set(user=praia.manager, roles=[Role.MANAGER])
    client = as_user(praia.manager)
    assert client.get(reverse("actas:session_detail", args=[praia.session.pk])).status_code == 200
    assert client.get(reverse("actas:session_detail", args=[mindelo.session.pk])).status_code == 404


@pytest.mark.parametrize("role", [Role.CASHIER, Role.CALLER, Role.PLAYER])
def test_other_roles_are_refused(praia: AuditedHall, role: Role) -> None:
    client = as_user(UserFactory(roles=[role]))
    for url in (reverse("actas:hall_list"), reverse("actas:audit_trail")):
        assert client.get(url).status_code == 403


def test_the_portal_answers_get_only(praia: AuditedHall) -> None:
    client = as_user(praia.inspector)
    for url in (reverse("actas:hall_list"), reverse("actas:audit_trail")):
        assert client.post(url).status_code == 405


def test_the_audit_trail_page_filters_by_person_and_days(praia: AuditedHall) -> None:
    client = as_user(praia.inspector, "en")
    body = client.get(reverse("actas:audit_trail"), {"pessoa": praia.cashier.pk}).content.decode()
    assert "Sold cards" in body
    assert "Drew a ball" not in body

    pt = as_user(praia.inspector).get(reverse("actas:audit_trail")).content.decode()
    assert "Vendeu cartões" in pt
    assert "Anulou a jogada" in pt

    empty = client.get(reverse("actas:audit_trail"), {"desde": "2001-01-01", "ate": "2001-01-02"})
    assert "Nothing was done in this period." in empty.content.decode()
    wrong = client.get(reverse("actas:audit_trail"), {"desde": "2001-01-02", "ate": "2001-01-01"})
    assert "The last day comes after the first." in wrong.content.decode()


def test_the_audit_trail_page_goes_on_to_older_actions(praia: AuditedHall, monkeypatch) -> None:
    from actas import views

    monkeypatch.setattr(views, "AUDIT_PER_PAGE", 5)
    client = as_user(praia.inspector)
    first = client.get(reverse("actas:audit_trail"), {"sala": praia.hall.pk})
    page = first.context["page"]
    assert len(page.rows) == 5
    second = client.get(reverse("actas:audit_trail") + "?" + first.context["next_query"])
    assert second.status_code == 200
    assert second.context["page"].rows[0].cursor < page.rows[-1].cursor
    assert client.get(reverse("actas:audit_trail"), {"antes": "nonsense"}).status_code == 404


def test_the_inspectors_dashboard_links_the_portal(praia: AuditedHall) -> None:
    body = as_user(praia.inspector).get(reverse("dashboard-inspector")).content.decode()
    assert reverse("actas:hall_list") in body
    assert reverse("actas:audit_trail") in body
