from django.apps import AppConfig


class BingoConfig(AppConfig):
    name = "bingo"
    verbose_name = "Bingo"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Bind shared tasks to our configured Celery app in every Django process.
        from bingo import celery  # noqa: F401
