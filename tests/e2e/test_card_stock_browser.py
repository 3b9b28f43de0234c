"""The card stock in a real browser: a K card set, two series from it, a PDF, a card check."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from bingo.common.roles import Role
from cards.models import CardSet, Series
from cards.selectors import card_check_code, card_get
from halls.models import Hall, StaffMembership
from tests.conftest import MakeUser
from tests.e2e.conftest import RunInBrowser, log_in

pytestmark = pytest.mark.browser


def _create_series(
    page: Any, base: str, card_set_id: str, order: int, price: str, back: str, face: str
) -> str:
    page.goto(f"{base}/cartoes/series/nova/")
    page.locator("input[name=source][value=existing]").check()
    page.locator("select[name=card_set]").select_option(card_set_id)
    page.locator("input[name=order_number]").fill(str(order))
    page.locator("input[name=price]").fill(price)
    page.locator("input[name=back_colour]").fill(back)
    page.locator("input[name=face_colour]").fill(face)
    page.get_by_role("button", name="Criar a série").click()
    page.wait_for_url(re.compile(r".*/cartoes/series/\d+/$"))
    return str(page.url)


def test_a_manager_generates_a_k_set_makes_two_series_prints_and_checks_a_card(
    asgi_server: str, browser: RunInBrowser[Any], make_user: MakeUser, tmp_path: Path
) -> None:
    gerente = make_user(Role.MANAGER, username="gerente")
    hall = Hall.objects.create(name="Salão da Praia")
    StaffMembership.objects.create(hall=hall, user=gerente, role=Role.MANAGER.value)  # manages this hall

    def stock(context: Any) -> dict[str, Any]:
        page = context.new_page()
        log_in(page, asgi_server, "gerente", "/gerente/")
        seen: dict[str, Any] = {}

        # The dashboard leads to the series, whose page leads to the card sets.
        page.get_by_role("link", name="Séries de cartões").click()
        page.wait_for_url(f"{asgi_server}/cartoes/series/")
        page.get_by_role("link", name="Conjuntos de cartões").click()
        page.get_by_role("link", name="Novo conjunto de cartões").click()

        page.locator("select[name=variant]").select_option("90")
        page.locator("select[name=size_letter]").select_option("K")
        page.get_by_role("button", name="Gerar o conjunto de cartões").click()
        page.wait_for_url(re.compile(r".*/cartoes/conjuntos/\d+/$"))
        card_set_id = page.url.rstrip("/").rsplit("/", 1)[1]
        seen["card_set_heading"] = page.locator("h1").inner_text()
        seen["card_set_status"] = page.locator(".facts .badge").first.inner_text()

        page.get_by_role("button", name="Regenerar e comparar").click()
        page.wait_for_selector(".verdict")
        seen["verdict"] = page.locator(".verdict").inner_text()

        seen["first_url"] = _create_series(page, asgi_server, card_set_id, 1, "50", "#1e88e5", "#fdd835")
        seen["second_url"] = _create_series(page, asgi_server, card_set_id, 2, "100", "#c62828", "#8bc34a")
        seen["series_heading"] = page.locator("h1").inner_text()
        page.screenshot(path=str(tmp_path / "series_detail.png"), full_page=True)

        page.locator("input[name=first]").fill("1")
        page.locator("input[name=last]").fill("6")
        with page.expect_download() as download_info:
            page.get_by_role("button", name="Imprimir em PDF").click()
        download = download_info.value
        seen["pdf_name"] = download.suggested_filename
        seen["pdf_head"] = Path(download.path()).read_bytes()[:5]

        page.goto(f"{asgi_server}/cartoes/series/")
        seen["listing"] = page.locator("table").inner_text()
        return seen

    seen = browser(stock)

    card_set = CardSet.objects.get()
    assert (card_set.variant, card_set.size, card_set.status) == ("90", 1680, CardSet.Status.READY)
    assert seen["card_set_heading"] == f"Conjunto de cartões n.º {card_set.pk}"
    assert seen["card_set_status"] == "Pronto"
    assert "OK" in seen["verdict"]
    assert "NÃO" not in seen["verdict"]
    first, second = Series.objects.order_by("order_number")
    assert (first.label, first.price, first.back_colour, first.face_colour) == (
        "K-1",
        Decimal("50.00"),
        "#1E88E5",
        "#FDD835",
    )
    assert (second.label, second.price, second.back_colour, second.face_colour) == (
        "K-2",
        Decimal("100.00"),
        "#C62828",
        "#8BC34A",
    )
    assert first.card_set == second.card_set == card_set
    assert first.hall == second.hall == hall
    assert seen["first_url"].endswith(f"/cartoes/series/{first.pk}/")
    assert seen["series_heading"].startswith("Série K-2")
    assert seen["pdf_head"] == b"%PDF-"
    assert seen["pdf_name"].endswith(".pdf")
    assert "K-1" in seen["listing"]
    assert "K-2" in seen["listing"]

    # The QR code on card 37 of the second series: anyone can open it, no login.
    number = 37
    qr_url = (
        f"{asgi_server}/verificar/?serie={second.pk}&cartao={number}"
        f"&codigo={card_check_code(series=second, number=number)}"
    )
    wrong_url = f"{asgi_server}/verificar/?serie={second.pk}&cartao={number + 1}&codigo=AAAAAAAA"

    def check(context: Any) -> dict[str, Any]:
        page = context.new_page()
        page.goto(qr_url)
        shown = {
            "verdict": page.locator(".verdict").inner_text(),
            "cells": page.locator(".bingo-grid td").all_inner_texts(),
        }
        page.screenshot(path=str(tmp_path / "card_check.png"), full_page=True)
        page.goto(wrong_url)
        shown["wrong_alert"] = page.get_by_role("alert").inner_text()
        shown["wrong_grids"] = page.locator(".bingo-grid").count()
        return shown

    shown = browser(check)

    grid = card_get(card_set=card_set, number=number)
    assert shown["verdict"] == "Cartão válido"
    assert shown["cells"] == [str(value) if value else "" for row in grid for value in row]
    assert shown["wrong_alert"] == "Cartão ou código inválido"
    assert shown["wrong_grids"] == 0
    assert (tmp_path / "series_detail.png").stat().st_size > 10_000
