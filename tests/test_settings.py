"""bingo/settings.py as production would load it, in a fresh process each time."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

from django.conf import settings

from tests.test_production_smoke import signing_key_file

ROOT = Path(__file__).resolve().parent.parent
STRONG_SECRET = "k3Qw9zT1-production-like-secret-LmN0pR7sUvXyZ2aB4cD6eF8gH0iJ_5oP"


def manage(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_", "REDIS_URL", "CELERY_", "ACTA_SIGNING_KEY"))
    }
    clean["BINGO_VAR_DIR"] = str(tmp_path / "var")
    clean.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_debug_off_without_a_secret_key_refuses_to_start(tmp_path: Path) -> None:
    result = manage(tmp_path, "check", DJANGO_DEBUG="false")

    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY is not set" in result.stderr


def test_debug_off_with_production_settings_passes_the_deploy_check(tmp_path: Path) -> None:
    result = manage(
        tmp_path,
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=STRONG_SECRET,
        DJANGO_ALLOWED_HOSTS="bingo.example",
        ACTA_SIGNING_KEY_FILE=str(signing_key_file(tmp_path)),
        EMAIL_URL="smtp+tls://bingo:segredo@smtp.example.cv:587",
    )

    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_debug_off_without_an_smtp_server_warns_at_the_deploy_check(tmp_path: Path) -> None:
    """The password reset and the e-mail verification need the operator's SMTP server."""
    result = manage(
        tmp_path,
        "check",
        "--deploy",
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=STRONG_SECRET,
        DJANGO_ALLOWED_HOSTS="bingo.example",
        ACTA_SIGNING_KEY_FILE=str(signing_key_file(tmp_path)),
    )

    assert result.returncode == 0, result.stderr  # a warning: `make serve` still starts
    assert "bingo.W006" in result.stderr
    assert "EMAIL_URL is not set" in result.stderr


def test_email_url_sets_the_smtp_server_and_filemail_writes_under_var_mail(tmp_path: Path) -> None:
    show = (
        "from django.conf import settings as s; print(s.EMAIL_BACKEND, s.EMAIL_HOST, s.EMAIL_PORT, "
        "s.EMAIL_HOST_USER, s.EMAIL_USE_TLS, s.EMAIL_FILE_PATH)"
    )

    def shown(**env: str) -> list[str]:
        result = manage(tmp_path, "shell", "--no-imports", "-c", show, **env)
        assert result.returncode == 0, result.stderr
        return result.stdout.strip().splitlines()[-1].split()

    smtp = shown(EMAIL_URL="smtp+tls://bingo:segredo@smtp.example.cv:587")
    files = shown(EMAIL_URL="filemail://")
    console = shown()

    assert smtp[:5] == [
        "django.core.mail.backends.smtp.EmailBackend",
        "smtp.example.cv",
        "587",
        "bingo",
        "True",
    ]
    assert files[0] == "django.core.mail.backends.filebased.EmailBackend"
    assert files[-1] == str(tmp_path / "var" / "mail")
    assert console[0] == "django.core.mail.backends.console.EmailBackend"  # debug's default


def test_debug_off_without_the_actas_signing_key_fails_the_deploy_check(tmp_path: Path) -> None:
    production = {
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": STRONG_SECRET,
        "DJANGO_ALLOWED_HOSTS": "bingo.example",
    }

    result = manage(tmp_path, "check", "--deploy", **production)

    # An error, not a warning: `make serve` stops here (no --fail-level needed).
    assert result.returncode != 0
    assert "bingo.E001" in result.stderr
    assert "ACTA_SIGNING_KEY or ACTA_SIGNING_KEY_FILE" in result.stderr
    # No key was made up under var/, as debug does.
    assert not (tmp_path / "var" / "acta-signing-key.pem").exists()


def test_the_deploy_check_refuses_a_signing_key_it_cannot_read(tmp_path: Path) -> None:
    production = {
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": STRONG_SECRET,
        "DJANGO_ALLOWED_HOSTS": "bingo.example",
    }
    missing = manage(
        tmp_path, "check", "--deploy", ACTA_SIGNING_KEY_FILE=str(tmp_path / "nowhere.pem"), **production
    )
    garbled = manage(tmp_path, "check", "--deploy", ACTA_SIGNING_KEY="not a key", **production)

    assert missing.returncode != 0
    assert f"{tmp_path / 'nowhere.pem'} cannot be read" in missing.stderr
    assert garbled.returncode != 0
    assert "ACTA_SIGNING_KEY holds no Ed25519 private key" in garbled.stderr


def test_demo_setup_refuses_to_run_with_debug_off(tmp_path: Path) -> None:
    env = {
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": STRONG_SECRET,
        "DJANGO_ALLOWED_HOSTS": "bingo.example",
    }
    assert manage(tmp_path, "migrate", "--noinput", **env).returncode == 0

    result = manage(tmp_path, "demo_setup", **env)

    assert result.returncode == 1
    assert "recuso criar contas com palavras-passe conhecidas" in result.stderr


def _policy(tmp_path: Path, **env: str) -> dict[str, list[str]]:
    """The Content-Security-Policy header a process with this environment sends, by directive."""
    code = "from csp.utils import build_policy; print(build_policy())"
    result = manage(tmp_path, "shell", "--verbosity", "0", "--command", code, **env)
    assert result.returncode == 0, result.stderr
    directives = (part.split() for part in result.stdout.strip().splitlines()[-1].split(";"))
    return {name: sources for name, *sources in directives}


def test_the_production_policy_allows_only_our_own_origin_and_the_hosts_websockets(tmp_path: Path) -> None:
    policy = _policy(
        tmp_path,
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=STRONG_SECRET,
        DJANGO_ALLOWED_HOSTS="bingo.example,.salas.example,[::1]",
    )

    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]  # no inline script, handler or eval
    assert policy["style-src"][0] == "'self'"
    assert all(source.startswith("'sha256-") for source in policy["style-src"][1:])  # templates/500.html
    assert policy["img-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["form-action"] == ["'self'"]
    # Behind TLS the pages open wss:// to their own host; older Safari needs it named.
    assert policy["connect-src"] == [
        "'self'",
        "wss://bingo.example:*",
        "wss://salas.example:*",
        "wss://*.salas.example:*",
    ]


def test_in_debug_the_policy_lets_pages_open_plain_websockets_to_the_local_hosts(tmp_path: Path) -> None:
    policy = _policy(tmp_path, DJANGO_DEBUG="true")

    assert policy["script-src"] == ["'self'"]
    assert policy["connect-src"] == [
        "'self'",
        "ws://127.0.0.1:*",
        "wss://127.0.0.1:*",
        "ws://localhost:*",
        "wss://localhost:*",
    ]


def test_the_server_error_page_style_is_the_one_the_policy_allows() -> None:
    """templates/500.html keeps its style inline (it must render when static files fail), so the
    policy allows that one <style> block by its hash: changing the block needs the new hash."""
    template = (ROOT / "templates" / "500.html").read_text(encoding="utf-8")
    blocks = re.findall(r"<style>(.*?)</style>", template, flags=re.DOTALL)
    digest = base64.b64encode(hashlib.sha256(blocks[0].encode()).digest()).decode()

    assert len(blocks) == 1
    assert f"'sha256-{digest}'" in settings.CONTENT_SECURITY_POLICY["DIRECTIVES"]["style-src"], (
        f"set _SERVER_ERROR_STYLE_HASH in bingo/settings.py to \"'sha256-{digest}'\""
    )


def test_web_request_threads_below_one_refuses_to_start(tmp_path: Path) -> None:
    """A worker that runs no request at once would hang every request (bingo/asgi.py)."""
    result = manage(tmp_path, "check", WEB_REQUEST_THREADS="0")

    assert result.returncode != 0
    assert "WEB_REQUEST_THREADS must be at least 1" in result.stderr
    assert manage(tmp_path, "check", WEB_REQUEST_THREADS="1").returncode == 0


def test_web_request_threads_default_to_3_on_postgresql_and_64_embedded(tmp_path: Path) -> None:
    """Embedded, a request waiting up to 20 s for SQLite's write lock would hold one of a few
    turns, and pages and static files would wait behind it (bingo/asgi.py)."""
    show = ["shell", "-c", "from django.conf import settings; print(settings.REQUEST_THREADS)"]
    embedded = manage(tmp_path, *show)
    served = manage(tmp_path, *show, DATABASE_URL="postgres://nobody@127.0.0.1:1/none")
    assert embedded.stdout.split()[-1] == "64", embedded.stderr
    assert served.stdout.split()[-1] == "3", served.stderr
