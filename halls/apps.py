from django.apps import AppConfig


class HallsConfig(AppConfig):
    name = "halls"
    default_auto_field = "django.db.models.BigAutoField"
