"""R61 a)-m) item by item (actas/r61.py): the acta's screen and its PDF state each of the thirteen
things rule 61 lists, whether or not it happened, with «nenhuma» where nothing did, so that an
inspector can tell "none" from "left out" (issue 22, point 4)."""

from __future__ import annotations

import html
import re
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse
from django.utils import translation

from actas import services as acta_services
from actas.r61 import acta_r61_items
from actas.selectors import acta_document
from bingo.ballsets import services as ballset_services
from bingo.common.money import money_display
from bingo.common.roles import Role
from bingo.games import services
from halls.models import StaffMembership
from tests.actas.test_pdf import Session, pdf_text, squash
from tests.actas.test_services import ActaHall
from tests.actas.test_views import as_user
from tests.factories import UserFactory

#: R61's items as the acta names them in Portuguese (R54), in the rule's order.
R61_LABELS = {
    "a": "Hora de início da sessão",
    "b": "Número de ordem de cada série",
    "c": "Preços dos cartões",
    "d": "Números dos cartões vendidos",
    "e": "Total arrecadado",
    "f": "Montantes pagos por linha e por bingo",
    "g": "Imposto retido",
    "h": "Hora de fim da sessão",
    "i": "Jogadas anuladas e respetivos motivos",
    "j": "Reclamações dos jogadores e decisão tomada",
    "k": "Substituições nos jogos de bolas",
    "l": "Avarias do equipamento",
    "m": "Ocorrências suscetíveis de envolver matéria contraordenacional ou criminal",
}
#: The items that state what may or may not have happened in a session (R61 i)-m)).
EVENTS = ("i", "j", "k", "l", "m")
NONE = "nenhuma"


def quiet_session() -> ActaHall:
    """A session with one game won, its ball set checked at the start and the end, and closed:
    no game annulled, no complaint, no replacement, no failure, no occurrence."""
    hall = ActaHall()
    hall.finished(cards=5)
    ballset_services.ball_set_check_record(ball_set=hall.ball_set, session=hall.session, phase="end")
    services.session_close(session=hall.session, user=hall.manager())
    return hall


def inspector_of(hall: ActaHall) -> object:
    user = UserFactory(username=f"inspector-{hall.hall.pk}", roles=[Role.INSPECTOR])
    StaffMembership.objects.create(hall=hall.hall, user=user, role=Role.INSPECTOR.value)
    return user


def screen_items(hall: ActaHall) -> dict[str, tuple[str, list[str]]]:
    """The R61 section of the acta's screen, as the inspector reads it in Portuguese: each item's
    letter, its name and the texts stated for it."""
    response = as_user(inspector_of(hall)).get(reverse("actas:acta_detail", args=[hall.session.pk]))
    assert response.status_code == 200
    body = response.content.decode()
    assert "O que a acta deve conter (R61)" in body
    found = re.findall(r'<dt data-r61="(\w)">(.*?)</dt>\s*<dd data-r61="\1">(.*?)</dd>', body, re.DOTALL)
    return {
        letter: (
            html.unescape(name).strip(),
            [html.unescape(v).strip() for v in re.findall(r"<p[^>]*>(.*?)</p>", values, re.DOTALL)],
        )
        for letter, name, values in found
    }


def pdf_items(hall: ActaHall) -> dict[str, str]:
    """The R61 section of the acta's PDF read back: the text under each item's name, up to the
    next item's (the last up to the games that follow)."""
    flat = squash(pdf_text(hall)[0])  # type: ignore[arg-type]
    start = flat.index("O que a acta deve conter (R61)")
    heads = []
    for letter, label in R61_LABELS.items():
        start = flat.index(f"{letter}) {label}", start)
        heads.append((letter, start, start + len(f"{letter}) {label}")))
    ends = [begin for _letter, begin, _end in heads[1:]] + [flat.index("Jogadas", heads[-1][2])]
    return {letter: flat[end:stop].strip() for (letter, _begin, end), stop in zip(heads, ends, strict=True)}


def hall_time(value: Any, hall: ActaHall) -> str:
    return f"{value.astimezone(ZoneInfo(hall.hall.time_zone)):%d/%m/%Y %H:%M:%S}"


# --- what acta_r61_items gives, over the acta's plain data -------------------------------------------


def document(**fields: Any) -> dict[str, Any]:
    """An acta's data with nothing recorded but what ``fields`` add."""
    return {
        "hall": {"name": "Sala Praia", "currency": "CVE", "time_zone": "Atlantic/Cape_Verde"},
        "session": {"start": "2026-03-01T20:00:00-01:00", "end": None},
        "entries": [],
        "notes": [],
        "ball_replacements": [],
        "totals": {},
        **fields,
    }


def test_r61_lists_all_thirteen_items_in_order_each_none_when_nothing_happened() -> None:
    with translation.override("pt"):
        items = acta_r61_items(document())
    assert [(i["item"], i["label"]) for i in items] == list(R61_LABELS.items())
    stated = {i["item"]: i for i in items}
    assert stated["a"]["values"] == ["01/03/2026 20:00:00"]
    assert stated["h"]["values"] == ["sessão ainda aberta"]  # R61 h): no end yet
    for letter in ("b", *EVENTS):
        assert (stated[letter]["values"], stated[letter]["none"]) == ([], NONE), letter
    assert (stated["c"]["none"], stated["d"]["none"]) == ("nenhuma série vendida", "nenhum cartão vendido")


def test_r61_j_states_each_complaints_decision_or_that_it_is_pending() -> None:
    complaint = {"kind": "complaint", "at": "2026-03-01T20:10:00-01:00", "game": 2, "decisions": []}
    notes = [
        {**complaint, "text": "Bola 7 não anunciada", "decision": "Indeferida no local"},
        {**complaint, "text": "Cartão 4 mal lido", "decision": ""},
        {
            **complaint,
            "game": None,
            "text": "Ruído na sala",
            "decision": "",
            "decisions": [{"at": "2026-03-02T10:00:00-01:00", "by": "gerente", "decision": "Deferida"}],
        },
    ]
    with translation.override("pt"):
        stated = {i["item"]: i["values"] for i in acta_r61_items(document(notes=notes))}
    assert stated["j"] == [
        "01/03/2026 20:10:00, jogada 2: Bola 7 não anunciada — Decisão: Indeferida no local",
        "01/03/2026 20:10:00, jogada 2: Cartão 4 mal lido — decisão pendente",
        "01/03/2026 20:10:00: Ruído na sala — Decisão de 02/03/2026 10:00:00 por gerente: Deferida",
    ]
    assert stated["l"] == stated["m"] == []


# --- a session where none of R61 i)-m) happened --------------------------------------------------


@pytest.mark.django_db
def test_r61_screen_states_every_item_and_none_for_what_did_not_happen() -> None:
    hall = quiet_session()
    acta = acta_document(session=hall.session)
    items = screen_items(hall)

    assert list(items) == list(R61_LABELS)
    for letter, label in R61_LABELS.items():
        assert items[letter][0] == f"{letter}) {label}"
    for letter in EVENTS:
        assert items[letter][1] == [NONE], letter
    for letter in "abcdefgh":
        assert items[letter][1], letter
        assert NONE not in items[letter][1], letter
    hall.session.refresh_from_db()
    assert items["a"][1] == [hall_time(hall.session.starts_at, hall)]
    assert items["h"][1] == [hall_time(hall.session.ended_at, hall)]
    assert items["e"][1] == [money_display(Decimal(acta["totals"]["collected"]), "CVE")]  # one format
    assert items["d"][1] == ["jogada 1, série A-1: cartões n.º 1 a n.º 5"]  # by its name; b) has its n.º


@pytest.mark.django_db
def test_r61_pdf_states_every_item_and_none_for_what_did_not_happen() -> None:
    hall = quiet_session()
    items = pdf_items(hall)

    assert list(items) == list(R61_LABELS)
    for letter in EVENTS:
        assert items[letter] == NONE, letter
    for letter in "abcdefgh":
        assert items[letter], letter
        assert NONE not in items[letter], letter
    hall.session.refresh_from_db()
    assert items["h"] == hall_time(hall.session.ended_at, hall)
    assert "sessão ainda aberta" not in items["h"]


# --- a session where each of R61 i)-m) happened ----------------------------------------------------


def busy_values(hall: Session) -> dict[str, list[str]]:
    """What the busy session (tests/actas/test_pdf.py) must state under R61 i)-m)."""
    return {
        "i": [f"jogada {hall.annulled_game.number}: ball 6 announced as 9"],
        "j": [
            "Jogador do cartão 7 diz que a bola 44 não foi anunciada",
            "Indeferida: a bola 44 consta do registo e do ecrã",
        ],
        "k": ["bola 17 do jogo de bolas JB-1; bola rachada"],
        "l": ["O ecrã da sala 1 apagou-se durante dois minutos — Medida tomada: Reiniciado"],
        "m": [
            "Cartão apresentado com sinais de rasura",
            "Verificação de fim de sessão do jogo de bolas JB-1 não realizada (R23)",
        ],
    }


@pytest.mark.django_db
def test_r61_screen_states_what_happened_under_each_item_not_none() -> None:
    hall = Session()
    items = screen_items(hall)

    assert list(items) == list(R61_LABELS)
    for letter, expected in busy_values(hall).items():
        stated = " ".join(items[letter][1])
        assert NONE not in items[letter][1], letter
        for text in expected:
            assert text in stated, (letter, text)
    assert "decisão pendente" not in " ".join(items["j"][1])  # R61 j): it was decided
    assert len(items["m"][1]) == 2


@pytest.mark.django_db
def test_r61_pdf_states_what_happened_under_each_item_as_the_screen_does() -> None:
    hall = Session()
    items = pdf_items(hall)

    for letter, expected in busy_values(hall).items():
        assert items[letter] != NONE, letter
        for text in expected:
            assert text in items[letter], (letter, text)
    # The same list rendered twice: every text the screen states for an item, the PDF states there.
    for letter, (_label, values) in screen_items(hall).items():
        for value in values:
            assert value in items[letter], (letter, value)


@pytest.mark.django_db
def test_r61_j_a_complaint_with_no_decision_yet_is_stated_pending_on_screen() -> None:
    hall = quiet_session()
    acta_services.acta_note_record(
        session=hall.session,
        kind="complaint",
        user=hall.caller,
        text="Jogadora diz que o cartão 3 fez linha à bola 20",
    )
    items = screen_items(hall)
    (complaint,) = items["j"][1]
    assert complaint.endswith("Jogadora diz que o cartão 3 fez linha à bola 20 — decisão pendente")
