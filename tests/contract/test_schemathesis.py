"""The API keeps its published contract (issue 26): Schemathesis finds nothing.

scripts/api_contract.py fills a database of its own with the demo and the world of
tests/contract/world.py, serves it with uvicorn on PostgreSQL and Redis, and runs Schemathesis
(every check, a bounded number of examples, a fixed seed) against ``/api/schema/`` as the
manager, the cashier, the caller, the inspector and the player. Any failure fails this test,
with each role's report in its message. The exceptions are in tests/contract/schemathesis.toml,
each next to its operation with its reason. docs/api-contract.md says how to run it by hand.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from tests.test_deploy_roles import Installation, installation  # noqa: F401 (the fixture)
from tests.test_production_smoke import ROOT

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]


def test_schemathesis_finds_nothing_for_any_role(installation: Installation, tmp_path: Path) -> None:  # noqa: F811
    if not settings.REDIS_URL:
        pytest.skip("the contract run serves with Redis (set REDIS_URL)")
    env = {
        "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
        "HOME": str(tmp_path),
        "DATABASE_URL": installation.owner_url,
        "REDIS_URL": settings.REDIS_URL,
        "CHANNEL_LAYER_PREFIX": f"contract-{installation.database}",
    }
    done = subprocess.run(
        [sys.executable, "scripts/api_contract.py", "--report-dir", str(tmp_path / "report")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-5000:]
    verdicts = [
        line
        for line in done.stdout.splitlines()
        if line.split()[:1] and line.split()[0] in {"manager", "cashier", "caller", "inspector", "player"}
    ]
    assert len(verdicts) == 5, done.stdout
    assert all(" passed " in line for line in verdicts), done.stdout
