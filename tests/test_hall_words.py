"""What a person reads in place of a code (issue 25, one Portuguese): time zones by name, prizes,
states and notes in words, the acta's ISO moments on the hall's clock, prize plans with
Portuguese names, series sizes grouped the Portuguese way."""

from __future__ import annotations

import pytest
from django.template import Context, Template
from django.utils import translation

from bingo.common.clock import zone_name
from bingo.online.forms import plan_parse, plan_text
from cards.forms import SIZE_CHOICES


def render(text: str, **context: object) -> str:
    with translation.override("pt"):
        return Template("{% load hall_words %}" + text).render(Context(context))


@pytest.mark.parametrize(
    ("zone", "name"),
    [
        ("Atlantic/Cape_Verde", "hora de Cabo Verde"),
        ("Europe/Lisbon", "hora de Lisboa"),
        ("America/New_York", "New York"),
    ],
)
def test_a_time_zone_reads_by_its_name(zone: str, name: str) -> None:
    assert render("{{ zone|zone_name }}", zone=zone) == name
    with translation.override("pt"):
        assert zone_name(zone) == name


def test_prizes_states_and_notes_read_in_words() -> None:
    assert render("{{ k|prize_name }}", k="line") == "Prémio de linha"
    assert render("{{ s|game_state_name }}", s="finished") == "Terminada"
    assert render("{{ s|game_state_name }}", s="annulled") == "Anulada"
    assert render("{{ k|acta_note_name }}", k="complaint").startswith("Reclamação")


def test_an_acta_moment_reads_on_the_halls_clock() -> None:
    assert render("{{ at|clock }}", at="2026-11-28T07:49:12-01:00") == "28/11/2026 07:49"
    assert render("{{ at|clock }}", at="") == ""


def test_a_prize_plan_is_written_and_read_with_portuguese_names() -> None:
    with translation.override("pt"):
        assert plan_parse("linha=20, bingo=60") == {"line": "20", "bingo": "60"}
        assert plan_text({"line": "20", "bingo": "60"}) == "linha=20, bingo=60"
    with translation.override("en"):
        assert plan_parse("line=20, bingo=60") == {"line": "20", "bingo": "60"}
        assert plan_text({"line": "20", "bingo": "60"}) == "line=20, bingo=60"


def test_series_sizes_group_thousands_the_portuguese_way() -> None:
    labels = dict(SIZE_CHOICES)
    assert all("," not in label for label in labels.values())
    assert any(" " in label.split("(")[1] for label in labels.values())  # e.g. «K (1 680)»
