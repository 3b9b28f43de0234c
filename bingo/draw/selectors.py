"""Reads of the draw: what the hall display and the caller's console show (R13, R28, R42, R46)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.core import signing
from django.db.models import OuterRef, Prefetch, Subquery, Sum
from django.utils import timezone

from bingo.common.money import money_display, quantum_for
from bingo.common.patterns import pattern_shown
from bingo.draw import detection
from bingo.engine import Variant
from bingo.engine.detection import CardCheck, Detector, Winner, card_check
from bingo.engine.draw import ball_label
from bingo.engine.gamestate import annul_from
from bingo.engine.prizes import PrizeKind as EnginePrize
from bingo.engine.prizes import share
from bingo.games import doubles
from bingo.jackpot import selectors as jackpot_selectors
from bingo.models import (
    ENDED_STATES,
    UNDER_WAY_STATES,
    Ball,
    Claim,
    Game,
    GameState,
    Prize,
    PrizeKind,
    PrizeWinner,
    Session,
)
from bingo.sales import selectors as sales_selectors
from cards.selectors import card_set_cells
from halls.models import Room

_DISPLAY_SALT = "bingo.display"

#: R53: the last game is announced in the session's last 10 minutes.
LAST_GAME_NOTICE = timedelta(minutes=10)


def session_last_game_due(*, session: Session, now: datetime | None = None) -> bool:
    """Whether ``session`` is in its last 10 minutes, when the last game is announced (R53)."""
    now = now or timezone.now()
    return session.ended_at is None and now >= session_last_game_from(session=session)


def session_last_game_from(*, session: Session) -> datetime:
    """When ``session``'s last 10 minutes begin (R53): 10 minutes before its scheduled end."""
    return session.scheduled_end - LAST_GAME_NOTICE


def display_token(*, room: Room) -> str:
    """The token in a room's display URL (a TV logs in with nothing else): signed, so it cannot
    be guessed from the room's id, and the same every time, so the TV's link can be bookmarked;
    a new ``DJANGO_SECRET_KEY`` revokes every token."""
    return signing.Signer(salt=_DISPLAY_SALT).sign(str(room.pk))


def display_room_id(token: str) -> int | None:
    """The room a display token opens, or None for a token that is not one of ours."""
    try:
        value = signing.Signer(salt=_DISPLAY_SALT).unsign(token)
    except signing.BadSignature:
        return None
    return int(value) if value.isdigit() else None


def room_current_game(*, room_id: int) -> Game | None:
    """The game a room's display follows: the one drawing, else the latest selling or about to
    draw, else the latest that ended, else the latest planned ("latest": of the latest session,
    then the highest number).

    The display asks after every ball, so the cost must not grow with the games the room has
    played: one query reads the games under way (a handful, through the ``game_under_way``
    index), and only when there are none one more walks the room's sessions newest first to
    the first with a game that ended (``session_room_latest``, ``game_ended_latest``)."""
    # The hall's jackpot comes along for the display (jackpot_state reads it from the hall).
    games = Game.objects.select_related("session__room__hall__jackpot")
    under_way = list(games.filter(session__room_id=room_id, state__in=UNDER_WAY_STATES))
    if under_way:
        drawing = [g for g in under_way if g.state == GameState.DRAWING.value]
        return max(drawing or under_way, key=lambda g: (g.session.starts_at, g.number))
    # Its winners stay up until the next game sells.
    for states in (ENDED_STATES, (GameState.PLANNED.value,)):
        latest_id = _latest_game_id(room_id, states)
        if latest_id is not None:
            return games.get(pk=latest_id)
    return None


def _latest_game_id(room_id: int, states: tuple[str, ...]) -> int | None:
    """The id of the room's latest game in one of ``states``: each session's highest-numbered
    one, sessions newest first, so the first session that has one answers."""
    in_session = Game.objects.filter(session=OuterRef("pk"), state__in=states).order_by("-number")
    latest: int | None = (
        Session.objects.filter(room_id=room_id)
        .annotate(
            last_number=Subquery(in_session.values("number")[:1]),
            last_id=Subquery(in_session.values("pk")[:1]),
        )
        .filter(last_number__isnull=False)
        .order_by("-starts_at", "-last_number")
        .values_list("last_id", flat=True)
        .first()
    )
    return latest


def _balls(game: Game) -> list[int]:
    return list(Ball.objects.filter(game=game).order_by("position").values_list("number", flat=True))


def _card_label(series_label: str, number: int) -> str:
    return f"{series_label} n.º {number}"


def display_state(*, room_id: int) -> dict[str, Any]:
    """Everything a room's display shows, as its websocket message (JSON): every ball drawn on
    the board, the last one large, the ball count (R13), the prizes, the cards sold and the
    jackpot (R9, R29)."""
    game = room_current_game(room_id=room_id)
    # The game comes with its room and hall; a room with no game reads them alone.
    room = (
        game.session.room
        if game is not None
        else Room.objects.select_related("hall__jackpot").get(pk=room_id)
    )
    hall = room.hall
    message: dict[str, Any] = {"type": "display", "hall": hall.name, "room": room.name, "game": None}
    jackpot = jackpot_selectors.jackpot_state(hall=hall, read_with_hall=True)
    message["jackpot"] = {
        "active": jackpot.active,
        "balance": f"{jackpot.balance:.2f}",
        "display": money_display(jackpot.balance, hall.currency),
    }
    if game is None:
        return message
    variant = Variant(game.variant)
    balls = _balls(game)
    board = sales_selectors.game_board_figures(game=game)
    with_cards = Prefetch("cards", queryset=PrizeWinner.objects.select_related("series"))
    awarded = {p.kind: p for p in Prize.objects.filter(game=game).prefetch_related(with_cards)}
    prizes = []
    for prize in board.prizes:
        record = awarded.get(prize.kind.value)
        prizes.append(
            {
                "kind": prize.kind.value,
                "name": str(PrizeKind(prize.kind.value).label),
                "amount": f"{prize.amount:.2f}",
                "display": prize.display,
                "won": record is not None,
                "winners": [_card_label(w.series.label, w.card_number) for w in record.cards.all()]
                if record
                else [],
                "each": money_display(record.amount_each, hall.currency) if record else None,
            }
        )
    if jackpot_prize := awarded.get(PrizeKind.JACKPOT.value):
        # What it paid and to which cards, as the other prizes show their winners.
        winners = ", ".join(_card_label(w.series.label, w.card_number) for w in jackpot_prize.cards.all())
        message["jackpot"]["won"] = f"{money_display(jackpot_prize.total, hall.currency)} · {winners}"
    message["jackpot"]["balls"] = game.session.jackpot_balls if game.jackpot_active else None
    # R53: the last game is announced in the session's last 10 minutes; the TV turns the notice
    # on at ``last_game_from`` itself when no other change brings a new state by then.
    message["last_game"] = session_last_game_due(session=game.session)
    message["last_game_from"] = (
        session_last_game_from(session=game.session).isoformat() if game.session.ended_at is None else None
    )
    message["game"] = {
        "id": game.pk,
        "number": game.number,
        "variant": game.variant,
        "state": game.state,
        "state_name": str(GameState(game.state).label),
        "balls": balls,
        "count": len(balls),
        "last": balls[-1] if balls else None,
        "last_label": ball_label(variant, balls[-1]) if balls else None,
        "size": int(variant.value),
        # R73 b): the pattern the bingo is (None: the full card), drawn beside the prizes.
        "pattern": pattern_shown(game.win_rules),
        "cards_sold": board.cards_sold,
        "total_display": board.total_display,
        "prizes": prizes,
    }
    return message


@dataclass(frozen=True)
class PrizeStatus:
    """One prize of a game as the caller's console shows it."""

    kind: str
    name: str
    awarded: Prize | None
    #: Sold cards holding it now (labels), while it is not awarded: the automatic mode's list.
    holders: tuple[str, ...]
    one_to_go: int


@dataclass(frozen=True)
class ConsoleState:
    """The caller's console: the balls, each prize, who holds what, what may be done next."""

    game: Game
    balls: tuple[Ball, ...]
    labels: tuple[str, ...]
    prizes: tuple[PrizeStatus, ...]
    electronic: bool
    cards_sold: int
    total: Decimal
    #: Prizes validly claimed at the last ball and not yet awarded: the draw waits for them.
    waiting: tuple[str, ...] = ()

    @property
    def next_position(self) -> int:
        return len(self.balls) + 1


@dataclass(frozen=True)
class StateActions:
    """Which changes of R55 and R57 a game allows now; the caller's console and the manager's
    game page offer the same ones (the services refuse the rest)."""

    #: R55: a failure before the first ball suspends the game.
    can_suspend: bool
    #: R55: a suspended game is resumed, or annulled with a full refund.
    suspended: bool
    #: R57: an error announcing the numbers that affects the result annuls the game.
    can_annul_r57: bool
    #: R55: when a suspended game may be annulled if the failure is not solved (None: not suspended).
    annul_from: datetime | None = None


def game_state_actions(*, game: Game, balls_drawn: int) -> StateActions:
    """What may be done to ``game``'s course now, with ``balls_drawn`` balls out (R55, R57)."""
    drawing = game.state == GameState.DRAWING.value
    suspended = game.state == GameState.SUSPENDED.value
    return StateActions(
        can_suspend=game.state == GameState.SALES_CLOSED.value or (drawing and not balls_drawn),
        suspended=suspended,
        can_annul_r57=drawing and bool(balls_drawn),
        annul_from=annul_from(game.suspended_at) if suspended and game.suspended_at else None,
    )


def console_state(*, game: Game) -> ConsoleState:
    """What the caller sees: balls drawn, each prize with its holders (system-detected winners,
    R46) and the cards one number away."""
    game = Game.objects.select_related("session__room__hall").get(pk=game.pk)
    variant = Variant(game.variant)
    balls = tuple(Ball.objects.filter(game=game).order_by("position"))
    awarded = {p.kind: p for p in Prize.objects.filter(game=game).prefetch_related("cards__series")}
    statuses: list[PrizeStatus] = []
    if game.state in (GameState.DRAWING.value, GameState.FINISHED.value):
        rules = detection.game_rules(game)
        labels = {entry.series_id: entry.series.label for entry in game.on_sale.select_related("series")}

        def read(detector: Detector) -> list[tuple[str, tuple[str, ...], int]]:
            found: list[tuple[str, tuple[str, ...], int]] = []
            for prize in rules.prizes:
                if prize.value in awarded:
                    found.append((prize.value, (), 0))
                    continue
                winners = detector.winners(prize)
                found.append(
                    (
                        prize.value,
                        tuple(_card_label(labels.get(w.card.series_id, "?"), w.card.number) for w in winners),
                        detector.one_to_go(prize),
                    )
                )
            return found

        for kind, holders, close in detection.detector_use(game, read):
            statuses.append(PrizeStatus(kind, str(PrizeKind(kind).label), awarded.get(kind), holders, close))
        if jackpot := awarded.get(PrizeKind.JACKPOT.value):
            statuses.append(PrizeStatus(jackpot.kind, str(PrizeKind.JACKPOT.label), jackpot, (), 0))
    sold = game.sales.aggregate(total=Sum("amount"))
    return ConsoleState(
        game=game,
        balls=balls,
        labels=tuple(ball_label(variant, b.number) for b in balls),
        prizes=tuple(statuses),
        electronic=game.draw_mode == "electronic" and game.manual_from_ball is None,
        cards_sold=doubles.cards_in_play(game),
        total=sold["total"] or Decimal(0),
        waiting=claims_waiting(game=game, balls_drawn=len(balls)),
    )


def claims_waiting(*, game: Game, balls_drawn: int) -> tuple[str, ...]:
    """R43, R46: the prizes validly claimed at ball ``balls_drawn`` and not yet awarded. A claim
    stops the draw; it goes on once the prize is awarded to every card holding it now."""
    awarded = Prize.objects.filter(game=game).values("kind")
    kinds = (
        Claim.objects.filter(game=game, outcome=Claim.Outcome.VALID, balls_drawn=balls_drawn)
        .exclude(kind__in=awarded)
        .order_by("pk")
        .values_list("kind", flat=True)
    )
    return tuple(dict.fromkeys(kinds))


def claim_list(*, game: Game) -> list[Claim]:
    """Every claim checked in ``game``, oldest first, with its series and who keyed it in."""
    return list(Claim.objects.filter(game=game).select_related("series", "claimed_by").order_by("pk"))


def prize_kinds_in_order(game: Game) -> list[EnginePrize]:
    """The prizes of ``game`` in the order they are decided (R44: the bingo last)."""
    return list(detection.game_rules(game).prizes)


@dataclass(frozen=True)
class ClaimResult:
    """What the caller sees after keying in a claimed card (R43, R46)."""

    claim: Claim
    #: The card with its marks (None when the card was not sold in this game, or the claim late).
    check: CardCheck | None
    #: Every sold card that holds the prize now, the claimed one included («Mais alguma linha?»).
    holders: tuple[Winner, ...]
    #: Prizes the game must award before this one (R44: the line before the bingo).
    first: tuple[str, ...]

    @property
    def valid(self) -> bool:
        return self.claim.outcome == Claim.Outcome.VALID


def prizes_before(prizes: tuple[EnginePrize, ...], prize: EnginePrize, awarded: set[str]) -> tuple[str, ...]:
    """R44: a game's other prizes are decided before its bingo, which ends it. Whoever holds the
    bingo holds every other combination, so they can always be awarded first."""
    if prize is not EnginePrize.BINGO:
        return ()
    return tuple(p.value for p in prizes if p is not EnginePrize.BINGO and p.value not in awarded)


def claim_answer(*, claim: Claim) -> ClaimResult:
    """The answer to a claim already recorded, as the console shows it again (after a reload):
    the card marked with the balls drawn when it was claimed; while the draw still waits on it,
    every card holding the prize now (R46) and the prizes to award first (R44)."""
    game = claim.game
    rules = detection.game_rules(game)
    check = None
    if claim.outcome in (Claim.Outcome.VALID, Claim.Outcome.FALSE):
        cells = card_set_cells(claim.series.card_set)[claim.card_number - 1]
        balls = _balls(game)[: claim.balls_drawn]
        check = card_check(rules, cells, balls)
    awarded = set(Prize.objects.filter(game=game).values_list("kind", flat=True))
    prize = EnginePrize(claim.kind)
    holders: tuple[Winner, ...] = ()
    current = claim.balls_drawn == Ball.objects.filter(game=game).count()
    if claim.outcome == Claim.Outcome.VALID and current and claim.kind not in awarded:
        holders = detection.detector_use(game, lambda d: d.winners(prize))
    return ClaimResult(claim, check, holders, prizes_before(rules.prizes, prize, awarded))


@dataclass(frozen=True)
class AwardPreview:
    """What confirming a prize now would do, as its confirmation step says: the sold cards
    holding it now share its value in equal parts (R6, R46), and a bingo ends the game (R44).
    The service decides again when it is confirmed (a ball may come in between)."""

    name: str
    holders: tuple[str, ...]
    #: The prize's value with the sales (R7, R10) and each card's share; None when it has none.
    total: Decimal | None
    each: Decimal | None
    ends_game: bool


def prize_award_preview(*, game: Game, kind: str) -> AwardPreview:
    """``AwardPreview`` of prize ``kind`` in ``game`` (read with its session, room and hall) with
    the balls drawn so far; no holders when the game is not drawing or has no such prize."""
    name = str(PrizeKind(kind).label)
    prize = next((p for p in detection.game_rules(game).prizes if p.value == kind), None)
    if prize is None or game.state != GameState.DRAWING.value:
        return AwardPreview(name, (), None, None, ends_game=False)
    labels = {entry.series_id: entry.series.label for entry in game.on_sale.select_related("series")}
    winners = detection.detector_use(game, lambda d: d.winners(prize))
    holders = tuple(_card_label(labels.get(w.card.series_id, "?"), w.card.number) for w in winners)
    board = sales_selectors.game_board_figures(game=game)
    total = next((p.amount for p in board.prizes if p.kind is prize), None)
    each = None
    if total is not None and holders:
        each, _ = share(total, len(holders), quantum_for(game.session.room.hall.currency))
    return AwardPreview(name, holders, total, each, ends_game=prize is EnginePrize.BINGO)
