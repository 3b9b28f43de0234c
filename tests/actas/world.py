"""A hall where every kind of audited action happened once, by named people."""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal

from axes.models import AccessFailureLog, AccessLog
from django.utils import timezone

from bingo.ballsets import services as ballset_services
from bingo.common.roles import Role
from bingo.draw import services as draw_services
from bingo.games import services
from bingo.jackpot import services as jackpot_services
from bingo.models import DrawMode, Game
from cards import selectors as card_selectors
from halls.models import StaffMembership
from tests.draw.test_services import Draw, all_numbers
from tests.factories import UserFactory


class AuditedHall(Draw):
    """A hall with a manager, caller, cashier and inspector, where a game was sold, drawn, won and
    paid, another suspended, resumed and annulled, a session closed, a ball replaced, the jackpot
    seeded, and the staff logged in, out and wrongly."""

    def __init__(self, name: str = "Sala Praia") -> None:
        super().__init__(name=name, jackpot_active=True)
        slug = name.lower().replace(" ", "-")
        self.manager = UserFactory(username=f"gerente-{slug}", first_name="Maria", last_name="Gerente")
        self.inspector = UserFactory(username=f"inspector-{slug}", roles=[Role.INSPECTOR])
        for user, role in ((self.manager, Role.MANAGER), (self.inspector, Role.INSPECTOR)):
            StaffMembership.objects.create(hall=self.hall, user=user, role=role.value)
        jackpot_services.jackpot_configure(hall=self.hall, base_value=Decimal("1000"))
        jackpot_services.jackpot_seed(hall=self.hall, amount=Decimal("1000"), user=self.manager)

        # A game sold in two requests, drawn to its bingo, its prizes paid.
        series = self.series(1)
        self.won = services.game_create(session=self.session, variant="90")
        services.game_open_sales(game=self.won, series=[series], user=self.manager)
        self.sell(self.won, 6)
        self.sell(self.won, 4)
        services.game_close_sales(game=self.won, user=self.manager)
        draw_services.game_start_draw(
            game=self.won, user=self.caller, mode=DrawMode.PHYSICAL, ball_set=self.ball_set
        )
        card = self.card(self.won, 5)
        self.key(self.won, *all_numbers(card))
        self.claim(self.won, 5, kind="bingo")
        draw_services.prize_award(game=self.won, user=self.caller, kind="line")
        draw_services.prize_award(game=self.won, user=self.caller, kind="bingo")
        draw_services.prize_pay(
            series=series,
            card_number=5,
            check_code=card_selectors.card_check_code(series=series, number=5),
            cash_desk=self.desk,
            cashier=self.cashier,
        )

        # A game suspended, resumed, suspended again and annulled after 15 minutes (R55).
        self.annulled = services.game_create(session=self.session, variant="90")
        services.game_open_sales(game=self.annulled, series=[self.series(2)], user=self.manager)
        self.sell(self.annulled, 3)
        services.game_close_sales(game=self.annulled, user=self.manager)
        draw_services.game_suspend(game=self.annulled, user=self.caller, reason="monitor failure")
        draw_services.game_resume(game=self.annulled, user=self.manager)
        draw_services.game_suspend(game=self.annulled, user=self.caller, reason="power cut")
        Game.objects.filter(pk=self.annulled.pk).update(suspended_at=timezone.now() - timedelta(minutes=16))
        draw_services.game_annul(game=self.annulled, user=self.manager, reason="power cut, unsolved")

        ballset_services.ball_replace(
            ball_set=self.ball_set, session=self.session, ball_number=7, reason="chipped", user=self.manager
        )
        ballset_services.ball_set_check_record(
            ball_set=self.ball_set, session=self.session, phase="end", user=self.caller
        )
        services.session_close(session=self.session, user=self.manager)

        # Logins (django-axes writes these rows as people log in, out, and fail).
        AccessLog.objects.create(
            username=self.cashier.username, ip_address="10.0.0.5", user_agent="t", http_accept="*/*",
            path_info="/entrar/", session_hash=uuid.uuid4().hex, logout_time=timezone.now(),
        )  # fmt: skip
        AccessFailureLog.objects.create(
            username=self.caller.username, ip_address="10.0.0.6", user_agent="t", http_accept="*/*",
            path_info="/entrar/", locked_out=False,
        )  # fmt: skip
