"""Start-up checks: a production server refuses to start rather than answer every page with 500.

``static_manifest_check`` is called by bingo/asgi.py and bingo/wsgi.py once Django is set up, so
a misconfigured server stops at start with a message saying what to do, instead of failing
request by request. ``database_role_check`` is a deployment check (``manage.py check --deploy
--database default``, run by ``make serve``): it warns when the app connects to PostgreSQL with
more power than the app needs. ``acta_signing_key_check`` (``check --deploy``) fails when the
operator's key that signs the acta's receipts is not set or cannot be read (actas/signing.py).
``email_url_check`` (``check --deploy``) warns when no SMTP server is set for the players' mails.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.core.checks import CheckMessage, Tags, register
from django.core.checks import Error as CheckError
from django.core.checks import Warning as CheckWarning
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

from actas.signing import SETTINGS_NAMES, signing_key
from bingo.common.db_roles import connection_role_get

_ROLES_HINT = (
    "Connect with DATABASE_URL as a role that owns nothing, set DATABASE_OWNER_URL to the tables' "
    "owner, and run `manage.py migrate` then `manage.py db_grant` (docs/deploy.md, «The "
    "database's roles»)."
)


def static_manifest_check() -> None:
    """Raise ImproperlyConfigured when debug is off and collectstatic has not written the manifest.

    With DEBUG off the static files storage is WhiteNoise's manifest storage: every ``{% static %}``
    looks its file up in STATIC_ROOT/staticfiles.json, and without that file every page is a 500.
    In debug the manifest is not used (files are served from the source folders), so nothing is
    checked.
    """
    storage = staticfiles_storage
    if settings.DEBUG or not isinstance(storage, ManifestFilesMixin):
        return
    if storage.manifest_storage.exists(storage.manifest_name):
        return
    manifest = Path(settings.STATIC_ROOT) / storage.manifest_name
    raise ImproperlyConfigured(
        f"The static files manifest {manifest} is missing, so with DJANGO_DEBUG off every page "
        "would fail. Run `manage.py collectstatic --noinput` (make serve does) before starting "
        "the server, with the same DJANGO_STATIC_ROOT."
    )


@register(Tags.database, deploy=True)
def database_role_check(
    app_configs: Sequence[Any] | None = None, databases: Sequence[str] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    """Warn when the app's connection to PostgreSQL could get past the ledgers' triggers: as a
    superuser (who switches every trigger off), as the tables' owner (who disables one, or drops
    the table), or with UPDATE, DELETE or TRUNCATE on an insert-only ledger. Database checks run
    only when asked for the database (``--database default``), as Django's own."""
    if not databases or DEFAULT_DB_ALIAS not in databases:
        return []
    connection = connections[DEFAULT_DB_ALIAS]
    if connection.vendor != "postgresql":
        return []
    try:
        role = connection_role_get(connection)
    except DatabaseError as error:
        return [CheckWarning(f"Could not check the app's PostgreSQL role: {error}", id="bingo.W004")]
    warnings: list[CheckMessage] = []
    if role.superuser:
        warnings.append(
            CheckWarning(
                f"The app connects to PostgreSQL as {role.name}, a superuser: it could switch every "
                "trigger off (session_replication_role) and rewrite the insert-only ledgers.",
                hint=_ROLES_HINT,
                id="bingo.W001",
            )
        )
    elif role.owns or role.may_create:
        warnings.append(
            CheckWarning(
                f"The app connects to PostgreSQL as {role.name}, who owns tables "
                f"({', '.join(role.owns[:3]) or 'none yet'}{', ...' if len(role.owns) > 3 else ''}) "
                "or may create them: it could disable their triggers, alter or drop them.",
                hint=_ROLES_HINT,
                id="bingo.W002",
            )
        )
    elif role.ledgers_writable:
        warnings.append(
            CheckWarning(
                f"The app's role {role.name} may UPDATE, DELETE or TRUNCATE insert-only ledgers: "
                f"{', '.join(role.ledgers_writable)}.",
                hint="Run `manage.py db_grant` after `manage.py migrate` (docs/deploy.md).",
                id="bingo.W003",
            )
        )
    return warnings


@register(Tags.security, deploy=True)
def acta_signing_key_check(app_configs: Sequence[Any] | None = None, **kwargs: Any) -> list[CheckMessage]:
    """Fail when the operator's Ed25519 key that signs the acta's receipts is not set (with debug
    off none is made up) or cannot be read; warn when its file may be read by others."""
    try:
        signing_key()
    except ImproperlyConfigured as error:
        return [
            CheckError(
                str(error),
                hint=f"Set {SETTINGS_NAMES}: `manage.py acta_keygen --output PATH` creates a key and "
                "prints its public half for the regulator (docs/acta.md, «Signed receipts»).",
                id="bingo.E001",
            )
        ]
    path = settings.ACTA_SIGNING_KEY_FILE
    if path and not settings.ACTA_SIGNING_KEY and Path(path).stat().st_mode & 0o077:
        return [
            CheckWarning(
                f"The acta's signing key file {path} may be read by other users.",
                hint=f"chmod 600 {path}",
                id="bingo.W005",
            )
        ]
    return []


@register(deploy=True)
def email_url_check(app_configs: Sequence[Any] | None = None, **kwargs: Any) -> list[CheckMessage]:
    """Warn when debug is off and ``EMAIL_URL`` is not set: the password reset and the players'
    e-mail verification would go to an SMTP server on localhost:25, which a server seldom has."""
    if settings.DEBUG or settings.EMAIL_URL_SET:
        return []
    return [
        CheckWarning(
            "EMAIL_URL is not set: password reset and e-mail verification mails go to an SMTP server "
            "on localhost:25.",
            hint="Set EMAIL_URL to the operator's SMTP server, e.g. "
            "smtp+tls://user:password@smtp.example.cv:587, and DJANGO_DEFAULT_FROM_EMAIL to its "
            "sender address (docs/deploy.md, «E-mail»).",
            id="bingo.W006",
        )
    ]
