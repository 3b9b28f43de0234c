"""The Celery application. Tasks are thin adapters: they take ids and call one service."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")

app = Celery("bingo")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
