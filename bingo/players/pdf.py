"""The player's statement as a PDF (R100, PT-806/65): the same games and totals as «O meu
histórico» and its CSV (``bingo.players.selectors.player_history``), on A4 pages numbered
"página N de M" like the acta's (the common page writer, ``bingo.common.pdf``). The page and the API
both call ``history_pdf_bytes``; ``render_history_pdf`` itself reads nothing from the database."""

from __future__ import annotations

import io
from datetime import date, datetime, tzinfo
from decimal import Decimal
from typing import BinaryIO

from django.utils import timezone
from django.utils.translation import gettext as _

from bingo.common.clock import hall_clock_text, hall_zone, zone_name
from bingo.common.money import money_display
from bingo.common.pdf import FONT_BOLD, LEADING, PageWriter, page_writer
from bingo.models import Player
from bingo.players.selectors import History, HistoryGame, player_history


def history_labels() -> dict[str, str]:
    """The words for a game's result and outcome."""
    return {
        "won": _("Won"),
        "lost": _("Lost"),
        "refunded": _("Refunded"),
        "pending": _("Not over yet"),
        "finished": _("Finished"),
        "annulled": _("Annulled, stake refunded"),
        "playing": _("In progress"),
    }


def history_pdf_bytes(
    *, player: Player, date_from: date | None = None, date_to: date | None = None, now: datetime | None = None
) -> bytes:
    """``player``'s statement between the hall's dates ``date_from`` and ``date_to`` as PDF bytes."""
    history = player_history(player=player, date_from=date_from, date_to=date_to)
    out = io.BytesIO()
    render_history_pdf(
        history, out, labels=history_labels(), date_from=date_from, date_to=date_to, now=now or timezone.now()
    )
    return out.getvalue()


def _money(value: Decimal, currency: str) -> str:
    """An amount as the statement prints it: "1500.00 CVE"."""
    return money_display(value, currency)


def render_history_pdf(
    history: History,
    out: BinaryIO,
    *,
    labels: dict[str, str],
    date_from: date | None = None,
    date_to: date | None = None,
    now: datetime,
) -> int:
    """Write ``history`` as the player's statement to ``out``; return the number of pages.
    ``labels`` names results and outcomes as the history page does."""
    zone = hall_zone(history.time_zone)
    user = history.player.user
    name = user.get_full_name() or user.get_username()
    head = _("Statement of %(player)s — %(hall)s") % {"player": name, "hall": history.player.hall.name}
    w = page_writer(
        out,
        head=head,
        foot=_("Issued %(when)s (%(tz)s)")
        % {"when": hall_clock_text(now, zone.key), "tz": zone_name(zone.key)},
        author=str(history.player.hall.name),
    )
    currency = history.currency

    w.title(_("Statement of online games"))
    w.field(_("Player"), f"{name} ({user.get_username()})")
    w.field(_("Operator"), history.player.hall.name)
    w.field(
        _("Dates"),
        _("%(from)s to %(to)s")
        % {
            "from": f"{date_from:%d/%m/%Y}" if date_from else _("the first game"),
            "to": f"{date_to:%d/%m/%Y}" if date_to else _("today"),
        },
    )
    w.field(_("Time zone"), zone_name(history.time_zone))
    w.gap()
    w.heading(_("Totals"))
    w.field(_("Games"), len(history.games))
    w.field(_("Staked"), _money(history.staked, currency))
    w.field(_("Won"), _money(history.won, currency))
    w.field(_("Refunded"), _money(history.refunded, currency))
    w.field(_("Net"), _money(history.net, currency))

    w.title(_("Games"), size=11)
    if not history.games:
        w.text(_("No games in these dates."))
    for line in history.games:
        _game(w, line, labels=labels, zone=zone, currency=currency)
    return w.finish()


def _game(w: PageWriter, line: HistoryGame, *, labels: dict[str, str], zone: tzinfo, currency: str) -> None:
    """One game of the statement: when and where, the cards, the prizes and the money."""
    w.room(LEADING * 5)  # a game's block starts on the page that shows it whole
    game = line.game
    w.text(
        _("%(at)s · %(room)s · game %(number)s (%(variant)s)")
        % {
            "at": f"{line.at.astimezone(zone):%d/%m/%Y %H:%M}",
            "room": game.session.room.name,
            "number": game.number,
            "variant": game.get_variant_display(),
        },
        font=FONT_BOLD,
    )
    w.text(_("Cards: %(count)s (%(numbers)s)") % {"count": line.cards, "numbers": line.numbers}, indent=8)
    prizes = "; ".join(f"{p.name} {_money(p.net, currency)}" for p in line.prizes) or "—"
    w.text(_("Prizes: %(prizes)s") % {"prizes": prizes}, indent=8)
    w.text(
        _("Staked %(staked)s · won %(won)s · refunded %(refunded)s · net %(net)s · %(result)s")
        % {
            "staked": _money(line.staked, currency),
            "won": _money(line.won, currency),
            "refunded": _money(line.refunded, currency),
            "net": _money(line.net, currency),
            "result": f"{labels[line.result]}, {labels[line.outcome]}",
        },
        indent=8,
    )
    w.gap(4)
