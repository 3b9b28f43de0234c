"""The cards' Celery tasks are registered in every process, under the names services queue them
by (and jobs waiting in a broker across a deploy carry)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from cards import services
from cards.printing import services as print_services

# A fresh interpreter: here the tests may have imported the tasks modules themselves.
PROBE = """
import json, sys, django
django.setup()
from celery import current_app
print(json.dumps({
    "registered": sorted(name for name in current_app.tasks if name.startswith("cards.")),
    "imported": sorted(name for name in sys.modules if name.endswith("tasks") and name.startswith("cards")),
}))
"""


def test_django_start_up_registers_every_cards_task_by_its_stable_name() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "bingo.settings"},
        capture_output=True,
        text=True,
        check=True,
    )
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["registered"] == ["cards.card_set_generate", "cards.print_job_run"]
    assert found["imported"] == ["cards.printing.tasks", "cards.tasks"]
    assert services.CARD_SET_GENERATE_TASK == "cards.card_set_generate"
    assert print_services.PRINT_JOB_RUN_TASK == "cards.print_job_run"
