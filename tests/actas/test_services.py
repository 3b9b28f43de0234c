"""Writing the acta (actas.services, R58-R61): each game recorded in the transaction that ends
it, R60's refusal to start the next game before, the notes of the session, R51-R52."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone, translation

from actas import services as acta_services
from actas.models import ActaEntry, ActaNote
from actas.selectors import acta_verify
from bingo.common.roles import Role
from bingo.draw import services as draw_services
from bingo.engine.acta import GENESIS, record_hash
from bingo.games import exports, services
from bingo.models import Game, Prize
from cards import selectors as card_selectors
from halls.models import StaffMembership
from tests.concurrency import postgresql_only, run_threads
from tests.draw.test_services import Draw, all_numbers
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    """Messages are checked in their source language; what the acta records is Portuguese (R54)."""
    with translation.override("en"):
        yield


class ActaHall(Draw):
    """A hall whose games are drawn physically to a bingo, or annulled."""

    def finish(self, game: Game, card_number: int = 1) -> Game:
        """Key in card ``card_number``'s numbers, award the line and the bingo: the game ends."""
        drawn = set(game.balls.values_list("number", flat=True))
        card = card_selectors.card_get(card_set=self.series_of(game).card_set, number=card_number)
        self.key(game, *[n for n in all_numbers(card) if n not in drawn])
        if not game.prizes.filter(kind="line").exists():
            draw_services.prize_award(game=game, user=self.caller, kind="line")
        draw_services.prize_award(game=game, user=self.caller, kind="bingo")
        return Game.objects.get(pk=game.pk)

    def finished(self, cards: int = 10) -> Game:
        return self.finish(self.drawing(cards=cards))

    def annulled(self, cards: int = 4) -> Game:
        game = self.drawing(cards=cards)
        self.key(game, 5, 6)
        return draw_services.game_annul(game=game, user=self.caller, reason="ball 6 announced as 9")

    def manager(self) -> object:
        user = UserFactory(username=f"gerente-{self.hall.name}")
        StaffMembership.objects.create(hall=self.hall, user=user, role=Role.MANAGER.value)
        return user


@pytest.fixture
def hall(db) -> ActaHall:
    return ActaHall()


def body(entry: ActaEntry | ActaNote) -> dict:
    return json.loads(entry.content)


# --- recording the games (R59-R61) ----------------------------------------------------------------


def test_a_finished_game_is_recorded_as_it_ends_with_its_export(hall: ActaHall) -> None:
    game = hall.finished()
    entry = ActaEntry.objects.get(game=game)
    assert (entry.position, entry.kind, entry.recorded_by) == (1, "finished", hall.caller)
    assert entry.acta.session == hall.session
    recorded = body(entry)
    # The game's session_export form as it ended: balls in order, winners, the prize split.
    assert recorded["export"] == exports.game_export_data(game=game)
    assert recorded["export"]["balls"] == list(
        game.balls.order_by("position").values_list("number", flat=True)
    )
    assert [p["kind"] for p in recorded["export"]["prizes"]] == ["line", "bingo"]
    assert recorded["export"]["ball_set"] == {"serial_number": "JB-1", "games_played": 1}
    assert (recorded["game"], recorded["kind"], recorded["position"]) == (game.number, "finished", 1)
    # R61 a): the session and its start, as the session's export heads them.
    assert recorded["session"] == exports.session_header_data(session=hall.session)["session"]
    assert recorded["session"]["start"] is not None
    assert recorded["recorded_by"] == {"id": hall.caller.pk, "username": hall.caller.username}
    # Canonical JSON, hashed with the previous record's hash.
    assert entry.content == json.dumps(recorded, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert entry.previous_hash == GENESIS
    assert entry.content_hash == record_hash(previous_hash=GENESIS, content=entry.content)


def test_the_next_game_is_chained_to_the_one_before(hall: ActaHall) -> None:
    first = ActaEntry.objects.get(game=hall.finished())
    second = ActaEntry.objects.get(game=hall.annulled())
    assert (second.position, second.previous_hash) == (2, first.content_hash)


def test_an_annulled_game_is_recorded_with_its_reason_and_refunds(hall: ActaHall) -> None:  # R61 i)
    game = hall.annulled(cards=4)
    entry = ActaEntry.objects.get(game=game)
    recorded = body(entry)["export"]
    assert entry.kind == "annulled"
    assert (recorded["state"], recorded["state_reason"]) == ("annulled", "ball 6 announced as 9")
    assert recorded["refunded"] == "400.00"
    assert recorded["balls"] == [5, 6]


def test_a_rolled_back_finish_records_nothing(hall: ActaHall) -> None:
    game = hall.drawing(cards=10)
    card = hall.card(game, 3)
    hall.key(game, *all_numbers(card))
    draw_services.prize_award(game=game, user=hall.caller, kind="line")
    seen = []

    def finish_then_roll_back() -> None:
        with transaction.atomic():
            draw_services.prize_award(game=game, user=hall.caller, kind="bingo")
            seen.append(ActaEntry.objects.filter(game=game).exists())  # recorded inside it
            raise RuntimeError("the transaction that ended the game rolls back")

    with pytest.raises(RuntimeError):
        finish_then_roll_back()
    assert seen == [True]
    assert not ActaEntry.objects.exists()
    assert Game.objects.get(pk=game.pk).state == "drawing"


def test_a_game_that_cannot_be_recorded_does_not_end(hall: ActaHall, monkeypatch: pytest.MonkeyPatch) -> None:
    game = hall.drawing(cards=10)
    hall.key(game, *all_numbers(hall.card(game, 3)))
    draw_services.prize_award(game=game, user=hall.caller, kind="line")

    def broken(**kwargs: object) -> dict:
        raise RuntimeError("the export failed")

    monkeypatch.setattr(acta_services, "game_export_data", broken)
    with pytest.raises(RuntimeError):
        draw_services.prize_award(game=game, user=hall.caller, kind="bingo")
    assert Game.objects.get(pk=game.pk).state == "drawing"
    assert not Prize.objects.filter(game=game, kind="bingo").exists()
    with pytest.raises(RuntimeError):
        draw_services.game_annul(game=game, user=hall.caller, reason="wrong ball")
    assert Game.objects.get(pk=game.pk).state == "drawing"
    assert not game.refunds.exists()


def test_recording_a_game_again_returns_its_entry(hall: ActaHall) -> None:
    game = hall.finished()
    entry = ActaEntry.objects.get(game=game)
    assert acta_services.acta_record_game(game=game, user=hall.caller) == entry
    assert ActaEntry.objects.count() == 1


def test_a_game_still_under_way_is_not_recorded(hall: ActaHall) -> None:
    game = hall.drawing()
    with pytest.raises(ValidationError, match="ended"):
        acta_services.acta_record_game(game=game)
    assert not ActaEntry.objects.exists()


# --- R60: the next game starts once the last one is recorded ------------------------------------


def _ended_without_record(hall: ActaHall) -> Game:
    """A game that ended but has no acta entry: what a lost record would leave."""
    game = hall.drawing(cards=2)
    Game.objects.filter(pk=game.pk).update(state="finished", finished_at=timezone.now())
    return game


def test_the_next_game_does_not_start_selling_before_the_last_is_recorded(hall: ActaHall) -> None:  # R60
    missing = _ended_without_record(hall)
    nxt = services.game_create(session=hall.session, variant="90")
    series = hall.series(9)
    with pytest.raises(ValidationError, match="R60") as refused:
        services.game_open_sales(game=nxt, series=[series])
    assert f"Game {missing.number} " in refused.value.messages[0]
    assert Game.objects.get(pk=nxt.pk).state == "planned"
    acta_services.acta_record_game(game=missing, user=hall.caller)
    assert services.game_open_sales(game=nxt, series=[series]).state == "selling"


def test_the_draw_does_not_start_before_the_last_game_is_recorded(hall: ActaHall) -> None:  # R60
    earlier = hall.drawing(cards=2)
    nxt = hall.game(hall.series(8))  # sold while the earlier game was drawing
    services.game_close_sales(game=nxt)
    Game.objects.filter(pk=earlier.pk).update(state="annulled", finished_at=timezone.now())  # no record
    with pytest.raises(ValidationError, match="R60"):
        draw_services.game_start_draw(game=nxt, user=hall.caller, mode="physical", ball_set=hall.ball_set)
    assert Game.objects.get(pk=nxt.pk).state == "sales_closed"


def test_recorded_games_let_the_next_one_start(hall: ActaHall) -> None:
    hall.finished()
    hall.annulled()
    game = hall.drawing(cards=2)  # sells and draws: nothing missing
    assert game.state == "drawing"


# --- notes: complaints, decisions, failures, occurrences (R61 j, l, m) ----------------------------


def test_a_complaint_is_recorded_with_who_when_and_the_decision_taken(hall: ActaHall) -> None:  # R61 j)
    game = hall.finished()
    note = acta_services.acta_note_record(
        session=hall.session,
        kind="complaint",
        user=hall.caller,
        text="  Player at table 4 says ball 17 was called as 71.  ",
        decision="Checked against the recording: 17 was right.",
        game=game,
    )
    assert (note.position, note.kind, note.recorded_by, note.game) == (1, "complaint", hall.caller, game)
    assert note.text == "Player at table 4 says ball 17 was called as 71."
    recorded = body(note)
    assert recorded["decision"] == "Checked against the recording: 17 was right."
    assert recorded["game"] == game.number
    assert note.content_hash == record_hash(previous_hash=GENESIS, content=note.content)


def test_a_later_decision_is_a_note_of_its_own_that_names_the_complaint(hall: ActaHall) -> None:  # R61 j)
    complaint = acta_services.acta_note_record(
        session=hall.session, kind="complaint", user=hall.caller, text="Card 12 was not paid."
    )
    manager = hall.manager()
    decision = acta_services.acta_note_record(
        session=hall.session,
        kind="decision",
        user=manager,
        decision="Paid at the desk after checking the card.",
        refers_to=complaint,
    )
    assert (decision.position, decision.previous_hash) == (2, complaint.content_hash)
    assert body(decision)["refers_to"] == 1
    assert list(complaint.decisions.all()) == [decision]
    complaint.refresh_from_db()
    assert complaint.decision == ""  # the complaint itself is never updated


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"kind": "complaint", "text": "  "}, "Say what happened"),
        ({"kind": "occurrence", "text": ""}, "Say what happened"),
        ({"kind": "decision", "decision": "Paid."}, "names the complaint"),
        ({"kind": "equipment_failure", "text": "x", "refers": True}, "Only a decision"),
        ({"kind": "rumour", "text": "x"}, "Unknown kind"),
        ({"kind": "cards_destroyed"}, "with the cards it names"),  # R51-R52: their own services
    ],
)
def test_a_note_says_what_it_must(hall: ActaHall, fields: dict, message: str) -> None:
    complaint = acta_services.acta_note_record(
        session=hall.session, kind="complaint", user=hall.caller, text="A complaint."
    )
    refers = complaint if fields.pop("refers", False) else None
    with pytest.raises(ValidationError, match=message):
        acta_services.acta_note_record(session=hall.session, user=hall.caller, refers_to=refers, **fields)
    assert ActaNote.objects.count() == 1


def test_a_decision_needs_its_text(hall: ActaHall) -> None:
    complaint = acta_services.acta_note_record(
        session=hall.session, kind="complaint", user=hall.caller, text="A complaint."
    )
    with pytest.raises(ValidationError, match="what was decided"):
        acta_services.acta_note_record(
            session=hall.session, kind="decision", user=hall.caller, refers_to=complaint
        )


def test_only_the_hall_s_callers_and_managers_write_notes(hall: ActaHall) -> None:
    with pytest.raises(ValidationError, match="callers and managers"):
        acta_services.acta_note_record(session=hall.session, kind="occurrence", user=hall.cashier, text="x")
    other = ActaHall(name="Sala Mindelo")
    with pytest.raises(ValidationError, match="callers and managers"):
        acta_services.acta_note_record(session=hall.session, kind="occurrence", user=other.caller, text="x")
    with pytest.raises(ValidationError, match="another session"):
        acta_services.acta_note_record(
            session=hall.session, kind="occurrence", user=hall.caller, text="x", game=other.drawing()
        )
    assert not ActaNote.objects.exists()


def test_a_suspension_goes_into_the_acta_as_an_equipment_failure(hall: ActaHall) -> None:  # R55, R61 l)
    game = hall.drawing(cards=4)
    draw_services.game_suspend(game=game, user=hall.caller, reason="monitor failure")
    note = ActaNote.objects.get()
    assert (note.kind, note.text, note.game, note.recorded_by) == (
        "equipment_failure",
        "monitor failure",
        game,
        hall.caller,
    )
    # In the hall's language (R54), whatever the caller's screen is set to.
    assert note.decision == f"Jogada {game.number} suspensa antes da primeira bola (R55)."


def test_a_switch_to_manual_extraction_goes_into_the_acta(hall: ActaHall) -> None:  # R55, R61 l)
    game = hall.drawing(cards=4, mode="electronic")
    draw_services.game_draw_ball(game=game, user=hall.caller, position=1)
    draw_services.game_switch_to_manual(game=game, user=hall.caller, reason="drum jammed")
    note = ActaNote.objects.get()
    assert (note.kind, note.text) == ("equipment_failure", "drum jammed")
    assert note.decision == f"Jogada {game.number} continuada por extração manual a partir da bola 2 (R55)."


# --- R51-R52: the cards destroyed -------------------------------------------------------------------


# (R51-R52 in detail: tests/actas/test_cards.py)


def test_a_game_s_cards_are_recorded_destroyed_once_it_has_ended(hall: ActaHall) -> None:  # R51
    game = hall.drawing(cards=4)
    with pytest.raises(ValidationError, match="R51"):
        acta_services.game_cards_destroy_record(game=game, user=hall.caller)
    game = hall.finish(game)
    note = acta_services.game_cards_destroy_record(game=game, user=hall.caller)
    assert (note.kind, note.game, note.recorded_by) == ("cards_destroyed", game, hall.caller)
    with pytest.raises(ValidationError, match="already recorded"):
        acta_services.game_cards_destroy_record(game=game, user=hall.caller)


def test_an_entry_names_the_notes_recorded_before_it(hall: ActaHall) -> None:
    note = acta_services.acta_note_record(session=hall.session, kind="occurrence", user=hall.caller, text="x")
    entry = ActaEntry.objects.get(game=hall.finished())
    assert body(entry)["notes"] == {"count": 1, "last_hash": note.content_hash}


# --- races (PostgreSQL) ---------------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_notes_written_at_once_take_one_position_each() -> None:
    """Four callers write notes at once (real threads, real row locks) while a game ends: every
    note and the entry take the next position of their chain, once, and the acta holds."""
    postgresql_only()
    hall = ActaHall(name="Sala Corrida")
    game = hall.drawing(cards=6)
    hall.key(game, *all_numbers(hall.card(game, 2)))
    draw_services.prize_award(game=game, user=hall.caller, kind="line")

    def write(index: int) -> None:
        for n in range(5):
            acta_services.acta_note_record(
                session=hall.session, kind="occurrence", user=hall.caller, text=f"note {index}-{n}"
            )

    def finish() -> None:
        draw_services.prize_award(game=game, user=hall.caller, kind="bingo")

    run_threads([*(partial(write, i) for i in range(4)), finish])
    assert list(ActaNote.objects.order_by("position").values_list("position", flat=True)) == list(
        range(1, 21)
    )
    assert ActaEntry.objects.get().game == game
    assert acta_verify(session=hall.session).intact
