"""The player's play session (PT-803 g): started at login, ended at logout, when idle too long
(``PLAYER_IDLE_TIMEOUT``) or by the beat task, with its summary shown and kept (PT-806/67,
PT-803/39): staked, won, refunded and net from the wallet's real entries."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from bingo.models import PlaySession, WalletEntry
from bingo.playtime import selectors, services
from bingo.playtime.tasks import end_due_task
from tests.autodraw.helpers import Clock, OnlineHall, Tasks, close_sales, committed, next_game, online_buy
from tests.factories import DEFAULT_PASSWORD
from tests.playtime.helpers import client_for, play_game, player

pytestmark = pytest.mark.django_db


@pytest.fixture
def lobby(db: None) -> OnlineHall:
    hall = OnlineHall(sales_seconds=5, pause_seconds=0)
    hall.series(1, price="100.00")
    return hall


def _credits(made, kind: str) -> Decimal:
    return sum((e.amount for e in WalletEntry.objects.filter(player=made, kind=kind)), Decimal("0"))


def test_login_starts_and_logout_ends_the_session_with_its_summary_pt806_67(
    lobby: OnlineHall, clock: Clock, tasks: Tasks, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PT-806/67, PT-803/39: logging in with the form starts a play session; the POST logout
    ends it and shows what was staked, won and the net, from the wallet's entries."""
    ana, rui = player(lobby, "ana"), player(lobby, "rui")
    client = Client()
    page = client.post(reverse("login"), {"username": "ana", "password": DEFAULT_PASSWORD})
    assert page.status_code == 302
    session = PlaySession.objects.get(player=ana)
    assert (session.started_at, session.ended_at) == (clock.now, None)

    play_game(lobby, clock, tasks, [ana, rui], monkeypatch)
    play_game(lobby, clock, tasks, [ana], monkeypatch)  # ana's card wins this one
    clock.advance(60)
    out = client.post(reverse("logout"))
    assert out.status_code == 302
    assert out["Location"] == reverse("playtime:summary")
    session.refresh_from_db()
    won = _credits(ana, "prize")
    assert won > 0  # the second game was hers
    assert session.end_reason == "logout"
    assert session.ended_at == clock.now
    assert (session.staked, session.won, session.refunded, session.games) == (
        Decimal("200.00"),
        won,
        Decimal("0.00"),
        2,
    )
    assert session.net == won - Decimal("200.00")

    summary = client.get(out["Location"])
    html = summary.content.decode()
    assert summary.status_code == 200
    assert "A sua sessão de jogo terminou" in html
    assert f'data-staked="{session.staked}"' in html
    assert f'data-net="{session.net}"' in html
    assert 'data-games="2"' in html
    assert f'data-minutes="{(clock.now - session.started_at).seconds // 60}"' in html
    # Logged out: the player's pages send to the login page.
    assert client.get(reverse("playtime:sessions")).status_code == 302


def test_the_summary_counts_a_refund_of_an_annulled_game(
    lobby: OnlineHall, clock: Clock, tasks: Tasks
) -> None:
    """PT-806/67: a game annulled and refunded (R98) shows as refunded, the net nothing lost."""
    from bingo.faults import services as fault_services

    ana = player(lobby, "ana")
    session = services.play_session_start(player=ana)
    game = next_game(lobby, clock)
    online_buy(game, ana, 2)
    game = close_sales(clock, game)
    # R98: no ball drawn yet, a fault of the system makes the game null at once.
    committed(lambda: fault_services.online_game_fault(game=game, user=lobby.manager, reason="Falha"))
    ended = services.play_session_end(session=session, reason="logout")
    assert (ended.staked, ended.refunded, ended.won, ended.net, ended.games) == (
        Decimal("200.00"),
        Decimal("200.00"),
        Decimal("0.00"),
        Decimal("0.00"),
        1,
    )


def test_one_open_session_per_player_in_the_database(lobby: OnlineHall, clock: Clock) -> None:
    """A partial unique index: a second open session of the same player is refused; a second
    login (another device) joins the open one."""
    ana = player(lobby, "ana")
    first = services.play_session_start(player=ana)
    assert services.play_session_start(player=ana).pk == first.pk
    with pytest.raises(IntegrityError), transaction.atomic():
        PlaySession.objects.create(player=ana, started_at=clock.now, last_seen_at=clock.now)
    services.play_session_end(session=first, reason="logout")
    assert services.play_session_start(player=ana).pk != first.pk


def test_requests_touch_last_seen_at_most_once_a_minute(lobby: OnlineHall, clock: Clock) -> None:
    ana = player(lobby, "ana")
    client = client_for(ana)
    session = PlaySession.objects.get(player=ana)
    start = session.last_seen_at
    clock.advance(30)
    client.get(reverse("playtime:sessions"))
    session.refresh_from_db()
    assert session.last_seen_at == start
    clock.advance(40)
    client.get(reverse("playtime:sessions"))
    session.refresh_from_db()
    assert session.last_seen_at == clock.now


def test_an_idle_player_is_logged_out_on_the_next_request_and_sees_the_summary(
    lobby: OnlineHall, clock: Clock, settings
) -> None:
    """Idle longer than PLAYER_IDLE_TIMEOUT: the next request ends the session (timeout),
    logs the player out and shows its summary (PT-806/67); the time played stops at the last
    request seen."""
    settings.PLAYER_IDLE_TIMEOUT = 30 * 60
    ana = player(lobby, "ana")
    client = client_for(ana)
    clock.advance(10 * 60)
    assert client.get(reverse("online:lobby")).status_code == 200
    clock.advance(31 * 60)
    page = client.get(reverse("online:lobby"))
    assert page.status_code == 302
    assert page["Location"] == reverse("playtime:summary")
    session = PlaySession.objects.get(player=ana)
    assert session.end_reason == "timeout"
    assert selectors.played_seconds(session=session) == 10 * 60
    summary = client.get(page["Location"])
    assert "Inativo durante demasiado tempo" in summary.content.decode()
    assert client.get(reverse("online:lobby")).status_code == 302  # logged out
    # Logging in again opens a new session.
    client.force_login(ana.user)
    assert PlaySession.objects.filter(player=ana, ended_at__isnull=True).exclude(pk=session.pk).exists()


def test_the_api_answers_403_with_the_reason_once_the_session_timed_out(
    lobby: OnlineHall, clock: Clock, settings
) -> None:
    settings.PLAYER_IDLE_TIMEOUT = 30 * 60
    ana = player(lobby, "ana")
    client = client_for(ana)
    clock.advance(31 * 60)
    answer = client.get(reverse("api:player-playtime"))
    assert answer.status_code == 403
    assert answer.json()["end_reason"] == "timeout"
    assert client.get(reverse("playtime:summary")).status_code == 200


def test_the_beat_task_ends_idle_sessions_and_writes_their_summary(
    lobby: OnlineHall, clock: Clock, tasks: Tasks, settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The player never comes back: the task run every minute ends the session (timeout) and
    keeps its summary (PT-806/67)."""
    settings.PLAYER_IDLE_TIMEOUT = 30 * 60
    ana, bea = player(lobby, "ana"), player(lobby, "bea")
    client_for(ana)
    play_game(lobby, clock, tasks, [ana], monkeypatch)
    clock.advance(20 * 60)
    client_for(bea)  # bea logs in later: still active when the task runs
    clock.advance(11 * 60)
    assert end_due_task() == 1
    ended = PlaySession.objects.get(player=ana)
    assert ended.end_reason == "timeout"
    assert ended.staked == Decimal("100.00")
    assert ended.games == 1
    assert PlaySession.objects.get(player=bea).ended_at is None
    assert end_due_task() == 0  # idempotent


def test_sessions_page_and_api_list_past_sessions_with_their_summaries(
    lobby: OnlineHall, clock: Clock, tasks: Tasks, monkeypatch: pytest.MonkeyPatch
) -> None:
    """«As minhas sessões» and GET /api/players/me/sessions/ keep every summary (PT-806/67);
    the dashboard links to the page; another player's sessions never show."""
    ana, rui = player(lobby, "ana"), player(lobby, "rui")
    client = client_for(ana)
    play_game(lobby, clock, tasks, [ana, rui], monkeypatch)
    client.post(reverse("logout"))
    client.force_login(ana.user)
    client_for(rui).post(reverse("logout"))
    ended = PlaySession.objects.get(player=ana, ended_at__isnull=False)

    dashboard = client.get(reverse("dashboard-player")).content.decode()
    assert reverse("playtime:sessions") in dashboard
    page = client.get(reverse("playtime:sessions"))
    html = page.content.decode()
    assert page.status_code == 200
    assert "As minhas sessões" in html
    assert f'data-session="{ended.pk}"' in html
    assert 'data-staked="100.00"' in html
    assert html.count('class="playtime-past"') == 1

    body = client.get(reverse("api:player-sessions")).json()
    assert body["count"] == 1
    assert body["current"]["session"] == PlaySession.objects.get(player=ana, ended_at__isnull=True).pk
    (line,) = body["results"]
    assert (line["id"], line["end_reason"], line["staked"], line["games"]) == (
        ended.pk,
        "logout",
        "100.00",
        1,
    )
    assert line["net"] == f"{ended.net:.2f}"


def test_only_players_reach_the_session_pages(lobby: OnlineHall, client_as) -> None:
    from bingo.common.roles import Role

    cashier = client_as(Role.CASHIER)
    assert cashier.get(reverse("playtime:sessions")).status_code == 403
    assert cashier.get(reverse("api:player-sessions")).status_code == 403
    assert not PlaySession.objects.exists()  # staff have no play session


def test_the_summary_is_never_shown_to_the_next_user_of_the_browser_pt806_67(
    lobby: OnlineHall, clock: Clock, tasks: Tasks, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PT-806/67: the summary is the player's own. Ana logs out on a shared browser (a hall's
    terminal); Rui logs in on it next: the summary page must not show him ana's stakes."""
    ana = player(lobby, "ana")
    player(lobby, "rui")
    client = Client()
    client.post(reverse("login"), {"username": "ana", "password": DEFAULT_PASSWORD})
    play_game(lobby, clock, tasks, [ana], monkeypatch)
    assert client.post(reverse("logout"))["Location"] == reverse("playtime:summary")
    ended = PlaySession.objects.get(player=ana)
    assert client.get(reverse("playtime:summary")).status_code == 200  # ana sees hers

    client.post(reverse("login"), {"username": "rui", "password": DEFAULT_PASSWORD})
    page = client.get(reverse("playtime:summary"))
    assert f'data-session="{ended.pk}"' not in page.content.decode()
    assert page.status_code == 302


def test_the_middleware_reads_nothing_of_players_on_staff_requests(lobby: OnlineHall, client_as) -> None:
    """Staff have no play session: the middleware must not cost a query on each of their
    requests (it asks the roles the page reads anyway)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from bingo.common.roles import Role

    manager = client_as(Role.MANAGER)
    manager.get(reverse("dashboard-manager"))
    with CaptureQueriesContext(connection) as queries:
        assert manager.get(reverse("dashboard-manager")).status_code == 200
    assert not [q["sql"] for q in queries.captured_queries if '"bingo_player"' in q["sql"]]
    assert not PlaySession.objects.exists()


def test_the_pages_own_polling_does_not_keep_an_idle_player_logged_in(
    lobby: OnlineHall, clock: Clock, settings
) -> None:
    """The lobby's script reads GET /api/players/me/playtime/ every 30 seconds by itself: a tab
    left open must not count as the player being there, or the idle timeout never comes and the
    session (and its summary, PT-806/67) never ends."""
    settings.PLAYER_IDLE_TIMEOUT = 30 * 60
    ana = player(lobby, "ana")
    client = client_for(ana)
    assert client.get(reverse("online:lobby")).status_code == 200
    for _ in range(31):
        clock.advance(60)
        answer = client.get(reverse("api:player-playtime"))
        if answer.status_code == 403:
            break
    assert answer.status_code == 403
    assert answer.json()["end_reason"] == "timeout"
    session = PlaySession.objects.get(player=ana)
    assert selectors.played_seconds(session=session) == 0
