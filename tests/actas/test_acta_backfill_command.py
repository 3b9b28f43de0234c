"""``manage.py acta_backfill``: games that ended before the acta existed are recorded, in order,
once, and the next game may start (R60)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from actas.models import ActaEntry, ActaReceipt
from actas.selectors import acta_verify, games_unrecorded
from tests.actas.test_selectors import tampering
from tests.actas.test_services import ActaHall

pytestmark = pytest.mark.django_db


def test_games_ended_before_the_acta_are_recorded_in_order_once() -> None:
    hall = ActaHall()
    games = [hall.finished(cards=4), hall.annulled(), hall.finished(cards=4)]
    with tampering():  # as an installation from before the acta: its games were never recorded
        ActaEntry.objects.filter(acta__session=hall.session).delete()
        ActaReceipt.objects.filter(acta__session=hall.session).delete()
    assert games_unrecorded(session_id=hall.session.pk) == [g.number for g in games]

    out = io.StringIO()
    call_command("acta_backfill", str(hall.session.pk), stdout=out)
    call_command("acta_backfill", stdout=io.StringIO())  # again: nothing more

    entries = ActaEntry.objects.filter(acta__session=hall.session).order_by("position")
    assert [(e.position, e.game.number, e.kind) for e in entries] == [
        (1, games[0].number, "finished"),
        (2, games[1].number, "annulled"),
        (3, games[2].number, "finished"),
    ]
    assert "3" in out.getvalue()
    assert acta_verify(session=hall.session).intact
    hall.drawing(cards=4)  # R60 lets the next game start
