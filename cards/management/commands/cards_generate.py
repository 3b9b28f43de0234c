"""Generate a card set and write it as JSON (docs/cards.md)."""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bingo.engine import (
    SERIES_SIZES,
    GenerationError,
    algorithm_for,
    generate_card_set,
    parse_seed,
    parse_variant,
)
from cards import cardfile


def parse_size(value: str) -> int:
    """A card count, or a standard series letter A-K (R16); ValueError otherwise."""
    text = value.strip()
    if text.upper() in SERIES_SIZES:
        return SERIES_SIZES[text.upper()]
    if not text.isascii() or not text.isdigit() or int(text) <= 0:
        raise ValueError(
            f"size must be a whole number of cards above 0 or a series letter A-K, not {value!r}"
        )
    return int(text)


class Command(BaseCommand):
    help = "Generate a numbered card set (90, 80, 75 or 30 balls) and write it as JSON."
    # It needs the engine and a file, no table and no app: manage.py runs it without loading
    # the apps (WITHOUT_APPS), and the system checks, which need them, are not its business.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--variant", required=True, help="90, 80, 75 or 30")
        parser.add_argument("--size", required=True, help="number of cards, or a series letter A-K")
        parser.add_argument(
            "--seed", help="a whole number; drawn from the system's secure generator if left out"
        )
        parser.add_argument(
            "--strips", action="store_true", help="90-ball only: blocks of six cards hold 1-90 once"
        )
        parser.add_argument("--output", required=True, help="the JSON file to write")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            variant = parse_variant(options["variant"])
            size = parse_size(options["size"])
            seed = None if options["seed"] is None else parse_seed(options["seed"])
            output = Path(options["output"])
            cardfile.check_writable(output)
            card_set = generate_card_set(
                variant, size, seed, algorithm=algorithm_for(strips=options["strips"])
            )
            cardfile.write(card_set, output)
        except (ValueError, GenerationError, cardfile.CardFileError) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"Wrote {card_set.size} {variant}-ball cards to {output}: seed {card_set.seed}, "
            f"algorithm {card_set.algorithm}, {card_set.repeated_lines} repeated lines, "
            f"fingerprint {card_set.fingerprint}"
        )
