from django.apps import AppConfig


class ActasConfig(AppConfig):
    name = "actas"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Register the acta's Celery task in every process (web, worker, beat, tests): the beat
        # schedule and the manager's page name it, and nothing else imports the module.
        from actas import tasks  # noqa: F401
