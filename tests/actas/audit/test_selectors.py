"""The audit trail (actas/audit/selectors.py): every action with who and when, filtered by hall,
person and time, another hall's invisible, pages by cursor (R61)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessLog
from django.utils import timezone, translation

from actas.audit.models import AuditEvent
from actas.audit.selectors import SOURCES, AuditCursor, AuditRow, audit_event_list
from bingo.games import services
from bingo.models import Ball, Sale
from tests.actas.world import AuditedHall
from tests.factories import two_halls

pytestmark = pytest.mark.django_db


praia, mindelo = two_halls(AuditedHall)


def everything(**filters: object) -> list[AuditRow]:
    with translation.override("en"):
        return audit_event_list(limit=500, **filters).rows  # type: ignore[arg-type]


def labels_by(rows: list[AuditRow], user_id: int) -> set[str]:
    return {row.label for row in rows if row.user_id == user_id}


def test_every_kind_of_action_shows_who_did_it(praia: AuditedHall) -> None:
    rows = everything(halls=[praia.hall])

    assert labels_by(rows, praia.manager.pk) == {
        "Opened the sales",
        "Closed the sales",
        "Resumed the game",
        "Annulled the game",
        "Refunded the sales",
        "Replaced balls",
        "Jackpot movement",
        "Closed the session",
    }
    assert labels_by(rows, praia.caller.pk) == {
        "Started the draw",
        "Drew a ball",
        "Checked a claim",
        "Awarded a prize",
        "Suspended the game",
        "Checked the ball set",
        "Failed login",
    }
    assert labels_by(rows, praia.cashier.pk) == {"Sold cards", "Paid a prize", "Logged in", "Logged out"}
    # The jackpot's automatic contributions, and the start-of-session check, name nobody.
    assert {row.who for row in rows if row.user_id is None} == {"the system"}


def test_rows_are_newest_first_with_the_times_of_their_records(praia: AuditedHall) -> None:
    rows = everything(halls=[praia.hall])

    assert [r.at for r in rows] == sorted((r.at for r in rows), reverse=True)
    balls = [r for r in rows if r.source == "ball"]
    assert {r.at for r in balls} == set(Ball.objects.values_list("drawn_at", flat=True))
    assert balls[-1].what.startswith(f"Ball {Ball.objects.get(position=1).number} at count 1")
    suspended = [r for r in rows if r.label == "Suspended the game"]
    assert [r.what for r in suspended] == ["power cut", "monitor failure"]
    assert all(r.game_number == praia.annulled.number for r in suspended)


def test_one_sale_request_is_one_row_with_its_cards_and_amount(praia: AuditedHall) -> None:
    sales = [r for r in everything(halls=[praia.hall]) if r.source == "sale"]

    assert len(sales) == Sale.objects.values("request_key").distinct().count() == 3
    assert sales[-1].what == "6 cards: A-1 1-6 (Caixa 1)"
    assert "600" in sales[-1].amount
    assert sales[-1].who == praia.cashier.get_full_name()


def test_a_sale_across_two_series_lists_both_ranges(praia: AuditedHall) -> None:
    first, second = praia.series(11), praia.series(12)
    earlier = praia.game(first)
    praia.sell(earlier, 10)
    services.game_close_sales(game=earlier)
    game = praia.game(first, second)  # A-11 from 11; A-12 then up to 10 (R38 c)
    praia.sell(game, 78)  # A-11 11-88
    praia.sell(game, 4)  # A-11 89-90, then A-12 1-2 (R38)

    newest = next(r for r in everything(halls=[praia.hall]) if r.source == "sale")

    assert newest.what == "4 cards: A-11 89-90; A-12 1-2 (Caixa 1)"


def test_another_halls_events_are_invisible(praia: AuditedHall, mindelo: AuditedHall) -> None:
    rows = everything(halls=[praia.hall])

    assert {r.hall_id for r in rows} == {praia.hall.pk, None}  # None: the logins, of its staff only
    people = {praia.manager.pk, praia.caller.pk, praia.cashier.pk, None}
    assert {r.user_id for r in rows} <= people
    assert everything(halls=[]) == []
    both = everything(halls=[praia.hall, mindelo.hall])
    assert len(both) == len(rows) + len(everything(halls=[mindelo.hall]))


def test_the_trail_narrows_to_one_person(praia: AuditedHall) -> None:
    rows = everything(halls=[praia.hall], user_id=praia.cashier.pk)

    assert {r.user_id for r in rows} == {praia.cashier.pk}
    assert {r.label for r in rows} == {"Sold cards", "Paid a prize", "Logged in", "Logged out"}


def test_the_trail_narrows_to_a_time_range(praia: AuditedHall) -> None:
    rows = everything(halls=[praia.hall])
    middle = rows[len(rows) // 2].at

    later = everything(halls=[praia.hall], since=middle)
    earlier = everything(halls=[praia.hall], until=middle)

    assert later
    assert earlier
    assert all(r.at >= middle for r in later)
    assert all(r.at < middle for r in earlier)
    assert len(later) + len(earlier) == len(rows)
    assert everything(halls=[praia.hall], since=timezone.now() + timedelta(minutes=1)) == []


@pytest.mark.parametrize("limit", [1, 3, 7])
def test_pages_by_cursor_return_every_event_once(praia: AuditedHall, limit: int) -> None:
    everyone = everything(halls=[praia.hall])
    seen: list[tuple[object, ...]] = []
    cursor = None
    for _page in range(len(everyone) + 1):
        page = audit_event_list(halls=[praia.hall], before=cursor, limit=limit)
        assert len(page.rows) <= limit
        seen.extend((r.at, r.source, r.pk) for r in page.rows)
        if page.next_cursor is None:
            break
        cursor = AuditCursor.parse(str(page.next_cursor))
    assert seen == [(r.at, r.source, r.pk) for r in everyone]
    assert len(set(seen)) == len(seen)


def test_rows_at_the_same_instant_are_paged_once(praia: AuditedHall) -> None:
    """Actions of several sources at one microsecond: the cursor's (time, source, id) order still
    splits them between pages without loss or repeat."""
    instant = timezone.now() - timedelta(days=1)
    for _ in range(3):
        AuditEvent.objects.create(hall=praia.hall, action="sales_opened", at=instant)
    for _ in range(2):
        login = AccessLog.objects.create(username=praia.manager.username, user_agent="t", path_info="/")
        AccessLog.objects.filter(pk=login.pk).update(attempt_time=instant)
    rows = everything(halls=[praia.hall], until=instant + timedelta(microseconds=1))
    seen = []
    cursor = None
    while True:
        page = audit_event_list(
            halls=[praia.hall], until=instant + timedelta(microseconds=1), before=cursor, limit=2
        )
        seen.extend(r.cursor for r in page.rows)
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == [r.cursor for r in rows]
    assert len(seen) == 5
    assert {c.at for c in seen} == {instant}


def test_a_cursor_is_refused_unless_the_trail_wrote_it() -> None:
    for text in ["", "x", "2026-01-01T00:00:00~nosuch~1", "2026-01-01T00:00:00~sale~1", "soon~sale~1"]:
        with pytest.raises(ValueError):
            AuditCursor.parse(text)
    cursor = AuditCursor(timezone.now(), "sale", 12)
    assert AuditCursor.parse(str(cursor)) == cursor


def test_a_page_costs_a_fixed_number_of_queries(praia: AuditedHall, django_assert_max_num_queries) -> None:
    # One query per source (14 before the wallet's deposits and withdrawals joined, 20 in all),
    # plus a fixed few: never a query per row.
    with django_assert_max_num_queries(len(SOURCES) + 6):
        audit_event_list(halls=[praia.hall], limit=50)
