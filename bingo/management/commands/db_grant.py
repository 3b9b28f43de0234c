"""``manage.py db_grant``: as the tables' owner (``DATABASE_OWNER_URL``), create the app's role
(``DATABASE_URL``'s user) when missing and grant it what the app needs and no more; idempotent,
run after every ``migrate`` (docs/deploy.md, «The database's roles»)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connections, transaction
from django.db.utils import DEFAULT_DB_ALIAS
from django.utils.translation import gettext as _

from bingo.common.db_roles import DatabaseRoleError, app_role_grant, owner_connection


class Command(BaseCommand):
    help = (
        "Create the app's PostgreSQL role (DATABASE_URL's user) when missing and grant it every "
        "table's rows but no UPDATE, DELETE or TRUNCATE of an insert-only ledger, connected as the "
        "tables' owner (DATABASE_OWNER_URL). Idempotent: run it after every migrate."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        connection = connections[DEFAULT_DB_ALIAS]
        if connection.vendor != "postgresql":
            self.stdout.write(_("Not PostgreSQL: there are no roles to grant."))
            return
        if not settings.DATABASE_OWNER_URL:
            self.stderr.write(
                self.style.WARNING(
                    _(
                        "DATABASE_OWNER_URL is not set: the app connects as %(user)s, the tables' "
                        "owner, and nothing is granted (docs/deploy.md)."
                    )
                    % {"user": connection.settings_dict["USER"] or _("the default user")}
                )
            )
            return
        with owner_connection() as app:
            assert app is not None
            role = app["USER"]
            if not role:
                raise CommandError(_("DATABASE_URL names no user: the app's role must be named."))
            try:
                with transaction.atomic():
                    grant = app_role_grant(connection=connection, role=role, password=app["PASSWORD"] or None)
            except DatabaseRoleError as error:
                raise CommandError(str(error)) from error
        if grant.created:
            self.stdout.write(_("Role %(role)s created.") % {"role": grant.role})
        self.stdout.write(
            self.style.SUCCESS(
                _(
                    "The role %(role)s may read and write the tables, but not change, delete or "
                    "empty the %(count)d insert-only ones."
                )
                % {"role": grant.role, "count": len(grant.insert_only)}
            )
        )
