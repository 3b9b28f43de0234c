"""75-ball patterns from the library (R73 b)): chosen on the game form and over the API, refused
when wrong with nothing saved, shown on the display and the caller's console, and named in the
acta's PDF (R61). The engine's side is tests/engine/test_patterns.py."""

from __future__ import annotations

import io
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape
from pypdf import PdfReader

from actas.pdf import render_acta_pdf
from actas.selectors import acta_document
from bingo.ballsets import services as ballset_services
from bingo.common.roles import Role
from bingo.draw import selectors as draw_selectors
from bingo.draw import services as draw_services
from bingo.engine.patterns import LIBRARY
from bingo.games import services
from bingo.models import Game, Session
from cards import selectors as card_selectors
from cards.models import Series
from halls.models import StaffMembership
from tests.cards.factories import card_set_make
from tests.clients import api, logged_in
from tests.draw.test_views import Console
from tests.factories import UserFactory
from tests.online.helpers import OnlineSetup

pytestmark = pytest.mark.django_db

X_TEXT = "X...X/.X.X./..X../.X.X./X...X"
BINGO_ONLY = {"plan": "custom", "bingo_share": "80"}


class PatternHall(Console):
    """A hall playing 75-ball games whose bingo is a pattern (R73 b)); its caller draws them by hand."""

    def __init__(self) -> None:
        super().__init__(name="Sala Padrões")
        self.card_set = card_set_make(variant="75", size=30)
        self.ball_set = ballset_services.ball_set_create(hall=self.hall, serial_number="JB-75", size=75)
        ballset_services.ball_set_check_record(ball_set=self.ball_set, session=self.session, phase="start")
        self.manager = UserFactory(username="gerente-padroes", roles=[Role.MANAGER])
        StaffMembership.objects.create(hall=self.hall, user=self.manager, role=Role.MANAGER.value)

    def game(self, *series: Series, pattern_key: str = "x") -> Game:
        game = services.game_create(
            session=self.session, variant="75", prize_plan={"bingo": "80"}, pattern_key=pattern_key
        )
        return services.game_open_sales(game=game, series=list(series))

    def pattern_won(self, game: Game, card_number: int = 1) -> Game:
        """Key in the numbers of card ``card_number``'s X and award the bingo: the game ends."""
        card = card_selectors.card_get(card_set=self.series_of(game).card_set, number=card_number)
        numbers = [card[r][c] for r, c in sorted(LIBRARY["x"].cells) if card[r][c]]
        self.key(game, *numbers)
        draw_services.prize_award(game=game, user=self.caller, kind="bingo")
        return Game.objects.get(pk=game.pk)


@pytest.fixture
def hall() -> PatternHall:
    return PatternHall()


@pytest.fixture
def manager(client: Client, hall: PatternHall) -> Client:
    client.force_login(hall.manager)
    client.cookies["django_language"] = "en"
    return client


class Pictures(HTMLParser):
    """Each pattern picture of a page (``figure.pattern-picture``): its key and the cells filled,
    as (row, column), and the free centre starred."""

    def __init__(self) -> None:
        super().__init__()
        self.found: dict[str, dict[str, Any]] = {}
        self._key: str | None = None
        self._row = self._col = -1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if tag == "figure" and "pattern-picture" in (attr.get("class") or ""):
            self._key = attr.get("data-pattern") or ""
            self.found[self._key] = {"on": set(), "free": set()}
            self._row = -1
        elif self._key is not None and tag == "tr":
            self._row, self._col = self._row + 1, -1
        elif self._key is not None and tag == "td":
            self._col += 1
            for state in ("on", "free"):
                if f"is-{state}" in (attr.get("class") or ""):
                    self.found[self._key][state].add((self._row, self._col))

    def handle_endtag(self, tag: str) -> None:
        if tag == "figure":
            self._key = None


def pictures(html: str) -> dict[str, dict[str, Any]]:
    parser = Pictures()
    parser.feed(html)
    return parser.found


def numbered(key: str) -> set[tuple[int, int]]:
    return set(LIBRARY[key].cells) - {(2, 2)}


# --- the game form -------------------------------------------------------------------------------


def test_the_form_offers_the_library_with_a_picture_of_each(manager: Client, hall: PatternHall) -> None:
    html = manager.get(reverse("games:game_create", args=[hall.session.pk])).content.decode()
    shown = pictures(html)
    assert list(shown) == list(LIBRARY)
    for key in LIBRARY:
        assert shown[key]["on"] == numbered(key), key
        assert shown[key]["free"] == {(2, 2)}  # R72: the free centre, starred
        assert f'name="pattern" value="{key}"' in html
    assert 'name="pattern" value="custom"' in html
    # The custom grid: 24 checkboxes, the centre free.
    assert len(re.findall(r'type="checkbox" name="custom_cells"', html)) == 24


def test_a_named_pattern_is_saved_by_its_cells_and_key(manager: Client, hall: PatternHall) -> None:
    url = reverse("games:game_create", args=[hall.session.pk])
    response = manager.post(url, {"variant": "75", **BINGO_ONLY, "pattern": "postage_stamp"})
    assert response.status_code == 302
    game = Game.objects.get()
    assert game.win_rules == {
        "line_kinds": [],
        "pattern": "...XX/...XX/...../...../.....",
        "pattern_key": "postage_stamp",
    }
    assert game.prize_plan == {"bingo": "80"}  # R74: the pattern is the only prize


def test_a_custom_pattern_is_drawn_on_the_grid(manager: Client, hall: PatternHall) -> None:
    url = reverse("games:game_create", args=[hall.session.pk])
    cells = ["0,0", "0,1", "1,0", "3,3"]
    manager.post(url, {"variant": "75", **BINGO_ONLY, "pattern": "custom", "custom_cells": cells})
    game = Game.objects.get()
    assert game.win_rules == {
        "line_kinds": [],
        "pattern": "XX.../X..../...../...X./.....",
        "pattern_key": "custom",
    }
    # A custom drawing of a library figure is that figure.
    corners = ["0,0", "0,4", "4,0", "4,4"]
    manager.post(url, {"variant": "75", **BINGO_ONLY, "pattern": "custom", "custom_cells": corners})
    assert Game.objects.order_by("number").last().win_rules["pattern_key"] == "four_corners"


@pytest.mark.parametrize(
    ("data", "where", "message"),
    [
        ({"pattern": "custom"}, None, "R73 b): a pattern needs at least one numbered cell."),
        (
            {"pattern": "custom", "custom_cells": ["2,2"]},
            None,
            "R73 b): a pattern needs at least one numbered cell.",
        ),
        (
            {"pattern": "custom", "custom_cells": ["0,0", "5,0"]},
            None,
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
            {"pattern": "x", "plan": "default"},
            None,
            "R74: the line and four corners prizes are paid only when the bingo is the full card, not with a "
            "pattern; these rules ask for: Line prize.",
        ),
    ],
    ids=[
        "nothing drawn",
        "only the free centre",
        "off the card",
        "library and drawn",
        "unknown",
        "with a line",
    ],
)
def test_a_bad_pattern_is_refused_with_its_reason_and_nothing_saved(
    manager: Client, hall: PatternHall, data: dict[str, Any], where: str | None, message: str
) -> None:
    url = reverse("games:game_create", args=[hall.session.pk])
    response = manager.post(url, {"variant": "75", **BINGO_ONLY, **data})
    assert response.status_code == 200
    form = response.context["form"]
    errors = form.errors[where] if where else form.non_field_errors()
    assert message in errors
    assert escape(message) in response.content.decode()
    assert not Game.objects.exists()
    # The cells ticked stay ticked, so the manager corrects rather than redraws.
    for cell in data.get("custom_cells", []):
        if cell not in ("5,0", "2,2"):  # off the card, and the free centre: no checkbox
            assert re.search(rf'value="{cell}"\s+aria-label="[^"]*" checked', response.content.decode())


# --- the API -------------------------------------------------------------------------------------


def test_the_api_creates_a_named_and_a_custom_pattern_game_and_reads_them_back(hall: PatternHall) -> None:
    client = api(hall.manager)
    url = reverse("api:session-games", args=[hall.session.pk])
    body = {"variant": "75", "prize_plan": {"bingo": "80"}, "pattern": "diamond"}
    created = client.post(url, body, content_type="application/json")
    assert created.status_code == 201, created.content
    assert created.json()["pattern"] == "diamond"
    assert created.json()["pattern_cells"] == "..X../.X.X./X...X/.X.X./..X.."
    read = client.get(reverse("api:game-detail", args=[created.json()["id"]])).json()
    assert (read["pattern"], read["pattern_cells"]) == ("diamond", "..X../.X.X./X...X/.X.X./..X..")

    custom = client.post(
        url,
        {**body, "pattern": "custom", "custom_pattern": "XX.../XX.../...../...../....."},
        content_type="application/json",
    )
    assert custom.status_code == 201, custom.content
    assert (custom.json()["pattern"], custom.json()["pattern_cells"]) == (
        "custom",
        "XX.../XX.../...../...../.....",
    )
    # The full card (R73 a)): no pattern.
    full = client.post(url, {"variant": "75"}, content_type="application/json").json()
    assert (full["pattern"], full["pattern_cells"]) == (None, None)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"pattern": "custom"}, "R73 b): a pattern needs at least one numbered cell."),
        ({"pattern": "custom", "custom_pattern": "X...X/.X.X."}, "is not a pattern"),
        (
            {"pattern": "x", "custom_pattern": X_TEXT},
            "R73 b): choose a pattern of the list or draw one, not both.",
        ),
        ({"pattern": "any_line"}, "is not a valid choice"),
    ],
)
def test_the_api_refuses_a_bad_pattern_and_creates_nothing(
    hall: PatternHall, body: dict[str, str], message: str
) -> None:
    response = api(hall.manager).post(
        reverse("api:session-games", args=[hall.session.pk]),
        {"variant": "75", "prize_plan": {"bingo": "80"}, **body},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Game.objects.exists()


def test_the_openapi_schema_offers_the_library(tmp_path: Any) -> None:
    import yaml

    out = tmp_path / "schema.yml"
    call_command("spectacular", "--file", str(out))
    components = yaml.safe_load(out.read_text())["components"]["schemas"]
    create = components["GameCreateRequest"]["properties"]
    choice = create["pattern"]
    enum = (
        components[choice["oneOf"][0]["$ref"].rsplit("/", 1)[1]]["enum"]
        if "oneOf" in choice
        else choice["enum"]
    )
    assert enum == [*LIBRARY, "custom"]
    assert "custom_pattern" in create
    assert {"pattern", "pattern_cells"} <= set(components["Game"]["properties"])


# --- the screens and the acta --------------------------------------------------------------------


def test_the_display_and_the_console_show_the_pattern(client: Client, hall: PatternHall) -> None:
    game = hall.drawing(cards=5)
    state = draw_selectors.display_state(room_id=hall.room.pk)
    assert state["game"]["pattern"] == {
        "key": "x",
        "name": "X",
        "rows": ["X...X", ".X.X.", "..*..", ".X.X.", "X...X"],
    }
    display = client.get(reverse("draw:display", args=[draw_selectors.display_token(room=hall.room)]))
    assert pictures(display.content.decode())["x"]["on"] == numbered("x")
    client.force_login(hall.caller)
    console = client.get(reverse("draw:console", args=[game.pk]))
    assert pictures(console.content.decode())["x"]["on"] == numbered("x")


def test_a_full_card_game_shows_no_pattern(client: Client, hall: PatternHall) -> None:
    hall.game(hall.series(1), pattern_key=None)
    assert draw_selectors.display_state(room_id=hall.room.pk)["game"]["pattern"] is None
    display = client.get(reverse("draw:display", args=[draw_selectors.display_token(room=hall.room)]))
    assert pictures(display.content.decode()) == {}


def test_the_acta_names_the_pattern_played(hall: PatternHall) -> None:  # R61, R73 b)
    game = hall.pattern_won(hall.drawing(cards=5))
    assert game.state == "finished"
    out = io.BytesIO()
    with translation.override("pt"):
        render_acta_pdf(acta_document(session=Session.objects.get(pk=hall.session.pk)), out)
    text = re.sub(
        r"\s+", " ", "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(out.getvalue())).pages)
    )
    assert "Padrão do bingo (R73 b)) X (x): X...X/.X.X./..*../.X.X./X...X" in text


class OnlinePatternSetup(OnlineSetup):
    """An online room selling a 75-ball game whose bingo is the letter T (R73 b), R85)."""

    def __init__(self) -> None:
        super().__init__(name="Sala Padrões Online")
        self.card_set = card_set_make(variant="75", size=30)

    def game(self, *series: Series) -> Game:
        game = services.game_create(
            session=self.session(),
            variant="75",
            prize_plan={"bingo": "80"},
            pattern_key="letter_t",
            online=True,
        )
        return services.game_open_sales(game=game, series=list(series))


def test_the_players_game_screen_shows_the_pattern(db: None) -> None:
    site = OnlinePatternSetup()
    game = site.game(site.series(1))
    player = site.player()
    client = logged_in(player.user, "pt")
    client.post(reverse("online:buy", args=[game.pk]), {"quantity": "1", "key": "k-1"})
    state = client.get(reverse("api:online-game-state", args=[game.pk])).json()
    assert state["game"]["pattern"] == {
        "key": "letter_t",
        "name": "Letra T",
        "rows": ["XXXXX", "..X..", "..*..", "..X..", "..X.."],
    }
    html = client.get(reverse("online:game", args=[game.pk])).content.decode()
    assert pictures(html)["letter_t"]["on"] == numbered("letter_t")
    assert "O bingo é este padrão (R73 b))" in html
