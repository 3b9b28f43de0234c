"""The password reset by e-mail (issue 25 point 3): Django's own views and tokens at
/entrar/recuperar/, a mail in Portuguese with the link, a new password, the login with it; the
same answer for an address no account has; limited per client address and per mailbox; and a
reset forgives the failed logins that locked the account."""

from __future__ import annotations

import re

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.urls import reverse

from bingo.accounts.views import PasswordResetEmailThrottle, PasswordResetThrottle
from bingo.common.roles import Role
from tests.factories import DEFAULT_PASSWORD, UserFactory

RESET = "/entrar/recuperar/"
NEW_PASSWORD = "girassol-azul-do-mindelo-77"
LINK = re.compile(r"https?://[^/\s]+(/entrar/recuperar/[^\s]+/)")


@pytest.fixture
def rosa(db: None) -> User:
    user: User = UserFactory(username="rosa", email="rosa@example.cv", roles=[Role.PLAYER])
    return user


def _log_in(username: str, password: str) -> bool:
    response = Client().post(reverse("login"), {"username": username, "password": password})
    return response.status_code == 302 and response.wsgi_request.user.is_authenticated


def _ask(client: Client, email: str) -> object:
    return client.post(RESET, {"email": email})


def _link(message: mail.EmailMessage) -> str:
    found = LINK.search(message.body)
    assert found is not None, message.body
    return found.group(1)


def test_the_login_page_links_to_the_reset(client: Client) -> None:
    page = client.get(reverse("login")).content.decode()

    assert f'href="{RESET}"' in page
    assert "Esqueceu-se da palavra-passe?" in page


def test_password_reset_from_the_mail_to_a_login_with_the_new_password(client: Client, rosa: User) -> None:
    asked = _ask(client, "ROSA@example.cv")  # any case, as Django compares it

    assert asked.status_code == 302
    assert asked["Location"] == reverse("password_reset_done")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["rosa@example.cv"]
    assert message.subject.startswith("Escolha uma nova palavra-passe")
    assert "O seu nome de utilizador é rosa." in message.body
    assert "A ligação funciona uma vez, durante 24 horas." in message.body

    opened = client.get(_link(message), follow=True)  # Django hides the token behind a redirect
    assert opened.status_code == 200
    assert opened.context["validlink"]
    assert "Escolha uma nova palavra-passe" in opened.content.decode()
    done = client.post(
        opened.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert done.status_code == 302
    assert done["Location"] == reverse("password_reset_complete")
    assert "Palavra-passe alterada" in client.get(done["Location"]).content.decode()

    assert _log_in("rosa", NEW_PASSWORD)
    assert not _log_in("rosa", DEFAULT_PASSWORD)  # the old one no longer opens the account
    # The link worked once: the password it set changed the token's hash.
    again = client.get(_link(message), follow=True)
    assert not again.context["validlink"]
    assert "Esta ligação não funciona" in again.content.decode()


def test_an_address_no_account_has_gets_the_same_answer_and_no_mail(client: Client, rosa: User) -> None:
    known = _ask(Client(), "rosa@example.cv")
    mail.outbox.clear()

    unknown = _ask(client, "ninguem@example.cv")

    assert (unknown.status_code, unknown["Location"]) == (known.status_code, known["Location"])
    assert mail.outbox == []
    page = client.get(unknown["Location"]).content.decode()
    assert "Se alguma conta tiver este endereço de e-mail" in page


def test_a_bad_address_is_refused_on_the_form(client: Client, rosa: User) -> None:
    response = _ask(client, "not an address")

    assert response.status_code == 200
    assert response.context["form"].errors["email"]
    assert mail.outbox == []


def test_reset_requests_are_limited_per_client_address(
    client: Client, rosa: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(PasswordResetThrottle, "rate", "2/hour")
    monkeypatch.setattr(PasswordResetEmailThrottle, "rate", "50/hour")
    assert _ask(client, "rosa@example.cv").status_code == 302
    assert _ask(client, "ninguem@example.cv").status_code == 302
    sent = len(mail.outbox)

    refused = _ask(client, "rosa@example.cv")

    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "Demasiados pedidos a partir deste endereço" in refused.content.decode()
    assert len(mail.outbox) == sent == 1


def test_a_mailbox_gets_a_few_reset_mails_at_most_with_the_same_answer(
    client: Client, rosa: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(PasswordResetEmailThrottle, "rate", "2/hour")
    answers = [_ask(Client(REMOTE_ADDR=f"198.51.100.{n}"), "rosa@example.cv") for n in range(4)]

    assert {(a.status_code, a["Location"]) for a in answers} == {(302, reverse("password_reset_done"))}
    assert len(mail.outbox) == 2


def test_a_reset_forgives_the_failed_logins_that_locked_the_account(client: Client, rosa: User) -> None:
    for n in range(5):
        Client().post(reverse("login"), {"username": "rosa", "password": f"errada-{n}"})
    assert AccessAttempt.objects.filter(username="rosa").exists()
    assert not _log_in("rosa", DEFAULT_PASSWORD)  # locked out (django-axes), the right password too

    _ask(client, "rosa@example.cv")
    opened = client.get(_link(mail.outbox[0]), follow=True)
    client.post(opened.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    assert not AccessAttempt.objects.filter(username="rosa").exists()
    assert _log_in("rosa", NEW_PASSWORD)


def test_a_weak_new_password_is_refused_and_the_old_one_stays(client: Client, rosa: User) -> None:
    _ask(client, "rosa@example.cv")
    opened = client.get(_link(mail.outbox[0]), follow=True)

    refused = client.post(
        opened.redirect_chain[-1][0], {"new_password1": "12345678", "new_password2": "12345678"}
    )

    assert refused.status_code == 200
    assert refused.context["form"].errors["new_password2"]
    assert _log_in("rosa", DEFAULT_PASSWORD)
