"""Writes of the draw: starting it, drawing balls, claims, awarding and paying prizes (R42-R52).

Every step locks the game row first, so the caller's console, a second caller and a cashier
paying a prize never interleave: two presses of "draw" produce one ball, a claim is checked
against exactly the balls drawn when it was made, and a prize is awarded once. Balls, claims,
prizes and payments are insert-only records (on PostgreSQL triggers refuse changes).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from actas import services as acta_services
from actas.audit.models import AuditAction
from actas.audit.services import audit_record
from bingo.ballsets import services as ballset_services
from bingo.common.clock import hall_local, hall_zone
from bingo.common.engine_messages import validation_error
from bingo.common.money import quantum_for
from bingo.common.roles import Role
from bingo.draw import detection
from bingo.draw import selectors as draw_selectors
from bingo.draw.selectors import ClaimResult
from bingo.engine import Variant
from bingo.engine.detection import CardCheck, DetectionError, Detector, PrizeRules, Winner
from bingo.engine.draw import DrawError, keyed_ball, next_ball
from bingo.engine.gamestate import GameState, IllegalTransition, annul_check, resume_check, transition
from bingo.engine.payout import tax_withheld
from bingo.engine.prizes import PrizeKind as EnginePrize
from bingo.engine.prizes import prize_amounts, share
from bingo.engine.sales import double_card_halves
from bingo.games import doubles, locks
from bingo.games.services import _move, _plan_from
from bingo.jackpot import services as jackpot_services
from bingo.live import events
from bingo.models import (
    Ball,
    Claim,
    DrawMode,
    Game,
    OnlineRoom,
    Player,
    Prize,
    PrizeKind,
    PrizePayment,
    PrizeWinner,
    Refund,
    Sale,
    WalletEntry,
)
from bingo.players import services as player_services
from cards import selectors as card_selectors
from cards.models import Series
from halls.models import BallSet, CashDesk, Hall
from halls.selectors import staff_has_role

#: The draw's random source: the operating system's CSPRNG (never ``random``). A ball is chosen
#: from the balls left when the caller presses "draw", never from a sequence prepared before.
_RNG = secrets.SystemRandom()


def _locked(game: Game) -> Game:
    # Only the game row (the joined session, room and hall are read, not locked): the lock
    # order's (docs/architecture.md), before the ball sets, the jackpot, the acta and the wallets.
    return locks.game_lock(game_id=game.pk)


def _require_staff(user: User, game: Game, *roles: Role) -> None:
    hall_id = game.session.room.hall_id
    if user.is_superuser or any(staff_has_role(user=user, hall_id=hall_id, role=role) for role in roles):
        return
    raise ValidationError(_("Only the staff of this hall can do that."))


def _audit(game: Game, user: User, action: AuditAction, detail: str = "") -> None:
    # R61: the game row keeps the state and when, not who; the trail records it in this transaction.
    audit_record(user=user, hall_id=game.session.room.hall_id, action=action, game=game, detail=detail)


def game_start_draw(
    *, game: Game, user: User, mode: str = DrawMode.ELECTRONIC, ball_set: BallSet | None = None
) -> Game:
    """Start the draw of ``game`` after its sales closed (R42), electronic or physical.

    A physical draw needs the hall's ball set, checked at the start of the session (R23) and
    under its 2 000 games (R25); an electronic draw may name one as its fallback (R55).
    """
    if mode not in DrawMode.values:
        raise ValidationError(_("Choose an electronic or a physical draw."))
    if mode == DrawMode.PHYSICAL and ball_set is None:
        raise ValidationError(_("A physical draw needs the ball set it is drawn with (R22-R25)."))
    with transaction.atomic():
        game = _locked(game)
        _require_staff(user, game, Role.CALLER)
        # R60: not before the games that ended are in the acta.
        acta_services.acta_require_recorded(game=game)
        _move(game, GameState.DRAWING)
        if ball_set is not None:
            ballset_services.ball_set_use_for_game(ball_set=ball_set, game=game)
        game.draw_mode = mode
        game.drawing_started_at = timezone.now()
        game.save(update_fields=["state", "draw_mode", "drawing_started_at"])
        _audit(game, user, AuditAction.DRAW_STARTED, detail=mode)
        transaction.on_commit(lambda: events.game_changed(game.pk))
    return game


def game_draw_ball(*, game: Game, user: User, position: int, number: int | None = None) -> Ball:
    """Draw ball number ``position`` of ``game`` (1 for the first): chosen by the system in an
    electronic draw, keyed in from the blower otherwise (and after R55's switch to manual).

    ``position`` makes the press idempotent: if that ball is already out (a second caller, a
    retried request) it is returned and nothing else is drawn. The ball is stored before
    anyone sees it; displays hear of it after commit.
    """
    if isinstance(position, bool) or not isinstance(position, int) or position < 1:
        raise ValidationError(_("Say which ball this is: 1 for the first."))
    with transaction.atomic():
        game = _locked(game)
        _require_staff(user, game, Role.CALLER)
        drawn = list(game.balls.order_by("position").values_list("number", flat=True))
        if position <= len(drawn):
            existing = game.balls.get(position=position)
            if number is not None and number != existing.number:
                raise ValidationError(
                    _("Ball %(position)d was already drawn: %(number)d.")
                    % {"position": position, "number": existing.number}
                )
            return existing
        if game.state != GameState.DRAWING.value:
            raise ValidationError(_("Game %(n)d is not drawing.") % {"n": game.number})
        if position != len(drawn) + 1:
            raise ValidationError(
                _("Ball %(asked)d cannot come before ball %(next)d.")
                % {"asked": position, "next": len(drawn) + 1}
            )
        if draw_selectors.claims_waiting(game=game, balls_drawn=len(drawn)):
            # R43: a claim stops the draw; R46: it resumes once the prize is awarded to every
            # card holding it now, so no later ball can add winners to it.
            raise ValidationError(
                _("A valid claim is waiting: award the prize before the next ball (R43, R46).")
            )
        variant = Variant(game.variant)
        electronic = game.draw_mode == DrawMode.ELECTRONIC and game.manual_from_ball is None
        try:
            if electronic:
                if number is not None:
                    raise ValidationError(_("In an electronic draw the system draws the ball."))
                number = next_ball(variant, drawn, _RNG)
            else:
                if number is None:
                    raise ValidationError(_("Key in the number of the ball from the blower."))
                number = keyed_ball(variant, drawn, number)
        except DrawError as exc:
            raise validation_error(exc) from None
        ball = Ball.objects.create(
            game=game,
            position=position,
            number=number,
            source=Ball.Source.ELECTRONIC if electronic else Ball.Source.MANUAL,
            drawn_by=user,
            drawn_at=timezone.now(),
        )
        # After every ball: the game's room came with its row, the event need not look it up.
        transaction.on_commit(lambda: events.game_changed(game.pk, game.session.room_id))
    return ball


def game_switch_to_manual(*, game: Game, user: User, reason: str) -> Game:
    """The electronic mechanism failed after the first ball: the game goes on by manual
    extraction (R55), from the next ball; the reason is recorded."""
    reason = reason.strip()
    if not reason:
        raise ValidationError(_("Say what failed."))
    with transaction.atomic():
        game = _locked(game)
        _require_staff(user, game, Role.CALLER)
        if game.state != GameState.DRAWING.value or game.draw_mode != DrawMode.ELECTRONIC:
            raise ValidationError(_("Only an electronic draw under way can switch to manual extraction."))
        if game.manual_from_ball is not None:
            return game
        drawn = game.balls.count()
        if drawn == 0:
            raise ValidationError(_("Before the first ball a failure suspends the game (R55)."))
        game.manual_from_ball = drawn + 1
        game.state_reason = reason
        game.save(update_fields=["manual_from_ball", "state_reason"])
        # R61 l): the failure and the switch go into the acta with who and when.
        acta_services.acta_failure_record(
            game=game, user=user, failure=reason, manual_from_ball=game.manual_from_ball
        )
        _audit(game, user, AuditAction.MANUAL_SWITCH, detail=reason)
        transaction.on_commit(lambda: events.game_changed(game.pk))
    return game


def _prize_of(game: Game, kind: str) -> tuple[PrizeRules, EnginePrize]:
    """The game's rules and the prize ``kind`` names; refused if the game does not pay it."""
    rules = detection.game_rules(game)
    if kind not in [p.value for p in rules.prizes]:
        raise ValidationError(_("This game does not pay that prize."))
    return rules, EnginePrize(kind)


def claim_check(*, game: Game, user: User, series: Series, card_number: int, kind: str) -> ClaimResult:
    """Check a claimed card against this game's balls (R43, R49) and record the claim, valid or
    not. A valid claim lists every sold card holding the same prize now (R46); a claim for a
    prize already awarded, or after the game ended, is recorded as late (R47)."""
    if (
        isinstance(card_number, bool)
        or not isinstance(card_number, int)
        or not 1 <= card_number <= series.size
    ):
        raise ValidationError(_("Series %(s)s has cards 1 to %(n)d.") % {"s": series.label, "n": series.size})
    with transaction.atomic():
        game = _locked(game)
        _require_staff(user, game, Role.CALLER)
        if game.state not in (GameState.DRAWING.value, GameState.FINISHED.value):
            raise ValidationError(_("Game %(n)d is not drawing.") % {"n": game.number})
        rules, prize = _prize_of(game, kind)
        awarded = set(game.prizes.values_list("kind", flat=True))
        late = kind in awarded or game.state == GameState.FINISHED.value

        def look(detector: Detector) -> tuple[int, CardCheck | None, tuple[Winner, ...]]:
            if late:
                return detector.count, None, ()
            try:
                check = detector.card_check(series.pk, card_number)
            except DetectionError:  # not sold in this game
                return detector.count, None, ()
            holds = check.prize(prize).holds
            return detector.count, check, detector.winners(prize) if holds else ()

        balls, check, holders = detection.detector_use(game, look)
        if late:
            outcome = Claim.Outcome.LATE
        elif check is None:
            outcome = Claim.Outcome.NOT_SOLD
        elif holders:
            outcome = Claim.Outcome.VALID
        else:
            outcome = Claim.Outcome.FALSE
        claim = Claim.objects.create(
            game=game,
            kind=kind,
            series=series,
            card_number=card_number,
            balls_drawn=balls,
            outcome=outcome,
            claimed_by=user,
        )
        first = draw_selectors.prizes_before(rules.prizes, prize, awarded)
    return ClaimResult(claim, check, holders, first)


def prize_award(*, game: Game, user: User, kind: str) -> Prize:
    """Award prize ``kind`` to every sold card that holds it with the balls drawn so far (R46,
    R49), shared in equal parts (R6); a bingo also decides the jackpot (R9) and ends the game
    (R44). Later claims for it are refused (R47)."""
    with transaction.atomic():
        game = _locked(game)
        _require_staff(user, game, Role.CALLER)
        if game.state != GameState.DRAWING.value:
            raise ValidationError(_("Game %(n)d is not drawing.") % {"n": game.number})
        rules, prize = _prize_of(game, kind)
        awarded = set(game.prizes.values_list("kind", flat=True))
        if kind in awarded:
            raise ValidationError(_("That prize has already been awarded (R47)."))
        if missing := draw_selectors.prizes_before(rules.prizes, prize, awarded):
            raise ValidationError(
                _("Award the %(prizes)s first (R44).")
                % {"prizes": ", ".join(str(PrizeKind(p).label) for p in missing)}
            )
        balls, winners = detection.detector_use(game, lambda d: (d.count, d.winners(prize)))
        if not winners:
            raise ValidationError(_("No card holds that prize yet."))
        hall = game.session.room.hall
        quantum = quantum_for(hall.currency)
        amounts = prize_amounts(
            _plan_from(game.prize_plan),
            doubles.prize_base(game),
            jackpot_active=game.jackpot_active,
            quantum=quantum,
        )
        now = timezone.now()
        record = _award(game, kind, amounts.amount(prize), winners, balls, quantum, user, now)
        if prize is EnginePrize.BINGO:
            _decide_jackpot(game, winners, balls, quantum, user, now)
            _move(game, GameState.FINISHED)
            game.finished_at = now
            game.save(update_fields=["state", "finished_at"])
            # R59-R60: the game is in the acta when it ends, in this transaction, or it does not end.
            acta_services.acta_record_game(game=game, user=user)
            if OnlineRoom.serves(game.session.room_id):
                prize_pay_to_wallets(game=game)  # R97: online, the system pays, now it has ended
        transaction.on_commit(lambda: events.game_changed(game.pk))
    return record


def _award(
    game: Game,
    kind: str,
    total: Decimal,
    winners: tuple[Winner, ...],
    balls: int,
    quantum: Decimal,
    user: User,
    now: datetime,
) -> Prize:
    each, remainder = share(total, len(winners), quantum)
    record = Prize.objects.create(
        game=game,
        kind=kind,
        balls_drawn=balls,
        total=total,
        winners=len(winners),
        amount_each=each,
        remainder=remainder,
        awarded_by=user,
        awarded_at=now,
    )
    PrizeWinner.objects.bulk_create(
        PrizeWinner(
            prize=record,
            series_id=w.card.series_id,
            card_number=w.card.number,
            completed_at_ball=w.completed_at,
            amount=each,
        )
        for w in winners
    )
    return record


def _decide_jackpot(
    game: Game, winners: tuple[Winner, ...], balls: int, quantum: Decimal, user: User, now: datetime
) -> None:
    """R9: a bingo within the session's announced number of balls wins the jackpot, shared by
    the bingo's cards (R6); the jackpot then goes back to its base value (R11)."""
    limit = game.session.jackpot_balls
    if not game.jackpot_active or limit is None:
        return
    # R9, R49: a bingo achieved within the announced balls, whenever it is confirmed.
    within = tuple(w for w in winners if w.completed_at <= limit)
    if not within:
        return
    won = jackpot_services.jackpot_win(hall=game.session.room.hall, game_id=game.pk)
    if won > 0:
        _award(game, PrizeKind.JACKPOT, won, within, balls, quantum, user, now)


def _players_lock(player_ids: list[int] | QuerySet[Any]) -> None:
    """Lock the players' rows (``wallet_post`` locks each one) in the order of their keys, so
    two writes over several wallets never wait for each other (no deadlock): the last rows of
    the lock order (docs/architecture.md), FOR NO KEY UPDATE as ``wallet_post`` takes them."""
    list(
        Player.objects.select_for_update(no_key=True)
        .filter(pk__in=player_ids)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def prize_pay_to_wallets(*, game: Game) -> list[PrizePayment]:
    """R97: pay every share won in ``game`` and not yet paid into the wallet of the player who
    bought the card, with no action by them: gross, the hall's tax withheld (as at the desk),
    net credited. A card sold at a desk is left to be paid there (R50). Paid once: a payment
    per winning card (``PrizePayment.winner`` is one-to-one) and its wallet entry's key.

    Called by ``prize_award`` when the bingo ends an online game, never before: like the desk,
    which pays once the game has ended (R44, R50), so a game annulled after its line (R57, R98)
    refunds every card and pays no prize; and whoever drew the balls, the system or a person
    keying them in after a failure (R55), the winners are paid without asking."""
    paid: list[PrizePayment] = []
    with transaction.atomic():
        hall_id, state = Game.objects.filter(pk=game.pk).values_list("session__room__hall_id", "state").get()
        if state != GameState.FINISHED.value:
            return paid  # R44, R50: prizes are paid once the game has ended, never an annulled one's
        hall = Hall.objects.get(pk=hall_id)
        quantum = quantum_for(hall.currency)
        owed = list(
            PrizeWinner.objects.select_for_update(of=("self",), no_key=True)
            .filter(prize__game=game, payment__isnull=True)
            .order_by("prize_id", "series_id", "card_number")
        )
        sale_game = game.doubles_of_id or game.pk
        sales = [
            Sale.objects.filter(
                game_id=sale_game,
                series_id=winner.series_id,
                first_number__lte=winner.card_number,
                last_number__gte=winner.card_number,
            )
            .select_related("buyer")
            .first()
            for winner in owed
        ]
        # The winners' rows in one order (their keys), as game_refund_all's refunds take them.
        _players_lock([sale.buyer_id for sale in sales if sale is not None and sale.buyer_id is not None])
        for winner, sale in zip(owed, sales, strict=True):
            if sale is None or sale.buyer is None:
                continue  # a hall's card: paid at a desk against its check code (R50)
            tax = tax_withheld(
                winner.amount, rate=hall.tax_rate, threshold=hall.tax_threshold, quantum=quantum
            )
            payment = PrizePayment.objects.create(
                winner=winner, gross=winner.amount, tax_withheld=tax, net=winner.amount - tax
            )
            if payment.net > 0:
                player_services.wallet_post(
                    player=sale.buyer,
                    kind=WalletEntry.Kind.PRIZE,
                    amount=payment.net,
                    prize_payment=payment,
                    key=f"prize-payment-{payment.pk}",
                )
            paid.append(payment)
    return paid


@dataclass(frozen=True)
class Payout:
    """What the cashier pays for one card: each prize it won, gross, tax withheld and net."""

    payments: tuple[PrizePayment, ...]

    @property
    def net(self) -> Decimal:
        return sum((p.net for p in self.payments), Decimal(0))

    @property
    def gross(self) -> Decimal:
        return sum((p.gross for p in self.payments), Decimal(0))

    @property
    def tax(self) -> Decimal:
        return sum((p.tax_withheld for p in self.payments), Decimal(0))


def prize_pay(
    *, series: Series, card_number: int, check_code: str, cash_desk: CashDesk, cashier: User
) -> Payout:
    """Pay in cash every prize card ``card_number`` of ``series`` won and has not been paid,
    against the card and its check code (R50), once; double cards only after their second game
    (R45). The hall's tax on prizes is withheld and recorded."""
    hall = series.hall
    if cash_desk.hall_id != hall.pk:
        raise ValidationError(_("This cash desk belongs to another hall."))
    if not staff_has_role(user=cashier, hall_id=hall.pk, role=Role.CASHIER):
        raise ValidationError(_("Only a cashier of this hall can pay its prizes."))
    if card_selectors.card_check(series=series, number=card_number, code=check_code) is None:
        raise ValidationError(_("The card number or its check code is wrong."))
    try:
        return _pay(series, card_number, cash_desk, cashier, hall)
    except IntegrityError:
        # Another desk paid this card in the meantime (R50: once): nothing was paid here.
        raise _nothing_to_pay(series, card_number, hall) from None


def _nothing_to_pay(series: Series, card_number: int, hall: Hall) -> ValidationError:
    """The refusal for a card with nothing owed: when and where it was paid, if it was (R50)."""
    paid = (
        PrizePayment.objects.filter(winner__series=series, winner__card_number=card_number)
        .select_related("cash_desk")
        .order_by("-paid_at")
        .first()
    )
    if paid is None:
        return ValidationError(_("This card has no prize to pay."))
    when = hall_local(paid.paid_at, hall)
    if paid.cash_desk is None:
        return ValidationError(
            _("This card's prizes were paid into its online player's wallet on %(date)s at %(time)s (R97).")
            % {"date": when.strftime("%d/%m/%Y"), "time": when.strftime("%H:%M")}
        )
    return ValidationError(
        _("This card's prizes were already paid, on %(date)s at %(time)s at %(desk)s (R50).")
        % {"date": when.strftime("%d/%m/%Y"), "time": when.strftime("%H:%M"), "desk": paid.cash_desk.name}
    )


def _pay(series: Series, card_number: int, cash_desk: CashDesk, cashier: User, hall: Hall) -> Payout:
    with transaction.atomic():
        owed = list(
            PrizeWinner.objects.select_for_update(of=("self",), no_key=True)
            .select_related("prize__game__session")
            .filter(series=series, card_number=card_number, payment__isnull=True)
            .order_by("prize__game_id", "prize_id")
        )
        if not owed:
            raise _nothing_to_pay(series, card_number, hall)
        games = {w.prize.game for w in owed}
        for game in games:
            if game.state != GameState.FINISHED.value:
                raise ValidationError(_("Prizes are paid once the game has ended (R44, R50)."))
            if series.double and not doubles.second_game_over(game):
                raise ValidationError(_("Double cards are paid after their second game (R45)."))
        quantum = quantum_for(hall.currency)
        payments = []
        for winner in owed:
            tax = tax_withheld(
                winner.amount, rate=hall.tax_rate, threshold=hall.tax_threshold, quantum=quantum
            )
            payments.append(
                PrizePayment.objects.create(
                    winner=winner,
                    gross=winner.amount,
                    tax_withheld=tax,
                    net=winner.amount - tax,
                    cash_desk=cash_desk,
                    cashier=cashier,
                )
            )
    return Payout(tuple(payments))


def _refused_on_hall_clock(exc: IllegalTransition, game: Game) -> ValidationError:
    """``exc`` as a service's ValidationError, its times on the clock of ``game``'s hall."""
    with timezone.override(hall_zone(game.session.room.hall)):
        return validation_error(exc)


def game_suspend(*, game: Game, user: User, reason: str) -> Game:
    """Suspend ``game`` for a failure before its first ball (R55), recording why. After the first
    ball a failure does not suspend: the game goes on by manual extraction."""
    reason = reason.strip()
    if not reason:
        raise ValidationError(_("Say what failed."))
    with transaction.atomic():
        game = _locked(game)
        _require_staff(user, game, Role.CALLER, Role.MANAGER)
        if game.state not in (GameState.SALES_CLOSED.value, GameState.DRAWING.value):
            # A game still selling is closed first: its cards are sold and must be accounted for.
            raise ValidationError(_("Only a game whose sales have closed can be suspended (R55)."))
        try:
            game.state = transition(
                GameState(game.state), GameState.SUSPENDED, balls_drawn=game.balls.count()
            ).value
        except IllegalTransition as exc:
            raise validation_error(exc) from None
        game.suspended_at = timezone.now()
        game.state_reason = reason
        game.save(update_fields=["state", "suspended_at", "state_reason"])
        # SPEC §5, R61 l): the suspension and its reason go into the acta.
        acta_services.acta_failure_record(game=game, user=user, failure=reason)
        _audit(game, user, AuditAction.GAME_SUSPENDED, detail=reason)
        transaction.on_commit(lambda: events.game_changed(game.pk))
    return game


def game_resume(*, game: Game, user: User) -> Game:
    """The failure was solved: the suspended game is back to sales closed, ready to draw (R55)."""
    with transaction.atomic():
        game = _locked(game)
        _require_staff(user, game, Role.CALLER, Role.MANAGER)
        if game.state == GameState.SUSPENDED.value and game.suspended_at is not None:
            try:
                # R55: after 15 minutes without a solution its cards are refunded, not played.
                resume_check(suspended_at=game.suspended_at, now=timezone.now())
            except IllegalTransition as exc:
                raise _refused_on_hall_clock(exc, game) from None
        _move(game, GameState.SALES_CLOSED)
        game.save(update_fields=["state"])
        _audit(game, user, AuditAction.GAME_RESUMED)
        transaction.on_commit(lambda: events.game_changed(game.pk))
    return game


def game_annul(*, game: Game, user: User, reason: str) -> Game:
    """Annul ``game`` and refund every card sold in full, recording why: a suspension unsolved
    after 15 minutes (R55), or an error in announcing the numbers that affects the result (R57),
    so once balls are drawn; before the first ball a failure suspends the game first (R55,
    ``bingo.engine.gamestate.annul_check``). A game that sold no card is annulled at once. The
    refund itself is ``game_refund_all``'s, which a system fault calls too (R98)."""
    reason = reason.strip()
    if not reason:
        raise ValidationError(_("Say why the game is annulled."))
    with transaction.atomic():
        game = _locked(game)
        _require_staff(user, game, Role.CALLER, Role.MANAGER)
        try:
            annul_check(
                current=GameState(game.state),
                balls_drawn=game.balls.count(),
                cards_sold=_sales_refunded(game).count(),
                suspended_at=game.suspended_at,
                now=timezone.now(),
            )
        except IllegalTransition as exc:
            raise _refused_on_hall_clock(exc, game) from None
        game = game_refund_all(game=game, user=user, reason=reason)
    return game


def _sales_refunded(game: Game) -> QuerySet[Sale]:
    """The sales an annulment of ``game`` refunds: its own, or, for the second game of double
    cards, those of the first (R15)."""
    return Sale.objects.filter(game_id=game.doubles_of_id or game.pk).order_by("pk")


def _refund_amount(game: Game, sale: Sale) -> Decimal:
    """What ``sale`` gets back: its amount, or, in the second game of double cards, its half of
    their price (R15)."""
    return sale.amount if game.doubles_of_id is None else double_card_halves(sale.amount)[1]


def game_refund_all(*, game: Game, user: User, reason: str) -> Game:
    """The refund core of every annulment: ``game`` is null for ``reason`` and every card sold
    is refunded in full, an online card's stake to its buyer's wallet. Called by ``game_annul``
    (R55, R57) and by a system fault (R98, ``bingo.faults.services.online_game_fault``), each
    having locked ``game`` in the transaction it runs in and checked who may annul it and when
    (R55's wait, R57's balls drawn; a fault: at once, in any state not decided). The jackpot
    gives back this game's contribution (R10): its prize money is refunded. The second game of
    double cards refunds its half of their price (R15)."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("game_refund_all runs inside the transaction that locked the game")
    refunds = [(sale, _refund_amount(game, sale)) for sale in _sales_refunded(game)]
    _move(game, GameState.ANNULLED)
    game.state_reason = reason
    game.finished_at = timezone.now()
    game.save(update_fields=["state", "state_reason", "finished_at"])
    _audit(game, user, AuditAction.GAME_ANNULLED, detail=reason)
    Refund.objects.bulk_create(
        Refund(sale=sale, game=game, amount=amount, reason=reason, created_by=user)
        for sale, amount in refunds
    )
    # R10: its prize money is refunded, so its contribution goes back (never blocking).
    jackpot_services.jackpot_reverse(hall=game.session.room.hall, game_id=game.pk)
    # R61 i): the annulment, its reason and the refunds are in the acta, in this transaction.
    acta_services.acta_record_game(game=game, user=user)
    # R98: an online card's stake goes back to its buyer's wallet, in this transaction and
    # once (a refund per sale, a wallet entry per refund). The wallets last, their rows
    # locked first in one order (their keys): as a bingo takes them (game, jackpot, acta,
    # then the winners' wallets) and whatever the order of the sales, or two writes over
    # the same players wait for each other and one fails (a deadlock).
    _players_lock(Refund.objects.filter(game=game, sale__buyer__isnull=False).values("sale__buyer_id"))
    for refund in Refund.objects.filter(game=game, sale__buyer__isnull=False).select_related("sale__buyer"):
        buyer = refund.sale.buyer
        assert buyer is not None
        player_services.wallet_post(
            player=buyer, kind="refund", amount=refund.amount, refund=refund, key=f"refund-{refund.pk}"
        )
    transaction.on_commit(lambda: events.game_changed(game.pk))
    return game
