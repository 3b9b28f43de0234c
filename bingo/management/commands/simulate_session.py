"""``manage.py simulate_session``: a whole session through the services the screens use."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bingo.engine.variants import Variant
from bingo.games.simulation import SimulationPlan, session_simulate


def _variants(text: str) -> tuple[Variant, ...]:
    """``90,80,75,30`` as variants (argparse reports a ValueError as an invalid value)."""
    return tuple(Variant(part.strip()) for part in text.split(","))


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
        parser.add_argument(
            "--variants",
            type=_variants,
            default=(),
            help="variants played in turn, game by game, e.g. 90,80,75,30 (instead of --variant)",
        )
        parser.add_argument(
            "--annul",
            type=int,
            metavar="N",
            help="game N is suspended before its first ball and annulled, its cards refunded (R55)",
        )
        parser.add_argument(
            "--complaint",
            type=int,
            metavar="N",
            help="a player's complaint about game N and the decision on it, in the acta (R61 j)",
        )
        parser.add_argument(
            "--replace-ball",
            action="store_true",
            help="draw with checked ball sets (R22-R25) and replace one ball during the session (R26)",
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
            variants=options["variants"],
            annul=options["annul"],
            complaint=options["complaint"],
            replace_ball=options["replace_ball"],
        )
        try:
            session = session_simulate(plan=plan)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        self.stdout.write(str(session.pk))
