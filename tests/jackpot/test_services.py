"""The progressive jackpot (R9-R13): configuration, seeds, contributions, wins and resets, and
its insert-only ledger whose movements always add up to the balance."""

from __future__ import annotations

import random
from datetime import timedelta
from decimal import Decimal
from functools import partial

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone, translation

from bingo.jackpot import selectors as jackpot_selectors
from bingo.jackpot import services as jackpot_services
from bingo.live import events
from halls import services
from halls.models import Hall, Jackpot, JackpotMovement
from tests.concurrency import postgresql_only, run_threads
from tests.db_roles import as_table_owner
from tests.factories import HallWithSessions


@pytest.fixture(autouse=True)
def _english():
    """Service messages are checked in English (the Portuguese catalogue is tested elsewhere)."""
    with translation.override("en"):
        yield


pytestmark = pytest.mark.django_db

D = Decimal


def assert_ledger_adds_up(hall: Hall) -> None:
    """The balance is the sum of the movements, and each line's balance follows from the last."""
    jackpot = Jackpot.objects.get(hall=hall)
    running = D("0")
    for movement in JackpotMovement.objects.filter(jackpot=jackpot).order_by("id"):
        running += movement.amount
        assert movement.balance_after == running, movement
    # Summed here, not with SUM(): SQLite adds decimals as floats.
    assert jackpot.balance == running == sum(jackpot.movements.values_list("amount", flat=True), D("0"))


def test_configuring_keeps_the_authorizations_terms(venue):
    limit = timezone.localdate() + timedelta(days=365)
    jackpot = jackpot_services.jackpot_configure(
        hall=venue.hall,
        base_value=D("50000"),
        authorization_reference=" Despacho 12/2026 ",
        conditions="Bingo em 45 bolas ou menos.",
        valid_until=limit,
    )
    jackpot.refresh_from_db()
    assert (jackpot.base_value, jackpot.authorization_reference, jackpot.valid_until) == (
        D("50000"),
        "Despacho 12/2026",
        limit,
    )
    assert jackpot.balance == 0  # the base goes in by a seed, and back in on each win (R11)
    assert not JackpotMovement.objects.exists()


@pytest.mark.parametrize("value", [D("-1"), D("10.005")])
def test_a_base_value_below_zero_or_in_fractions_of_a_cent_is_refused(venue, value):
    with pytest.raises(ValidationError) as refused:
        jackpot_services.jackpot_configure(hall=venue.hall, base_value=value)
    assert "base_value" in refused.value.message_dict


def test_a_game_contributes_once_and_a_win_pays_all_then_resets_to_base(venue):
    """R10-R11: contributions grow the jackpot; a win takes it all and the base goes back in."""
    jackpot_services.jackpot_configure(hall=venue.hall, base_value=D("5000"))
    jackpot_services.jackpot_seed(hall=venue.hall, amount=D("5000"), note="initial base")
    session = venue.session()
    first, second = venue.game(session), venue.game(session)

    jackpot_services.jackpot_contribute(hall=venue.hall, game_id=first.pk, amount=D("72.30"))
    jackpot_services.jackpot_contribute(hall=venue.hall, game_id=second.pk, amount=D("30.00"))
    with pytest.raises(ValidationError, match="already contributed"):
        jackpot_services.jackpot_contribute(hall=venue.hall, game_id=second.pk, amount=D("30.00"))

    won = jackpot_services.jackpot_win(hall=venue.hall, game_id=second.pk)

    assert won == D("5102.30")
    kinds = list(JackpotMovement.objects.order_by("id").values_list("kind", "amount", "balance_after"))
    assert kinds == [
        ("seed", D("5000.00"), D("5000.00")),
        ("contribution", D("72.30"), D("5072.30")),
        ("contribution", D("30.00"), D("5102.30")),
        ("win", D("-5102.30"), D("0.00")),
        ("reset", D("5000.00"), D("5000.00")),
    ]
    assert jackpot_selectors.jackpot_state(hall=venue.hall).balance == D("5000.00")
    assert_ledger_adds_up(venue.hall)
    with pytest.raises(ValidationError, match="already won"):
        jackpot_services.jackpot_win(hall=venue.hall, game_id=second.pk)


def test_a_win_resets_to_the_base_in_force_when_it_is_won(venue):
    jackpot_services.jackpot_configure(hall=venue.hall, base_value=D("1000"))
    game = venue.game()
    jackpot_services.jackpot_contribute(hall=venue.hall, game_id=game.pk, amount=D("10"))
    jackpot_services.jackpot_configure(hall=venue.hall, base_value=D("2000"))
    assert jackpot_services.jackpot_win(hall=venue.hall, game_id=game.pk) == D("10")
    assert Jackpot.objects.get(hall=venue.hall).balance == D("2000")


def test_a_game_with_no_prize_money_contributes_zero_on_record(venue):
    game = venue.game()
    movement = jackpot_services.jackpot_contribute(hall=venue.hall, game_id=game.pk, amount=D("0"))
    assert (movement.amount, movement.balance_after) == (0, 0)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda h, g: jackpot_services.jackpot_contribute(hall=h, game_id=g, amount=D("-0.01")), "amount"),
        (lambda h, g: jackpot_services.jackpot_contribute(hall=h, game_id=g, amount=D("1.001")), "amount"),
        (lambda h, g: jackpot_services.jackpot_contribute(hall=h, game_id=g, amount=D("NaN")), "amount"),
        (lambda h, g: jackpot_services.jackpot_seed(hall=h, amount=D("0")), "amount"),
        (lambda h, g: jackpot_services.jackpot_seed(hall=h, amount=D("-5")), "amount"),
        (lambda h, g: jackpot_services.jackpot_adjust(hall=h, amount=D("0"), note="x"), "amount"),
        (lambda h, g: jackpot_services.jackpot_adjust(hall=h, amount=D("5"), note="  "), "note"),
        (lambda h, g: jackpot_services.jackpot_adjust(hall=h, amount=D("-5"), note="below zero"), "amount"),
    ],
    ids=[
        "negative contribution",
        "fraction of a cent",
        "not a number",
        "zero seed",
        "negative seed",
        "zero adjustment",
        "adjustment without a note",
        "adjustment below zero",
    ],
)
def test_a_movement_the_rules_do_not_allow_is_refused(venue, call, field):
    game = venue.game()
    with pytest.raises(ValidationError) as refused:
        call(venue.hall, game.pk)
    assert field in refused.value.message_dict
    assert not JackpotMovement.objects.exists()


def test_a_game_of_another_hall_neither_contributes_nor_wins(venue, other_venue):
    jackpot_services.jackpot_seed(hall=venue.hall, amount=D("100"))
    foreign = other_venue.game()
    with pytest.raises(ValidationError, match="not a game of"):
        jackpot_services.jackpot_contribute(hall=venue.hall, game_id=foreign.pk, amount=D("3"))
    with pytest.raises(ValidationError, match="not a game of"):
        jackpot_services.jackpot_win(hall=venue.hall, game_id=foreign.pk)
    assert Jackpot.objects.get(hall=venue.hall).balance == D("100")
    assert JackpotMovement.objects.count() == 1


def test_an_adjustment_goes_either_way_with_its_reason(venue):
    jackpot_services.jackpot_seed(hall=venue.hall, amount=D("100"))
    jackpot_services.jackpot_adjust(hall=venue.hall, amount=D("-40"), note="seed typed twice")
    jackpot_services.jackpot_adjust(hall=venue.hall, amount=D("15.50"), note="recount")
    assert Jackpot.objects.get(hall=venue.hall).balance == D("75.50")
    assert_ledger_adds_up(venue.hall)


def test_the_balance_is_always_the_sum_of_the_movements(venue):
    """A long random run of every kind of movement: the ledger adds up after each step."""
    rng = random.Random(2017)
    hall = venue.hall
    session = venue.session()
    jackpot_services.jackpot_configure(hall=hall, base_value=D("500"))
    for _step in range(60):
        choice = rng.random()
        if choice < 0.6:
            game = venue.game(session)
            jackpot_services.jackpot_contribute(
                hall=hall, game_id=game.pk, amount=D(rng.randint(0, 99_999)) / 100
            )
            if rng.random() < 0.15:
                jackpot_services.jackpot_win(hall=hall, game_id=game.pk)
        elif choice < 0.8:
            jackpot_services.jackpot_seed(hall=hall, amount=D(rng.randint(1, 10_000)))
        else:
            balance = (
                Jackpot.objects.get(hall=hall).balance if Jackpot.objects.filter(hall=hall).exists() else 0
            )
            amount = D(rng.randint(-int(balance * 100), 5_000)) / 100
            if amount:
                jackpot_services.jackpot_adjust(hall=hall, amount=amount, note="random")
        assert_ledger_adds_up(hall)
    assert JackpotMovement.objects.filter(kind="win").count() >= 1


# --- the displays hear of each movement once it commits (R13) -----------------------------------


@pytest.fixture
def announced(monkeypatch):
    """The halls whose displays were told their jackpot changed (bingo.live.events)."""
    heard: list[int] = []
    monkeypatch.setattr(events, "hall_jackpot_changed", heard.append)
    return heard


def test_every_movement_tells_the_halls_displays_after_it_commits(
    venue, announced, django_capture_on_commit_callbacks
):
    hall = venue.hall
    annulled, won = venue.game(), venue.game()
    steps = [
        lambda: jackpot_services.jackpot_configure(hall=hall, base_value=D("500.00")),
        lambda: jackpot_services.jackpot_seed(hall=hall, amount=D("500.00")),
        lambda: jackpot_services.jackpot_contribute(hall=hall, game_id=annulled.pk, amount=D("12.00")),
        lambda: jackpot_services.jackpot_reverse(hall=hall, game_id=annulled.pk),
        lambda: jackpot_services.jackpot_contribute(hall=hall, game_id=won.pk, amount=D("30.00")),
        lambda: jackpot_services.jackpot_adjust(hall=hall, amount=D("-0.50"), note="miscounted"),
        lambda: jackpot_services.jackpot_win(hall=hall, game_id=won.pk),  # the win and the reset
    ]
    for step in steps:
        with django_capture_on_commit_callbacks() as callbacks:
            step()
        assert announced == []  # nothing before the commit (STYLE rule 4)
        for callback in callbacks:
            callback()
        assert announced
        assert set(announced) == {hall.pk}
        announced.clear()
    assert JackpotMovement.objects.filter(jackpot__hall=hall).count() == 7


def _seed_then_fail(hall: Hall) -> None:
    with transaction.atomic():
        jackpot_services.jackpot_seed(hall=hall, amount=D("100.00"))
        raise RuntimeError("the caller's transaction fails after the seed")


def test_a_refused_or_rolled_back_movement_tells_no_display(
    venue, announced, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(ValidationError):
            jackpot_services.jackpot_adjust(hall=venue.hall, amount=D("-1.00"), note="below zero")
        with pytest.raises(RuntimeError):
            _seed_then_fail(venue.hall)
    assert callbacks == []
    assert announced == []


def test_the_state_for_displays(venue):
    assert jackpot_selectors.jackpot_state(hall=venue.hall) == jackpot_selectors.JackpotState(
        hall_id=venue.hall.pk,
        active=False,
        balance=D("0"),
        base_value=D("0"),
        currency="CVE",
        valid_until=None,
    )
    Hall.objects.filter(pk=venue.hall.pk).update(jackpot_active=True)
    venue.hall.refresh_from_db()
    jackpot_services.jackpot_configure(hall=venue.hall, base_value=D("300"))
    jackpot_services.jackpot_seed(hall=venue.hall, amount=D("300"))
    state = jackpot_selectors.jackpot_state(hall=venue.hall)
    assert (state.active, state.balance, state.base_value) == (True, D("300"), D("300"))

    # R12: past the authorization's time limit the jackpot no longer runs.
    jackpot_services.jackpot_configure(
        hall=venue.hall, base_value=D("300"), valid_until=timezone.localdate() - timedelta(days=2)
    )
    assert jackpot_selectors.jackpot_state(hall=venue.hall).active is False


# --- the schema ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"kind": "seed", "amount": D("-1")},
        {"kind": "contribution", "amount": D("-1")},
        {"kind": "win", "amount": D("1")},
        {"kind": "adjustment", "amount": D("0")},
        {"kind": "bonus", "amount": D("1")},
        {"kind": "seed", "amount": D("1"), "game": "game"},  # the operator's own movement names no game
        {"kind": "contribution", "amount": D("1"), "game": None},
    ],
)
def test_the_schema_refuses_a_movement_the_rules_do_not_allow(venue, fields):
    jackpot = jackpot_services.jackpot_configure(hall=venue.hall, base_value=D("0"))
    values = {**fields, "game": venue.game() if fields.get("game") else None}
    with pytest.raises(IntegrityError), transaction.atomic():
        JackpotMovement.objects.create(jackpot=jackpot, balance_after=max(values["amount"], D("0")), **values)


def test_the_schema_refuses_a_second_contribution_of_one_game(venue):
    game = venue.game()
    jackpot_services.jackpot_contribute(hall=venue.hall, game_id=game.pk, amount=D("1"))
    jackpot = Jackpot.objects.get(hall=venue.hall)
    with pytest.raises(IntegrityError), transaction.atomic():
        JackpotMovement.objects.create(
            jackpot=jackpot, kind="contribution", amount=D("1"), balance_after=D("2"), game=game
        )


@pytest.mark.postgres
def test_postgres_keeps_the_ledger_insert_only_and_the_balance_its_sum(venue):
    if connection.vendor != "postgresql":
        pytest.skip("the triggers exist on PostgreSQL only; the services keep the same elsewhere")
    movement = jackpot_services.jackpot_seed(hall=venue.hall, amount=D("100"))
    jackpot = Jackpot.objects.get(hall=venue.hall)
    # As the tables' owner: the app's role is refused by its privileges before any trigger is
    # asked (tests/common/test_db_roles.py).
    with as_table_owner():
        with pytest.raises(IntegrityError, match="never changed"), transaction.atomic():
            JackpotMovement.objects.filter(pk=movement.pk).update(amount=D("1000"))
        with pytest.raises(IntegrityError, match="never changed"), transaction.atomic():
            JackpotMovement.objects.filter(pk=movement.pk).delete()
    # A line whose balance does not follow from the last one.
    with pytest.raises(IntegrityError, match="previous balance"), transaction.atomic():
        JackpotMovement.objects.create(jackpot=jackpot, kind="seed", amount=D("10"), balance_after=D("500"))
    # A balance changed without a movement.
    with pytest.raises(IntegrityError, match="only by a movement"), transaction.atomic():
        Jackpot.objects.filter(pk=jackpot.pk).update(balance=D("1000000"))
    # Settings change freely: the balance stays what the ledger says.
    Jackpot.objects.filter(pk=jackpot.pk).update(conditions="em 40 bolas")
    assert_ledger_adds_up(venue.hall)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_games_contributing_at_once_leave_the_exact_balance():
    """Two threads contribute for many games at once, racing with a win (real threads, row
    locks): no contribution is lost and the ledger adds up to the cent."""
    postgresql_only()
    venue = HallWithSessions("Sala Corrida")
    hall = venue.hall
    session = venue.session()
    per_thread = 15
    games = [[venue.game(session) for _ in range(per_thread)] for _thread in range(2)]
    amounts = [[D(f"{t + 1}{n}.{n:02d}") for n in range(per_thread)] for t in range(2)]

    def contribute(index: int) -> None:
        for game, amount in zip(games[index], amounts[index], strict=True):
            jackpot_services.jackpot_contribute(hall=hall, game_id=game.pk, amount=amount)

    run_threads([partial(contribute, i) for i in range(2)])

    assert JackpotMovement.objects.filter(kind="contribution").count() == 2 * per_thread
    assert Jackpot.objects.get(hall=hall).balance == sum(amounts[0] + amounts[1], D("0"))
    assert_ledger_adds_up(hall)


def test_switching_the_halls_jackpot_tells_its_displays(venue, announced, django_capture_on_commit_callbacks):
    hall = venue.hall

    def update(jackpot_active: bool) -> None:
        services.hall_update(
            hall=hall,
            name=hall.name,
            currency=hall.currency,
            time_zone=hall.time_zone,
            card_limit_per_player=hall.card_limit_per_player,
            tax_rate=hall.tax_rate,
            tax_threshold=hall.tax_threshold,
            jackpot_active=jackpot_active,
        )

    switched_on = not hall.jackpot_active
    with django_capture_on_commit_callbacks(execute=True):
        update(switched_on)  # switched: the displays show it, or stop showing it (R13)
    assert announced == [hall.pk]
    announced.clear()
    with django_capture_on_commit_callbacks(execute=True):
        update(switched_on)  # the same setting again: nothing to tell
    assert announced == []
    assert Hall.objects.get(pk=hall.pk).jackpot_active is switched_on
