from django.apps import AppConfig


class CardsConfig(AppConfig):
    name = "cards"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Register the cards' Celery tasks in every process (web, worker, shell, tests): services
        # queue them by name (bingo/common/tasks.py) and import no task module, and Celery's
        # autodiscovery would find only cards.tasks, not cards.printing.tasks.
        from cards import tasks  # noqa: F401
        from cards.printing import tasks as printing_tasks  # noqa: F401
