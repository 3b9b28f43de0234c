"""``manage.py simulate_session``: a whole session through the services the screens use."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bingo.engine.variants import Variant
from bingo.games.simulation import SimulationPlan, session_simulate


class Command(BaseCommand):
    help = (
        "Run a complete session: cashiers selling at once, electronic draw, the winners the system "
        "detects confirmed, prizes paid, the jackpot decided. Prints the session id."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--variant", choices=[v.value for v in Variant], default="90")
        parser.add_argument("--games", type=int, default=1, help="games in the session (default 1)")
        parser.add_argument("--cashiers", type=int, default=2, help="cashiers selling at once (default 2)")
        parser.add_argument("--cards", type=int, default=90, help="cards sold in each game (default 90)")
        parser.add_argument(
            "--seed", type=int, help="fixes the card sets and the sales (the draw stays random)"
        )
        parser.add_argument(
            "--jackpot-balls", type=int, help="play the jackpot: won by a bingo within this many balls (R9)"
        )
        parser.add_argument(
            "--double-cards",
            action="store_true",
            help="sell double cards (R15): each odd game sells them and the next plays them again",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        plan = SimulationPlan(
            variant=Variant(options["variant"]),
            games=options["games"],
            cashiers=options["cashiers"],
            cards=options["cards"],
            seed=options["seed"],
            jackpot_balls=options["jackpot_balls"],
            double_cards=options["double_cards"],
        )
        try:
            session = session_simulate(plan=plan)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        self.stdout.write(str(session.pk))
