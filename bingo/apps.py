from django.apps import AppConfig


class BingoConfig(AppConfig):
    name = "bingo"
    verbose_name = "Bingo"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Bind shared tasks to our configured Celery app in every Django process.
        # Every login lockout is logged (django-axes sends the signal; bingo/accounts/views.py).
        from axes.signals import user_locked_out
        from django.contrib.auth.signals import user_logged_in, user_logged_out

        from bingo import (
            celery,  # noqa: F401
            checks,  # noqa: F401  (registers the deployment checks)
        )
        from bingo.accounts.signals import login_checking
        from bingo.accounts.views import log_lockout
        from bingo.autodraw import tasks as autodraw_tasks  # noqa: F401  (the online loop's tasks)
        from bingo.common.api import text_fields_take_text_only
        from bingo.demohall import tasks as demohall_tasks  # noqa: F401  (the demo's simulated players)
        from bingo.live import events
        from bingo.online import services as online_services
        from bingo.online import tasks as online_tasks  # noqa: F401  (the standing orders' fill)
        from bingo.players.signals import player_barred
        from bingo.playtime import middleware as playtime
        from bingo.playtime import tasks as playtime_tasks  # noqa: F401  (the sessions' sweep)
        from halls.signals import hall_jackpot_switched

        text_fields_take_text_only()  # a JSON number is not a name (issue 26)
        user_locked_out.connect(log_lockout, dispatch_uid="bingo.log_lockout")
        # halls sits below the features and may not import them: it signals, the displays hear.
        hall_jackpot_switched.connect(events.on_hall_jackpot_switched, dispatch_uid="bingo.jackpot_switched")
        # A player's play session starts at login and ends at logout (PT-803 g, bingo/playtime).
        user_logged_in.connect(playtime.on_login, dispatch_uid="bingo.playtime_login")
        user_logged_out.connect(playtime.on_logout, dispatch_uid="bingo.playtime_logout")
        # The login page (bingo/accounts, below the features) asks whether a player may log in now:
        # not during the hall's break after a session ended at the time limit (R101).
        login_checking.connect(playtime.on_login_checking, dispatch_uid="bingo.playtime_login_checking")
        # R101: an exclusion or a break (bingo/protection, bingo/playtime, below the online play)
        # ends the player's standing orders in its own transaction.
        player_barred.connect(online_services.on_player_barred, dispatch_uid="bingo.online_orders_barred")
