"""R51-R52: each game's cards recorded destroyed, but for the evidence and the winning cards;
the winning cards recorded destroyed by the system once their 8 days (on the hall's calendar)
are over, unless a pending complaint holds them; the daily task; the manager's page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from celery import current_app
from django.conf import settings
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import translation

from actas import selectors, services
from actas.models import ActaNote
from actas.selectors import acta_verify
from actas.tasks import winning_cards_destroy_due_task
from bingo.common.roles import Role
from bingo.models import Game
from halls.models import StaffMembership
from tests.actas.test_services import ActaHall
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

#: A game that ended at 00:30 UTC on 1 March 2024: still 29 February in Cape Verde (UTC-1).
ENDED = datetime(2024, 3, 1, 0, 30, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    with translation.override("en"):
        yield


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2024, 3, day, hour, minute, tzinfo=UTC)


class CardsHall(ActaHall):
    def __init__(self, name: str = "Sala Praia", **fields: object) -> None:
        super().__init__(name=name, **fields)
        self.manager = UserFactory(username=f"gerente-{name}", roles=[Role.MANAGER])
        StaffMembership.objects.create(hall=self.hall, user=self.manager, role=Role.MANAGER.value)

    def ended_at(self, moment: datetime = ENDED, cards: int = 10) -> Game:
        game = self.finished(cards=cards)
        Game.objects.filter(pk=game.pk).update(finished_at=moment)
        return Game.objects.get(pk=game.pk)

    def complaint(self, game: Game | None, decision: str = "") -> ActaNote:
        return services.acta_note_record(
            session=self.session,
            kind="complaint",
            user=self.caller,
            text="The player says ball 17 was called as 71.",
            decision=decision,
            game=game,
        )


@pytest.fixture
def hall(db) -> CardsHall:
    return CardsHall()


def cards(note: ActaNote) -> dict:
    return json.loads(note.content)["cards"]


def destroyed_by_r52(game: Game) -> list[ActaNote]:
    return list(ActaNote.objects.filter(kind="winning_cards_destroyed", game=game))


# --- R51: after each game -----------------------------------------------------------------------


def test_the_cards_are_recorded_destroyed_but_the_evidence_and_the_winning_cards(
    hall: CardsHall,
) -> None:  # R51
    game = hall.finished(cards=10)
    order = hall.series_of(game).order_number
    winning = selectors.game_winning_cards(game=game)
    assert winning
    assert all(series == order for series, _ in winning)
    evidence = [n for n in (5, 7) if (order, n) not in winning]
    note = services.game_cards_destroy_record(
        game=game, user=hall.caller, evidence=[(order, n) for n in evidence], reason="Marks in pen on both."
    )
    recorded = cards(note)
    assert recorded["evidence"] == [{"series": order, "card": n} for n in evidence]
    assert recorded["kept"] == [{"series": s, "card": n} for s, n in winning]
    destroyed = {n for r in recorded["destroyed"] for n in range(r["first"], r["last"] + 1)}
    assert destroyed == set(range(1, 11)) - set(evidence) - {n for _, n in winning}
    assert all(r["series"] == order for r in recorded["destroyed"])
    assert (note.text, note.recorded_by, note.author) == (
        "Marks in pen on both.",
        hall.caller,
        hall.caller.username,
    )
    assert acta_verify(session=hall.session).intact


@pytest.mark.parametrize(
    ("evidence", "reason", "message"),
    [
        ([(1, 11)], "Pen marks.", "was not played in game"),  # only 10 sold
        ([(99, 2)], "Pen marks.", "was not played in game"),
        ([(1, 2)], "", "Say why"),
    ],
)
def test_evidence_is_a_card_played_in_the_game_and_says_why(
    hall: CardsHall, evidence: list, reason: str, message: str
) -> None:  # R51
    game = hall.finished(cards=10)
    assert hall.series_of(game).order_number == 1
    with pytest.raises(ValidationError, match=message):
        services.game_cards_destroy_record(game=game, user=hall.caller, evidence=evidence, reason=reason)
    assert not ActaNote.objects.filter(kind="cards_destroyed").exists()


def test_only_the_hall_s_staff_record_the_destruction(hall: CardsHall) -> None:  # R51
    game = hall.finished()
    with pytest.raises(ValidationError, match="callers and managers"):
        services.game_cards_destroy_record(game=game, user=hall.cashier)


def test_ended_games_without_their_destruction_are_listed(hall: CardsHall) -> None:  # R51
    first, second = hall.finished(), hall.annulled()
    assert selectors.cards_destruction_unrecorded(hall_ids=[hall.hall.pk]) == [first, second]
    services.game_cards_destroy_record(game=first, user=hall.manager)
    assert selectors.cards_destruction_unrecorded(hall_ids=[hall.hall.pk]) == [second]


# --- R52: 8 days later, on the hall's clock -----------------------------------------------------


def test_winning_cards_fall_due_after_8_days_on_the_hall_s_calendar() -> None:  # R52
    """The same moment is 29 February in Cape Verde (UTC-1) and 1 March at UTC: the day of the
    game is not counted, so the cards fall due at midnight closing 8 March in Cape Verde
    (01:00 UTC on the 9th) and at midnight closing 9 March at UTC."""
    cape_verde = CardsHall("Sala Praia", time_zone="Atlantic/Cape_Verde")
    utc = CardsHall("Sala Londres", time_zone="UTC")
    praia, london = cape_verde.ended_at(), utc.ended_at()

    run = services.winning_cards_destroy_due(now=at(9, 0, 59))
    assert run.recorded == ()
    assert not destroyed_by_r52(praia)

    run = services.winning_cards_destroy_due(now=at(9, 1, 0))
    assert [n.game for n in run.recorded] == [praia]
    assert not destroyed_by_r52(london)

    run = services.winning_cards_destroy_due(now=at(9, 23, 59))
    assert run.recorded == ()
    run = services.winning_cards_destroy_due(now=at(10, 0, 0))
    assert [n.game for n in run.recorded] == [london]

    due = {k.game: k.due_at for k in selectors.winning_cards_kept_list(now=at(1, 0))}
    assert due == {}  # both recorded: nothing kept any more


def test_the_system_records_the_winning_cards_destroyed_once(hall: CardsHall) -> None:  # R52
    game = hall.ended_at()
    winning = selectors.game_winning_cards(game=game)
    (note,) = services.winning_cards_destroy_due(now=at(10, 0)).recorded
    assert (note.kind, note.game, note.recorded_by) == ("winning_cards_destroyed", game, None)
    body = json.loads(note.content)
    assert body["recorded_by"] is None
    assert body["cards"] == {"destroyed": [{"series": s, "card": n} for s, n in winning], "evidence": []}
    assert note.author == "the system"
    with translation.override("pt"):
        assert note.author == "o sistema"
    assert services.winning_cards_destroy_due(now=at(20, 0)).recorded == ()
    assert len(destroyed_by_r52(game)) == 1
    assert acta_verify(session=hall.session).intact


def test_a_winning_card_kept_as_evidence_is_not_destroyed(hall: CardsHall) -> None:  # R51, R52
    game = hall.ended_at()
    winning = selectors.game_winning_cards(game=game)
    services.game_cards_destroy_record(game=game, user=hall.caller, evidence=winning[:1], reason="Forged?")
    (note,) = services.winning_cards_destroy_due(now=at(10, 0)).recorded
    assert cards(note)["evidence"] == [{"series": winning[0][0], "card": winning[0][1]}]
    assert {"series": winning[0][0], "card": winning[0][1]} not in cards(note)["destroyed"]


@pytest.mark.parametrize(
    "on_the_game", [True, False], ids=["complaint-on-the-game", "complaint-on-the-session"]
)
def test_a_pending_complaint_holds_the_winning_cards_until_decided(
    hall: CardsHall, on_the_game: bool
) -> None:
    game = hall.ended_at()  # R52: "se não respeitarem a qualquer processo pendente"
    complaint = hall.complaint(game if on_the_game else None)

    run = services.winning_cards_destroy_due(now=at(10, 0))
    assert run.recorded == ()
    assert [(k.game, k.held_by) for k in run.held] == [(game, complaint)]
    (kept,) = selectors.winning_cards_kept_list(now=at(10, 0))
    assert (kept.due, kept.held_by) == (True, complaint)

    services.acta_note_record(
        session=hall.session, kind="decision", user=hall.manager, refers_to=complaint, decision="Refused."
    )
    run = services.winning_cards_destroy_due(now=at(10, 0))
    assert [n.game for n in run.recorded] == [game]
    assert run.held == ()


def test_a_complaint_decided_on_the_spot_or_on_another_game_holds_nothing(hall: CardsHall) -> None:  # R52
    game = hall.ended_at()
    other = hall.ended_at()
    hall.complaint(game, decision="Checked the balls: refused.")
    hall.complaint(other)
    run = services.winning_cards_destroy_due(now=at(10, 0))
    assert [n.game for n in run.recorded] == [game]
    assert [k.game for k in run.held] == [other]


def test_a_manager_records_for_their_halls_only(hall: CardsHall) -> None:  # R52
    hall.ended_at()
    other = CardsHall("Sala Mindelo")
    with pytest.raises(ValidationError, match="managers"):
        services.winning_cards_destroy_due(now=at(10, 0), user=hall.manager, hall_ids=[other.hall.pk])
    with pytest.raises(ValidationError, match="managers"):
        services.winning_cards_destroy_due(now=at(10, 0), user=hall.caller, hall_ids=[hall.hall.pk])
    (note,) = services.winning_cards_destroy_due(
        now=at(10, 0), user=hall.manager, hall_ids=[hall.hall.pk]
    ).recorded
    assert note.recorded_by == hall.manager


# --- the daily task -------------------------------------------------------------------------------


def test_the_beat_schedule_runs_the_registered_task_daily() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["winning-cards-destroy-due"]
    assert entry["task"] == services.WINNING_CARDS_DESTROY_DUE_TASK == winning_cards_destroy_due_task.name
    assert entry["task"] in current_app.tasks  # registered at start-up (ActasConfig.ready)
    assert (entry["schedule"].hour, entry["schedule"].minute) == ({1}, {15})


def test_the_daily_task_records_what_is_due_once(hall: CardsHall, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(current_app.conf, "task_always_eager", True)
    game = hall.ended_at()  # long over: the task runs on the real clock
    not_yet = hall.finished()
    assert winning_cards_destroy_due_task.delay().get() == 1
    assert winning_cards_destroy_due_task.delay().get() == 0
    assert len(destroyed_by_r52(game)) == 1
    assert destroyed_by_r52(not_yet) == []


# --- the manager's page ---------------------------------------------------------------------------


def as_user(user: object) -> Client:
    client = Client()
    client.force_login(user)  # type: ignore[arg-type]
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "pt"
    return client


def test_the_manager_sees_what_is_kept_due_and_held(hall: CardsHall) -> None:
    due, held = hall.ended_at(), hall.ended_at()
    kept = hall.finished()
    complaint = hall.complaint(held)
    page = as_user(hall.manager).get(reverse("acta_cards:hall", args=[hall.hall.pk]))
    assert page.status_code == 200
    rows = {k.game: k for k in page.context["kept"]}
    assert set(rows) == {due, held, kept}
    assert rows[due].due
    assert rows[held].held_by == complaint
    assert not rows[kept].due
    assert [k.game for k in page.context["due"]] == [due]
    html = page.content.decode()
    assert "Retidos por uma reclamação pendente" in html
    assert complaint.text in html
    assert "A destruir agora" in html


def test_the_manager_s_button_records_the_due_destructions(hall: CardsHall) -> None:
    due, held = hall.ended_at(), hall.ended_at()
    hall.complaint(held)
    client = as_user(hall.manager)
    answer = client.post(reverse("acta_cards:winning_cards_destroy", args=[hall.hall.pk]), follow=True)
    assert answer.status_code == 200
    assert [n.recorded_by for n in destroyed_by_r52(due)] == [hall.manager]
    assert destroyed_by_r52(held) == []
    assert "reclamação 1 está pendente" in answer.content.decode()


def test_the_manager_records_a_game_s_cards_with_their_evidence(hall: CardsHall) -> None:
    game = hall.finished()
    client = as_user(hall.manager)
    url = reverse("acta_cards:game_cards_destroy", args=[game.pk])
    winning = selectors.game_winning_cards(game=game)
    card = next(n for n in range(1, 11) if (1, n) not in winning)
    bad = client.post(url, {"provas": "1/x", "motivo": ""})
    assert bad.status_code == 200
    assert "não é um cartão" in bad.content.decode()
    answer = client.post(url, {"provas": f"1/{card}", "motivo": "Rasurado."})
    assert answer.status_code == 302
    note = ActaNote.objects.get(kind="cards_destroyed", game=game)
    assert cards(note)["evidence"] == [{"series": 1, "card": card}]
    assert note.recorded_by == hall.manager


@pytest.mark.parametrize("role", [Role.CASHIER, Role.CALLER, Role.INSPECTOR])
def test_other_roles_get_403(hall: CardsHall, role: Role) -> None:
    user = UserFactory(username=f"x-{role.value}", roles=[role])
    StaffMembership.objects.create(hall=hall.hall, user=user, role=role.value)
    client = as_user(user)
    assert client.get(reverse("acta_cards:hall", args=[hall.hall.pk])).status_code == 403
    assert client.post(reverse("acta_cards:winning_cards_destroy", args=[hall.hall.pk])).status_code == 403


def test_another_hall_s_pages_answer_404(hall: CardsHall) -> None:
    other = CardsHall("Sala Mindelo")
    game = other.finished()
    client = as_user(hall.manager)
    assert client.get(reverse("acta_cards:hall", args=[other.hall.pk])).status_code == 404
    assert client.post(reverse("acta_cards:winning_cards_destroy", args=[other.hall.pk])).status_code == 404
    assert client.post(reverse("acta_cards:game_cards_destroy", args=[game.pk]), {}).status_code == 404
    assert not ActaNote.objects.filter(kind__in=["cards_destroyed", "winning_cards_destroyed"]).exists()


def test_the_dashboard_and_the_session_link_to_the_page(hall: CardsHall) -> None:
    client = as_user(hall.manager)
    assert client.get(reverse("acta_cards:home")).url == reverse("acta_cards:hall", args=[hall.hall.pk])
    session_page = client.get(reverse("games:session_detail", args=[hall.session.pk])).content.decode()
    assert reverse("acta_cards:hall", args=[hall.hall.pk]) in session_page
