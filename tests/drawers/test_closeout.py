"""The drawer's close-out (bingo/drawers/): the expected cash is the float plus the sales less
the change, less the prizes paid in cash (R8, R50: net of the tax withheld, R61 g)), plus the
wallets' deposits less their withdrawals at the desk; the counted cash's difference is recorded
by whom and when, and a closed drawer never changes."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone, translation

from actas.audit.selectors import audit_event_list
from bingo.common.db_roles import CLOSED_ONCE
from bingo.draw import services as draw_services
from bingo.drawers import selectors
from bingo.drawers import services as drawer_services
from bingo.games import locks, services
from bingo.models import DrawerShift, Sale, WalletEntry
from bingo.models.drawers import CLOSE_COLUMNS
from halls.models import StaffMembership
from tests.concurrency import postgresql_only, run_threads
from tests.db_roles import as_table_owner
from tests.drawers.walk import FLOAT, Walk
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


@pytest.fixture
def walk(db: None) -> Walk:
    return Walk()


def test_the_close_out_balances_to_the_cent_and_records_the_difference(walk: Walk) -> None:
    shift = walk.open()
    payout = walk.movements()
    assert payout.tax > 0  # the hall withholds 10 % on this prize

    preview = selectors.shift_figures(shift=shift, now=timezone.now())
    expected = FLOAT + Decimal("440") - payout.net + Decimal("900") - Decimal("464")
    assert preview.expected_cash == expected
    closed = drawer_services.drawer_close(
        shift=shift, cashier=walk.cashier, counted_cash=expected - Decimal("3"), note="Three short."
    )

    closed.refresh_from_db()
    figures = {name: getattr(closed, name) for name in ("opening_float", *selectors._FROZEN, "net_sales")}
    assert figures == {
        "opening_float": FLOAT,
        "cash_received": Decimal("500.00"),  # 200 + 300: the two-series request counted once (R38)
        "change_given": Decimal("60.00"),  # 40 + 20
        "net_sales": Decimal("440.00"),  # 160 + 280
        "prizes_gross": payout.gross,
        "tax_withheld": payout.tax,
        "deposits": Decimal("900.00"),
        "withdrawals": Decimal("464.00"),
        "refunds": Decimal("0.00"),
        "counted_cash": expected - 3,
    }
    assert closed.prizes_net == payout.net == payout.gross - payout.tax
    assert closed.expected_cash == expected
    assert closed.over_short == Decimal("-3.00")
    assert closed.closed_by == walk.cashier
    assert closed.closed_at is not None
    assert closed.closed_at >= closed.opened_at
    assert closed.note == "Three short."
    assert (preview.sales, preview.cards, preview.payments) == (2, 11, len(payout.payments))
    assert (preview.deposit_count, preview.withdrawal_count) == (1, 1)


def test_movements_at_another_desk_or_outside_the_window_are_not_counted(walk: Walk) -> None:
    # Before the drawer opens: a sale of ten cards at the desk (the won game) and a deposit.
    walk.wallet("deposit", "700", walk.desk)
    shift = walk.open()
    walk.wallet("deposit", "1000", walk.other_desk)
    walk.wallet("deposit", "50", None)
    walk.wallet("deposit", "30", walk.desk)
    closed = drawer_services.drawer_close(shift=shift, cashier=walk.cashier, counted_cash=FLOAT + 30)

    assert Sale.objects.get(cash_desk=walk.desk).quantity == 10  # sold before the opening
    assert (closed.cash_received, closed.deposits, closed.expected_cash) == (0, 30, FLOAT + 30)
    assert closed.over_short == 0
    # After the close: a withdrawal at the desk is the next drawer's, never this one's.
    walk.wallet("withdrawal", "100", walk.desk)
    closed.refresh_from_db()
    assert closed.withdrawals == 0
    later = selectors.drawer_figures(
        cash_desk=walk.desk, start=closed.closed_at, end=timezone.now() + timedelta(seconds=1)
    )
    assert (later.withdrawals, later.expected_cash) == (Decimal("100.00"), Decimal("-100.00"))


def test_a_second_open_drawer_at_the_same_desk_is_refused(walk: Walk) -> None:
    first = walk.open()
    with pytest.raises(ValidationError, match="already has an open drawer"):
        walk.open(Decimal("100"))
    # Another desk opens its own; the database refuses a second open row as well.
    drawer_services.drawer_open(cash_desk=walk.other_desk, cashier=walk.cashier, opening_float=Decimal("0"))
    with pytest.raises(IntegrityError), transaction.atomic():
        DrawerShift.objects.create(
            cash_desk=walk.desk, opened_by=walk.cashier, opened_at=timezone.now(), opening_float=Decimal("1")
        )
    assert DrawerShift.objects.filter(cash_desk=walk.desk).get() == first
    # Once closed, the desk opens again.
    drawer_services.drawer_close(shift=first, cashier=walk.cashier, counted_cash=FLOAT)
    assert walk.open(Decimal("10")).pk != first.pk


def test_closing_twice_is_refused_and_changes_nothing(walk: Walk) -> None:
    shift = walk.open()
    closed = drawer_services.drawer_close(shift=shift, cashier=walk.cashier, counted_cash=FLOAT)
    with pytest.raises(ValidationError, match="already closed"):
        drawer_services.drawer_close(shift=shift, cashier=walk.cashier, counted_cash=Decimal("1"))
    again = DrawerShift.objects.get(pk=shift.pk)
    assert (again.counted_cash, again.closed_at, again.over_short) == (FLOAT, closed.closed_at, 0)


@pytest.mark.parametrize(
    ("amount", "message"),
    [
        (Decimal("-1"), "cannot be negative"),
        (Decimal("2000000000"), "at most"),
        (Decimal("10.50"), "steps of 1"),  # whole escudos
        (Decimal("NaN"), "as a number"),
    ],
)
def test_bad_amounts_are_refused_and_write_nothing(walk: Walk, amount: Decimal, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        walk.open(amount)
    assert not DrawerShift.objects.exists()
    shift = walk.open()
    with pytest.raises(ValidationError, match=message):
        drawer_services.drawer_close(shift=shift, cashier=walk.cashier, counted_cash=amount)
    assert DrawerShift.objects.get().closed_at is None


def test_only_a_cashier_of_the_desks_hall_opens_and_closes_its_drawer(walk: Walk) -> None:
    other = Walk(name="Sala Mindelo")
    manager = UserFactory(username="gerente")
    StaffMembership.objects.create(hall=walk.hall, user=manager, role="manager")
    for person in (other.cashier, manager):
        with pytest.raises(PermissionDenied):
            drawer_services.drawer_open(cash_desk=walk.desk, cashier=person, opening_float=FLOAT)
    shift = walk.open()
    with pytest.raises(PermissionDenied):
        drawer_services.drawer_close(shift=shift, cashier=other.cashier, counted_cash=FLOAT)
    assert DrawerShift.objects.get().closed_at is None


def test_a_wallet_movement_at_a_desk_of_another_hall_is_refused(walk: Walk) -> None:
    other = Walk(name="Sala Mindelo")
    with pytest.raises(ValidationError, match="another hall"):
        walk.wallet("deposit", "100", other.desk)
    assert not WalletEntry.objects.filter(kind="deposit").exists()


def test_the_app_may_write_exactly_the_columns_the_close_writes() -> None:
    nullable = {f.attname for f in DrawerShift._meta.concrete_fields if f.null or f.name == "note"}
    assert set(CLOSED_ONCE["bingo_drawershift"]) == set(CLOSE_COLUMNS) == nullable


def test_the_database_refuses_figures_that_do_not_add_up(walk: Walk) -> None:
    shift = walk.open()
    closed = drawer_services.drawer_close(shift=shift, cashier=walk.cashier, counted_cash=FLOAT)
    with as_table_owner(), pytest.raises(IntegrityError), transaction.atomic():
        # A new row written closed, its over/short a cent off the count less the expected cash.
        DrawerShift.objects.create(
            **{
                f.attname: getattr(closed, f.attname)
                for f in DrawerShift._meta.concrete_fields
                if f.attname != "id"
            }
            | {"over_short": Decimal("0.01")}
        )


# --- PostgreSQL keeps a closed drawer as it was ---------------------------------------------------


@pytest.mark.postgres
@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE bingo_drawershift SET counted_cash = counted_cash + 1, over_short = over_short + 1 "
        "WHERE id = %s",
        "UPDATE bingo_drawershift SET note = 'changed' WHERE id = %s",
        "DELETE FROM bingo_drawershift WHERE id = %s",
    ],
)
def test_postgresql_refuses_to_change_or_delete_a_closed_drawer(walk: Walk, statement: str) -> None:
    postgresql_only("the triggers are PostgreSQL's")
    shift = walk.open()
    drawer_services.drawer_close(shift=shift, cashier=walk.cashier, counted_cash=FLOAT + 7)
    # As the tables' owner: the app's role is refused by its privileges before (DELETE) or by the
    # trigger (its UPDATE of the close columns); the trigger refuses even the owner.
    with (
        as_table_owner(),
        pytest.raises(IntegrityError, match="never deleted, nor changed once closed"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(statement, [shift.pk])
    kept = DrawerShift.objects.get(pk=shift.pk)
    assert (kept.counted_cash, kept.over_short, kept.note) == (FLOAT + 7, Decimal("7.00"), "")


@pytest.mark.postgres
def test_postgresql_refuses_to_change_an_open_drawers_opening_or_to_delete_it(walk: Walk) -> None:
    postgresql_only("the triggers are PostgreSQL's")
    shift = walk.open()
    for statement in (
        "UPDATE bingo_drawershift SET opening_float = 1 WHERE id = %s",
        "DELETE FROM bingo_drawershift WHERE id = %s",
    ):
        with (
            as_table_owner(),
            pytest.raises(IntegrityError, match="never deleted"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(statement, [shift.pk])
    assert DrawerShift.objects.get(pk=shift.pk).opening_float == FLOAT


@pytest.mark.postgres
def test_the_apps_role_may_close_an_open_drawer_but_not_change_a_closed_one(walk: Walk) -> None:
    postgresql_only("roles exist on PostgreSQL only")
    shift = walk.open()
    drawer_services.drawer_close(shift=shift, cashier=walk.cashier, counted_cash=FLOAT)  # as the app
    with pytest.raises(IntegrityError, match="never deleted"), transaction.atomic(), connection.cursor() as c:
        c.execute("UPDATE bingo_drawershift SET note = 'x' WHERE id = %s", [shift.pk])


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_cashiers_opening_and_closing_one_desk_at_once_make_one_drawer_closed_once() -> None:
    """Real threads: of two opens one wins (the partial unique constraint), of two closes one
    writes (the row lock), the other is refused; nothing fails otherwise."""
    postgresql_only()
    walk = Walk(name="Sala Corrida")
    colleague = UserFactory(username="caixa-2")
    StaffMembership.objects.create(hall=walk.hall, user=colleague, role="cashier")
    refused: list[str] = []

    def attempt(action, *args) -> None:  # type: ignore[no-untyped-def]
        try:
            with translation.override("en"):  # a thread starts in the default language
                action(*args)
        except ValidationError as exc:
            refused.append(exc.messages[0])

    def opening(person) -> None:  # type: ignore[no-untyped-def]
        drawer_services.drawer_open(cash_desk=walk.desk, cashier=person, opening_float=FLOAT)

    run_threads([lambda: attempt(opening, walk.cashier), lambda: attempt(opening, colleague)])
    shift = DrawerShift.objects.get()
    assert len(refused) == 1
    assert "already has an open drawer" in refused[0]

    def closing(person, counted) -> None:  # type: ignore[no-untyped-def]
        drawer_services.drawer_close(shift=shift, cashier=person, counted_cash=counted)

    run_threads(
        [lambda: attempt(closing, walk.cashier, FLOAT), lambda: attempt(closing, colleague, FLOAT + 1)]
    )
    shift.refresh_from_db()
    assert len(refused) == 2
    assert "already closed" in refused[1]
    assert shift.closed_by in (walk.cashier, colleague)
    assert shift.over_short == (0 if shift.closed_by == walk.cashier else 1)


def test_the_audit_trail_shows_who_opened_and_who_closed_the_drawer(walk: Walk) -> None:
    colleague = UserFactory(username="caixa-2", first_name="Bruno", last_name="Silva")
    StaffMembership.objects.create(hall=walk.hall, user=colleague, role="cashier")
    shift = walk.open()
    drawer_services.drawer_close(shift=shift, cashier=colleague, counted_cash=FLOAT - 5)

    rows = audit_event_list(halls=[walk.hall]).rows
    drawer = {row.source: row for row in rows if row.source.startswith("drawer")}
    assert (drawer["draweropen"].user_id, drawer["draweropen"].amount) == (walk.cashier.pk, "5 000 CVE")
    assert drawer["drawerclose"].user_id == colleague.pk
    assert drawer["drawerclose"].who == "Bruno Silva"
    assert "-5 CVE" in drawer["drawerclose"].what


def test_a_refund_of_the_desks_sale_is_cash_out_of_its_drawer(walk: Walk) -> None:
    """R55, R57: the cards of an annulled game are refunded in full; the cash handed back for a
    desk's sale leaves that desk's drawer, and the drawer still balances."""
    shift = walk.open()
    game = walk.game(walk.series(next(walk._orders), price="40.00"))
    walk.sell(game, 3, cash=Decimal("200"))  # 120, change 80
    services.game_close_sales(game=game)
    with transaction.atomic():
        locked = locks.game_lock(game_id=game.pk)
        draw_services.game_refund_all(game=locked, user=walk.caller, reason="the blower failed (R55)")

    closed = drawer_services.drawer_close(shift=shift, cashier=walk.cashier, counted_cash=FLOAT)

    assert (closed.net_sales, closed.refunds) == (Decimal("120.00"), Decimal("120.00"))
    assert closed.expected_cash == FLOAT
    assert closed.over_short == 0


@pytest.mark.postgres
@pytest.mark.parametrize(
    "statement",
    [
        # Born closed, with figures that add up: a close-out no cashier made.
        "INSERT INTO bingo_drawershift (cash_desk_id, opened_by_id, opened_at, opening_float, closed_by_id,"
        " closed_at, note, cash_received, change_given, net_sales, prizes_gross, tax_withheld, prizes_net,"
        " deposits, withdrawals, refunds, expected_cash, counted_cash, over_short)"
        " VALUES (%(desk)s, %(user)s, now(), 0, %(user)s, now(), '', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)",
        # Backdated, to cover sales another drawer counted.
        "INSERT INTO bingo_drawershift (cash_desk_id, opened_by_id, opened_at, opening_float, note)"
        " VALUES (%(desk)s, %(user)s, now() - interval '1 day', 0, '')",
    ],
    ids=["born-closed", "backdated"],
)
def test_postgresql_refuses_a_drawer_born_closed_or_backdated(walk: Walk, statement: str) -> None:
    postgresql_only("the triggers are PostgreSQL's")
    with (
        pytest.raises(IntegrityError, match="opened now, open"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(statement, {"desk": walk.desk.pk, "user": walk.cashier.pk})
    assert not DrawerShift.objects.exists()


@pytest.mark.postgres
def test_postgresql_refuses_a_close_stamped_away_from_now(walk: Walk) -> None:
    postgresql_only("the triggers are PostgreSQL's")
    shift = walk.open()
    with pytest.raises(IntegrityError, match="never deleted, nor changed once closed"), transaction.atomic():
        drawer_services.drawer_close(
            shift=shift, cashier=walk.cashier, counted_cash=FLOAT, now=timezone.now() + timedelta(days=2)
        )
    assert DrawerShift.objects.get(pk=shift.pk).closed_at is None
