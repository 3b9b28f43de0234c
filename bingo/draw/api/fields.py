"""The choice fields and the refusal answers every module of the draw's API shares.

Choices travel as patterned strings, not enums: other components already have fields named
"kind", "state" or "source", and a second enum of the same name makes drf-spectacular warn.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from bingo.common.api import error_responses
from bingo.engine.prizes import PrizeKind as EnginePrize
from bingo.models import Ball, Claim, DrawMode, GameState, PrizeKind


def _pattern(values: list[str]) -> dict[str, str]:
    return {"type": "string", "pattern": f"^({'|'.join(values)})$"}


#: The prizes a claim or an award may name; the game's plan says which of them it pays.
CLAIMABLE = [kind.value for kind in EnginePrize]

#: What the console waits for: the sales to close, the start of the draw, the next ball, the
#: award of a prize validly claimed (R43, R46), the end of a suspension (R55), or nothing more.
WAITING = ["sales", "start", "ball", "award", "resume", "nothing"]


@extend_schema_field(_pattern(CLAIMABLE))
class ClaimableKindField(serializers.ChoiceField):
    """A prize a claim or an award names: line, bingo, four_corners or column."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("help_text", "The prize: " + ", ".join(CLAIMABLE) + " (the game's plan decides).")
        super().__init__(choices=CLAIMABLE, **kwargs)


@extend_schema_field(_pattern(DrawMode.values))
class DrawModeField(serializers.ChoiceField):
    """How the balls come out: electronic (the system draws) or physical (keyed in, R22-R25)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=DrawMode.values, **kwargs)


@extend_schema_field(_pattern(PrizeKind.values))
class PrizeKindField(serializers.CharField):
    pass


@extend_schema_field(_pattern(GameState.values))
class GameStateField(serializers.CharField):
    pass


@extend_schema_field(_pattern(Ball.Source.values))
class SourceField(serializers.CharField):
    pass


@extend_schema_field(_pattern(Claim.Outcome.values))
class OutcomeField(serializers.CharField):
    pass


@extend_schema_field(_pattern(WAITING))
class WaitingField(serializers.CharField):
    pass


# --- answers ------------------------------------------------------------------------------------

REFUSED = "Refused by the draw's rules (the message says which); nothing changed."


def responses(ok: Any, code: int = 200, refused: str = REFUSED) -> dict[int, Any]:
    """The answers a write of the draw documents: ``ok`` under ``code``, a refusal, 403 and 404."""
    return {code: ok, **error_responses(refused)}
