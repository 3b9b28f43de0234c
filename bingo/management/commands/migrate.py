"""``manage.py migrate``: Django's, connected as the tables' owner when ``DATABASE_OWNER_URL`` is
set (docs/deploy.md, «The database's roles»). The app's own role, ``DATABASE_URL``, may not create
or alter a table; the owner does, and ``manage.py db_grant`` then grants the app its rows."""

from __future__ import annotations

from typing import Any

from django.core.management.commands import migrate
from django.utils.translation import gettext as _

from bingo.common.db_roles import owner_connection


class Command(migrate.Command):
    help = f"{migrate.Command.help} As the tables' owner (DATABASE_OWNER_URL) when it is set."

    def handle(self, *args: Any, **options: Any) -> None:
        with owner_connection(options["database"]) as app:
            if app is not None and options["verbosity"] >= 1:
                self.stdout.write(_("Migrating as the tables' owner (DATABASE_OWNER_URL)."))
            super().handle(*args, **options)
