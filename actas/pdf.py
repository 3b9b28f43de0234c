"""The acta of a session as a PDF (R58-R61): what the regulator's inspector reads and the manager
and the caller sign.

The input is the acta's plain data (``actas.selectors.acta_document``, the same data the JSON
download gives): the session, every recorded game in order with its content (the
``session_export`` form of that game) and its place in the hash chain, the notes (complaints and
the decision taken, equipment failures, occurrences), the ball replacements, the fate of the
cards (R51-R52), the latest receipt the operator's key signed, and the chain's final hash. After
the first page's summary, every item R61 says the acta states, a) to m), each with its values or
«nenhuma» (``actas.r61``, which the screen renders too). Nothing here reads the database, so no
lock is held while rendering.

Every page carries the hall, the session, "página N de M" and the chain's final hash, so a
page taken out of the acta still says which acta and which state of it it belongs to. The
labels go through gettext: the caller renders in Portuguese (R54) with
``translation.override("pt")``. The pages are written by the common page writer
(``bingo.common.pdf``): a line at a time straight on the canvas, a 200-game session in a
fraction of a second (bench/acta.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, BinaryIO

from django.utils.translation import gettext as _
from reportlab.lib.units import mm

from actas.r61 import acta_r61_items
from actas.r61 import money_text as _money
from actas.r61 import when_text as _when
from bingo.common.clock import zone_name
from bingo.common.patterns import pattern_shown
from bingo.common.pdf import FONT_BOLD, FONT_MONO, LABEL_WIDTH, LEADING, PageWriter, page_writer

Data = Mapping[str, Any]

#: How far an R61 item's values sit under its name.
R61_INDENT = 6 * mm


def _kind(kind: str) -> str:
    return {
        "line": _("Line"),
        "bingo": _("Bingo"),
        "four_corners": _("Four corners"),
        "column": _("Column"),
        "jackpot": _("Jackpot"),
    }.get(kind, kind)


def _state(state: str) -> str:
    return {"finished": _("Finished"), "annulled": _("Annulled")}.get(state, state)


def _note_kind(kind: str) -> str:
    return {
        "complaint": _("Player's complaint"),
        "equipment_failure": _("Equipment failure"),
        "occurrence": _("Occurrence that may involve an offence"),
    }.get(kind, kind)


def _cards(cards: Iterable[Mapping[str, Any]]) -> str:
    return ", ".join(
        _("series %(series)s card %(card)s") % {"series": card["series"], "card": card["card"]}
        for card in cards
    )


def _card_list(cards: Iterable[Mapping[str, Any]]) -> str:
    """Cards as the acta lists them: "série 7 n.º 1 a 40", "série 7 n.º 52", by series."""
    shown = []
    for card in cards:
        if "first" in card:
            shown.append(
                _("series %(series)s n.º %(first)s to %(last)s")
                % {"series": card["series"], "first": card["first"], "last": card["last"]}
            )
        else:
            card_text = _("series %(series)s card %(card)s")
            shown.append(card_text % {"series": card["series"], "card": card["card"]})
    return "; ".join(shown)


def _game(w: PageWriter, entry: Data, currency: str) -> None:
    """One recorded game: its state, sales, prize plan and balls, its prizes and money, and its
    place in the chain."""
    game: Data = entry["game"]
    w.heading(
        _("Game %(number)s — %(variant)s balls — %(state)s")
        % {"number": game["number"], "variant": game["variant"], "state": _state(str(game["state"]))}
    )
    if game.get("state_reason"):
        w.field(
            _("Why annulled (R61 i)") if game["state"] == "annulled" else _("Reason"), game["state_reason"]
        )
    _game_sales(w, game, currency)
    _game_draw(w, game, currency)
    _game_money(w, game, entry.get("paid") or {}, currency)
    w.field(_("Recorded"), f"{_when(entry.get('recorded_at'))} {entry.get('recorded_by') or ''}".strip())
    w.field(_("Entry hash (SHA-256)"), entry.get("content_hash"), font=FONT_MONO)
    w.gap()


def _game_sales(w: PageWriter, game: Data, currency: str) -> None:
    """The game's sales (R61 b-e): when, each series sold and its price, the cards and the takings."""
    w.field(
        _("Sales opened / closed"),
        f"{_when(game.get('sales_opened_at'))} / {_when(game.get('sales_closed_at'))}",
    )
    w.field(_("Ended"), _when(game.get("finished_at")))
    for series in game.get("series_sold", []):
        sold = (
            _("cards n.º %(first)s to n.º %(last)s")
            % {"first": series["first_card_sold"], "last": series["last_card_sold"]}
            if series.get("last_card_sold") is not None
            else _("no card sold")
        )
        w.field(
            _("Series %(label)s (order n.º %(order)s)")
            % {"label": series["label"], "order": series["order_number"]},
            _("price %(price)s; %(sold)s") % {"price": _money(series["price"], currency), "sold": sold},
        )
    w.field(
        _("Cards sold / total collected"),
        f"{game.get('cards_sold', 0)} / {_money(game.get('total_collected'), currency)}",
    )
    if game.get("double_cards"):
        w.field(
            _("Double cards (R15)"),
            _("game %(which)s, with game %(other)s")
            % {"which": game["double_cards"].get("game"), "other": game["double_cards"].get("other_game")},
        )


def _game_draw(w: PageWriter, game: Data, currency: str) -> None:
    """The game's prize plan, the ball set it used, the balls in order and each prize awarded."""
    plan = game.get("prize_plan") or {}
    shares = ", ".join(f"{_kind(kind)} {share} %" for kind, share in (plan.get("shares") or {}).items())
    w.field(
        _("Prize plan (R7)"),
        _("%(shares)s of %(base)s") % {"shares": shares, "base": _money(game.get("prize_base"), currency)},
    )
    # R61, R73 b): the pattern the bingo was, named and drawn as the game stored it.
    pattern = pattern_shown(plan.get("win_rules"))
    if pattern is not None:
        w.field(
            _("Bingo pattern (R73 b))"),
            f"{pattern['name']} ({pattern['key']}): {'/'.join(pattern['rows'])}",
            font=FONT_MONO,
        )
    if game.get("ball_set"):
        ball_set = game["ball_set"]
        w.field(
            _("Ball set used (R22-R25)"),
            _("%(serial)s, its game n.º %(count)s")
            % {"serial": ball_set.get("serial_number"), "count": ball_set.get("games_played")},
        )
    balls = game.get("balls") or []
    w.field(
        _("Balls drawn, in order (%(count)d)") % {"count": len(balls)},
        " ".join(str(b) for b in balls),
        font=FONT_MONO,
    )
    for prize in game.get("prizes", []):
        w.field(
            _("%(kind)s at ball %(ball)s")
            % {"kind": _kind(str(prize["kind"])), "ball": prize.get("ball_count")},
            _("%(total)s: %(each)s each to %(cards)s; remainder %(remainder)s")
            % {
                "total": _money(prize.get("total"), currency),
                "each": _money(prize.get("amount_each"), currency),
                "cards": _cards(prize.get("winning_cards", [])),
                "remainder": _money(prize.get("remainder"), currency),
            },
        )
        if prize.get("tax_each") not in (None, "0.00"):
            w.field(_("Tax on each share"), _money(prize["tax_each"], currency))


def _game_money(w: PageWriter, game: Data, paid: Data, currency: str) -> None:
    """What the game paid (R61 f), its tax (R61 g), its jackpot and what it refunded."""
    if paid:
        w.field(
            _("Paid for line / bingo (R61 f)"),
            f"{_money(paid.get('line'), currency)} / {_money(paid.get('bingo'), currency)}",
        )
    w.field(
        _("Tax on the prizes, due / withheld (R61 g)"),
        f"{_money(game.get('tax_due'), currency)} / {_money(game.get('tax_withheld'), currency)}",
    )
    jackpot = game.get("jackpot")
    if jackpot:
        w.field(
            _("Jackpot"),
            _("before %(before)s, contribution %(contribution)s, paid %(paid)s, after %(after)s")
            % {
                "before": _money(jackpot.get("balance_before"), currency),
                "contribution": _money(jackpot.get("contribution"), currency),
                "paid": _money(jackpot.get("paid"), currency),
                "after": _money(jackpot.get("balance_after"), currency),
            },
        )
    if game.get("refunded") not in (None, "0.00"):
        w.field(_("Refunded"), _money(game["refunded"], currency))


def render_acta_pdf(acta: Data, out: BinaryIO) -> int:
    """Write ``acta`` (``actas.selectors.acta_document``'s data) as a PDF to ``out``; return the
    number of pages."""
    hall: Data = acta["hall"]
    session: Data = acta["session"]
    currency = str(hall.get("currency", ""))
    head = _("Acta — %(hall)s, %(room)s, session of %(start)s") % {
        "hall": hall["name"],
        "room": session.get("room", ""),
        "start": _when(session.get("start")),
    }
    final = acta.get("final_hash") or "—"
    w = page_writer(out, head=head, foot=_("Seal: %(hash)s") % {"hash": final}, author=str(hall["name"]))

    _summary(w, acta, currency, final)
    _r61(w, acta)
    entries: Sequence[Data] = acta.get("entries", [])
    w.title(_("Games"), size=11)
    for entry in entries:
        _game(w, entry, currency)
    _notes(w, acta.get("notes", []))
    _ball_replacements(w, acta.get("ball_replacements", []))
    _ball_set_checks(w, acta.get("ball_set_checks", []))
    _cards_destroyed(w, acta.get("cards_destroyed", []))

    w.title(_("Signatures"), size=11)
    w.signature(_("The manager"))
    w.signature(_("The caller"))
    return w.finish()


def _summary(w: PageWriter, acta: Data, currency: str, final: str) -> None:
    """The first page: the hall, the session (R61 a, h), its totals (R61 e-g) and its chain."""
    hall: Data = acta["hall"]
    session: Data = acta["session"]
    w.title(_("Acta of the bingo session"))
    w.field(_("Hall"), hall["name"])
    w.field(_("Room"), session.get("room"))
    w.field(_("Time zone"), zone_name(hall.get("time_zone") or ""))
    w.field(_("Session start (R61 a)"), _when(session.get("start")))
    w.field(
        _("Session end (R61 h)"), _when(session.get("end")) if session.get("end") else _("session still open")
    )
    w.field(_("Jackpot within (balls, R9)"), session.get("jackpot_balls"))
    totals: Data = acta.get("totals") or {}
    if totals:
        w.field(_("Total collected (R61 e)"), _money(totals.get("collected"), currency))
        w.field(
            _("Paid for line / bingo (R61 f)"),
            f"{_money(totals.get('paid_line'), currency)} / {_money(totals.get('paid_bingo'), currency)}",
        )
        if totals.get("paid_other") not in (None, "0.00"):
            w.field(_("Paid for other prizes"), _money(totals.get("paid_other"), currency))
        w.field(
            _("Tax on the prizes, due / withheld (R61 g)"),
            f"{_money(totals.get('tax_due'), currency)} / {_money(totals.get('tax_withheld'), currency)}",
        )
        w.field(_("Refunded (R55, R57)"), _money(totals.get("refunded"), currency))
    w.field(_("Games recorded"), len(acta.get("entries", [])))
    chains: Data = acta.get("chains") or {}
    w.field(_("Last hash of the games"), chains.get("entries"), font=FONT_MONO)
    w.field(_("Last hash of the notes"), chains.get("notes"), font=FONT_MONO)
    w.field(_("Seal of the acta (SHA-256)"), final, font=FONT_MONO)
    _receipt_signed(w, acta)


def _receipt_signed(w: PageWriter, acta: Data) -> None:
    """The latest receipt the operator's key signed (docs/acta.md, «Signed receipts»): its number,
    time, key and seal, which a copy of the receipt kept elsewhere confirms; and each change of
    that key the acta recorded."""
    receipts: Sequence[Data] = acta.get("receipts", [])
    if not receipts:
        w.field(_("Latest signed receipt"), _("none signed yet"))
    else:
        last = receipts[-1]
        w.field(
            _("Latest signed receipt"),
            _("n.º %(number)s of %(at)s, key %(key)s")
            % {"number": last["number"], "at": _when(last.get("signed_at")), "key": last.get("key_id")},
        )
        w.field(_("Seal it signed"), last.get("seal"), font=FONT_MONO)
    for change in acta.get("signing_keys_changed", []):
        w.field(
            _("Signing key changed"),
            _("%(at)s: key %(before)s replaced by key %(after)s")
            % {
                "at": _when(change.get("at")),
                "before": (change.get("previous_key") or {}).get("key_id"),
                "after": (change.get("key") or {}).get("key_id"),
            },
        )


def _r61(w: PageWriter, acta: Data) -> None:
    """Every item R61 says the acta states, a) to m), whether or not it happened: each item's
    values, or that there was none («nenhuma»), as the screen shows them (``actas.r61``)."""
    w.title(_("What the acta must state (R61)"), size=11)
    for item in acta_r61_items(acta):
        w.room(LEADING * 2)  # an item's name starts on the page that shows its first value
        w.text(f"{item['item']}) {item['label']}", font=FONT_BOLD)
        for value in item["values"] or [item["none"]]:
            w.text(value, indent=R61_INDENT)
    w.gap()


def _notes(w: PageWriter, notes: Sequence[Data]) -> None:
    """The complaints with the decisions taken (R61 j), the failures and the occurrences."""
    w.title(_("Complaints, failures and occurrences"), size=11)
    if not notes:
        w.text(_("None recorded."))
    for note in notes:
        w.room(LEADING * 3)  # a note starts on the page that shows its text
        where = _("game %(number)s") % {"number": note["game"]} if note.get("game") else _("the session")
        w.field(_note_kind(str(note["kind"])), f"{_when(note.get('at'))} — {note.get('by') or '—'} — {where}")
        w.text(str(note.get("text", "")), indent=LABEL_WIDTH)
        decisions: Sequence[Data] = note.get("decisions", [])
        if note.get("kind") == "complaint":
            # R61 j): the decision taken, on the spot (with the complaint) or later (notes of its own).
            if note.get("decision"):
                w.text(_("Decision: %(decision)s") % {"decision": note["decision"]}, indent=LABEL_WIDTH)
            for decision in decisions:
                w.text(
                    _("Decision of %(at)s by %(by)s: %(decision)s")
                    % {
                        "at": _when(decision.get("at")),
                        "by": decision.get("by") or "—",
                        "decision": decision.get("decision"),
                    },
                    indent=LABEL_WIDTH,
                )
            if not note.get("decision") and not decisions:
                w.text(_("Decision: pending"), indent=LABEL_WIDTH)
        elif note.get("decision"):
            w.text(_("Measure taken: %(decision)s") % {"decision": note["decision"]}, indent=LABEL_WIDTH)


def _ball_replacements(w: PageWriter, replacements: Sequence[Data]) -> None:
    """The balls and ball sets replaced during the session (R61 k)."""
    w.title(_("Ball-set replacements (R61 k)"), size=11)
    if not replacements:
        w.text(_("None recorded."))
    for r in replacements:
        what = (
            _("set %(set)s replaced by set %(by)s") % {"set": r["ball_set"], "by": r["replacement_set"]}
            if r.get("replacement_set")
            else _("ball %(ball)s of set %(set)s") % {"ball": r.get("ball_number"), "set": r["ball_set"]}
        )
        reason = str(r.get("reason", ""))
        if r.get("repeated"):
            reason += " — " + _("replaced again in this session: %(why)s") % {"why": r.get("repeat_reason")}
        w.field(_when(r.get("at")), f"{what}; {reason} ({r.get('by') or '—'})")


def _ball_set_checks(w: PageWriter, checks: Sequence[Data]) -> None:
    """Every ball checked at the session's start and end (R23)."""
    w.title(_("Ball-set checks (R23)"), size=11)
    if not checks:
        w.text(_("None recorded."))
    for check in checks:
        phase = _("start of the session") if check.get("phase") == "start" else _("end of the session")
        result = (
            _("every ball OK")
            if check.get("result") == "ok"
            else _("faulty balls: %(balls)s")
            % {"balls": ", ".join(str(b) for b in check.get("faulty_balls", []))}
        )
        w.field(
            _when(check.get("at")), f"{check.get('ball_set')}, {phase}: {result} ({check.get('by') or '—'})"
        )


def _cards_destroyed(w: PageWriter, destroyed: Sequence[Data]) -> None:
    """The cards used: destroyed after each game (R51), kept as evidence, the winners after 8 days (R52)."""
    w.title(_("Cards used (R51-R52)"), size=11)
    if not destroyed:
        w.text(_("None recorded."))
    for record in destroyed:
        label = (
            _("Cards of game %(game)s destroyed (R51)")
            if record.get("kind") == "cards_destroyed"
            else _("Winning cards of game %(game)s destroyed after 8 days (R52)")
        ) % {"game": record.get("game")}
        w.field(label, f"{_when(record.get('at'))} — {record.get('by') or _('the system')}")
        cards: Data = record.get("cards") or {}
        for heading, key in (
            (_("destroyed"), "destroyed"),
            (_("kept as evidence for the regulator"), "evidence"),
            (_("winning cards kept"), "kept"),
        ):
            if cards.get(key):
                w.text(f"{heading}: {_card_list(cards[key])}", indent=LABEL_WIDTH)
        if record.get("text"):
            w.text(str(record["text"]), indent=LABEL_WIDTH)
