"""Closing a session asks for the end-of-session ball-set check (R23): every ball runs through the
mechanism at the start *and the end* of each session. Recorded already, the session closes; if
not, the closing records it now (every ball OK, or which balls failed) or writes why it could not
be made in the acta as an occurrence (R61 m)). Closing with neither is refused and changes
nothing. Online sessions (no balls: the CSPRNG draws) are not concerned. Through the service,
the session's page and the API."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import translation

from actas.models import ActaNote
from actas.selectors import acta_document, acta_verify
from bingo.ballsets import services as ballset_services
from bingo.common.roles import Role, user_roles_set
from bingo.draw import services as draw_services
from bingo.games import services
from bingo.models import Session
from halls.models import BallSet, BallSetCheck, StaffMembership
from tests.actas.test_services import ActaHall
from tests.factories import UserFactory
from tests.online.helpers import OnlineSetup
from tests.sales.test_services import HallSetup

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


class Closing(ActaHall):
    """A hall whose session played a game drawn with ball set JB-1 (checked at the start, R23),
    and a manager who closes it."""

    def __init__(self) -> None:
        super().__init__()
        self.manager_user = UserFactory(username="gerente-praia", roles=[Role.MANAGER])
        StaffMembership.objects.create(hall=self.hall, user=self.manager_user, role=Role.MANAGER.value)
        self.finished(cards=4)

    def second_set(self) -> BallSet:
        """Another set, checked at the start of this session too."""
        ball_set = ballset_services.ball_set_create(hall=self.hall, serial_number="JB-2", size=90)
        ballset_services.ball_set_check_record(ball_set=ball_set, session=self.session, phase="start")
        return ball_set

    def ended(self) -> bool:
        return Session.objects.get(pk=self.session.pk).ended_at is not None

    def end_checks(self) -> list[tuple[str, str, list[int]]]:
        return [
            (c.ball_set.serial_number, c.result, c.faulty_balls)
            for c in BallSetCheck.objects.filter(session=self.session, phase="end").order_by("pk")
        ]

    def notes(self, kind: str) -> list[ActaNote]:
        return list(ActaNote.objects.filter(acta__session=self.session, kind=kind).order_by("position"))


@pytest.fixture
def hall() -> Closing:
    return Closing()


# --- the service ------------------------------------------------------------------------------------


def test_a_session_is_not_closed_without_its_end_of_session_check(hall: Closing) -> None:
    with pytest.raises(ValidationError) as refused:
        services.session_close(session=hall.session, user=hall.manager_user)

    (message,) = refused.value.message_dict["missing_check_reason"]
    assert "JB-1" in message
    assert "R23" in message
    assert "say why it could not be made" in message
    assert not hall.ended()
    assert not hall.notes(ActaNote.Kind.SESSION_CLOSED)
    assert not hall.notes(ActaNote.Kind.OCCURRENCE)


def test_a_check_recorded_before_closing_lets_the_session_close(hall: Closing) -> None:
    ballset_services.ball_set_check_record(ball_set=hall.ball_set, session=hall.session, phase="end")

    services.session_close(session=hall.session, user=hall.manager_user)

    assert hall.ended()
    assert not hall.notes(ActaNote.Kind.OCCURRENCE)


def test_the_check_made_when_closing_is_recorded_and_in_the_closing_note(hall: Closing) -> None:
    services.session_close(
        session=hall.session, user=hall.manager_user, end_checks={hall.ball_set.pk: [12, 3]}
    )

    assert hall.ended()
    assert hall.end_checks() == [("JB-1", "faulty", [3, 12])]
    check = BallSetCheck.objects.get(session=hall.session, phase="end")
    assert check.checked_by == hall.manager_user
    (closing,) = hall.notes(ActaNote.Kind.SESSION_CLOSED)
    recorded = json.loads(closing.content)["closing"]["ball_set_checks"]
    assert [(c["phase"], c["faulty_balls"]) for c in recorded] == [("start", []), ("end", [3, 12])]


def test_a_check_that_could_not_be_made_is_an_occurrence_in_the_acta(hall: Closing) -> None:
    services.session_close(
        session=hall.session,
        user=hall.manager_user,
        missing_check_reason="  the blower's motor burnt out after the last game  ",
    )

    assert hall.ended()
    assert hall.end_checks() == []
    (occurrence,) = hall.notes(ActaNote.Kind.OCCURRENCE)
    (closing,) = hall.notes(ActaNote.Kind.SESSION_CLOSED)
    assert occurrence.position < closing.position  # the closing stays the acta's last note
    assert occurrence.recorded_by == hall.manager_user
    assert occurrence.game is None
    # The acta is in the hall's language (R54), whatever the manager's screen.
    assert occurrence.text == (
        "Verificação de fim de sessão do jogo de bolas JB-1 não realizada (R23): "
        "the blower's motor burnt out after the last game"
    )
    document = acta_document(session=hall.session)
    assert occurrence.text in [note["text"] for note in document["notes"] if note["kind"] == "occurrence"]
    assert acta_verify(session=hall.session).intact


def test_each_set_is_checked_or_named_in_the_occurrence(hall: Closing) -> None:
    second = hall.second_set()
    with pytest.raises(ValidationError) as refused:
        services.session_close(
            session=hall.session, user=hall.manager_user, end_checks={hall.ball_set.pk: []}
        )
    (message,) = refused.value.message_dict["missing_check_reason"]
    assert "JB-2" in message
    assert "JB-1" not in message
    # Refused, nothing changed: not even the check given for JB-1.
    assert hall.end_checks() == []
    assert not hall.ended()

    services.session_close(
        session=hall.session,
        user=hall.manager_user,
        end_checks={hall.ball_set.pk: []},
        missing_check_reason="JB-2 was sent for repair",
    )
    assert hall.end_checks() == [("JB-1", "ok", [])]
    (occurrence,) = hall.notes(ActaNote.Kind.OCCURRENCE)
    assert "JB-2" in occurrence.text
    assert "JB-1" not in occurrence.text
    assert second.pk not in {c.ball_set_id for c in BallSetCheck.objects.filter(phase="end")}


def test_a_check_for_a_set_that_awaits_none_is_refused(hall: Closing) -> None:
    ballset_services.ball_set_check_record(ball_set=hall.ball_set, session=hall.session, phase="end")
    idle = ballset_services.ball_set_create(hall=hall.hall, serial_number="JB-9", size=90)

    for ball_set in (hall.ball_set, idle):
        with pytest.raises(ValidationError) as refused:
            services.session_close(session=hall.session, user=hall.manager_user, end_checks={ball_set.pk: []})
        assert "end_checks" in refused.value.message_dict
    assert not hall.ended()


def test_faulty_balls_outside_the_set_are_refused(hall: Closing) -> None:
    with pytest.raises(ValidationError, match="numbered 1 to 90"):
        services.session_close(
            session=hall.session, user=hall.manager_user, end_checks={hall.ball_set.pk: [91]}
        )
    assert not hall.ended()


def test_a_set_replaced_during_the_session_is_not_asked_for(hall: Closing) -> None:  # R25
    spare = ballset_services.ball_set_create(hall=hall.hall, serial_number="JB-3", size=90)
    ballset_services.ball_set_replace(
        ball_set=hall.ball_set,
        replacement=spare,
        reason="worn out",
        session=hall.session,
        user=hall.manager_user,
    )
    ballset_services.ball_set_check_record(ball_set=spare, session=hall.session, phase="start")

    with pytest.raises(ValidationError) as refused:
        services.session_close(session=hall.session, user=hall.manager_user)
    (message,) = refused.value.message_dict["missing_check_reason"]
    assert "JB-3" in message
    assert "JB-1" not in message  # out of the mechanism: its replacement is in the acta (R61 k)


def test_a_session_that_used_no_ball_set_closes() -> None:
    electronic = HallSetup(name="Sala Eletrónica")  # no set checked at its start: no balls ran
    services.session_close(session=electronic.session, user=None)
    assert Session.objects.get(pk=electronic.session.pk).ended_at is not None


def test_an_online_session_is_not_concerned(db: None) -> None:
    online = OnlineSetup()
    game = online.game(online.series(1))
    online.drawing(game)  # a set checked at the start of the online session all the same
    online.key(game, 5)
    draw_services.game_annul(game=game, user=online.manager, reason="5 announced as 6")

    services.session_close(session=online.session(), user=None)  # as the system closes it

    assert Session.objects.get(pk=online.session().pk).ended_at is not None
    assert not ActaNote.objects.filter(kind=ActaNote.Kind.OCCURRENCE).exists()


# --- the session's page -------------------------------------------------------------------------------


@pytest.fixture
def manager(client: Client, hall: Closing) -> Client:
    user_roles_set(user=hall.manager_user, roles=[Role.MANAGER])
    client.force_login(hall.manager_user)
    client.cookies["django_language"] = "en"
    return client


def page(client: Client, hall: Closing) -> str:
    return client.get(reverse("games:session_detail", args=[hall.session.pk])).content.decode()


def close(client: Client, hall: Closing, data: dict[str, Any]) -> Any:
    return client.post(reverse("games:session_close", args=[hall.session.pk]), data, follow=True)


def test_the_closing_form_asks_for_each_sets_end_check(manager: Client, hall: Closing) -> None:
    shown = page(manager, hall)
    assert "data-session-close-form" in shown
    assert f'data-end-check="{hall.ball_set.pk}"' in shown
    assert "JB-1" in shown
    assert 'name="missing_check_reason"' in shown


def test_the_closing_form_is_in_the_page_once_and_not_in_its_title(manager: Client, hall: Closing) -> None:
    shown = page(manager, hall)

    title = shown[shown.index("<title>") : shown.index("</title>")]
    assert "<section" not in title
    assert shown.count("data-session-close-form") == 1


def test_closing_with_neither_check_nor_reason_is_refused_on_the_page(manager: Client, hall: Closing) -> None:
    response = close(manager, hall, {})

    assert "R23" in response.content.decode()
    assert "say why it could not be made" in response.content.decode()
    assert not hall.ended()


def test_closing_records_the_check_given_on_the_page(manager: Client, hall: Closing) -> None:
    response = close(
        manager, hall, {f"check-{hall.ball_set.pk}": "faulty", f"faulty-{hall.ball_set.pk}": "7, 61"}
    )

    assert hall.ended()
    assert hall.end_checks() == [("JB-1", "faulty", [7, 61])]
    assert "Session closed." in response.content.decode()
    assert "data-session-close-form" not in page(manager, hall)


def test_faulty_chosen_with_no_ball_named_is_refused_on_the_page(manager: Client, hall: Closing) -> None:
    response = close(manager, hall, {f"check-{hall.ball_set.pk}": "faulty", f"faulty-{hall.ball_set.pk}": ""})

    assert "Name the balls that failed" in response.content.decode()
    assert not hall.ended()


def test_every_ball_ok_with_faulty_balls_named_is_refused_on_the_page(manager: Client, hall: Closing) -> None:
    response = close(manager, hall, {f"check-{hall.ball_set.pk}": "ok", f"faulty-{hall.ball_set.pk}": "7"})

    assert "choose one or the other" in response.content.decode()
    assert not hall.ended()
    assert hall.end_checks() == []


def test_closing_with_the_reason_on_the_page_writes_the_occurrence(manager: Client, hall: Closing) -> None:
    close(manager, hall, {"missing_check_reason": "the blower's motor burnt out"})

    assert hall.ended()
    (occurrence,) = hall.notes(ActaNote.Kind.OCCURRENCE)
    assert occurrence.text.endswith("(R23): the blower's motor burnt out")


def test_a_huge_ball_number_or_a_reason_beyond_its_bound_is_refused_on_the_page(
    manager: Client, hall: Closing
) -> None:
    """A run of 5,000 digits was int()'s ValueError (Python's 4,300-digit limit): a 500."""
    huge = close(
        manager, hall, {f"check-{hall.ball_set.pk}": "faulty", f"faulty-{hall.ball_set.pk}": "9" * 5000}
    )
    long_reason = close(manager, hall, {"missing_check_reason": "x" * 2001})

    assert huge.status_code == 200
    assert "at most 400 characters" in huge.content.decode()
    assert long_reason.status_code == 200
    assert "at most 2000 characters" in long_reason.content.decode()
    assert not hall.ended()
    assert hall.notes(ActaNote.Kind.OCCURRENCE) == []


def test_a_ball_number_too_long_is_refused_for_its_length(manager: Client, hall: Closing) -> None:
    response = close(
        manager, hall, {f"check-{hall.ball_set.pk}": "faulty", f"faulty-{hall.ball_set.pk}": "7, 99999"}
    )

    assert "A ball number is at most 90." in response.content.decode()
    assert not hall.ended()


def test_the_service_refuses_a_reason_beyond_its_bound(hall: Closing) -> None:
    with pytest.raises(ValidationError) as refused:
        services.session_close(session=hall.session, user=hall.manager_user, missing_check_reason="x" * 2001)

    assert "missing_check_reason" in refused.value.message_dict
    assert not hall.ended()


def test_a_caller_does_not_close_sessions(client: Client, hall: Closing) -> None:
    user_roles_set(user=hall.caller, roles=[Role.CALLER])
    client.force_login(hall.caller)
    assert "data-session-close-form" not in page(client, hall)
    response = client.post(
        reverse("games:session_close", args=[hall.session.pk]), {"missing_check_reason": "x"}
    )
    assert response.status_code in (403, 404)
    assert not hall.ended()


# --- the API --------------------------------------------------------------------------------------------


def api_close(user: Any, hall: Closing, body: dict[str, Any]) -> Any:
    client = Client()
    client.cookies["django_language"] = "en"
    client.force_login(user)
    return client.post(
        reverse("api:session-close", args=[hall.session.pk]), body, content_type="application/json"
    )


def test_the_api_refuses_to_close_without_the_check_or_the_reason(hall: Closing) -> None:
    detail = Client()
    detail.force_login(hall.manager_user)
    shown = detail.get(reverse("api:session-detail", args=[hall.session.pk])).json()
    assert shown["end_checks_awaited"] == [{"id": hall.ball_set.pk, "serial_number": "JB-1"}]

    response = api_close(hall.manager_user, hall, {})

    assert response.status_code == 400
    assert "R23" in response.json()["missing_check_reason"][0]
    assert not hall.ended()


def test_the_api_closes_recording_the_check(hall: Closing) -> None:
    response = api_close(
        hall.manager_user, hall, {"end_checks": [{"ball_set": hall.ball_set.pk, "faulty_balls": []}]}
    )

    assert response.status_code == 200, response.content
    assert response.json()["ended_at"] is not None
    assert response.json()["end_checks_awaited"] == []
    assert hall.end_checks() == [("JB-1", "ok", [])]


def test_the_api_closes_with_the_reason_as_an_occurrence(hall: Closing) -> None:
    response = api_close(hall.manager_user, hall, {"missing_check_reason": "blower out of order"})

    assert response.status_code == 200, response.content
    (occurrence,) = hall.notes(ActaNote.Kind.OCCURRENCE)
    assert occurrence.text.endswith("(R23): blower out of order")


def test_only_the_halls_managers_close_through_the_api(hall: Closing) -> None:
    response = api_close(hall.caller, hall, {"missing_check_reason": "blower out of order"})
    assert response.status_code == 403
    assert not hall.ended()


def test_the_api_refuses_more_end_checks_than_a_hall_has_ball_sets(hall: Closing) -> None:
    body = {"end_checks": [{"ball_set": n, "faulty_balls": []} for n in range(1, 52)]}

    response = api_close(hall.manager_user, hall, body)

    assert response.status_code == 400
    assert "end_checks" in response.json()
    assert not hall.ended()
