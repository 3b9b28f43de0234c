"""What the acta must state (R61 a)-m)), item by item, as the screen and the PDF show it.

Rule 61 lists thirteen things an acta states. The acta's data (``actas.selectors.acta_document``)
holds them spread over the session, its games, its notes and its ball sets; ``acta_r61_items``
gathers them into the rule's order, one item each, whether or not anything happened: an item
with no values is stated as none («nenhuma»), so an inspector can tell "none" from "left out".

It is a pure function of that data, called by both renderers (the screen's view and
``actas.pdf``) in the language they render in, so the two cannot disagree. Its texts go through
gettext there and then: the PDF is always in Portuguese (R54), the screen in the reader's
language. Times are the hall's (the data's ISO 8601 keeps its offset), money as the acta prints
it ("1500.00 CVE").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any, TypedDict

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from bingo.common.money import money_display

Data = Mapping[str, Any]


class R61Item(TypedDict):
    """One item of R61: its letter, what the rule calls it, what this session states for it (an
    empty list when nothing of it happened) and how "nothing" is said for it."""

    item: str
    label: str
    values: list[str]
    none: str


def when_text(value: object) -> str:
    """An ISO 8601 time of the acta's data as the hall reads it: day/month/year
    hours:minutes:seconds (the hall's time zone is stated once, on the acta's head); "—" for none."""
    if not value:
        return "—"
    try:
        return f"{datetime.fromisoformat(str(value)):%d/%m/%Y %H:%M:%S}"
    except ValueError:
        return str(value)


def money_text(value: object, currency: str) -> str:
    """An amount of the acta's data (a string with two decimals, as the export writes money) as
    the acta prints it: "1500.00 CVE"; "—" for none."""
    return "—" if value is None else money_display(Decimal(str(value)), currency)


def _nothing() -> str:
    # R61: "nenhuma" rather than a blank, so that none is told from left out.
    return pgettext("an item of R61 of which nothing happened", "none")


def acta_r61_items(acta: Data) -> list[R61Item]:
    """The thirteen items of R61 for ``acta`` (``acta_document``'s data), in the rule's order,
    each with its values for this session; an item with no values is stated as its ``none``."""
    session: Data = acta["session"]
    currency = str(acta["hall"].get("currency", ""))
    totals: Data = acta.get("totals") or {}
    games: list[Data] = [entry["game"] for entry in acta.get("entries", [])]
    notes: Sequence[Data] = acta.get("notes", [])
    end = when_text(session["end"]) if session.get("end") else _("session still open")

    def item(letter: str, label: str, values: Iterable[str], none: str | None = None) -> R61Item:
        return {"item": letter, "label": label, "values": list(values), "none": none or _nothing()}

    return [
        item("a", _("Session start time"), [when_text(session.get("start"))]),
        item("b", _("Order number of each series"), _series_order_numbers(games)),
        item("c", _("Card prices"), _series_prices(games, currency), _("no series sold")),
        item("d", _("Card numbers sold"), _cards_sold(games), _("no card sold")),
        item("e", _("Total collected"), [money_text(totals.get("collected", "0.00"), currency)]),
        item("f", _("Amounts paid for line and for bingo"), _paid(totals, currency)),
        item("g", _("Tax withheld"), _tax(totals, currency)),
        item("h", _("Session end time"), [end]),
        item("i", _("Annulled games and their reasons"), _annulled(games)),
        item("j", _("Players' complaints and the decision taken"), _complaints(notes)),
        item("k", _("Ball-set replacements"), _replacements(acta.get("ball_replacements", []))),
        item("l", _("Equipment failures"), _noted(notes, "equipment_failure")),
        item(
            "m",
            _("Occurrences that may involve an administrative or criminal offence"),
            _noted(notes, "occurrence"),
        ),
    ]


def _sold(games: Iterable[Data]) -> list[tuple[Data, Data]]:
    """Each game's series that sold cards, with the game, in the order recorded."""
    return [
        (game, series)
        for game in games
        for series in game.get("series_sold", [])
        if series.get("last_card_sold") is not None
    ]


def _series_order_numbers(games: Iterable[Data]) -> list[str]:
    """R61 b): each series that sold cards in the session, once, by its order number (R16)."""
    seen: dict[object, str] = {}
    for _game, series in _sold(games):
        seen.setdefault(
            series["order_number"],
            _("n.º %(order)s (series %(label)s)")
            % {"order": series["order_number"], "label": series["label"]},
        )
    return list(seen.values())


def _series_prices(games: Iterable[Data], currency: str) -> list[str]:
    """R61 c): the price of each series that sold cards, once, the series by its name (J-1); its
    order number is item b)'s."""
    seen: dict[tuple[object, object], str] = {}
    for _game, series in _sold(games):
        seen.setdefault(
            (series["order_number"], series["price"]),
            _("series %(label)s: %(price)s")
            % {"label": series["label"], "price": money_text(series["price"], currency)},
        )
    return list(seen.values())


def _cards_sold(games: Iterable[Data]) -> list[str]:
    """R61 d): the card numbers each game sold, a range per series."""
    return [
        _("game %(game)s, series %(label)s: cards n.º %(first)s to n.º %(last)s")
        % {
            "game": game["number"],
            "label": series["label"],
            "first": series["first_card_sold"],
            "last": series["last_card_sold"],
        }
        for game, series in _sold(games)
    ]


def _paid(totals: Data, currency: str) -> list[str]:
    """R61 f): what the session paid for the line and for the bingo (and other prizes, if any)."""
    paid = [
        f"{_('Line')}: {money_text(totals.get('paid_line', '0.00'), currency)}",
        f"{_('Bingo')}: {money_text(totals.get('paid_bingo', '0.00'), currency)}",
    ]
    if totals.get("paid_other") not in (None, "0.00"):
        paid.append(f"{_('Other prizes')}: {money_text(totals['paid_other'], currency)}")
    return paid


def _tax(totals: Data, currency: str) -> list[str]:
    """R61 g): the tax withheld from the prizes paid; and, while prizes awarded are not all paid
    yet, what their payment will withhold, so that 0.00 withheld does not read as no tax."""
    withheld = totals.get("tax_withheld", "0.00")
    tax = [money_text(withheld, currency)]
    if totals.get("tax_due") not in (None, withheld):
        tax.append(
            _("due on the prizes awarded: %(amount)s") % {"amount": money_text(totals["tax_due"], currency)}
        )
    return tax


def _annulled(games: Iterable[Data]) -> list[str]:
    """R61 i): each annulled game and why."""
    return [
        _("game %(number)s: %(reason)s")
        % {"number": game["number"], "reason": game.get("state_reason") or "—"}
        for game in games
        if game.get("state") == "annulled"
    ]


def _noted(notes: Iterable[Data], kind: str) -> list[str]:
    """R61 l), m): each note of ``kind``, when and where, what happened and the measure taken."""
    shown = []
    for note in notes:
        if note.get("kind") != kind:
            continue
        text = _note_head(note)
        if note.get("decision"):
            text += " — " + _("Measure taken: %(decision)s") % {"decision": note["decision"]}
        shown.append(text)
    return shown


def _complaints(notes: Iterable[Data]) -> list[str]:
    """R61 j): each player's complaint with the decision taken on it, on the spot or later, or
    that it is pending."""
    shown = []
    for note in notes:
        if note.get("kind") != "complaint":
            continue
        decisions = (
            [_("Decision: %(decision)s") % {"decision": note["decision"]}] if note.get("decision") else []
        )
        decisions += [
            _("Decision of %(at)s by %(by)s: %(decision)s")
            % {"at": when_text(d.get("at")), "by": d.get("by") or "—", "decision": d.get("decision")}
            for d in note.get("decisions", [])
        ]
        shown.append(" — ".join([_note_head(note), *(decisions or [_("decision pending")])]))
    return shown


def _note_head(note: Data) -> str:
    """A note as R61 j), l), m) state it: when, the game if it concerns one, and what happened."""
    if note.get("game"):
        return _("%(at)s, game %(game)s: %(text)s") % {
            "at": when_text(note.get("at")),
            "game": note["game"],
            "text": note.get("text", ""),
        }
    return _("%(at)s: %(text)s") % {"at": when_text(note.get("at")), "text": note.get("text", "")}


def _replacements(replacements: Iterable[Data]) -> list[str]:
    """R61 k): each ball or ball set replaced during the session, when, why and by whom."""
    shown = []
    for r in replacements:
        what = (
            _("set %(set)s replaced by set %(by)s") % {"set": r["ball_set"], "by": r["replacement_set"]}
            if r.get("replacement_set")
            else _("ball %(ball)s of set %(set)s") % {"ball": r.get("ball_number"), "set": r["ball_set"]}
        )
        text = f"{when_text(r.get('at'))}: {what}; {r.get('reason', '')}"
        if r.get("repeated"):
            text += " — " + _("replaced again in this session: %(why)s") % {"why": r.get("repeat_reason")}
        shown.append(f"{text} ({r.get('by') or '—'})")
    return shown
