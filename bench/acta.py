"""Acta benchmark: a 200-game session's export, its integrity check and its PDF.

Target on a 2-core machine: the acta of a 200-game session to PDF in under 1 s (issue [B]).

Setup, not timed: a 200-game session run through the real simulation service
(``bingo.games.simulation.session_simulate``) with everything an acta records: the four variants
in turn, a game suspended and annulled with its refunds, a player's complaint and its decision,
a ball replaced. It runs on a throwaway test database of the configured one (PostgreSQL when
DATABASE_URL is set, created and dropped here), or times an existing session with
``--session ID`` (on the configured database itself, nothing built or dropped). Django's debug
mode is off on the throwaway database, as in production.

Timed, each over several runs (min, median, P95, in milliseconds; the figures go to
bench/results.json, bench/results.py):

* ``session_export_data`` for the whole session (what ``manage.py session_export`` writes), and
  the queries it makes (a fixed number whatever the number of games, issue 23: target < 0.3 s);
* ``actas.selectors.acta_verify`` (what ``manage.py acta_verify`` runs);
* the acta PDF: ``actas.selectors.acta_document`` and ``actas.pdf.render_acta_pdf``.

Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/bingo python bench/acta.py [--games 200] [--repeat 7]
"""

from __future__ import annotations

import argparse
import io
import os
import pathlib
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")

import django

django.setup()

from django.db import connection, reset_queries  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402
from django.utils import translation  # noqa: E402

from actas import pdf as acta_pdf  # noqa: E402
from actas import selectors as acta_selectors  # noqa: E402
from bench.results import record, spread  # noqa: E402
from bingo.engine.variants import Variant  # noqa: E402
from bingo.games.exports import session_export_data  # noqa: E402
from bingo.games.simulation import SimulationPlan, session_simulate  # noqa: E402
from bingo.models import Session  # noqa: E402


def timed(label: str, fn: Callable[[], object], repeat: int) -> dict[str, float | int]:
    """Run ``fn`` once to warm up, then ``repeat`` times; print and return min, median and P95
    in ms."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    ms = spread(times)
    print(f"{label:<44} min {ms['min']:8.1f} ms   median {ms['median']:8.1f} ms   P95 {ms['p95']:8.1f} ms")
    return ms


def build(games: int, cards: int) -> Session:
    """A ``games``-game session with every kind of record an acta holds (untimed)."""
    plan = SimulationPlan(
        variant=Variant.B90,
        variants=(Variant.B90, Variant.B80, Variant.B75, Variant.B30),
        games=games,
        cashiers=2,
        cards=cards,
        seed=2026,
        jackpot_balls=50,
        annul=min(3, games),
        complaint=min(2, games),
        replace_ball=True,
    )
    start = time.perf_counter()
    session = session_simulate(plan=plan)
    seconds = time.perf_counter() - start
    print(f"built session {session.pk}: {games} games of {cards} cards in {seconds:.1f} s (not timed below)")
    return session


def measure(session: Session, repeat: int, setup: dict[str, Any]) -> None:
    verified = acta_selectors.acta_verify(session=session)
    games = Session.objects.get(pk=session.pk).games.count()
    print(
        f"session {session.pk}: {games} games; acta: {verified.entries} entries, {verified.notes} notes, "
        f"{'intact' if verified.intact else 'NOT INTACT'}; database: {connection.vendor}; {repeat} runs"
    )
    reset_queries()  # the build filled the query log: a full one counts nothing new
    with CaptureQueriesContext(connection) as queries:
        session_export_data(session=session)
    figures: dict[str, Any] = {"session_export_queries": len(queries)}
    figures["session_export_ms"] = timed(
        f"session_export_data (whole session, {len(queries)} queries)",
        lambda: session_export_data(session=session),
        repeat,
    )
    figures["acta_verify_ms"] = timed(
        "acta_verify", lambda: acta_selectors.acta_verify(session=session), repeat
    )

    pages: list[int] = []

    def render(document: Any) -> None:
        out = io.BytesIO()
        with translation.override("pt"):
            pages.append(acta_pdf.render_acta_pdf(document, out))

    figures["acta_pdf_ms"] = timed(
        "acta PDF (acta_document + render_acta_pdf)",
        lambda: render(acta_selectors.acta_document(session=session)),
        repeat,
    )
    print(f"  {pages[-1]} pages (target: under 1 s for 200 games)")
    record("acta", figures, setup={**setup, "games": games, "database": connection.vendor})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--cards", type=int, default=90, help="cards sold in each game")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--session", type=int, help="time this existing session of the configured database")
    args = parser.parse_args()
    if args.session is not None:
        measure(Session.objects.get(pk=args.session), args.repeat, {"session": args.session})
        return
    setup_test_environment(debug=False)  # as in production: no query log kept
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        measure(build(args.games, args.cards), args.repeat, {"cards": args.cards})
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
