from django.apps import AppConfig


class CardsConfig(AppConfig):
    name = "cards"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Register the cards' Celery tasks in every process: Celery's autodiscovery finds only
        # <app>.tasks, not cards.printing.tasks, and a worker must know every task by its name.
        from cards import tasks  # noqa: F401
        from cards.printing import tasks as printing_tasks  # noqa: F401
