"""Writes to the card stock: card sets, series, retirement, the inspector's regeneration check."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

import numpy as np
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from bingo.common import bounds
from bingo.common.engine_messages import engine_message, validation_error
from bingo.common.tasks import task_enqueue_on_commit
from bingo.engine import (
    ALGORITHM_CARDS,
    SERIES_SIZES,
    GenerationError,
    Variant,
    generate_card_set,
    new_seed,
    verify_cards,
)
from bingo.engine import (
    CardSet as EngineCardSet,
)
from bingo.engine.generate import check_request
from cards.models import COLOUR_PATTERN, CardSet, CardSetCells, Series
from cards.selectors import card_set_cells
from halls.models import Hall

#: Card sets up to this size are generated at once, in the request (well under 0.1 s);
#: larger ones by a Celery worker, whose progress the manager watches on the card-set page.
INLINE_LIMIT = 20_000

#: The name cards/tasks.py registers the generation task under. Tasks waiting in a broker across
#: a deploy carry it: keep it.
CARD_SET_GENERATE_TASK = "cards.card_set_generate"


def card_set_request(
    *, variant: str, size: int, seed: int | None = None, algorithm: str, user: User | None
) -> CardSet:
    """Record a card-set request and generate it now, or schedule it when it is large."""
    try:
        chosen = Variant(variant)
    except ValueError:
        raise ValidationError(_("Unknown variant: %(v)s.") % {"v": variant}) from None
    if seed is None:
        seed = new_seed()
    try:
        check_request(chosen, size, seed, algorithm)
    except GenerationError as exc:
        raise validation_error(exc) from None
    if CardSet.objects.filter(variant=chosen.value, size=size, seed=str(seed), algorithm=algorithm).exists():
        raise ValidationError(_("A card set with this variant, size, seed and algorithm already exists."))
    card_set = CardSet.objects.create(
        variant=chosen.value, size=size, seed=str(seed), algorithm=algorithm, created_by=user
    )
    if size <= INLINE_LIMIT:
        return card_set_generate(card_set_id=card_set.pk)
    # By name: cards/tasks.py imports this module, never the reverse (bingo/common/tasks.py).
    task_enqueue_on_commit(CARD_SET_GENERATE_TASK, card_set.pk)
    return card_set


def card_set_generate(*, card_set_id: int) -> CardSet:
    """Generate, verify and store the cards of a requested set; does nothing if it is ready.

    The row is marked "generating" and committed first so the manager sees it; the engine
    then runs with no lock held; the cards are stored in a second short transaction.
    """
    with transaction.atomic():
        card_set = CardSet.objects.select_for_update().get(pk=card_set_id)
        if card_set.status == CardSet.Status.READY:
            return card_set
        card_set.status, card_set.progress, card_set.error = CardSet.Status.GENERATING, 10, ""
        card_set.save(update_fields=["status", "progress", "error"])

    try:
        generated = generate_card_set(
            card_set.variant_enum, card_set.size, card_set.seed_int, algorithm=card_set.algorithm
        )
        report = verify_cards(
            generated.variant,
            generated.cells,
            strips=generated.strips,
            declared_repeated=generated.repeated_lines,
            declared_fingerprint=generated.fingerprint,
        )
        if not report.ok:  # the independent verifier disagrees with the generator: never store
            violations = "; ".join(str(v) for v in report.violations[:3])
            raise GenerationError(violations, code="verification_failed", params={"violations": violations})
    except GenerationError as exc:
        # Stored for the manager's card-set page, in the language of the request or the worker.
        CardSet.objects.filter(pk=card_set_id).update(
            status=CardSet.Status.FAILED, error=engine_message(exc), progress=0
        )
        card_set.refresh_from_db()
        return card_set
    CardSet.objects.filter(pk=card_set_id).update(progress=80)

    with transaction.atomic():
        card_set = CardSet.objects.select_for_update().get(pk=card_set_id)
        if card_set.status == CardSet.Status.READY:  # another worker finished first
            return card_set
        CardSetCells.objects.update_or_create(
            card_set=card_set, defaults={"cells": generated.cells.tobytes()}
        )
        card_set.fingerprint = generated.fingerprint
        card_set.repeated_lines = generated.repeated_lines
        card_set.status, card_set.progress = CardSet.Status.READY, 100
        card_set.generated_at = timezone.now()
        card_set.save(update_fields=["fingerprint", "repeated_lines", "status", "progress", "generated_at"])
    return card_set


@dataclass(frozen=True)
class Comparison:
    """The inspector's check of a stored card set against a fresh regeneration from its seed."""

    recorded_fingerprint: str
    stored_fingerprint: str
    regenerated_fingerprint: str
    differing_cards: tuple[int, ...]

    @property
    def matches(self) -> bool:
        return (
            self.recorded_fingerprint == self.stored_fingerprint == self.regenerated_fingerprint
            and not self.differing_cards
        )


def card_set_regenerate_compare(*, card_set: CardSet) -> Comparison:
    """Regenerate ``card_set`` from (variant, size, seed, algorithm) and compare it card by card
    with the stored cards and the recorded fingerprint."""
    if card_set.status != CardSet.Status.READY:
        raise ValidationError(_("This card set has no stored cards yet."))
    stored = card_set_cells(card_set)
    fresh = generate_card_set(
        card_set.variant_enum, card_set.size, card_set.seed_int, algorithm=card_set.algorithm
    )
    differing = np.flatnonzero(
        np.any(stored.reshape(card_set.size, -1) != fresh.cells.reshape(card_set.size, -1), axis=1)
    )
    stored_set = EngineCardSet(
        variant=card_set.variant_enum,
        seed=card_set.seed_int,
        algorithm=card_set.algorithm,
        cells=stored,
        repeated_lines=card_set.repeated_lines,
    )
    return Comparison(
        recorded_fingerprint=card_set.fingerprint,
        stored_fingerprint=stored_set.fingerprint,
        regenerated_fingerprint=fresh.fingerprint,
        differing_cards=tuple(int(i) + 1 for i in differing),
    )


def _colour(value: str, label: str) -> str:
    colour = value.strip().upper()
    if not colour.startswith("#"):
        colour = "#" + colour
    if not re.fullmatch(COLOUR_PATTERN, colour):
        raise ValidationError(_("%(label)s must be a colour like #1E88E5.") % {"label": label})
    return colour


def series_create(
    *,
    hall: Hall,
    order_number: int,
    card_set: CardSet,
    price: Decimal | str,
    back_colour: str,
    face_colour: str,
    authorization: str = "",
    double: bool = False,
    online: bool = False,
    user: User | None,
) -> Series:
    """Create a series of ``card_set`` in ``hall`` (R3, R16-R19); ValidationError says what is wrong.
    ``online``: set aside for the hall's online rooms (R85), never sold at its desks."""
    errors: dict[str, str] = {}
    if card_set.status != CardSet.Status.READY:
        errors["card_set"] = _("The card set is not ready yet.")
    try:
        amount = Decimal(str(price))
        if not amount.is_finite() or amount <= 0 or amount != amount.quantize(Decimal("0.01")):
            raise InvalidOperation
    except (InvalidOperation, ValueError):
        errors["price"] = _("The price must be an amount above zero with at most two decimals.")
    else:
        if amount > bounds.CARD_PRICE_MAX:
            errors["price"] = _("A card's price is at most %(max)s.") % {"max": bounds.CARD_PRICE_MAX}
    if not isinstance(order_number, int) or order_number <= 0:
        errors["order_number"] = _("The order number must be a whole number above zero.")
    elif order_number > bounds.SERIES_ORDER_NUMBER_MAX:
        errors["order_number"] = _("The order number is at most %(n)d.") % {
            "n": bounds.SERIES_ORDER_NUMBER_MAX
        }
    elif Series.objects.filter(hall=hall, order_number=order_number).exists():
        errors["order_number"] = _("This hall already has a series with order number %(n)d.") % {
            "n": order_number
        }
    letter = next((k for k, v in SERIES_SIZES.items() if v == card_set.size), "")
    authorization = authorization.strip()
    if not letter and not authorization:
        # R19: sizes other than A-K need the regulator's authorization.
        errors["authorization"] = _(
            "A series of %(n)d cards is not a standard size (R16): "
            "give the reference of its authorization (R19)."
        ) % {"n": card_set.size}
    colours = {}
    for field, label in (("back_colour", _("The back colour")), ("face_colour", _("The face colour"))):
        try:
            colours[field] = _colour(back_colour if field == "back_colour" else face_colour, label)
        except ValidationError as exc:
            errors[field] = exc.messages[0]
    if errors:
        raise ValidationError(errors)
    try:
        with transaction.atomic():
            return Series.objects.create(
                hall=hall,
                order_number=order_number,
                size_letter=letter,
                authorization=authorization,
                card_set=card_set,
                size=card_set.size,
                price=amount,
                double=double,
                online=online,
                created_by=user,
                **colours,
            )
    except IntegrityError:
        raise ValidationError(
            {
                "order_number": _("This hall already has a series with order number %(n)d.")
                % {"n": order_number}
            }
        ) from None


def series_create_with_new_card_set(
    *,
    variant: str,
    size: int,
    hall: Hall,
    order_number: int,
    price: Decimal | str,
    back_colour: str,
    face_colour: str,
    authorization: str = "",
    double: bool = False,
    online: bool = False,
    user: User | None,
) -> Series:
    """Generate a new card set (drawn seed) and a series from it in one transaction: both or neither."""
    with transaction.atomic():
        card_set = card_set_request(variant=variant, size=size, algorithm=ALGORITHM_CARDS, user=user)
        return series_create(
            hall=hall,
            order_number=order_number,
            card_set=card_set,
            price=price,
            back_colour=back_colour,
            face_colour=face_colour,
            authorization=authorization,
            double=double,
            online=online,
            user=user,
        )


def series_retire(*, series: Series) -> Series:
    """Take a series out of use: no more sales from it, from this moment. Retiring twice is refused.

    A series on sale in a game stops selling at once (a stolen or misprinted run must not sell
    one card more), while the cards sold stay valid and play: the game keeps its link to the
    series, so closing its sales still announces them (R40). The series row lock orders the
    retirement with the sales, which take the same lock (R36); on PostgreSQL a trigger refuses
    any sale of a retired series.
    """
    with transaction.atomic():
        # FOR NO KEY UPDATE, as every lock of a series (docs/architecture.md, "Lock order").
        locked = Series.objects.select_for_update(no_key=True).get(pk=series.pk)
        if locked.status == Series.Status.RETIRED:
            raise ValidationError(_("This series is already retired."))
        locked.status = Series.Status.RETIRED
        locked.retired_at = timezone.now()
        locked.save(update_fields=["status", "retired_at"])
    return locked
