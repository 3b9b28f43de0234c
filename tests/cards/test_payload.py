"""What a printed card's QR code carries, written and read by cards/payload.py: the address the
printer encodes parses back to the same card; anything else is not a card."""

from __future__ import annotations

import pytest

from cards.payload import CardReference, card_check_url, card_payload_parse


def test_the_printed_address_reads_back_to_its_card(settings: object) -> None:
    settings.BINGO_PUBLIC_URL = "https://bingo.example.cv"  # type: ignore[attr-defined]
    url = card_check_url(series_id=12, number=345, code="7KQF2M9X")

    assert url == "https://bingo.example.cv/verificar/?serie=12&cartao=345&codigo=7KQF2M9X"
    assert card_payload_parse(url) == CardReference(series_id=12, number=345, code="7KQF2M9X")
    # The scanner's surrounding whitespace (a trailing newline) is not part of it.
    assert card_payload_parse(f"  {url}\n") == CardReference(series_id=12, number=345, code="7KQF2M9X")


@pytest.mark.parametrize(
    "payload",
    [
        "",
        "7KQF2M9X",
        "https://bingo.example.cv/",
        "https://bingo.example.cv/verificar/",
        "https://bingo.example.cv/verificar/?serie=12&cartao=345",
        "https://bingo.example.cv/verificar/?serie=0&cartao=345&codigo=7KQF2M9X",
        "https://bingo.example.cv/verificar/?serie=12&cartao=-1&codigo=7KQF2M9X",
        "https://bingo.example.cv/verificar/?serie=12&cartao=345&codigo=",
        "https://bingo.example.cv/verificar/?serie=12&cartao=345&codigo=" + "X" * 21,
        "https://bingo.example.cv/verificar/?serie=12&serie=13&cartao=345&codigo=7KQF2M9X",
        "https://bingo.example.cv/verificar/?serie=12&cartao=345&codigo=7KQF2M9X&mais=1",
        "https://bingo.example.cv/jogar/?serie=12&cartao=345&codigo=7KQF2M9X",
        "http://[::1/verificar/?serie=12&cartao=345&codigo=7KQF2M9X",
        "https://bingo.example.cv/verificar/?serie=12&cartao=345&codigo=7KQF2M9X" + "&" * 400,
    ],
)
def test_anything_else_is_not_a_card(payload: str) -> None:
    assert card_payload_parse(payload) is None
