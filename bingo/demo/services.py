"""Writes of demo mode (R102, PT-803/43-44, PT-806/74-75): free demo credits, demo games and
their prizes, which are only more free play.

Demo credits live in their own insert-only ledger (``DemoCreditEntry``), written only by
``demo_credit_post``; nothing here touches the wallet, the sales, the series, the draw's records,
the actas or the jackpot, and nothing converts demo credits to money, vouchers or goods. A demo
game mirrors an online room (variant, pace, prize plan, 75-ball pattern) and plays with the engine
(``bingo.engine.demo``): cards generated for it, every ball drawn at its start with ``secrets``
and shown as its time comes, winners found by ``card_check``, winnings credited once.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from bingo.demo.selectors import (
    DEMO_CARD_PRICE,
    DEMO_GRANT,
    DEMO_MAX_CARDS,
    DEMO_OTHER_CARDS,
    demo_game_over,
    demo_grant_status,
)
from bingo.draw.detection import rules_json
from bingo.engine import Variant, generate_card_set, grid_of
from bingo.engine.demo import demo_draw, demo_outcome
from bingo.engine.draw import Chooser
from bingo.games.services import game_plan_check
from bingo.models import DemoCreditEntry, DemoGame, OnlineRoom, Player

#: The longest key a client may send when it starts a demo game.
KEY_MAX = 40


class DemoKeyConflictError(ValidationError):
    """The key was already used for another demo movement or game; nothing was written."""


def _lock(player: Player) -> None:
    # The player's row, as the wallet locks it: one movement of a player's credits at a time.
    Player.objects.select_for_update(no_key=True).filter(pk=player.pk).values_list("pk").get()


def demo_credit_post(
    *,
    player: Player,
    kind: str,
    credits: int,
    key: str,
    game: DemoGame | None = None,
    now: datetime | None = None,
) -> DemoCreditEntry:
    """Write one movement of ``player``'s demo credits (R102): ``credits`` (whole, above 0)
    added for a grant or a win, taken for a stake; refused, changing nothing, below zero. Only
    the demo ledger's kinds exist here: no deposit, withdrawal, transfer or conversion. The same
    ``key`` again returns the first entry; for another movement it is refused."""
    if isinstance(credits, bool) or not isinstance(credits, int) or credits <= 0:
        raise ValidationError(_("Demo credits are whole numbers above zero."))
    if kind not in DemoCreditEntry.Kind.values:
        raise ValidationError(_("Demo credits are only granted, staked on demo cards and won in demo games."))
    if not key:
        raise ValidationError(_("A demo movement needs a key."))
    signed = credits if kind in DemoCreditEntry.CREDITS else -credits
    with transaction.atomic():
        _lock(player)
        done = DemoCreditEntry.objects.filter(player=player, key=key).first()
        if done is not None:
            if done.kind != kind or done.credits != signed or done.game_id != (game.pk if game else None):
                raise DemoKeyConflictError({"key": [_("This key was used for another demo movement.")]})
            return done
        last = (
            DemoCreditEntry.objects.filter(player=player)
            .order_by("-seq")
            .values_list("seq", "balance_after")
            .first()
        )
        seq, balance = last if last is not None else (0, 0)
        if balance + signed < 0:
            raise ValidationError(
                _("You have %(balance)d demo credits; %(credits)d cannot be staked.")
                % {"balance": balance, "credits": credits}
            )
        return DemoCreditEntry.objects.create(
            player=player,
            seq=seq + 1,
            kind=kind,
            credits=signed,
            balance_after=balance + signed,
            game=game,
            key=key,
            created_at=now or timezone.now(),
        )


def demo_credit_grant(*, player: Player, now: datetime | None = None) -> DemoCreditEntry:
    """Free demo credits (R102, PT-803/44: the only prize is the free extension of play): given
    when the balance cannot pay a demo card, at most once an hour; refused otherwise, saying why."""
    now = now or timezone.now()
    with transaction.atomic():
        _lock(player)
        status = demo_grant_status(player=player, now=now)
        if not status.allowed:
            raise ValidationError(status.reason)
        grants = DemoCreditEntry.objects.filter(player=player, kind=DemoCreditEntry.Kind.GRANT).count()
        return demo_credit_post(
            player=player, kind="grant", credits=DEMO_GRANT, key=f"grant:{grants + 1}", now=now
        )


def demo_game_start(
    *,
    player: Player,
    online_room: OnlineRoom,
    cards: int,
    key: str,
    now: datetime | None = None,
    rng: Chooser | None = None,
    seed: int | None = None,
) -> DemoGame:
    """Start a demo game mirroring ``online_room`` (its variant, its pace, never under 1 s (R88),
    its prize plan and its 75-ball pattern, R73 b)) with ``cards`` of the player's demo cards,
    staked in demo credits, against ``DEMO_OTHER_CARDS`` simulated cards. The cards are generated
    for the game and every ball is drawn now with ``secrets`` (``rng``/``seed`` for tests) and
    shown as its time comes; the winners are the engine's. The same ``key`` again returns the
    first game. No real card, sale, ball, prize, acta entry, jackpot or wallet entry is made
    (R102)."""
    now = now or timezone.now()
    key = (key or "").strip()
    if not 1 <= len(key) <= KEY_MAX:
        raise ValidationError({"key": [_("Give a key of 1 to %(n)d characters.") % {"n": KEY_MAX}]})
    if isinstance(cards, bool) or not isinstance(cards, int) or not 1 <= cards <= DEMO_MAX_CARDS:
        raise ValidationError({"cards": [_("Play 1 to %(n)d demo cards.") % {"n": DEMO_MAX_CARDS}]})
    if online_room.room.hall_id != player.hall_id or not online_room.active:
        raise ValidationError(_("This room is not open for demo play."))
    with transaction.atomic():
        _lock(player)
        done = DemoGame.objects.filter(player=player, key=key).first()
        if done is not None:
            if done.online_room_id != online_room.pk or done.cards_mine != cards:
                raise DemoKeyConflictError({"key": [_("This key was used for another demo game.")]})
            return done
        # The room's pattern as it is now (R73 b)): a demo plays what the room's next game plays.
        pattern_key, pattern = online_room.pattern_choice()
        variant, plan, rules = game_plan_check(
            variant=online_room.variant,
            prize_plan=online_room.prize_plan or None,
            jackpot_active=False,
            pattern=pattern,
            pattern_key=pattern_key,
        )
        total = cards + DEMO_OTHER_CARDS
        card_set = generate_card_set(Variant(variant), total, seed)
        drum = demo_draw(Variant(variant), rng or secrets.SystemRandom())
        outcome = demo_outcome(rules, plan, list(card_set.cells), drum, DEMO_CARD_PRICE)
        game = DemoGame.objects.create(
            player=player,
            online_room=online_room,
            variant=variant.value,
            prize_plan={kind.value: str(share) for kind, share in plan.shares},
            win_rules=rules_json(rules),
            ball_interval=online_room.ball_interval,
            card_price=DEMO_CARD_PRICE,
            cards=[grid_of(card) for card in card_set.cells],
            cards_mine=cards,
            balls=list(outcome.balls),
            results=[
                {
                    "kind": p.prize.value,
                    "amount": int(p.amount),
                    "at": p.at,
                    "winners": list(p.winners),
                    "each": int(p.each),
                }
                for p in outcome.prizes
            ],
            winnings=int(outcome.won_by(range(cards))),
            started_at=now,
            key=key,
        )
        # The stake: refused (and the game with it) when the demo credits do not cover it.
        demo_credit_post(
            player=player,
            kind="stake",
            credits=cards * DEMO_CARD_PRICE,
            key=f"stake:{game.pk}",
            game=game,
            now=now,
        )
    return game


def demo_game_settle(*, game: DemoGame, now: datetime | None = None) -> DemoCreditEntry | None:
    """Credit a finished demo game's winnings to the demo ledger, once (R97 in demo: the system
    pays, the player does nothing). None while balls are still to be shown, with nothing won, or
    when it was settled already (every read of a finished game comes here: no lock then)."""
    now = now or timezone.now()
    if game.settled_at is not None or not demo_game_over(game=game, now=now):
        return None
    with transaction.atomic():
        # The player's row first, then the game's: the order every demo write takes.
        player = Player.objects.get(pk=game.player_id)
        _lock(player)
        locked = DemoGame.objects.select_for_update().get(pk=game.pk)
        entry = None
        if locked.winnings > 0:
            entry = demo_credit_post(
                player=player,
                kind="win",
                credits=locked.winnings,
                key=f"win:{locked.pk}",
                game=locked,
                now=now,
            )
        if locked.settled_at is None:
            locked.settled_at = now
            locked.save(update_fields=["settled_at"])
    game.settled_at = locked.settled_at
    return entry
