#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import importlib
import os
import sys

#: Commands that read and write no table, so run without starting Django's apps: loading every
#: app, its tasks and its checks costs about a second, more than generating 100,000 cards
#: (docs/cards.md). Each sets ``requires_system_checks = []``; tests/cards/test_card_commands.py
#: checks that none of the apps' modules is imported.
WITHOUT_APPS = {"cards_generate": "cards.management.commands.cards_generate"}


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")
    if len(sys.argv) > 1 and sys.argv[1] in WITHOUT_APPS:
        command = importlib.import_module(WITHOUT_APPS[sys.argv[1]]).Command()
        command.run_from_argv(sys.argv)
        return
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
