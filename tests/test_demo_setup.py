"""manage.py demo_setup: the demo accounts, one per role plus admin (bingo/management/commands)."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from bingo.autodraw.services import SYSTEM_USERNAME
from bingo.common.roles import Role, user_roles, user_roles_set
from bingo.demohall.services import BOTS

EXPECTED = {
    "gerente": Role.MANAGER,
    "caixa": Role.CASHIER,
    "locutor": Role.CALLER,
    "inspetor": Role.INSPECTOR,
    "jogador": Role.PLAYER,
}


def demo_setup(**options: Any) -> str:
    out = StringIO()
    call_command("demo_setup", stdout=out, **options)
    return out.getvalue()


def people() -> Any:
    """Every user but the online rooms' system user, which a migration creates (bingo/0012), and
    the demo's simulated players, who cannot log in (bingo/demohall)."""
    return get_user_model().objects.exclude(username__in=[SYSTEM_USERNAME, *(u for u, _n in BOTS)])


@pytest.mark.django_db
def test_demo_setup_refuses_when_debug_is_off(settings: Any) -> None:
    settings.DEBUG = False

    with pytest.raises(CommandError, match="palavras-passe conhecidas"):
        demo_setup()

    assert not people().exists()


@pytest.mark.django_db
def test_demo_setup_runs_with_debug_off_when_forced(settings: Any) -> None:
    settings.DEBUG = False
    demo_setup(force=True)
    assert get_user_model().objects.filter(username="gerente").exists()


@pytest.mark.django_db
def test_demo_setup_creates_one_user_per_role_and_a_superuser_without_role(settings: Any) -> None:
    settings.DEBUG = True
    demo_setup()

    users = {user.username: user for user in people()}
    assert set(users) == {*EXPECTED, "admin"}
    for username, role in EXPECTED.items():
        assert user_roles(users[username]) == {role}
        assert not users[username].is_staff
        assert users[username].check_password(f"{username}-demo")
    assert users["admin"].is_superuser
    assert users["admin"].is_staff
    assert user_roles(users["admin"]) == frozenset()
    assert users["admin"].check_password("admin-demo")


@pytest.mark.django_db
def test_demo_setup_is_idempotent_and_resets_passwords_and_roles(settings: Any) -> None:
    settings.DEBUG = True
    demo_setup()
    caixa = get_user_model().objects.get(username="caixa")
    caixa.set_password("changed")
    caixa.save()
    user_roles_set(user=caixa, roles=[Role.MANAGER])

    demo_setup()

    assert people().count() == len(EXPECTED) + 1
    caixa.refresh_from_db()
    assert caixa.check_password("caixa-demo")
    assert user_roles(caixa) == {Role.CASHIER}


@pytest.mark.django_db
def test_demo_setup_prints_the_logins_table(settings: Any) -> None:
    settings.DEBUG = True

    output = demo_setup(base_url="http://127.0.0.1:9000/")

    lines = output.splitlines()
    header = next(line for line in lines if line.startswith("Endereço"))
    assert header.split() == [
        "Endereço", "Nome", "de", "utilizador", "Palavra-passe", "Função", "Experimente", "primeiro",
    ]  # fmt: skip
    # Each account's row says what the demo holds for it to try first (issue 24).
    caixa = next(line for line in lines if line.startswith("http://127.0.0.1:9000/caixa/"))
    assert caixa.split()[:4] == ["http://127.0.0.1:9000/caixa/", "caixa", "caixa-demo", "Caixa"]
    assert "vender cartões do jogo 1 no Salão 2" in caixa
    locutor = next(line for line in lines if line.startswith("http://127.0.0.1:9000/locutor/"))
    assert "extrair o jogo 1 no Salão 1" in locutor
    assert any(line.split()[:3] == ["http://127.0.0.1:9000/admin/", "admin", "admin-demo"] for line in lines)


@pytest.mark.django_db
@pytest.mark.parametrize(("username", "path"), [("gerente", "/gerente/"), ("jogador", "/jogador/")])
def test_demo_accounts_log_in_with_the_printed_password(
    settings: Any, client: Client, username: str, path: str
) -> None:
    settings.DEBUG = True
    demo_setup()

    response = client.post("/entrar/", {"username": username, "password": f"{username}-demo"}, follow=True)

    assert response.redirect_chain[-1] == (path, 302)
    assert response.status_code == 200
