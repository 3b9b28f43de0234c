"""What every app shares and no app owns: roles, API plumbing, form helpers, money, queueing
tasks after commit.

Imports nothing of the apps (halls, cards, the games app's features) — only Django, DRF, Celery
and the engine — so any of them may use it (the layers contract in pyproject.toml holds it so).
"""
