"""Printing benchmark: a K series (1,680 cards) to an A4 PDF, per variant, and the QR codes alone.

Prints, per variant, the first run (cold: fresh caches) and the minimum, median and P95 of the
runs after it in milliseconds, with page count and file size, and the ratio to the ReportLab reference:

* ReportLab reference — the same document (each page's operators and the card's form, recorded
  from one of our runs) written by a bare ReportLab canvas with ReportLab's defaults: what
  ReportLab itself takes to write these pages, with nothing of ours (no database read, no QR
  encoding, no operators formatted). Its default wraps every stream in ASCII85, which ours no
  longer does (bingo/common/pdf.py); the same replay without it, the floor of writing these
  bytes with ReportLab at all, is printed beside it, so neither ratio hides the other.

Targets on a 2-core machine (issue 23): 90-ball K series at most 1.0 times the reference, and
under 0.3 s. Figures go to bench/results.json (bench.results.record). Runs on an in-memory
SQLite database of its own (migrated at start), never on yours.

    python bench/print.py [--repeat N] [--variant 90 --variant 75 ...] [--out DIR]
"""

from __future__ import annotations

import argparse
import io
import os
import pathlib
import platform
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["DATABASE_URL"] = "sqlite://:memory:"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bingo.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from reportlab import rl_config  # noqa: E402
from reportlab.lib.pagesizes import A4  # noqa: E402
from reportlab.pdfgen.canvas import Canvas  # noqa: E402

from bench.results import record, spread  # noqa: E402
from bingo.engine import ALGORITHM_CARDS  # noqa: E402
from cards import services  # noqa: E402
from cards.models import Series  # noqa: E402
from cards.printing import pdf  # noqa: E402
from cards.printing.pdf import card_check_url, qr_matrices, qr_paths, render_series_pdf  # noqa: E402
from cards.selectors import card_check_code  # noqa: E402
from halls.models import Hall  # noqa: E402


class _Recorder(Canvas):  # type: ignore[misc]
    """A canvas that keeps what it wrote: the forms' and the pages' operators, the fonts."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.forms: list[tuple[str, tuple[float, float, float, float], str]] = []
        self.pages: list[str] = []

    def beginForm(self, name: str, lowerx: float, lowery: float, upperx: float, uppery: float) -> None:  # noqa: N802
        self._form = (name, (lowerx, lowery, upperx, uppery))
        super().beginForm(name, lowerx, lowery, upperx, uppery)

    def endForm(self, **extra: object) -> None:  # noqa: N802
        self.forms.append((*self._form, "\n".join(self._code)))
        super().endForm(**extra)

    def showPage(self) -> None:  # noqa: N802
        self.pages.append("\n".join(self._code))
        super().showPage()


def recorded_document(series: Series) -> _Recorder:
    """One of our runs of the whole series, recorded."""
    kept = pdf.Canvas
    pdf.Canvas = _Recorder
    try:
        recorder: _Recorder | None = None

        def keep(*args: object, **kwargs: object) -> _Recorder:
            nonlocal recorder
            recorder = _Recorder(*args, **kwargs)
            return recorder

        pdf.Canvas = keep  # type: ignore[assignment]
        render_series_pdf(series, 1, series.size, io.BytesIO())
    finally:
        pdf.Canvas = kept
    assert recorder is not None
    return recorder


def reference_write(recorded: _Recorder, *, ascii85: bool) -> tuple[float, int]:
    """Milliseconds for a bare ReportLab canvas to write the recorded document, and its size."""
    kept = rl_config.useA85
    rl_config.useA85 = int(ascii85)
    try:
        out = io.BytesIO()
        start = time.perf_counter()
        canvas = Canvas(out, pagesize=A4, pageCompression=1, invariant=1)
        for font in sorted(recorded._doc.fontMapping, key=recorded._doc.fontMapping.get):
            canvas._doc.getInternalFontName(font)
        for name, box, code in recorded.forms:
            canvas.beginForm(name, *box)
            canvas.addLiteral(code)
            canvas.endForm()
        for code in recorded.pages:
            canvas.addLiteral(code)
            canvas.showPage()
        canvas.save()
        return (time.perf_counter() - start) * 1000, out.tell()
    finally:
        rl_config.useA85 = kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--variant", action="append", choices=["90", "80", "75", "30"])
    parser.add_argument("--out", type=pathlib.Path, help="also write each PDF into this folder")
    args = parser.parse_args()
    variants = args.variant or ["90", "75", "80", "30"]

    call_command("migrate", verbosity=0)
    hall = Hall.objects.create(name="Salão de Bingo da Praia")
    load = os.getloadavg()[0]
    print(f"Python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}, load {load:.2f}")
    for order, variant in enumerate(variants, start=1):
        card_set = services.card_set_request(
            variant=variant, size=1680, seed=20170109, algorithm=ALGORITHM_CARDS, user=None
        )
        series = services.series_create(
            hall=hall,
            order_number=order,
            card_set=card_set,
            price="100.00",
            back_colour="#1E88E5",
            face_colour="#FDD835",
            user=None,
        )
        series = Series.objects.select_related("hall", "card_set").get(pk=series.pk)
        times, size, pages = [], 0, 0
        for _run in range(args.repeat + 1):  # the first run is cold: printed apart
            out = io.BytesIO()
            start = time.perf_counter()
            pages = render_series_pdf(series, 1, 1680, out)
            times.append((time.perf_counter() - start) * 1000)
            size = out.tell()
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / f"series-{variant}-K.pdf").write_bytes(out.getvalue())
        cold, times = times[0], times[1:]
        recorded = recorded_document(series)
        reference_write(recorded, ascii85=True)  # warm up
        reference = [reference_write(recorded, ascii85=True) for _run in range(args.repeat)]
        floor = [reference_write(recorded, ascii85=False) for _run in range(args.repeat)]
        ours, ref, low = spread(times), spread([t for t, _ in reference]), spread([t for t, _ in floor])
        ratio = ours["median"] / ref["median"]
        print(
            f"{variant}-ball K series {series.label}, 1,680 cards: {pages} pages, {size / 1e6:.2f} MB; "
            f"cold {cold:.0f} ms; min {ours['min']:.0f}, median {ours['median']:.0f}, "
            f"P95 {ours['p95']:.0f} ms"
        )
        print(
            f"   ReportLab reference (same document, ReportLab's defaults: ASCII85): "
            f"median {ref['median']:.0f} ms ({reference[0][1] / 1e6:.2f} MB) -> ours {ratio:.2f}x;"
            f" without ASCII85: median {low['median']:.0f} ms -> ours {ours['median'] / low['median']:.2f}x"
        )
        record(
            "print",
            {
                "ms": ours,
                "cold_ms": round(cold, 1),
                "reference_ms": ref,
                "reference_binary_ms": low,
                "ratio_to_reference": round(ratio, 3),
                "ratio_to_binary_reference": round(ours["median"] / low["median"], 3),
                "pages": pages,
                "bytes": size,
            },
            setup={"variant": variant, "cards": 1680},
        )

    payloads = [
        card_check_url(series_id=series.pk, number=n, code=card_check_code(series=series, number=n)).encode()
        for n in range(1, 1681)
    ]
    start = time.perf_counter()
    matrices = qr_matrices(payloads)
    encoded = time.perf_counter()
    qr_paths(matrices)
    drawn = time.perf_counter()
    print(
        f"of which QR codes (version {(matrices.shape[1] - 17) // 4}, {matrices.shape[1]} modules): "
        f"encode {(encoded - start) * 1000:.0f} ms, paths {(drawn - encoded) * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
