"""One Portuguese, of Portugal (issue 25): every message a person may read in Portuguese — the
project's own and the libraries' (Django's validators, Django REST framework's errors) — comes out
in European Portuguese. The libraries' "pt" catalogues speak Brazilian in places («Garanta que…»,
«Certifique-se…», «usuário», «arquivo», «Você»); the project's catalogue overrides them
(locale/pt/LC_MESSAGES/django.po), and this test fails when one surfaces again, e.g. after a
library upgrade adds a message."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.utils import translation
from django.utils.translation import trans_real

#: Words and turns of phrase of Brazilian Portuguese that European Portuguese says otherwise.
BRAZILIAN = re.compile(
    r"\b(Garanta|usuári\w*|arquivo\w*|[Vv]ocê|senha\w*|deletad\w*|cadastr\w*|"
    r"contato|registr[oa]r?|tela|salvar|fazer upload)\b"
)


#: Counts a plural message is read with: each catalogue's plural forms (ours has two, Django's
#: three) are reached by one of these.
COUNTS = (0, 1, 2, 5, 1_000_000)


def effective_portuguese() -> dict[object, str]:
    """Every message of the merged Portuguese catalogue, as a Portuguese reader gets it: a plural
    message in each of its forms as the catalogues in force choose them (the project's first)."""
    catalog = trans_real.translation("pt")._catalog
    messages: dict[object, str] = {}
    for key in catalog.keys():  # noqa: SIM118 (a TranslationCatalog, not a dict)
        if isinstance(key, tuple):
            msgid = key[0]
            for count in COUNTS:
                messages[(msgid, count)] = catalog.plural(msgid, count)
        else:
            messages[key] = catalog[key]
    return messages


def test_no_message_comes_out_in_brazilian_portuguese() -> None:
    found = {key: text for key, text in effective_portuguese().items() if BRAZILIAN.search(text or "")}

    assert found == {}, "\n".join(f"{key!r}: {text}" for key, text in found.items())


def test_the_catalogue_is_the_merge_of_the_libraries_and_ours() -> None:
    """The test above reads the libraries' messages too, not only the project's."""
    messages = effective_portuguese()

    assert "You do not have permission to perform this action." in messages  # REST framework's
    assert "This field is required." in messages  # Django's
    assert messages["You do not have permission to perform this action."] == (
        "Não tem permissão para fazer esta operação."
    )


@pytest.mark.parametrize(("limit", "text", "expected"), [(3, "abcd", "tem no máximo 3 caracteres (tem 4)")])
def test_a_validators_message_reads_in_portuguese_of_portugal(limit: int, text: str, expected: str) -> None:
    with translation.override("pt"), pytest.raises(ValidationError) as refused:
        MaxLengthValidator(limit)(text)

    assert expected in refused.value.messages[0]
    assert not BRAZILIAN.search(refused.value.messages[0])
