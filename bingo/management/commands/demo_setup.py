"""Create the demo accounts: one user per role plus an ``admin`` superuser, with known passwords,
and a demo hall (a room, a cash desk) where each staff account works in its role.

Access is per hall (halls/selectors.py): without a membership in a hall the demo manager would
manage nothing and the demo cashier sell nothing, so the demo hall gives them one.
Idempotent: running it again resets the same accounts to the same passwords and roles, and
gives back any role in the demo hall that was taken away.
Refuses to run with DEBUG off unless ``--force``: known passwords must never reach production.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.db.models import Max
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from bingo.common.roles import STAFF_ROLES, Role, user_roles_set
from bingo.demohall.services import DemoPlay, DemoStaff, demo_bots_ensure, demo_hall_play_ensure
from bingo.engine import ALGORITHM_CARDS
from bingo.models import OnlineRoom, Player, RoomMode
from bingo.online import services as online_services
from bingo.players.services import player_email_mark_verified, wallet_post
from cards import services as card_services
from cards.models import Series
from halls import services as hall_services
from halls.models import Hall, StaffMembership


@dataclass(frozen=True)
class DemoAccount:
    username: str
    password: str
    role: Role | None  # None: the superuser, who holds no role

    @property
    def path(self) -> str:
        return reverse(self.role.dashboard_url_name) if self.role else reverse("admin:index")


DEMO_ACCOUNTS: tuple[DemoAccount, ...] = (
    DemoAccount("gerente", "gerente-demo", Role.MANAGER),
    DemoAccount("caixa", "caixa-demo", Role.CASHIER),
    DemoAccount("locutor", "locutor-demo", Role.CALLER),
    DemoAccount("inspetor", "inspetor-demo", Role.INSPECTOR),
    DemoAccount("jogador", "jogador-demo", Role.PLAYER),
    DemoAccount("admin", "admin-demo", None),
)

DEMO_HALL = "Sala de demonstração"
DEMO_ROOM = "Salão 1"
DEMO_DESK = "Caixa 1"


@transaction.atomic
def demo_accounts_ensure() -> None:
    """Create or reset every demo account to its known password and role."""
    user_model = get_user_model()
    for account in DEMO_ACCOUNTS:
        user, _created = user_model.objects.get_or_create(username=account.username)
        user.is_active = True
        user.is_staff = account.role is None
        user.is_superuser = account.role is None
        user.set_password(account.password)
        user.save()
        user_roles_set(user=user, roles=[account.role] if account.role else [])


@transaction.atomic
def demo_hall_ensure() -> Hall:
    """The demo hall with a room and a cash desk, and every demo staff account in its role there."""
    hall = Hall.objects.filter(name=DEMO_HALL).first() or hall_services.hall_create(name=DEMO_HALL)
    if not hall.rooms.exists():
        hall_services.room_create(hall=hall, name=DEMO_ROOM)
    if not hall.cash_desks.exists():
        hall_services.cash_desk_create(hall=hall, name=DEMO_DESK)
    user_model = get_user_model()
    for account in DEMO_ACCOUNTS:
        if account.role is None or account.role not in STAFF_ROLES:
            continue
        user = user_model.objects.get(username=account.username)
        if not StaffMembership.objects.filter(hall=hall, user=user, role=account.role.value).exists():
            hall_services.staff_assign(hall=hall, user=user, role=account.role)
    return hall


DEMO_ONLINE_ROOM = "Sala online"
#: What the demo player's wallet holds after the demo's deposit.
DEMO_CREDIT = Decimal("1000.00")


@transaction.atomic
def demo_online_ensure(hall: Hall) -> Player:
    """The demo hall's online room (continuous, R90) with two online series of 90-ball cards
    ready (R85), and the demo player registered there with credit in the wallet, deposited by
    the demo cashier (identity document "demo")."""
    online_series = Series.objects.filter(hall=hall, online=True)
    if not online_series.exists():
        card_set = card_services.card_set_request(
            variant="90", size=840, algorithm=ALGORITHM_CARDS, user=None
        )
        first = (Series.objects.filter(hall=hall).aggregate(n=Max("order_number"))["n"] or 0) + 1
        for order in (first, first + 1):
            card_services.series_create(
                hall=hall, order_number=order, card_set=card_set, price=Decimal("50"),
                back_colour="#2E7D32", face_colour="#FDD835", online=True, user=None,
            )  # fmt: skip
    # After its series: a continuous room is opened only with something to sell (R90).
    if not OnlineRoom.objects.filter(room__hall=hall).exists():
        online_services.online_room_create(
            hall=hall, name=DEMO_ONLINE_ROOM, mode=RoomMode.CONTINUOUS, ball_interval=Decimal("4")
        )
    user = get_user_model().objects.get(username="jogador")
    player = Player.objects.filter(user=user).first() or Player.objects.create(
        user=user, hall=hall, birth_date=date(1990, 1, 1), adult_confirmed_at=timezone.now()
    )
    player_email_mark_verified(player=player)  # the demo's address: no mailbox (issue 25)
    cashier = get_user_model().objects.get(username="caixa")
    wallet_post(
        player=player,
        kind="deposit",
        amount=DEMO_CREDIT,
        key="demo-credit",
        recorded_by=cashier,
        reference="demo",
    )
    return player


def _try_first(account: DemoAccount, play: DemoPlay) -> str:
    """What the demo holds for ``account`` to try first, as the logins table says it."""
    ready, selling = play.ready_to_draw, play.selling
    if account.role == Role.MANAGER:
        return _("add a game to a session and open its sales; read the finished session's results")
    if account.role == Role.CASHIER:
        return _("sell cards of game %(game)s in %(room)s; pay the prize due (below) by its QR code") % {
            "game": selling.number,
            "room": selling.session.room.name,
        }
    if account.role == Role.CALLER:
        return _("draw game %(game)s in %(room)s, its cards sold") % {
            "game": ready.number,
            "room": ready.session.room.name,
        }
    if account.role == Role.INSPECTOR:
        return _("read the acta of the finished session and check its integrity")
    if account.role == Role.PLAYER:
        return _("buy cards in the online room, where simulated players are buying too")
    return _("the administration site")


class Command(BaseCommand):
    help = "Create the demo accounts (one per role, plus admin) and print their logins."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--force",
            action="store_true",
            help="Run even with DEBUG off. Never on a real system: the passwords are public.",
        )
        parser.add_argument(
            "--base-url",
            default="http://127.0.0.1:8000",
            help="Address printed in front of each page (default: http://127.0.0.1:8000).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        with translation.override(settings.LANGUAGE_CODE):
            if not settings.DEBUG and not options["force"]:
                raise CommandError(
                    _(
                        "DEBUG is off: refusing to create accounts with known passwords. "
                        "Use --force only on a machine that is not in production."
                    )
                )
            demo_accounts_ensure()
            hall = demo_hall_ensure()
            demo_online_ensure(hall)
            demo_bots_ensure(hall=hall)
            users = get_user_model().objects
            play = demo_hall_play_ensure(
                hall=hall,
                staff=DemoStaff(
                    manager=users.get(username="gerente"),
                    cashier=users.get(username="caixa"),
                    caller=users.get(username="locutor"),
                ),
            )
            self.stdout.write(self.style.SUCCESS(_("Demo accounts ready.")))
            self.stdout.write(
                _("Demo hall: %(hall)s. The manager, cashier, caller and inspector work there.")
                % {"hall": hall.name}
            )
            self.stdout.write(
                _("Online room: %(room)s (continuous). Player «jogador» plays at %(url)s with %(credit)s.")
                % {
                    "room": DEMO_ONLINE_ROOM,
                    "url": options["base_url"].rstrip("/") + reverse("online:lobby"),
                    "credit": DEMO_CREDIT,
                }
            )
            self.stdout.write(self.logins_table(options["base_url"].rstrip("/"), play))
            if play.prize_due:
                self.stdout.write(
                    _(
                        "A prize to pay at the desk: scan the card's QR code, or paste what it "
                        "holds into «Pay prizes»: %(payload)s"
                    )
                    % {"payload": play.prize_due}
                )

    def logins_table(self, base_url: str, play: DemoPlay) -> str:
        header = (_("Address"), _("Username"), _("Password"), _("Role"), _("Try first"))
        rows = [
            (
                base_url + account.path,
                account.username,
                account.password,
                str(account.role.label) if account.role else _("superuser (no role)"),
                _try_first(account, play),
            )
            for account in DEMO_ACCOUNTS
        ]
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

        def line(cells: tuple[str, ...]) -> str:
            return "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip()

        rule = "  ".join("-" * width for width in widths)
        return "\n".join([line(header), rule, *(line(row) for row in rows)])
