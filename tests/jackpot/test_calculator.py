"""The jackpot calculator page (R9): managers only, results from the engine, clear form errors."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation

from bingo.common.roles import Role
from bingo.engine import Variant, simulate_first_bingo
from bingo.jackpot import views as jackpot_calc_views

pytestmark = pytest.mark.django_db

ClientAs = Callable[..., Client]
URL = "/jackpot/calculadora/"


def query(**overrides: object) -> dict[str, object]:
    values: dict[str, object] = {"variant": "90", "balls": 50, "cards": 1680, "draws": 500, "target": 20}
    values.update(overrides)
    return values


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jackpot_calc_views, "_new_rng", lambda: np.random.default_rng(2017))


def test_url_is_the_portuguese_path() -> None:
    assert reverse("jackpot_calculator") == URL


def test_anonymous_users_are_sent_to_log_in(client: Client) -> None:
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("role", [Role.CASHIER, Role.CALLER, Role.INSPECTOR, Role.PLAYER])
def test_only_managers_may_use_it(client_as: ClientAs, role: Role) -> None:
    assert client_as(role).get(URL, query()).status_code == 403


def test_empty_form_shows_no_result(client_as: ClientAs) -> None:
    response = client_as(Role.MANAGER).get(URL)
    assert response.status_code == 200
    body = response.content.decode()
    assert 'name="balls"' in body
    assert 'id="jackpot-result"' not in body
    assert not response.context["form"].is_bound


def test_exact_single_card_chance_is_shown_in_full(client_as: ClientAs, seeded: None) -> None:
    # A full 90-ball card within its first 15 balls: 1 in C(90, 15), grouped the Portuguese way.
    response = client_as(Role.MANAGER).get(URL, query(balls=15, cards=1, draws=100))
    assert response.status_code == 200
    assert "45.795.673.964.460.816" in response.content.decode()


def test_simulated_result_and_table_come_from_the_engine(client_as: ClientAs, seeded: None) -> None:
    response = client_as(Role.MANAGER).get(URL, query(variant="80", balls=45, cards=200, draws=2000))
    assert response.status_code == 200
    body = response.content.decode()

    sim = simulate_first_bingo(Variant.B80, draws=2000, rng=np.random.default_rng(2017), cards=200)
    with translation.override("pt"):
        simulated = jackpot_calc_views._percent(sim.probability(45))
        low, high = (jackpot_calc_views._percent(x) for x in sim.interval(45))
    result = body[body.index('id="jackpot-result"') : body.index('id="jackpot-suggestion"')]
    assert f"<strong>{simulated}</strong>" in result
    assert f"{low} \u2013 {high}" in result
    assert f"{sim.card_seed}" in result
    assert f"(algoritmo {sim.card_algorithm})" in result  # a seed gives other cards under another

    table = body[body.index('id="jackpot-table"') :]
    assert [
        int(n) for n in re.findall(r'<td class="num">(?:<strong>)?(\d+)(?:</strong>)?</td>', table)
    ] == list(range(40, 51))
    assert table.count('aria-current="true"') == 1

    suggestion = response.context["suggestion"]
    assert suggestion.balls == sim.suggest_balls(1 / 20)


def test_table_stops_at_the_last_ball(client_as: ClientAs, seeded: None) -> None:
    response = client_as(Role.MANAGER).get(URL, query(variant="30", balls=28, cards=10, draws=200))
    assert [row.balls for row in response.context["rows"]] == [23, 24, 25, 26, 27, 28, 29, 30]


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"variant": "30", "balls": 40}, "balls", "A 30-ball game has only 30 balls."),
        ({"cards": 0}, "cards", None),
        ({"cards": "muitos"}, "cards", None),
        ({"variant": "75", "cards": 20_000, "draws": 100}, "cards", "at most 6,000 cards"),
        ({"cards": 100_000, "draws": 5000}, "draws", "simulate at most 2,000 games"),
        ({"draws": 50_000}, "draws", None),
        ({"variant": "60"}, "variant", None),
    ],
)
def test_bad_input_gives_a_form_error_and_no_result(
    client_as: ClientAs, overrides: dict[str, object], field: str, message: str | None
) -> None:
    client = client_as(Role.MANAGER)
    # The message in its source language, whatever the Portuguese catalogue holds.
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    response = client.get(URL, query(**overrides))
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert list(errors) == [field]
    if message:
        assert message in " ".join(errors[field])
    body = response.content.decode()
    assert 'id="jackpot-result"' not in body
    assert 'class="field has-error" id="field-' + field + '"' in body
