"""bingo/settings.py as production would load it, in a fresh process each time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STRONG_SECRET = "k3Qw9zT1-production-like-secret-LmN0pR7sUvXyZ2aB4cD6eF8gH0iJ_5oP"


def manage(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL", "CELERY_"))
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
    )

    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


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
