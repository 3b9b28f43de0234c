"""A refused request is one line in the log with who and why, not a traceback (issue 24: 42
tracebacks in one walk through the screens buried the real errors); a server error keeps its
traceback (bingo/common/logs.py)."""

from __future__ import annotations

import logging
import sys

import pytest
from django.contrib.auth.models import User
from django.test import Client

from bingo.common.logs import RefusalsOneLine
from bingo.common.roles import Role, user_roles_set

pytestmark = pytest.mark.django_db


def test_a_cashier_refused_a_managers_page_is_one_line_naming_them(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    cashier = User.objects.create_user("refused-cashier", password="x")
    user_roles_set(user=cashier, roles=[Role.CASHIER])
    client.force_login(cashier)

    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = client.get("/gerente/")

    assert response.status_code == 403
    [record] = [r for r in caplog.records if r.name == "django.request"]
    assert record.exc_info is None
    assert record.exc_text is None
    text = caplog.text
    assert "Traceback" not in text
    assert "Forbidden (Permission denied): /gerente/ (user refused-cashier" in record.getMessage()
    assert "\n" not in record.getMessage()


def _record(status: int) -> logging.LogRecord:
    try:
        raise RuntimeError("the database went away")
    except RuntimeError:
        exc_info = sys.exc_info()
    record = logging.LogRecord("django.request", logging.ERROR, __file__, 1, "Failed: %s", ("/x/",), exc_info)
    record.status_code = status
    return record


def test_a_server_error_keeps_its_traceback() -> None:
    record = _record(500)

    assert RefusalsOneLine().filter(record)

    assert record.exc_info is not None
    assert record.getMessage() == "Failed: /x/"


def test_an_anonymous_refusal_says_anonymous_and_the_reason() -> None:
    record = _record(403)

    assert RefusalsOneLine().filter(record)

    assert record.exc_info is None
    assert record.getMessage() == "Failed: /x/ (user anonymous: the database went away)"
