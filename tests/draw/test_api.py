"""The draw's JSON API (bingo/draw/api/): a whole game through it, who may call what, CSRF on
session-authenticated writes, and refusals that change nothing."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bingo.ballsets import services as ballset_services
from bingo.common.roles import Role
from bingo.draw import services as draw_services
from bingo.jackpot import services as jackpot_services
from bingo.models import Ball, Claim, DrawMode, Game, Prize, PrizePayment, PrizeWinner, Refund
from cards import selectors as card_selectors
from halls.models import StaffMembership
from tests.cards.factories import HallFactory
from tests.clients import api
from tests.common.access import refused_status
from tests.draw.test_services import Draw, all_numbers, row
from tests.factories import DEFAULT_PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

#: Staff added here log in with force_login: an unusable password skips the hashing.
UNUSABLE = "!"


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    """The Draw helper gives its caller and cashier real passwords; hash them cheaply here."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


class Hall(Draw):
    """A ``Draw`` hall with a manager and an inspector as well."""

    def __init__(self, **hall_fields: object) -> None:
        super().__init__(**hall_fields)
        name = self.hall.name
        self.manager = UserFactory(username=f"gerente-{name}", password=UNUSABLE)
        self.inspector = UserFactory(username=f"inspetor-{name}", password=UNUSABLE)
        StaffMembership.objects.create(hall=self.hall, user=self.manager, role=Role.MANAGER.value)
        StaffMembership.objects.create(hall=self.hall, user=self.inspector, role=Role.INSPECTOR.value)

    def staff(self, role: Role) -> Any:
        return {
            Role.CALLER: self.caller,
            Role.MANAGER: self.manager,
            Role.CASHIER: self.cashier,
            Role.INSPECTOR: self.inspector,
        }[role]


@pytest.fixture
def hall(db: None) -> Hall:
    return Hall()


def url(name: str, game: Game) -> str:
    return reverse(f"api:{name}", args=[game.pk])


def post(client: Client, name: str, game: Game, body: dict[str, Any] | None = None) -> Any:
    return client.post(url(name, game), body, content_type="application/json")


def snapshot(game: Game) -> tuple[object, ...]:
    """Everything the draw's endpoints may change."""
    game.refresh_from_db()
    return (
        game.state,
        game.draw_mode,
        game.manual_from_ball,
        game.state_reason,
        game.suspended_at,
        Ball.objects.count(),
        Claim.objects.count(),
        Prize.objects.count(),
        PrizePayment.objects.count(),
        Refund.objects.count(),
    )


def holds_line(hall: Draw, game: Game, number: int, drawn: set[int]) -> bool:
    card = hall.card(game, number)
    return any(set(row(card, r)) <= drawn for r in range(3))


def not_drawn(game: Game) -> int:
    drawn = set(game.balls.values_list("number", flat=True))
    return next(n for n in range(1, 91) if n not in drawn)


# --- a whole game ----------------------------------------------------------------------------------


def test_a_whole_game_through_the_api(hall: Hall) -> None:
    game = hall.closed(cards=10)  # 1 000 CVE sold: line 200, bingo 600 (R7)
    series = hall.series_of(game)
    caller = api(hall.caller)

    state = caller.get(url("game-draw", game)).json()
    assert (state["state"], state["waiting"], state["balls"], state["last"]) == (
        "sales_closed",
        "start",
        [],
        None,
    )
    assert (state["cards_sold"], state["sales_total"], state["currency"]) == (10, "1000.00", "CVE")

    response = post(caller, "game-draw-start", game, {"mode": "physical", "ball_set": hall.ball_set.pk})
    assert response.status_code == 200, response.content
    state = response.json()
    assert (state["state"], state["draw_mode"], state["electronic"], state["waiting"]) == (
        "drawing",
        "physical",
        False,
        "ball",
    )
    assert state["next_position"] == 1

    # Key in the first row of card 3, ball by ball.
    line = row(hall.card(game, 3), 0)
    for position, number in enumerate(line, start=1):
        response = post(caller, "game-balls", game, {"position": position, "number": number})
        assert response.status_code == 201, response.content
        ball = response.json()
        assert (ball["position"], ball["number"], ball["label"], ball["source"]) == (
            position,
            number,
            str(number),
            "manual",
        )
        assert ball["drawn_at"]
    # The same ball sent again (a retry) is answered, not drawn twice.
    again = post(caller, "game-balls", game, {"position": 5, "number": line[4]})
    assert again.status_code == 200
    assert again.json() == ball
    assert game.balls.count() == 5

    state = caller.get(url("game-draw", game)).json()
    assert [b["number"] for b in state["balls"]] == line
    assert (state["count"], state["next_position"], state["last"]) == (5, 6, ball)
    line_status = state["prizes"][0]
    assert (line_status["kind"], line_status["awarded"], line_status["prize"]) == ("line", False, None)
    assert "A-1 n.º 3" in line_status["holders"]
    assert [p["kind"] for p in state["prizes"]] == ["line", "bingo"]

    # A false claim: recorded, the card shown with its marks, the game goes on.
    drawn = set(line)
    false_card = next(n for n in range(1, 11) if not holds_line(hall, game, n, drawn))
    response = post(
        caller, "game-claims", game, {"series": series.pk, "card_number": false_card, "kind": "line"}
    )
    assert response.status_code == 201, response.content
    claim = response.json()
    assert (claim["outcome"], claim["valid"], claim["holders"], claim["first"]) == ("false", False, [], [])
    grid = hall.card(game, false_card)
    assert claim["card"]["grid"] == grid
    assert claim["card"]["marks"] == [[n is not None and n in drawn for n in cells] for cells in grid]
    assert claim["claim"]["series_label"] == "A-1"
    assert claim["claim"]["claimed_by"] == hall.caller.username

    # A valid claim lists every sold card holding a line now («Mais alguma linha?», R46).
    response = post(caller, "game-claims", game, {"series": series.pk, "card_number": 3, "kind": "line"})
    assert response.status_code == 201, response.content
    claim = response.json()
    assert (claim["outcome"], claim["valid"], claim["first"]) == ("valid", True, [])
    holders = {h["card_number"] for h in claim["holders"]}
    assert holders == {n for n in range(1, 11) if holds_line(hall, game, n, drawn)}
    assert {
        "series": series.pk,
        "series_label": "A-1",
        "card_number": 3,
        "completed_at": 5,
    } in claim["holders"]
    assert claim["card"]["marks"][0] == [n is not None for n in hall.card(game, 3)[0]]
    assert {"kind": "line", "holds": True, "missing": 0, "completed_at": 5} in claim["card"]["prizes"]

    # The draw waits for the award: no ball before it (R43, R46).
    state = caller.get(url("game-draw", game)).json()
    assert (state["waiting"], state["claims_waiting"]) == ("award", ["line"])
    assert [(c["card_number"], c["outcome"]) for c in state["claims"]] == [
        (false_card, "false"),
        (3, "valid"),
    ]
    refused = post(caller, "game-balls", game, {"position": 6, "number": not_drawn(game)})
    assert refused.status_code == 400
    assert refused.json() == {
        "non_field_errors": ["A valid claim is waiting: award the prize before the next ball (R43, R46)."]
    }
    assert game.balls.count() == 5

    response = post(caller, "game-prizes", game, {"kind": "line"})
    assert response.status_code == 201, response.content
    award = response.json()
    prize = award["prize"]
    assert (prize["kind"], prize["balls_drawn"], prize["total"], prize["winners"]) == (
        "line",
        5,
        "200.00",
        len(holders),
    )
    assert {c["card_number"] for c in prize["cards"]} == holders
    each, remainder = Decimal(prize["amount_each"]), Decimal(prize["remainder"])
    assert each * prize["winners"] + remainder == Decimal("200")
    assert all(c["amount"] == prize["amount_each"] for c in prize["cards"])
    assert (award["jackpot"], award["state"]) == (None, "drawing")
    state = caller.get(url("game-draw", game)).json()
    assert (state["waiting"], state["claims_waiting"]) == ("ball", [])
    assert (state["prizes"][0]["awarded"], state["prizes"][0]["prize"]) == (True, prize)

    # Card 5's remaining numbers, then its bingo.
    card5 = hall.card(game, 5)
    position = 5
    for number in [n for n in all_numbers(card5) if n not in drawn]:
        position += 1
        assert post(caller, "game-balls", game, {"position": position, "number": number}).status_code == 201
    response = post(caller, "game-claims", game, {"series": series.pk, "card_number": 5, "kind": "bingo"})
    claim = response.json()
    assert (claim["outcome"], claim["first"]) == ("valid", [])
    assert 5 in {h["card_number"] for h in claim["holders"]}

    response = post(caller, "game-prizes", game, {"kind": "bingo"})
    assert response.status_code == 201, response.content
    award = response.json()
    assert (award["prize"]["kind"], award["prize"]["total"], award["state"]) == (
        "bingo",
        "600.00",
        "finished",
    )
    assert 5 in {c["card_number"] for c in award["prize"]["cards"]}
    state = caller.get(url("game-draw", game)).json()
    assert (state["state"], state["waiting"]) == ("finished", "nothing")
    assert [(p["kind"], p["awarded"]) for p in state["prizes"]] == [("line", True), ("bingo", True)]

    # The winner is paid at the cash desk, once (R50).
    owed = sum(w.amount for w in PrizeWinner.objects.filter(series=series, card_number=5))
    body = {
        "series": series.pk,
        "card_number": 5,
        "check_code": card_selectors.card_check_code(series=series, number=5),
        "cash_desk": hall.desk.pk,
    }
    cashier = api(hall.cashier)
    response = cashier.post(reverse("api:prize-payments"), body, content_type="application/json")
    assert response.status_code == 201, response.content
    payout = response.json()
    assert (payout["gross"], payout["tax"], payout["net"], payout["currency"]) == (
        f"{owed:.2f}",
        "0.00",
        f"{owed:.2f}",
        "CVE",
    )
    assert {p["kind"] for p in payout["payments"]} == {
        w.prize.kind for w in PrizeWinner.objects.filter(series=series, card_number=5)
    }
    assert all(
        (p["game"], p["series_label"], p["card_number"], p["cashier"], p["cash_desk"])
        == (game.pk, "A-1", 5, hall.cashier.username, hall.desk.pk)
        for p in payout["payments"]
    )
    paid = PrizePayment.objects.count()
    assert paid == len(payout["payments"])

    twice = cashier.post(reverse("api:prize-payments"), body, content_type="application/json")
    assert twice.status_code == 400
    (refusal,) = twice.json()["non_field_errors"]
    assert refusal.startswith("This card's prizes were already paid, on ")
    assert PrizePayment.objects.count() == paid


def test_an_electronic_draw_switches_to_manual_extraction(hall: Hall) -> None:  # R55
    game = hall.closed()
    caller = api(hall.caller)
    state = post(caller, "game-draw-start", game, {"mode": "electronic", "ball_set": None}).json()
    assert (state["draw_mode"], state["electronic"]) == ("electronic", True)

    first = post(caller, "game-balls", game, {"position": 1})
    assert first.status_code == 201, first.content
    assert first.json()["source"] == "electronic"
    again = post(caller, "game-balls", game, {"position": 1, "number": None})
    assert (again.status_code, again.json()) == (200, first.json())
    keyed = post(caller, "game-balls", game, {"position": 2, "number": not_drawn(game)})
    assert keyed.json() == {"non_field_errors": ["In an electronic draw the system draws the ball."]}

    response = post(caller, "game-manual", game, {"reason": "drum jammed"})
    assert response.status_code == 200, response.content
    state = response.json()
    assert (state["electronic"], state["manual_from_ball"], state["state_reason"]) == (
        False,
        2,
        "drum jammed",
    )
    missing = post(caller, "game-balls", game, {"position": 2})
    assert missing.json() == {"non_field_errors": ["Key in the number of the ball from the blower."]}
    number = not_drawn(game)
    manual = post(caller, "game-balls", game, {"position": 2, "number": number})
    assert manual.status_code == 201
    assert (manual.json()["number"], manual.json()["source"]) == (number, "manual")


def test_a_bingo_within_the_announced_balls_answers_the_jackpot_too(db: None) -> None:  # R9-R11
    hall = Hall(jackpot_active=True)
    jackpot_services.jackpot_configure(hall=hall.hall, base_value=Decimal("5000"))
    jackpot_services.jackpot_seed(hall=hall.hall, amount=Decimal("5000"))
    hall.session.jackpot_balls = 40
    hall.session.save()
    game = hall.drawing(cards=10)
    hall.key(game, *all_numbers(hall.card(game, 1)))
    draw_services.prize_award(game=game, user=hall.caller, kind="line")

    response = post(api(hall.caller), "game-prizes", game, {"kind": "bingo"})

    assert response.status_code == 201, response.content
    award = response.json()
    jackpot = Prize.objects.get(game=game, kind="jackpot")
    assert award["jackpot"]["kind"] == "jackpot"
    assert Decimal(award["jackpot"]["total"]) == jackpot.total >= Decimal("5000")
    assert 1 in {c["card_number"] for c in award["jackpot"]["cards"]}
    state = api(hall.caller).get(url("game-draw", game)).json()
    assert [p["kind"] for p in state["prizes"]] == ["line", "bingo", "jackpot"]


def test_a_manager_suspends_resumes_and_annuls_with_refunds(hall: Hall) -> None:  # R55
    game = hall.closed(cards=4)
    manager = api(hall.manager)

    state = post(manager, "game-suspend", game, {"reason": "monitor failure"}).json()
    assert (state["state"], state["waiting"], state["state_reason"]) == (
        "suspended",
        "resume",
        "monitor failure",
    )
    suspended_at = Game.objects.get(pk=game.pk).suspended_at
    assert datetime.fromisoformat(state["annul_from"]) == suspended_at + timedelta(minutes=15)
    at_once = post(manager, "game-annul", game, {"reason": "power cut"})
    assert at_once.status_code == 400
    assert "15 minutes" in at_once.json()["non_field_errors"][0]
    assert not Refund.objects.exists()

    state = post(manager, "game-resume", game).json()
    assert (state["state"], state["waiting"]) == ("sales_closed", "start")

    post(manager, "game-suspend", game, {"reason": "power cut"})
    Game.objects.filter(pk=game.pk).update(suspended_at=timezone.now() - timedelta(minutes=16))
    response = post(manager, "game-annul", game, {"reason": "power cut, unsolved"})
    assert response.status_code == 200, response.content
    assert (response.json()["state"], response.json()["waiting"]) == ("annulled", "nothing")
    assert sum(r.amount for r in Refund.objects.filter(game=game)) == Decimal("400.00")


def test_a_game_with_sales_closed_is_not_annulled_at_once_through_the_api(hall: Hall) -> None:  # R55
    game = hall.closed(cards=4)
    state = api(hall.caller).get(url("game-draw", game)).json()
    assert state["annul_from"] is None
    before = snapshot(game)

    response = post(api(hall.manager), "game-annul", game, {"reason": "the blower does not start"})

    assert response.status_code == 400
    assert "R55" in response.json()["non_field_errors"][0]
    assert "suspended first" in response.json()["non_field_errors"][0]
    assert snapshot(game) == before


# --- who may call what -----------------------------------------------------------------------------


def _drawing(hall: Hall) -> Game:
    """A physical draw whose first five balls give card 1 a line."""
    game = hall.drawing(cards=10)
    hall.key(game, *row(hall.card(game, 1), 0))
    return game


def _electronic(hall: Hall) -> Game:
    game = hall.drawing(cards=10, mode=DrawMode.ELECTRONIC)
    draw_services.game_draw_ball(game=game, user=hall.caller, position=1)
    return game


def _suspended(hall: Hall) -> Game:
    game = hall.closed()
    return draw_services.game_suspend(game=game, user=hall.caller, reason="monitor failure")


GAMES: dict[str, Callable[[Hall], Game]] = {
    "closed": lambda hall: hall.closed(),
    "drawing": _drawing,
    "electronic": _electronic,
    "suspended": _suspended,
}
CALLER, CALLER_OR_MANAGER = {Role.CALLER}, {Role.CALLER, Role.MANAGER}
Body = Callable[[Hall, Game], dict[str, Any] | None]

# (url name, method, the game it is about, body, roles of the hall allowed, status when allowed)
ACTIONS: list[tuple[str, str, str, Body, set[Role], int]] = [
    ("game-draw", "get", "drawing", lambda h, g: None, CALLER_OR_MANAGER, 200),
    (
        "game-draw-start",
        "post",
        "closed",
        lambda h, g: {"mode": "physical", "ball_set": h.ball_set.pk},
        CALLER,
        200,
    ),
    ("game-balls", "post", "drawing", lambda h, g: {"position": 6, "number": not_drawn(g)}, CALLER, 201),
    ("game-manual", "post", "electronic", lambda h, g: {"reason": "drum jammed"}, CALLER, 200),
    (
        "game-claims",
        "post",
        "drawing",
        lambda h, g: {"series": h.series_of(g).pk, "card_number": 1, "kind": "line"},
        CALLER,
        201,
    ),
    ("game-prizes", "post", "drawing", lambda h, g: {"kind": "line"}, CALLER, 201),
    ("game-suspend", "post", "closed", lambda h, g: {"reason": "monitor failure"}, CALLER_OR_MANAGER, 200),
    ("game-resume", "post", "suspended", lambda h, g: None, CALLER_OR_MANAGER, 200),
    ("game-annul", "post", "drawing", lambda h, g: {"reason": "6 announced as 9"}, CALLER_OR_MANAGER, 200),
]

STAFF = (Role.CALLER, Role.MANAGER, Role.CASHIER, Role.INSPECTOR)
# A role in the game's hall, the same role in another hall, someone holding every role group but
# working in no hall (groups open screens, not halls), or nobody logged in.
WHO = [("own", role) for role in STAFF] + [
    ("other", Role.CALLER),
    ("other", Role.MANAGER),
    ("nobody", None),
    ("anon", None),
]


def _user(hall: Hall, where: str, role: Role | None) -> Any:
    if where == "own":
        assert role is not None
        return hall.staff(role)
    if where == "other":
        assert role is not None
        return Hall(name="Sala Mindelo").staff(role)
    if where == "nobody":
        return UserFactory(username="ninguem", roles=list(STAFF), password=UNUSABLE)
    return None


@pytest.mark.parametrize(("where", "role"), WHO, ids=lambda v: v.value if isinstance(v, Role) else v)
@pytest.mark.parametrize(
    ("name", "method", "about", "body", "allowed", "ok"), ACTIONS, ids=[a[0] for a in ACTIONS]
)
def test_role_and_hall_matrix(
    hall: Hall,
    where: str,
    role: Role | None,
    name: str,
    method: str,
    about: str,
    body: Body,
    allowed: set[Role],
    ok: int,
) -> None:
    game = GAMES[about](hall)
    user = _user(hall, where, role)
    data = body(hall, game)
    before = snapshot(game)

    response = getattr(api(user), method)(url(name, game), data, content_type="application/json")

    if where == "own" and role in allowed:
        assert response.status_code == ok, response.content[:300]
        return
    if where == "anon":
        assert response.status_code == 403
        assert response.json()["detail"] == "Authentication credentials were not provided."
    elif where == "own":
        assert response.status_code == 403
        assert response.json()["detail"] == "Your role does not allow this."
    elif refused_status(where=where, role=role, allowed=allowed, method=method) == 403:
        assert response.status_code == 403  # a write their role may make in no hall
        assert response.json()["detail"] == "Your role does not allow this."
    else:
        assert response.status_code == 404  # another hall's games are not there for them
        assert response.json()["detail"] == f"There is no game {game.pk}."
    assert snapshot(game) == before


def _won(hall: Hall) -> dict[str, Any]:
    """A finished game whose card 5 won the line and the bingo; the body that pays it."""
    game = hall.drawing(cards=10)
    hall.key(game, *all_numbers(hall.card(game, 5)))
    draw_services.prize_award(game=game, user=hall.caller, kind="line")
    draw_services.prize_award(game=game, user=hall.caller, kind="bingo")
    series = hall.series_of(game)
    code = card_selectors.card_check_code(series=series, number=5)
    return {"series": series.pk, "card_number": 5, "check_code": code, "cash_desk": hall.desk.pk}


@pytest.mark.parametrize(("where", "role"), WHO, ids=lambda v: v.value if isinstance(v, Role) else v)
def test_only_a_cashier_of_the_desks_hall_pays_prizes(hall: Hall, where: str, role: Role | None) -> None:
    body = _won(hall)
    user = Hall(name="Sala Mindelo").cashier if where == "other" else _user(hall, where, role)

    response = api(user).post(reverse("api:prize-payments"), body, content_type="application/json")

    if (where, role) == ("own", Role.CASHIER):
        assert response.status_code == 201, response.content
        assert PrizePayment.objects.exists()
        return
    if where in ("own", "anon", "nobody"):
        assert response.status_code == 403  # "nobody" is a cashier in no hall
    else:
        # A desk and a series of a hall they do not work in are as unknown as missing ones.
        assert response.status_code == 400
        assert set(response.json()) == {"series", "cash_desk"}
    assert not PrizePayment.objects.exists()


def test_a_cashier_cannot_pay_through_another_halls_desk(hall: Hall) -> None:
    body = _won(hall)
    other = Hall(name="Sala Mindelo")
    StaffMembership.objects.create(hall=other.hall, user=hall.cashier, role=Role.CASHIER.value)
    response = api(hall.cashier).post(
        reverse("api:prize-payments"), {**body, "cash_desk": other.desk.pk}, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json() == {"non_field_errors": ["This cash desk belongs to another hall."]}
    assert not PrizePayment.objects.exists()


def test_a_program_logs_in_and_draws_only_with_the_csrf_token(hall: Hall) -> None:
    """Session-authenticated writes need the X-CSRFToken header (docs/api.md)."""
    game = _drawing(hall)
    client = Client(enforce_csrf_checks=True)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    client.get(reverse("login"))
    login = client.post(
        reverse("login"),
        {
            "username": hall.caller.username,
            "password": DEFAULT_PASSWORD,
            "csrfmiddlewaretoken": client.cookies["csrftoken"].value,
        },
    )
    assert login.status_code == 302
    assert client.get(url("game-draw", game)).status_code == 200  # reading needs no token
    body = {"position": 6, "number": not_drawn(game)}

    response = client.post(url("game-balls", game), body, content_type="application/json")
    assert response.status_code == 403
    assert response.json() == {"detail": "CSRF Failed: CSRF token missing."}
    assert game.balls.count() == 5

    token = client.cookies["csrftoken"].value  # rotated at login
    response = client.post(
        url("game-balls", game), body, content_type="application/json", headers={"X-CSRFToken": token}
    )
    assert response.status_code == 201, response.content
    assert game.balls.count() == 6


# --- refusals change nothing ------------------------------------------------------------------------

REFUSALS: list[tuple[str, str, Body, str, str]] = [
    # (url name, the game, body, field, message or part of it)
    ("game-draw-start", "closed", lambda h, g: {}, "mode", "This field is required."),
    ("game-draw-start", "closed", lambda h, g: {"mode": "magic"}, "mode", '"magic" is not a valid choice.'),
    (
        "game-draw-start",
        "closed",
        lambda h, g: {"mode": "physical"},
        "non_field_errors",
        "A physical draw needs the ball set it is drawn with (R22-R25).",
    ),
    (
        "game-draw-start",
        "closed",
        lambda h, g: {
            "mode": "physical",
            "ball_set": ballset_services.ball_set_create(
                hall=HallFactory(name="Outra"), serial_number="X", size=90
            ).pk,
        },
        "ball_set",
        "object does not exist",
    ),
    ("game-draw-start", "drawing", lambda h, g: {"mode": "electronic"}, "non_field_errors", ""),
    ("game-balls", "drawing", lambda h, g: {}, "position", "This field is required."),
    (
        "game-balls",
        "drawing",
        lambda h, g: {"position": 0, "number": 7},
        "position",
        "greater than or equal to 1",
    ),
    ("game-balls", "drawing", lambda h, g: {"position": "sixth"}, "position", "A valid integer is required."),
    ("game-balls", "drawing", lambda h, g: {"position": True}, "position", "A valid integer is required."),
    (
        "game-balls",
        "drawing",
        lambda h, g: {"position": 6, "number": "seven"},
        "number",
        "A valid integer is required.",
    ),
    (
        "game-balls",
        "drawing",
        lambda h, g: {"position": 8, "number": not_drawn(g)},
        "non_field_errors",
        "Ball 8 cannot come before ball 6.",
    ),
    (
        "game-balls",
        "drawing",
        lambda h, g: {"position": 6, "number": 91},
        "number",  # no variant has ball 91: refused on the field (issue 20)
        "less than or equal to 90",
    ),
    (
        "game-balls",
        "drawing",
        lambda h, g: {"position": 6, "number": g.balls.get(position=1).number},
        "non_field_errors",
        "has already been drawn in this game.",
    ),
    (
        "game-balls",
        "drawing",
        lambda h, g: {"position": 6},
        "non_field_errors",
        "Key in the number of the ball from the blower.",
    ),
    (
        "game-balls",
        "drawing",
        lambda h, g: {"position": 1, "number": not_drawn(g)},
        "non_field_errors",
        "Ball 1 was already drawn:",
    ),
    (
        "game-balls",
        "closed",
        lambda h, g: {"position": 1, "number": 7},
        "non_field_errors",
        "is not drawing.",
    ),
    (
        "game-claims",
        "drawing",
        lambda h, g: {"series": h.series(99).pk, "card_number": 1, "kind": "line"},
        "series",
        "object does not exist",
    ),
    (
        "game-claims",
        "drawing",
        lambda h, g: {"series": h.series_of(g).pk, "card_number": 0, "kind": "line"},
        "card_number",
        "greater than or equal to 1",
    ),
    (
        "game-claims",
        "drawing",
        lambda h, g: {"series": h.series_of(g).pk, "card_number": 91, "kind": "line"},
        "non_field_errors",
        "Series A-1 has cards 1 to 90.",
    ),
    (
        "game-claims",
        "drawing",
        lambda h, g: {"series": h.series_of(g).pk, "card_number": 1, "kind": "jackpot"},
        "kind",
        '"jackpot" is not a valid choice.',
    ),
    (
        "game-claims",
        "drawing",
        lambda h, g: {"series": h.series_of(g).pk, "card_number": 1, "kind": "column"},
        "non_field_errors",
        "This game does not pay that prize.",
    ),
    ("game-prizes", "drawing", lambda h, g: {}, "kind", "This field is required."),
    (
        "game-prizes",
        "drawing",
        lambda h, g: {"kind": "bingo"},
        "non_field_errors",
        "Award the Line first (R44).",
    ),
    ("game-prizes", "closed", lambda h, g: {"kind": "line"}, "non_field_errors", "is not drawing."),
    ("game-manual", "electronic", lambda h, g: {"reason": " "}, "reason", "This field may not be blank."),
    (
        "game-manual",
        "drawing",
        lambda h, g: {"reason": "drum jammed"},
        "non_field_errors",
        "Only an electronic draw under way can switch to manual extraction.",
    ),
    ("game-suspend", "closed", lambda h, g: {}, "reason", "This field is required."),
    ("game-suspend", "drawing", lambda h, g: {"reason": "too late"}, "non_field_errors", ""),
    ("game-resume", "drawing", lambda h, g: None, "non_field_errors", ""),
    ("game-annul", "drawing", lambda h, g: {"reason": ""}, "reason", "This field may not be blank."),
    # R55: before the first ball a failure suspends the game; it is not annulled at once.
    ("game-annul", "closed", lambda h, g: {"reason": "power cut"}, "non_field_errors", "suspended first"),
    ("game-annul", "suspended", lambda h, g: {"reason": "power cut"}, "non_field_errors", "(in 15 min)"),
]


@pytest.mark.parametrize(("name", "about", "body", "field", "message"), REFUSALS)
def test_bad_requests_are_refused_and_change_nothing(
    hall: Hall, name: str, about: str, body: Body, field: str, message: str
) -> None:
    game = GAMES[about](hall)
    data = body(hall, game)
    before = snapshot(game)

    response = post(api(hall.caller), name, game, data)

    assert response.status_code == 400, response.content
    errors = response.json()
    assert field in errors, errors
    assert message in " ".join(errors[field])
    assert errors[field][0]  # a message always says what is wrong
    assert snapshot(game) == before


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"check_code": "WRONG"}, "non_field_errors", "The card number or its check code is wrong."),
        ({"card_number": 6}, "non_field_errors", "The card number or its check code is wrong."),
        ({"card_number": "five"}, "card_number", "A valid integer is required."),
        ({"cash_desk": None}, "cash_desk", "This field may not be null."),
        ({"check_code": ""}, "check_code", "This field may not be blank."),
    ],
)
def test_bad_payments_are_refused_and_pay_nothing(
    hall: Hall, change: dict[str, Any], field: str, message: str
) -> None:
    body = _won(hall)
    response = api(hall.cashier).post(
        reverse("api:prize-payments"), {**body, **change}, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()[field] == [message]
    assert not PrizePayment.objects.exists()


def test_a_prize_is_not_paid_before_the_game_ends(hall: Hall) -> None:  # R44, R50
    game = _drawing(hall)
    draw_services.prize_award(game=game, user=hall.caller, kind="line")
    series = hall.series_of(game)
    body = {
        "series": series.pk,
        "card_number": 1,
        "check_code": card_selectors.card_check_code(series=series, number=1),
        "cash_desk": hall.desk.pk,
    }
    response = api(hall.cashier).post(reverse("api:prize-payments"), body, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"non_field_errors": ["Prizes are paid once the game has ended (R44, R50)."]}
    assert not PrizePayment.objects.exists()


def test_messages_are_in_portuguese_by_default(hall: Hall) -> None:  # R54
    game = hall.closed()
    refused = post(api(hall.caller, language=None), "game-balls", game, {"position": 1, "number": 7})
    assert refused.status_code == 400
    assert refused.json() == {"non_field_errors": [f"A jogada {game.number} não está em extração."]}
    forbidden = post(api(hall.cashier, language=None), "game-balls", game, {"position": 1, "number": 7})
    assert forbidden.json() == {"detail": "O seu papel não permite isto."}
    assert not Ball.objects.exists()
