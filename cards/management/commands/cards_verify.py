"""Re-check a card-set JSON file against the rules and its fingerprint."""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bingo.engine import ALGORITHM_STRIPS, GenerationError, generate_card_set, verify_cards
from cards import cardfile


class Command(BaseCommand):
    help = "Verify a card-set file: every card's layout, uniqueness in the set (R14), and the fingerprint."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="a JSON file written by cards_generate")
        parser.add_argument(
            "--regenerate",
            action="store_true",
            help="also regenerate the set from its variant, size, seed and algorithm; compare fingerprints",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        try:
            card_file = cardfile.read(path)
        except cardfile.CardFileError as exc:
            raise CommandError(str(exc)) from None
        report = verify_cards(
            card_file.variant,
            card_file.cells,
            strips=card_file.algorithm == ALGORITHM_STRIPS,
            declared_repeated=card_file.repeated_lines,
            declared_fingerprint=card_file.fingerprint,
        )
        problems = [str(v) for v in report.violations]
        if report.total_violations > len(problems):
            problems.append(f"... and {report.total_violations - len(problems)} more")
        if options["regenerate"]:
            problems.extend(self._regeneration_problems(card_file, report.fingerprint))
        if problems:
            for line in problems:
                self.stderr.write(f"{path}: {line}")
            raise CommandError(f"{path}: INVALID, {len(problems)} problem(s) found")
        regenerated = " and regenerated from its seed" if options["regenerate"] else ""
        self.stdout.write(
            f"{path}: valid — {report.size} {card_file.variant}-ball cards, "
            f"{report.repeated_lines} repeated lines, fingerprint {report.fingerprint} matches{regenerated}"
        )

    def _regeneration_problems(self, card_file: cardfile.CardFile, fingerprint: str) -> list[str]:
        """What rebuilding the set from its seed shows: nothing, or why the cards are not its."""
        try:
            again = generate_card_set(
                card_file.variant, card_file.size, card_file.seed, algorithm=card_file.algorithm
            )
        except GenerationError as exc:
            return [f"cannot regenerate it: {exc}"]
        if again.fingerprint != fingerprint:
            return [
                f"regenerating from seed {card_file.seed} gives fingerprint {again.fingerprint}, "
                f"not {fingerprint}: the cards are not the ones this seed makes"
            ]
        return []
