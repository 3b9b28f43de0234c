"""``manage.py acta_backfill [SESSION ...]``: record in their actas the games that ended before the
acta existed (an installation upgraded with sessions under way), so R60 lets the next game start."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import ngettext

from actas.selectors import games_unrecorded
from actas.services import acta_record_game
from bingo.models import Game, Session


class Command(BaseCommand):
    help = (
        "Record in each session's acta, in their order, the games that ended and are not in it "
        "(R59-R60): once, after upgrading an installation with sessions under way."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("sessions", nargs="*", type=int, help="session ids (default: every session)")

    def handle(self, *args: Any, **options: Any) -> None:
        sessions = Session.objects.order_by("pk")
        if options["sessions"]:
            sessions = sessions.filter(pk__in=options["sessions"])
        recorded = 0
        for session in sessions:
            for number in games_unrecorded(session_id=session.pk):
                acta_record_game(game=Game.objects.get(session=session, number=number))
                recorded += 1
        self.stdout.write(
            ngettext(
                "%(count)d game recorded in its acta.", "%(count)d games recorded in their actas.", recorded
            )
            % {"count": recorded}
        )
