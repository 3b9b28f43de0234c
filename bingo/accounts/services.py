"""Writes of the login lockouts: a manager forgives the failed logins behind one (django-axes),
and a password reset forgives its own account's.

A manager reaches only the staff of the halls they manage (halls/selectors.py hall_list_for).
Every failure is one ``AccessAttempt`` row that counts against both its account and its address,
so unlocking an address forgives only the rows a manager could forgive anyway — their staff's
and unknown usernames' — never the guesses at another hall's staff or the administrator's
account made from there: those keep their accounts locked, and may keep the address locked,
until they age out or an administrator deletes them in the Django admin.
"""

from __future__ import annotations

import logging

from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q

from bingo.accounts.selectors import staff_user_list_for

logger = logging.getLogger(__name__)


@transaction.atomic
def login_lockout_reset(*, by: User, username: str = "", ip_address: str = "") -> int:
    """Forgive the failed logins of staff account ``username``, or from ``ip_address``, as ``by``
    may (User.DoesNotExist for an account beyond their halls); returns how many were forgiven."""
    if bool(username) == bool(ip_address):
        raise ValueError("Give either a username or an address.")
    staff = staff_user_list_for(by)
    attempts = AccessAttempt.objects.all()
    if username:
        if not staff.filter(username=username).exists():
            raise User.DoesNotExist(f"{username!r} is not staff of a hall {by} manages.")
        attempts = attempts.filter(username=username)
    else:
        attempts = attempts.filter(ip_address=ip_address).filter(
            Q(username__in=staff.values("username"))
            | Q(username__isnull=True)
            | ~Q(username__in=User.objects.values("username"))
        )
    # Locked as axes locks a row it counts a failure on, so none is counted and lost at once.
    rows = list(attempts.select_for_update().values_list("pk", "failures_since_start"))
    AccessAttempt.objects.filter(pk__in=[pk for pk, _ in rows]).delete()
    forgiven: int = sum(failures for _, failures in rows)
    logger.info(
        "Login lockout cleared by %s: %s, %d failed attempts forgiven.",
        by.get_username(),
        f"account {username!r}" if username else f"address {ip_address}",
        forgiven,
    )
    return forgiven


def login_failures_forgive(*, user: User) -> int:
    """Forgive the failed logins counted against ``user``'s account (not their address's):
    called when they set a new password through a reset link sent to their e-mail, which proves
    the account is theirs; returns how many were forgiven. Other accounts' failures from the
    same address still count against it."""
    with transaction.atomic():
        rows = list(
            AccessAttempt.objects.filter(username=user.get_username())
            .select_for_update()
            .values_list("pk", "failures_since_start")
        )
        AccessAttempt.objects.filter(pk__in=[pk for pk, _ in rows]).delete()
    forgiven: int = sum(failures for _, failures in rows)
    if forgiven:
        logger.info(
            "Login lockout of account %r cleared by a password reset: %d failed attempts forgiven.",
            user.get_username(),
            forgiven,
        )
    return forgiven
