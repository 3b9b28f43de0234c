"""Reads of a hall's ball sets (R20-R26): the sets, their checks (R23), the games they drew (R25)
and their replacements (R25-R26), with the joins their screens and the API show."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Exists, OuterRef, Q, QuerySet

from bingo.models import OnlineRoom, Session
from halls.models import BallReplacement, BallSet, BallSetCheck, BallSetUse, Hall
from halls.selectors import hall_list_for


def ball_set_list(*, hall: Hall) -> QuerySet[BallSet]:
    """``hall``'s ball sets, in use and retired."""
    return BallSet.objects.filter(hall=hall)


def ball_set_get_for(user: AbstractBaseUser | AnonymousUser, *, ball_set_id: int) -> BallSet:
    """A ball set of a hall where ``user`` works in any staff role; BallSet.DoesNotExist for any other."""
    return BallSet.objects.filter(hall__in=hall_list_for(user)).get(pk=ball_set_id)


def ball_set_check_list(*, ball_set: BallSet) -> QuerySet[BallSetCheck]:
    """The start- and end-of-session checks of ``ball_set`` (R23), newest first."""
    return (
        BallSetCheck.objects.filter(ball_set=ball_set)
        .select_related("session__room", "checked_by")
        .order_by("-checked_at", "-id")
    )


def ball_replacement_list(*, ball_set: BallSet) -> QuerySet[BallReplacement]:
    """The replacements of ``ball_set``'s balls, of the set itself, and of a set it replaced
    (R25-R26), newest first."""
    return (
        BallReplacement.objects.filter(Q(ball_set=ball_set) | Q(replacement_set=ball_set))
        .select_related("ball_set", "replacement_set", "session__room", "replaced_by")
        .order_by("-replaced_at", "-id")
    )


def ball_set_use_list(*, ball_set: BallSet) -> QuerySet[BallSetUse]:
    """The games ``ball_set`` drew (R25), the latest first, each with its session's room."""
    return (
        BallSetUse.objects.filter(ball_set=ball_set).select_related("game__session__room").order_by("-number")
    )


def session_list_of_hall(*, hall_id: int) -> QuerySet[Session]:
    """The sessions played in hall ``hall_id``, the latest first (a check or replacement names one)."""
    return Session.objects.filter(room__hall_id=hall_id).select_related("room__hall").order_by("-starts_at")


def session_end_checks_awaited(*, session: Session) -> QuerySet[BallSet]:
    """The ball sets whose end-of-session check ``session`` still awaits (R23: every ball runs
    through the mechanism at the start and at the end of each session): those checked at its
    start and not yet at its end, by serial number. A set replaced as a whole during the session
    is out of the mechanism (R25; the replacement is in the acta, R61 k)). None for an online
    session: its balls are drawn by the system's CSPRNG, there are none to run."""
    if OnlineRoom.serves(session.room_id):
        return BallSet.objects.none()
    checks = BallSetCheck.objects.filter(ball_set=OuterRef("pk"), session=session)
    replaced = BallReplacement.objects.filter(
        ball_set=OuterRef("pk"), session=session, replacement_set__isnull=False
    )
    return (
        BallSet.objects.filter(Exists(checks.filter(phase=BallSetCheck.Phase.START)))
        .exclude(Exists(checks.filter(phase=BallSetCheck.Phase.END)))
        .exclude(Exists(replaced))
        .order_by("serial_number", "pk")
    )
