"""Bingo hall management system: project package and the games app.

Nothing is imported here so that ``bingo.engine`` stays importable without Django or Celery;
the Celery app is loaded by ``BingoConfig.ready``.
"""
