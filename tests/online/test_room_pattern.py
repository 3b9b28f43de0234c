"""An online room's 75-ball pattern (R73 b), issue 25): chosen on the room's form with the game
form's picker and over the API, refused when wrong with nothing changed (a 90-ball room has
none, R73 b); a pattern beside a line, R74), copied by every game the room creates (continuous
R90, scheduled R91-R93) and by each demo game (R102), never changed in a game already created
(R36, R93: what was sold is what is played), awarded by the real detector, and shown in the
lobby, on the rules page (R103) and on the manager's page. The hall game's side is
tests/games/test_patterns.py."""

from __future__ import annotations

import json
import random
import re
from datetime import timedelta
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.html import escape

from bingo.autodraw import services as autodraw_services
from bingo.demo import selectors as demo_selectors
from bingo.demo import services as demo_services
from bingo.draw import detection
from bingo.draw import services as draw_services
from bingo.engine import PrizeKind, card_check
from bingo.engine.patterns import LIBRARY
from bingo.models import Game, OnlineRoom, Prize, RoomMode, Session
from bingo.online import services
from cards.selectors import card_get
from tests.autodraw.helpers import Clock, Tasks, close_sales, committed, next_game, play_to_the_end
from tests.cards.factories import series_make
from tests.clients import api, logged_in
from tests.games.test_patterns import numbered, pictures
from tests.online.helpers import OnlineSetup

BINGO_ONLY = {"bingo": "80"}


class PatternRoom(OnlineSetup):
    """A hall whose online room plays 75-ball games (continuous unless told) whose bingo is
    ``pattern`` (a library key, or None for the full card), with an online series of 75-ball
    cards to sell (R90)."""

    def __init__(self, *, mode: str = RoomMode.CONTINUOUS, pattern: str | None = "letter_t") -> None:
        super().__init__(name=f"Sala Padrão {mode}", mode=mode, variant="75")
        self.first_series = self.series(1)
        self.online = services.online_room_update(
            online_room=self.online, variant="75", prize_plan=BINGO_ONLY, pattern=pattern
        )

    def advance(self) -> Game | None:
        """The online loop's step for the room (R90, R93), committed."""
        return committed(lambda: autodraw_services.online_room_advance(room_id=self.online.pk))

    def online_room(self) -> OnlineRoom:
        """The room as the database holds it now."""
        return OnlineRoom.objects.get(pk=self.online.pk)


@pytest.fixture
def site(db: None, clock: Clock) -> PatternRoom:
    return PatternRoom()


def _form(room: OnlineRoom, **changes: Any) -> dict[str, Any]:
    """The room form's fields as the page posts them, the room as it is, with ``changes``."""
    data = {
        "name": room.room.name,
        "mode": room.mode,
        "ball_interval": str(room.ball_interval),
        "sales_seconds": str(room.sales_seconds),
        "pause_seconds": str(room.pause_seconds),
        "sales_after_first_seconds": str(room.sales_after_first_seconds),
        "variant": room.variant,
        "prize_plan": "bingo=80",
        "pattern": room.pattern if room.pattern in LIBRARY else "",
        "active": "on",
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def _unchanged(site: PatternRoom, before: OnlineRoom) -> None:
    """The room is as it was: its variant, plan and pattern (bad input changes nothing)."""
    now = site.online_room()
    assert (now.variant, now.prize_plan, now.pattern) == (before.variant, before.prize_plan, before.pattern)


# --- the manager's form ------------------------------------------------------------------------


def test_the_room_form_offers_the_game_forms_picker_with_each_patterns_picture(site: PatternRoom) -> None:
    manager = logged_in(site.manager, "en")
    for url in (reverse("online:room_create"), reverse("online:room_detail", args=[site.online.pk])):
        html = manager.get(url).content.decode()
        shown = pictures(html)
        assert list(shown) == list(LIBRARY), url
        for key in LIBRARY:
            assert shown[key]["on"] == numbered(key), key
            assert shown[key]["free"] == {(2, 2)}  # R72: the free centre, starred
        assert 'name="pattern" value="custom"' in html
        assert len(re.findall(r'type="checkbox" name="custom_cells"', html)) == 24
        assert "js/pattern.js" in html  # ticking a cell chooses «Custom pattern»
    # The room's own pattern is the one chosen on its page.
    page = manager.get(reverse("online:room_detail", args=[site.online.pk])).content.decode()
    assert re.search(r'value="letter_t"[^>]*checked', page)


def test_the_room_form_saves_a_library_pattern_and_a_new_room_with_one(site: PatternRoom) -> None:
    manager = logged_in(site.manager, "en")
    url = reverse("online:room_detail", args=[site.online.pk])
    response = manager.post(url, _form(site.online_room(), pattern="diamond"))
    assert response.status_code == 302
    assert site.online_room().pattern == "diamond"

    created = manager.post(
        reverse("online:room_create"),
        {**_form(site.online_room(), name="Noite 75", pattern="x"), "hall": site.hall.pk},
    )
    assert created.status_code == 302
    room = OnlineRoom.objects.get(room__name="Noite 75")
    assert (room.variant, room.prize_plan, room.pattern) == ("75", BINGO_ONLY, "x")


def test_a_custom_figure_is_stored_by_its_cells_and_a_drawn_library_figure_by_its_key(
    site: PatternRoom,
) -> None:
    manager = logged_in(site.manager, "en")
    url = reverse("online:room_detail", args=[site.online.pk])
    cells = ["0,0", "0,1", "1,0", "3,3"]
    assert (
        manager.post(url, _form(site.online_room(), pattern="custom", custom_cells=cells)).status_code == 302
    )
    assert site.online_room().pattern == "XX.../X..../...../...X./....."
    # The page shows the drawing ticked on the grid, «Custom pattern» chosen.
    page = manager.get(url).content.decode()
    assert re.search(r'value="custom"[^>]*checked', page)
    for cell in cells:
        assert re.search(rf'value="{cell}"\s+aria-label="[^"]*" checked', page)
    corners = ["0,0", "0,4", "4,0", "4,4"]
    manager.post(url, _form(site.online_room(), pattern="custom", custom_cells=corners))
    assert site.online_room().pattern == "four_corners"


@pytest.mark.parametrize(
    ("changes", "where", "message"),
    [
        ({"pattern": "custom"}, "pattern", "R73 b): a pattern needs at least one numbered cell."),
        (
            {"pattern": "custom", "custom_cells": ["0,0", "5,0"]},
            "pattern",
            "R73 b): the pattern cell in row 6, column 1 is outside the card.",
        ),
        (
            {"pattern": "x", "custom_cells": ["0,0"]},
            "custom_cells",
            "Choose «Custom pattern» to play the cells drawn, or untick them.",
        ),
        (
            {"pattern": "any_line"},
            "pattern",
            "Select a valid choice. any_line is not one of the available choices.",
        ),
        (
            {"pattern": "x", "prize_plan": "line=20, bingo=60"},
            "pattern",
            "R74: the line and four corners prizes are paid only when the bingo is the full card, not with a "
            "pattern; these rules ask for: Line prize.",
        ),
        (
            {"pattern": "x", "variant": "90"},
            "pattern",
            "R73 b): only the 75-ball bingo may be a pattern, not the 90-ball one.",
        ),
    ],
    ids=["nothing drawn", "off the card", "library and drawn", "unknown", "with a line", "90-ball"],
)
def test_a_bad_pattern_on_the_form_is_refused_with_its_reason_and_nothing_changed(
    site: PatternRoom, changes: dict[str, Any], where: str, message: str
) -> None:
    series_make(hall=site.hall, variant="90", online=True)  # a 90-ball room would have cards to sell
    before = site.online_room()
    manager = logged_in(site.manager, "en")
    response = manager.post(reverse("online:room_detail", args=[site.online.pk]), _form(before, **changes))
    assert response.status_code == 200
    assert message in response.context["form"].errors[where]
    assert escape(message) in response.content.decode()
    _unchanged(site, before)


# --- the API -----------------------------------------------------------------------------------


def test_the_api_sets_reads_changes_and_clears_the_pattern(site: PatternRoom) -> None:
    client = api(site.manager)
    created = client.post(
        reverse("api:online-room-list"),
        json.dumps({
            "hall": site.hall.pk, "name": "API 75", "mode": "continuous", "ball_interval": "2.00",
            "variant": "75", "prize_plan": BINGO_ONLY, "pattern": "diamond",
        }),
        content_type="application/json",
    )  # fmt: skip
    assert created.status_code == 201, created.content
    assert (created.json()["pattern"], created.json()["pattern_cells"]) == (
        "diamond",
        "..X../.X.X./X...X/.X.X./..X..",
    )
    url = reverse("api:online-room-detail", args=[created.json()["id"]])
    assert client.get(url).json()["pattern"] == "diamond"

    custom = client.patch(
        url,
        json.dumps({"pattern": "custom", "custom_pattern": "XX.../XX.../...../...../....."}),
        content_type="application/json",
    )
    assert custom.status_code == 200, custom.content
    assert (custom.json()["pattern"], custom.json()["pattern_cells"]) == (
        "custom",
        "XX.../XX.../...../...../.....",
    )
    # Another field alone leaves the pattern as it is.
    kept = client.patch(url, json.dumps({"pause_seconds": 20}), content_type="application/json")
    assert kept.json()["pattern_cells"] == "XX.../XX.../...../...../....."
    # null: the full card (R73 a)); then the room may play the line again.
    cleared = client.patch(url, json.dumps({"pattern": None}), content_type="application/json")
    assert (cleared.json()["pattern"], cleared.json()["pattern_cells"]) == (None, None)
    assert OnlineRoom.objects.get(pk=created.json()["id"]).pattern == ""
    with_line = client.patch(
        url, json.dumps({"prize_plan": {"line": "20", "bingo": "60"}}), content_type="application/json"
    )
    assert with_line.status_code == 200, with_line.content


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"pattern": "custom"}, "pattern", "R73 b): a pattern needs at least one numbered cell."),
        ({"pattern": "custom", "custom_pattern": "X...X/.X.X."}, "pattern", "is not a pattern"),
        (
            {"pattern": "x", "custom_pattern": "X...X/.X.X./..X../.X.X./X...X"},
            "pattern",
            "R73 b): choose a pattern of the list or draw one, not both.",
        ),
        ({"pattern": "any_line"}, "pattern", "is not a valid choice"),
        ({"prize_plan": {"line": "20", "bingo": "60"}}, "pattern", "R74: the line and four corners"),
        ({"variant": "90"}, "pattern", "R73 b): only the 75-ball bingo may be a pattern"),
    ],
    ids=["nothing drawn", "bad text", "library and drawn", "unknown", "with a line", "90-ball"],
)
def test_a_bad_pattern_over_the_api_is_refused_and_nothing_changed(
    site: PatternRoom, body: dict[str, Any], field: str, message: str
) -> None:
    series_make(hall=site.hall, variant="90", online=True)
    before = site.online_room()
    response = api(site.manager).patch(
        reverse("api:online-room-detail", args=[site.online.pk]),
        json.dumps(body),
        content_type="application/json",
    )
    assert response.status_code == 400
    assert message in " ".join(response.json()[field])
    _unchanged(site, before)


def test_r73_a_90_ball_room_has_no_pattern(site: PatternRoom) -> None:
    series_make(hall=site.hall, variant="90", online=True)
    with translation.override("en"), pytest.raises(ValidationError) as refused:
        services.online_room_create(
            hall=site.hall, name="Noventa", mode="continuous", ball_interval="2", pattern="x"
        )
    assert refused.value.message_dict["pattern"] == [
        "R73 b): only the 75-ball bingo may be a pattern, not the 90-ball one."
    ]
    assert not OnlineRoom.objects.filter(room__name="Noventa").exists()
    # Back to 90 balls only with the pattern taken away: then the full card, as every 90-ball game.
    room = services.online_room_update(online_room=site.online, variant="90", prize_plan=None, pattern=None)
    assert (room.variant, room.pattern, room.prize_plan) == ("90", "", {"line": "20", "bingo": "60"})
    assert site.online_room().pattern_choice() == (None, None)


@pytest.mark.parametrize(
    ("fields", "constraint"),
    [
        ({"variant": "90", "pattern": "x"}, "online_room_pattern_only_75"),
        ({"pattern": "any_line"}, "online_room_pattern_known"),
        ({"pattern": "XX.../XX..."}, "online_room_pattern_known"),
        ({"prize_plan": {"line": "20", "bingo": "60"}}, "online_room_pattern_bingo_alone_r74"),
    ],
    ids=["90-ball", "unknown key", "bad cells", "with a line"],
)
def test_the_database_refuses_what_the_service_refuses(
    site: PatternRoom, fields: dict[str, Any], constraint: str
) -> None:
    with pytest.raises(IntegrityError, match=constraint), transaction.atomic():
        OnlineRoom.objects.filter(pk=site.online.pk).update(**fields)
    assert site.online_room().pattern == "letter_t"


# --- the games the room creates ----------------------------------------------------------------


def test_continuous_games_carry_the_rooms_pattern(site: PatternRoom) -> None:
    game = site.advance()
    assert game is not None
    assert game.state == Game.State.SELLING
    assert game.prize_plan == BINGO_ONLY  # R74: the pattern alone
    assert game.win_rules == {
        "line_kinds": [],
        "pattern": LIBRARY["letter_t"].text,
        "pattern_key": "letter_t",
    }
    assert detection.game_rules(game).pattern == LIBRARY["letter_t"].cells


def test_a_scheduled_sessions_75_ball_games_carry_the_rooms_pattern_and_plan(db: None) -> None:
    site = PatternRoom(mode=RoomMode.SESSION, pattern="x")
    series_make(hall=site.hall, variant="90", online=True, price="10.00")
    start = timezone.now() + timedelta(minutes=5)
    when = {
        "starts_at": start,
        "sales_close_at": start + timedelta(minutes=10),
        "scheduled_end": start + timedelta(hours=1),
    }
    session = services.online_session_schedule(
        online_room=site.online,
        games=[
            services.SessionGame("75", "10.00"),  # no plan: the room's, the bingo alone (R74)
            services.SessionGame("90", "10.00"),  # no pattern for a 90-ball game (R73 b))
            services.SessionGame("75", "10.00", {"bingo": "80"}),
        ],
        user=site.manager,
        **when,
    )
    games = list(session.games.order_by("number"))
    assert [g.win_rules.get("pattern_key") for g in games] == ["x", None, "x"]
    assert [g.prize_plan for g in games] == [BINGO_ONLY, {"line": "20", "bingo": "60"}, BINGO_ONLY]
    # A 75-ball game with a line beside the room's pattern is refused, and nothing is written.
    with translation.override("en"), pytest.raises(ValidationError) as refused:
        services.online_session_schedule(
            online_room=site.online,
            games=[services.SessionGame("75", "10.00", {"line": "20", "bingo": "60"})],
            user=site.manager,
            starts_at=start + timedelta(hours=2),
            sales_close_at=start + timedelta(hours=2, minutes=10),
            scheduled_end=start + timedelta(hours=3),
        )
    assert refused.value.message_dict["games"] == [
        "Game 1: R74: the line and four corners prizes are paid only when the bingo is the full card, "
        "not with a pattern; these rules ask for: Line prize."
    ]
    assert Session.objects.filter(room=site.room).count() == 1


def test_r36_r93_a_change_leaves_the_games_already_created_alone(
    site: PatternRoom, clock: Clock, tasks: Tasks
) -> None:
    """What was sold is what is played: a game selling, one drawing and one planned keep the
    pattern they were created with; only a game created after the change plays the new one."""
    selling = site.advance()
    assert selling is not None
    services.online_buy(player=site.player(), game=selling, quantity=2, key="k-1")
    manager = logged_in(site.manager, "en")
    changed = manager.post(
        reverse("online:room_detail", args=[site.online.pk]), _form(site.online_room(), pattern="x")
    )
    assert changed.status_code == 302
    assert site.online_room().pattern == "x"
    selling.refresh_from_db()
    assert (selling.state, selling.win_rules["pattern_key"]) == ("selling", "letter_t")

    drawing = close_sales(clock, selling)
    assert drawing.state == Game.State.DRAWING
    services.online_room_update(online_room=site.online, pattern="plus")
    drawing.refresh_from_db()
    assert drawing.win_rules["pattern_key"] == "letter_t"
    assert detection.game_rules(drawing).pattern == LIBRARY["letter_t"].cells
    # The manager's page names each game's bingo: the game under way its own.
    page = manager.get(reverse("online:room_detail", args=[site.online.pk])).content.decode()
    assert re.search(rf'data-game-bingo="{drawing.pk}">Letter T<', page)

    # It plays to its end by its own pattern; the game created after plays the room's as it is then.
    list(play_to_the_end(tasks, drawing))
    drawing.refresh_from_db()
    assert drawing.state == Game.State.FINISHED
    assert drawing.win_rules["pattern_key"] == "letter_t"
    following = next_game(site, clock)
    assert following.pk != drawing.pk
    assert following.win_rules["pattern_key"] == "plus"

    # Session mode: the games scheduled keep theirs, announced with the session (R91, R93).
    session_site = PatternRoom(mode=RoomMode.SESSION, pattern="frame")
    start = timezone.now() + timedelta(minutes=5)
    session = services.online_session_schedule(
        online_room=session_site.online,
        starts_at=start,
        sales_close_at=start + timedelta(minutes=10),
        scheduled_end=start + timedelta(hours=1),
        games=[services.SessionGame("75", "10.00")],
        user=session_site.manager,
    )
    services.online_room_update(online_room=session_site.online, pattern="diamond")
    assert session.games.get().win_rules["pattern_key"] == "frame"


# --- the draw awards by it ---------------------------------------------------------------------


def _cells_numbers(grid: list[list[int | None]], cells: frozenset[tuple[int, int]]) -> list[int]:
    return [n for r, c in sorted(cells) if (n := grid[r][c]) is not None]


def test_the_draw_awards_the_bingo_to_the_card_completing_the_rooms_pattern_only(
    site: PatternRoom, clock: Clock, tasks: Tasks, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The system's draw (online_ball_draw) with the real detector: card 2 completes column B,
    another figure, and wins nothing; card 1 completes the room's letter T and wins the bingo."""
    game = site.advance()
    assert game is not None
    ana, rui = site.player(), site.player()
    services.online_buy(player=ana, game=game, quantity=1, key="ana")  # card 1
    services.online_buy(player=rui, game=game, quantity=1, key="rui")  # card 2
    first, second = (card_get(card_set=site.card_set, number=n) for n in (1, 2))
    column_b = _cells_numbers(second, LIBRARY["column_b"].cells)
    letter_t = _cells_numbers(first, LIBRARY["letter_t"].cells)
    order = list(dict.fromkeys(column_b + letter_t + list(range(1, 76))))
    rules = detection.game_rules(game)
    # The balls as ordered: card 1's T completes at ball t_done, card 2's T not by then (a fair test).
    t_done = max(order.index(n) for n in letter_t) + 1
    assert card_check(rules, first, order[:t_done]).prize(PrizeKind.BINGO).completed_at == t_done
    assert card_check(rules, second, order[:t_done]).prize(PrizeKind.BINGO).completed_at is None
    assert t_done > len(column_b)
    monkeypatch.setattr(draw_services, "next_ball", lambda variant, drawn, rng: order[len(list(drawn))])

    game = close_sales(clock, game)
    assert game.state == Game.State.DRAWING
    for _ball in range(len(column_b)):
        tasks.run_next()
    game.refresh_from_db()
    # Column B complete on card 2: not the room's pattern, no prize, the draw goes on.
    assert game.balls.count() == len(column_b)
    assert game.state == Game.State.DRAWING
    assert not Prize.objects.filter(game=game).exists()

    while game.state == Game.State.DRAWING and tasks.queued:
        tasks.run_next()
        game.refresh_from_db()
    assert game.state == Game.State.FINISHED
    assert game.balls.count() == t_done  # the ball that completed card 1's T ended it
    bingo = Prize.objects.get(game=game, kind="bingo")
    assert [w.card_number for w in bingo.cards.all()] == [1]


# --- demo mode mirrors it (R102) ---------------------------------------------------------------


def test_a_demo_game_plays_the_rooms_pattern(site: PatternRoom) -> None:
    player = site.player()
    demo_services.demo_credit_grant(player=player)
    t0 = timezone.now()
    game = demo_services.demo_game_start(
        player=player, online_room=site.online_room(), cards=2, key="d1", now=t0, rng=random.Random(3), seed=5
    )
    assert game.win_rules["pattern_key"] == "letter_t"
    assert game.prize_plan == BINGO_ONLY
    # The engine ended it on the first card to complete the letter T, not the full card.
    pattern_rules = detection.rules_from("75", ["bingo"], None, None, "letter_t")
    full_rules = detection.rules_from("75", ["bingo"], None, None)
    firsts = [
        card_check(pattern_rules, grid, game.balls).prize(PrizeKind.BINGO).completed_at for grid in game.cards
    ]
    assert min(f for f in firsts if f) == len(game.balls)
    fulls = [
        card_check(full_rules, grid, game.balls).prize(PrizeKind.BINGO).completed_at for grid in game.cards
    ]
    assert not any(fulls)  # no card is full yet: the full card would have gone on
    state = demo_selectors.demo_game_state(player=player, game=game, now=t0)
    assert state["game"]["pattern"]["key"] == "letter_t"
    client = logged_in(player.user, "pt")
    html = client.get(reverse("demo:game", args=[game.pk])).content.decode()
    assert pictures(html)["letter_t"]["on"] == numbered("letter_t")
    home = client.get(reverse("demo:home")).content.decode()
    assert 'data-room-pattern="letter_t"' in home

    # A change reaches the next demo game; the one played keeps its own.
    services.online_room_update(online_room=site.online, pattern="x")
    later = demo_services.demo_game_start(
        player=player, online_room=site.online_room(), cards=1, key="d2", rng=random.Random(4), seed=6
    )
    assert later.win_rules["pattern_key"] == "x"
    game.refresh_from_db()
    assert game.win_rules["pattern_key"] == "letter_t"


# --- the lobby ---------------------------------------------------------------------------------


def test_the_lobby_shows_the_rooms_pattern_and_each_games_own(site: PatternRoom) -> None:
    game = site.advance()
    assert game is not None
    services.online_room_update(online_room=site.online, pattern="x")  # after the game was created
    player = site.player()
    client = logged_in(player.user, "pt")
    html = client.get(reverse("online:lobby")).content.decode()
    card = html[html.index(f'data-room="{site.online.pk}"') :]
    # Point 7 of the review: «jogada», the glossary's word for a game.
    assert "O bingo das jogadas de 75 bolas desta sala é este padrão (R73 b)):" in card
    assert pictures(card)["x"]["on"] == numbered("x")
    assert 'data-room-pattern="x"' in card
    # The game selling plays what it was created with, and says so.
    assert 'data-game-pattern="letter_t">bingo: Letra T<' in card

    body = client.get(reverse("api:online-lobby")).json()
    room = next(r for r in body["rooms"] if r["id"] == site.online.pk)
    assert room["pattern"] == {
        "key": "x",
        "name": "X",
        "rows": ["X...X", ".X.X.", "..*..", ".X.X.", "X...X"],
    }
    assert room["games"][0]["pattern"]["key"] == "letter_t"
    assert room["games"][0]["pattern"]["name"] == "Letra T"
    # The rules page (R103) says it too, before anyone buys, to anyone.
    rules = logged_in(None, "pt").get(reverse("online:rules")).content.decode()
    entry = rules[rules.index(f'data-room="{site.online.pk}"') :]
    assert 'data-room-pattern="x"' in entry
    assert pictures(entry)["x"]["on"] == numbered("x")


def test_r103_the_rules_page_shows_each_scheduled_game_s_own_pattern(db: None, clock: Clock) -> None:
    """R103, review of issue 25 point 5: a session's games keep the pattern they were created
    with; the rules page shows each listed game's own (and the full card of a 90-ball one), not
    the room's pattern changed since."""
    site = PatternRoom(mode=RoomMode.SESSION, pattern="letter_t")
    series_make(hall=site.hall, variant="90", online=True, price="10.00")
    start = timezone.now() + timedelta(minutes=5)
    session = services.online_session_schedule(
        online_room=site.online,
        games=[services.SessionGame("75", "10.00"), services.SessionGame("90", "10.00")],
        user=site.manager,
        starts_at=start,
        sales_close_at=start + timedelta(minutes=10),
        scheduled_end=start + timedelta(hours=1),
    )
    services.online_room_update(online_room=site.online, pattern="x")  # after the games were made
    figured, full = session.games.order_by("number")

    rules = logged_in(None, "pt").get(reverse("online:rules")).content.decode()

    entry = rules[rules.index(f'data-room="{site.online.pk}"') :]
    row = entry[entry.index(f'data-game="{figured.pk}"') : entry.index(f'data-game="{full.pk}"')]
    assert 'data-game-pattern="letter_t"' in row
    assert pictures(row)["letter_t"]["on"] == numbered("letter_t")
    assert "Letra T" in row
    start = entry.index(f'data-game="{full.pk}"')
    other = entry[start : entry.index("</tr>", start)]
    assert 'data-game-pattern=""' in other
    assert "Cartão completo" in other
    # The room's pattern now is not claimed for the games listed.
    assert 'data-room-pattern="x"' not in entry[: entry.index("</article>")]
    assert "x" not in pictures(entry[: entry.index("</article>")])


def test_a_full_card_room_shows_no_pattern(db: None, clock: Clock) -> None:
    site = PatternRoom(pattern=None)
    assert site.advance().win_rules == {"line_kinds": [], "pattern": None}
    html = logged_in(site.player().user, "pt").get(reverse("online:lobby")).content.decode()
    assert "data-room-pattern" not in html
    assert pictures(html) == {}
